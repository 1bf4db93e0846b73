"""The microphone: a 16 kHz mono input stream whose blocks carry the time they were captured, and recordings.

:class:`MicStream` opens PortAudio's default input (or ``device``) and hands out ``(t, block)`` pairs, ``t``
being the monotonic time of the block's first sample, so a voice-activity end-pointer
(:mod:`parley.audio.listen`) can say when speech really ended. :func:`record_utterance` records one turn to a
WAV file: until the ``stop`` event, until the speaker stops (voice activity, :mod:`parley.audio.vad`), or
``max_seconds``.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from parley.audio.devices import AudioUnavailable, check_input, import_sounddevice

__all__ = ["AudioUnavailable", "MicStream", "Recording", "level_of", "record_utterance", "turn_audio_path",
           "write_wav"]

SAMPLE_RATE = 16000
BLOCK_S = 0.032  # one Silero VAD window: the end of a turn is noticed within 32 ms
LATENCY_S = 0.1  # the input buffer (see MicStream.__enter__)


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


def turn_audio_path(session_id: object, turn_index: int, kind: str = "user") -> str:
    """Where a turn's audio goes: ``<data dir>/audio/<session>/<turn:04d>-<kind>.wav`` (folder created)."""
    from parley.engine.locations import turn_audio_path as path

    return str(path(session_id, turn_index, kind))


class MicStream:
    """The microphone as an iterator of ``(t, block)``; use ``with MicStream() as mic: for t, b in
    mic.blocks(stop)``.

    Raises :class:`AudioUnavailable` (one sentence) when there is no PortAudio, no microphone, or the device
    fails.
    """

    def __init__(self, *, device: Any = None, block_s: float = BLOCK_S) -> None:
        self.device = device
        self.block = int(SAMPLE_RATE * block_s)
        self._q: queue.Queue[tuple[float, np.ndarray]] = queue.Queue()
        self._stream: Any = None
        self.overflows = 0  # blocks PortAudio reported as overflowed (audio lost)

    def __enter__(self) -> MicStream:
        status = check_input()
        if not status.available:
            raise AudioUnavailable(status.reason or "no microphone")
        sd = import_sounddevice()

        def callback(indata: np.ndarray, frames: int, time_info: object, status_flags: object) -> None:
            now = time.monotonic()
            if status_flags and getattr(status_flags, "input_overflow", False):
                self.overflows += 1
            block = np.array(indata[:, 0] if indata.ndim == 2 else indata, dtype=np.float32, copy=True)
            self._q.put((now - _age(time_info, frames), block))

        try:
            # small blocks, a 0.1 s buffer. The buffer sets how often audio is handed over: through PulseAudio
            # (the rig) 0.5 s came in bursts every 160 ms, 60 ms late at the median and 124 ms at p90, which
            # delayed every end of turn; 0.1 s comes every 64 ms, 28 ms late (p90 53 ms), and still leaves a
            # callback more than 100 ms to come before audio is lost
            self._stream = sd.InputStream(samplerate=SAMPLE_RATE, channels=1, dtype="float32",
                                          blocksize=self.block, callback=callback, device=self.device,
                                          latency=LATENCY_S)
            self._stream.start()
        except Exception as e:
            self._stream = None
            raise AudioUnavailable(f"the microphone could not be opened ({_first_line(e)})") from None
        return self

    def __exit__(self, *exc: object) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort()
                stream.close()
            except Exception:  # noqa: BLE001 - the device may already be gone
                pass

    def blocks(self, stop: threading.Event, *, stall_s: float = 3.0) -> Iterator[tuple[float, np.ndarray]]:
        """Blocks as they arrive until ``stop`` is set; :class:`AudioUnavailable` if the device goes quiet."""
        last = time.monotonic()
        while not stop.is_set():
            try:
                item = self._q.get(timeout=0.05)
            except queue.Empty:
                if time.monotonic() - last > stall_s:
                    raise AudioUnavailable("the microphone stopped delivering audio") from None
                continue
            last = time.monotonic()
            yield item


def record_utterance(out_path: str, stop: threading.Event, on_level: Callable[[float], None] | None = None,
                     max_seconds: float = 30.0, vad: bool = True, end_silence_s: float = 0.5) -> Recording:
    """Record one user turn to ``out_path`` (16 kHz mono 16-bit WAV) and return it.

    Stops when ``stop`` is set, when speech has ended (``vad``: ``end_silence_s`` after the last voiced
    window), or after ``max_seconds``. Raises :class:`AudioUnavailable` with one clear sentence when there is
    no PortAudio or no microphone, or when the device fails while recording.
    """
    from parley.audio.vad import EndPointer, SileroStream

    vad_stream = SileroStream() if vad else None
    endpointer = EndPointer(end_silence_s=end_silence_s)
    chunks: list[np.ndarray] = []
    limit = int(max_seconds * SAMPLE_RATE)
    total = 0
    try:
        with MicStream() as mic:
            for _t, block in mic.blocks(stop):
                chunks.append(block)
                total += block.size
                if on_level is not None:
                    try:
                        on_level(level_of(block))
                    except Exception:  # a broken meter must not stop the recording
                        on_level = None
                if vad_stream is not None and any(e.kind == "end"
                                                  for e in endpointer.push(vad_stream(block))):
                    break
                if total >= limit:
                    break
    except AudioUnavailable:
        raise
    except Exception as e:
        raise AudioUnavailable(f"recording failed ({_first_line(e)})") from None
    audio = np.concatenate(chunks)[:limit] if chunks else np.zeros(0, dtype=np.float32)
    write_wav(out_path, audio)
    return Recording(path=str(out_path), seconds=round(audio.size / SAMPLE_RATE, 3), sample_rate=SAMPLE_RATE)


def write_wav(path: str | Path, audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> str:
    """Save float audio as 16-bit PCM WAV (parent folders created); returns the path."""
    import soundfile

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(p), np.clip(audio, -1.0, 1.0), int(sample_rate), subtype="PCM_16")
    return str(p)


def _age(time_info: Any, frames: int) -> float:
    """How long ago a block's first sample was captured: PortAudio's ADC time when the host API gives a sane
    one (steady under load), else the block's own length."""
    try:
        age = float(time_info.currentTime - time_info.inputBufferAdcTime)
    except Exception:  # noqa: BLE001 - no time information from this host API
        age = -1.0
    return age if 0.0 <= age < 1.0 else frames / SAMPLE_RATE


def _first_line(e: BaseException) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
