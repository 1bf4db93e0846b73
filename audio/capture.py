"""Push-to-talk recording from the microphone to a 16 kHz mono WAV, with end-of-speech detection.

:func:`record_utterance` blocks (run it in a worker thread) until the ``stop`` event is set (the key pressed a
second time), or — with ``vad=True`` — until :class:`EndPointer` hears the end of speech, or ``max_seconds``.
Levels (RMS scaled to 0..1) go to ``on_level`` about ten times a second; the caller coalesces them for a meter.

End-pointing is energy based with an adaptive noise floor (cheap, per 100 ms block): speech starts when a block
is well above the floor, and ends after ``end_silence_s`` of blocks back near it. Whisper's Silero VAD then
trims what is left when the recording is transcribed (:mod:`audio.asr`).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from parley.audio.devices import AudioUnavailable, check_input, import_sounddevice

__all__ = ["AudioUnavailable", "EndPointer", "Recording", "level_of", "record_utterance", "turn_audio_path"]

SAMPLE_RATE = 16000
BLOCK_S = 0.1


@dataclass(frozen=True)
class Recording:
    """A saved recording: WAV path, length in seconds, sample rate (16000)."""

    path: str
    seconds: float
    sample_rate: int


def level_of(block: np.ndarray) -> float:
    """RMS level of a block mapped to 0..1 for a meter (−60 dBFS → 0, 0 dBFS → 1)."""
    if block.size == 0:
        return 0.0
    rms = float(np.sqrt(np.mean(np.square(block, dtype=np.float64))))
    if rms <= 1e-6:
        return 0.0
    db = 20.0 * np.log10(rms)
    return float(min(1.0, max(0.0, (db + 60.0) / 60.0)))


class EndPointer:
    """Energy end-of-speech detector fed one block at a time; ``feed`` returns True once speech has ended."""

    def __init__(self, block_s: float = BLOCK_S, end_silence_s: float = 0.8, min_speech_s: float = 0.3,
                 ratio: float = 4.0, min_rms: float = 0.01) -> None:
        self.block_s = block_s
        self.end_blocks = max(1, round(end_silence_s / block_s))
        self.min_speech_blocks = max(1, round(min_speech_s / block_s))
        self.ratio = ratio
        self.min_rms = min_rms
        self.floor: float | None = None
        self.speech_blocks = 0
        self.silent_run = 0

    @property
    def heard_speech(self) -> bool:
        return self.speech_blocks >= self.min_speech_blocks

    def feed(self, block: np.ndarray) -> bool:
        rms = float(np.sqrt(np.mean(np.square(block, dtype=np.float64)))) if block.size else 0.0
        if self.floor is None:  # start low: the tester may speak from the first block
            self.floor = min(rms, self.min_rms / self.ratio)
        threshold = max(self.min_rms, self.floor * self.ratio)
        if rms >= threshold:
            self.speech_blocks += 1
            self.silent_run = 0
        else:
            # track the background: fast down, slow up, only while nobody speaks
            self.floor = min(rms, self.floor) if rms < self.floor else 0.95 * self.floor + 0.05 * rms
            if self.speech_blocks:
                self.silent_run += 1
        return self.heard_speech and self.silent_run >= self.end_blocks


def turn_audio_path(session_id: object, turn_index: int, kind: str = "user") -> str:
    """Where a turn's audio goes: ``<data dir>/audio/<session>/<turn:04d>-<kind>.wav`` (folder created)."""
    from parley.engine.locations import audio_dir

    folder = audio_dir() / str(session_id)
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"{int(turn_index):04d}-{kind}.wav")


def record_utterance(out_path: str, stop: threading.Event, on_level: Callable[[float], None] | None = None,
                     max_seconds: float = 30.0, vad: bool = True) -> Recording:
    """Record one user turn to ``out_path`` (16 kHz mono 16-bit WAV) and return it.

    Stops when ``stop`` is set, when speech has ended (``vad``), or after ``max_seconds``. Raises
    :class:`AudioUnavailable` with one clear sentence when there is no PortAudio or no microphone, or when the
    device fails while recording.
    """
    status = check_input()
    if not status.available:
        raise AudioUnavailable(status.reason or "no microphone")
    sd = import_sounddevice()
    blocks: queue.Queue[np.ndarray] = queue.Queue()
    block_len = int(SAMPLE_RATE * BLOCK_S)

    def callback(indata, frames, time_info, status_flags):  # type: ignore[no-untyped-def]
        blocks.put(np.array(indata[:, 0] if indata.ndim == 2 else indata, dtype=np.float32, copy=True))

    endpointer = EndPointer() if vad else None
    chunks: list[np.ndarray] = []
    total = 0
    limit = int(max_seconds * SAMPLE_RATE)
    try:
        stream = sd.InputStream(samplerate=SAMPLE_RATE, channels=1, dtype="float32", blocksize=block_len,
                                callback=callback)
    except Exception as e:
        raise AudioUnavailable(f"the microphone could not be opened ({_first_line(e)})") from None
    started = time.monotonic()
    ended_by_vad = False
    try:
        with stream:
            while not stop.is_set() and total < limit:
                try:
                    block = blocks.get(timeout=0.05)
                except queue.Empty:
                    if time.monotonic() - started > max_seconds + 2.0:  # the device stopped delivering
                        break
                    continue
                chunks.append(block)
                total += block.size
                if on_level is not None:
                    try:
                        on_level(level_of(block))
                    except Exception:  # a broken meter must not stop the recording
                        on_level = None
                if endpointer is not None and endpointer.feed(block):
                    ended_by_vad = True
                    break
    except AudioUnavailable:
        raise
    except Exception as e:
        raise AudioUnavailable(f"recording failed ({_first_line(e)})") from None
    while not ended_by_vad:  # after a push-to-talk stop, keep what arrived before the stream closed
        try:
            chunks.append(blocks.get_nowait())
        except queue.Empty:
            break
    audio = np.concatenate(chunks)[:limit] if chunks else np.zeros(0, dtype=np.float32)
    _write_wav(out_path, audio)
    return Recording(path=str(out_path), seconds=round(audio.size / SAMPLE_RATE, 3), sample_rate=SAMPLE_RATE)


def _write_wav(path: str, audio: np.ndarray) -> None:
    import soundfile

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(p), np.clip(audio, -1.0, 1.0), SAMPLE_RATE, subtype="PCM_16")


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
