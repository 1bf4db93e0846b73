"""Voice activity detection for end-pointing: Silero VAD (the ONNX model faster-whisper ships), streamed.

:class:`SileroStream` turns 16 kHz audio, fed in blocks of any size, into one speech probability per 32 ms
window (512 samples), carrying the model's recurrent state and the 64-sample context from one call to the
next, so feeding a recording block by block gives the same probabilities as faster-whisper's whole-array
``SileroVADModel`` (tests/unit/test_audio_vad.py checks it).

:class:`EndPointer` reads those probabilities and says where speech starts and where the turn ends: speech
starts after ``min_speech_s`` of windows at or above ``threshold``, and a turn ends once ``end_silence_s``
(default 0.5 s) has passed since the last window at or above ``neg_threshold`` (hysteresis as in
faster-whisper's VAD).

A turn may hold pauses (a speaker stopping to think). Whisper can end its transcript at a long one and drop
the words after it ("I'd like to book the A"), so before a turn is transcribed its silences longer than
``PAUSE_MS`` are shortened to ``2 * PAUSE_PAD_MS`` (:func:`has_long_pause`, :func:`pause_options`:
faster-whisper's own VAD filter does the cutting and maps the word times back). :func:`speech_probabilities`
gives the per-window probabilities of a whole recording, e.g. to check that words Whisper wrote were said
(:mod:`parley.audio.cleanup`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

SAMPLE_RATE = 16000
WINDOW = 512
CONTEXT = 64
_STATE = (1, 1, 128)
#: a silence inside a turn at least this long (ms) is shortened before Whisper hears it ...
PAUSE_MS = 400
#: ... to this much audio on either side of it (ms): 0.3 s of silence left, which Whisper reads through
PAUSE_PAD_MS = 150


def silero_session() -> Any:
    """faster-whisper's Silero VAD ONNX session (one per process, shared with its own VAD filter)."""
    from faster_whisper.vad import get_vad_model

    return get_vad_model().session


class SileroStream:
    """Speech probabilities of a 16 kHz stream, one per 512-sample window; ``reset()`` between recordings."""

    def __init__(self) -> None:
        self._session = silero_session()
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros(_STATE, dtype=np.float32)
        self._c = np.zeros(_STATE, dtype=np.float32)
        self._context = np.zeros(CONTEXT, dtype=np.float32)
        self._pending = np.zeros(0, dtype=np.float32)

    def __call__(self, audio: np.ndarray) -> np.ndarray:
        """Probabilities of the complete windows now available (leftover samples wait for the next call)."""
        buf = np.concatenate([self._pending, np.asarray(audio, dtype=np.float32).reshape(-1)])
        n = buf.size // WINDOW
        self._pending = buf[n * WINDOW:]
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        windows = buf[:n * WINDOW].reshape(n, WINDOW)
        contexts = np.vstack([self._context[None, :], windows[:-1, -CONTEXT:]])
        batch = np.concatenate([contexts, windows], axis=1)
        out, self._h, self._c = self._session.run(None, {"input": batch, "h": self._h, "c": self._c})
        self._context = windows[-1, -CONTEXT:].copy()
        return np.asarray(out, dtype=np.float32).reshape(-1)


@dataclass(frozen=True)
class VadEvent:
    """``kind`` is "start" (speech began), "pause" (speech stopped; the turn may end), "resume" (speech came
    back before the turn ended) or "end" (the turn ended). ``sample`` is where, counted from the first sample
    fed: the first speech window for "start", the end of the last speech window for "pause"/"end"."""

    kind: str
    sample: int


class EndPointer:
    """Speech start / turn end from a stream of per-window speech probabilities (see the module doc)."""

    def __init__(self, *, end_silence_s: float = 0.5, threshold: float = 0.5,
                 neg_threshold: float | None = None, min_speech_s: float = 0.1) -> None:
        self.end_windows = max(1, round(end_silence_s * SAMPLE_RATE / WINDOW))
        self.min_speech_windows = max(1, round(min_speech_s * SAMPLE_RATE / WINDOW))
        self.threshold = threshold
        self.neg_threshold = max(threshold - 0.15, 0.01) if neg_threshold is None else neg_threshold
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new recording); window positions count from zero again."""
        self.windows = 0
        self.in_speech = False
        self.paused = False
        self.run = 0             # consecutive loud windows before speech starts
        self.start = 0           # first sample of the current utterance's speech
        self.last_voiced = 0     # end sample of the last window at or above neg_threshold
        self.silent = 0          # windows since then

    def next_turn(self) -> None:
        """After an "end": listen for the next utterance, keeping the position count."""
        self.in_speech = self.paused = False
        self.run = self.silent = 0

    def push(self, probs: np.ndarray) -> list[VadEvent]:
        events: list[VadEvent] = []
        for p in np.asarray(probs, dtype=np.float32).reshape(-1):
            i = self.windows
            self.windows += 1
            if not self.in_speech:
                self.run = self.run + 1 if p >= self.threshold else 0
                if self.run >= self.min_speech_windows:
                    self.in_speech, self.paused, self.silent = True, False, 0
                    self.start = (i - self.run + 1) * WINDOW
                    self.last_voiced = (i + 1) * WINDOW
                    events.append(VadEvent("start", self.start))
                continue
            if p >= self.neg_threshold and (not self.paused or p >= self.threshold):
                self.last_voiced = (i + 1) * WINDOW
                self.silent = 0
                if self.paused:
                    self.paused = False
                    events.append(VadEvent("resume", self.last_voiced))
                continue
            self.silent += 1
            if not self.paused:
                self.paused = True
                events.append(VadEvent("pause", self.last_voiced))
            if self.silent >= self.end_windows:
                events.append(VadEvent("end", self.last_voiced))
                self.next_turn()
        return events


def pause_options() -> dict[str, int]:
    """faster-whisper's ``vad_parameters`` that shorten every pause of ``PAUSE_MS`` or more to
    ``2 * PAUSE_PAD_MS`` (and drop silence before and after the speech)."""
    return {"min_silence_duration_ms": PAUSE_MS, "speech_pad_ms": PAUSE_PAD_MS}


def has_long_pause(audio: np.ndarray) -> bool:
    """Whether 16 kHz ``audio`` holds two stretches of speech with ``PAUSE_MS`` or more of silence between
    them (faster-whisper's Silero speech timestamps with :func:`pause_options`)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    return len(get_speech_timestamps(samples, VadOptions(**pause_options()))) > 1


def speech_probabilities(audio: np.ndarray) -> np.ndarray:
    """One Silero speech probability per 512-sample window of 16 kHz ``audio`` (the last window padded)."""
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    return SileroStream()(np.pad(samples, (0, -samples.size % WINDOW)))
