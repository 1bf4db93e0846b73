"""Hands-free listening: cut a stream of audio blocks into utterances by voice activity and transcribe them.

:class:`Listener` is fed ``(t, block)`` pairs (from :class:`parley.audio.capture.MicStream`, or a file) and
returns a :class:`Heard` for every utterance: its audio (speech plus ``pre_roll_s`` before and ``post_roll_s``
after), when speech started and ended (monotonic seconds, from the block times), when the end was decided, and
its transcript.

End-pointing is Silero VAD (:mod:`parley.audio.vad`): an utterance ends ``end_silence_s`` after the last
voiced window. Transcription does not wait for that silence: as soon as ``post_roll_s`` of quiet has been
heard, the utterance's audio is final unless the speaker resumes, so it is transcribed at once in a background
thread (*speculatively*); if speech resumes the result is dropped. The audio transcribed is the same either
way, so the transcript does not depend on timing. With ``prepare``, the speculation goes on past the
transcript: ``prepare(transcript, cancelled)`` runs in the same background thread right after it (e.g. the
turn's reply computed and its first sentence synthesised ahead, :mod:`parley.audio.ahead`) and the
:class:`Heard` of the utterance carries its future as ``ahead``; when speech resumes, ``cancelled`` is set and
the result is dropped. ``on_speech`` is called (from the feeding thread) the moment speech starts, e.g. to
stop a reply being played (barge-in).
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from parley.audio.vad import SAMPLE_RATE, WINDOW, EndPointer, SileroStream

Transcribe = Callable[[np.ndarray], Any]  # audio → audio.asr.Transcript
Prepare = Callable[[Any, threading.Event], Any]  # (transcript, cancelled) → whatever the turn can use
log = logging.getLogger(__name__)
#: audio kept after the last voiced window; speculation starts once it has been heard. The VAD's last voiced
#: window already ends ~0.1 s after the true end of speech (Silero's tail), so 0.1 s more leaves Whisper
#: ~0.2 s of quiet after the words while the reply can be made 0.1 s earlier than with 0.2 s
POST_ROLL_S = 0.1


@dataclass(frozen=True)
class Heard:
    """One utterance and its transcript; times are ``time.monotonic()`` seconds."""

    audio: np.ndarray
    transcript: Any  # audio.asr.Transcript
    speech_start: float
    speech_end: float
    endpoint: float
    transcribed: float
    speculative: bool
    ahead: Future[Any] | None = None  # prepare()'s result for this transcript (speculative turns only)
    silence_heard: float | None = None  # when the last sample of the end-of-turn silence was captured

    @property
    def ready(self) -> float:
        """When the turn could go on: the end was decided and the transcript was there."""
        return max(self.endpoint, self.transcribed)

    def timings(self) -> dict[str, float]:
        """Stage latencies (ms): end of speech → end-point decision, and → transcript ready for the turn."""
        lag = {} if self.silence_heard is None else {
            "endpoint_lag_ms": round((self.endpoint - self.silence_heard) * 1000, 1)}  # the silence → decided
        return {**lag, "endpoint_ms": round((self.endpoint - self.speech_end) * 1000, 1),
                "end_to_transcript_ms": round((self.ready - self.speech_end) * 1000, 1),
                "asr_ms": float(getattr(self.transcript, "latency_ms", 0.0)),
                "speech_s": round(self.audio.size / SAMPLE_RATE, 3)}


@dataclass(frozen=True)
class _Job:
    """A speculation under way for the utterance ``span`` (start, end samples)."""

    span: tuple[int, int]
    asr: Future[Any]
    ahead: Future[Any] | None
    cancelled: threading.Event


class Listener:
    """Voice-activity end-pointing plus speculative transcription over a stream of blocks (see module doc)."""

    def __init__(self, transcribe: Transcribe, *, end_silence_s: float = 0.5, pre_roll_s: float = 0.3,
                 post_roll_s: float = POST_ROLL_S, max_seconds: float = 30.0,
                 on_speech: Callable[[], None] | None = None, speculative: bool = True,
                 prepare: Prepare | None = None) -> None:
        self.transcribe = transcribe
        self.prepare = prepare
        self.vad = SileroStream()
        self.endpointer = EndPointer(end_silence_s=end_silence_s)
        self.pre_roll = int(pre_roll_s * SAMPLE_RATE)
        self.post_roll = int(min(post_roll_s, end_silence_s) * SAMPLE_RATE)
        self.max_samples = int(max_seconds * SAMPLE_RATE)
        self.on_speech = on_speech
        self.speculative = speculative
        self._buf = np.zeros(0, dtype=np.float32)
        self._buf_start = 0          # absolute sample index of _buf[0]
        self._seen = 0               # samples fed so far
        self._marks: list[tuple[int, float]] = []  # (absolute sample, capture time) of each block's start
        self._start: int | None = None
        self._pause: int | None = None
        self._job: _Job | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parley-asr")
        self._lock = threading.Lock()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def time_of(self, sample: int) -> float:
        """When ``sample`` was captured, from the time of the block that holds it (a block lost on a busy
        machine does not shift the times of the others)."""
        if not self._marks:
            return 0.0
        i = max(0, bisect.bisect_right(self._marks, (sample, float("inf"))) - 1)
        base, t = self._marks[i]
        return t + (sample - base) / SAMPLE_RATE

    def feed(self, t: float, block: np.ndarray) -> list[Heard]:
        """Take a block whose first sample was captured at monotonic time ``t``; return ended utterances."""
        block = np.asarray(block, dtype=np.float32).reshape(-1)
        self._marks.append((self._seen, t))
        self._buf = np.concatenate([self._buf, block])
        self._seen += block.size
        heard: list[Heard] = []
        for ev in self.endpointer.push(self.vad(block)):
            if ev.kind == "start":
                self._start, self._pause = ev.sample, None
                if self.on_speech is not None:
                    self.on_speech()
            elif ev.kind == "pause":
                self._pause = ev.sample
            elif ev.kind == "resume":
                self._pause = None
                self._drop()
            elif ev.kind == "end" and self._start is not None:
                silence = self.time_of(ev.sample + self.endpointer.end_windows * WINDOW)
                heard.append(self._finish(self._start, ev.sample, silence))
        if self._start is not None and self._pause is not None and self.speculative:
            self._maybe_speculate(self._start, self._pause)
        if self._start is not None and self._seen - self._start > self.max_samples:  # too long: cut here
            heard.append(self._finish(self._start, self._seen))
            self.endpointer.next_turn()
        if self._start is None:
            self._trim(self._seen - self.pre_roll - SAMPLE_RATE)
        return heard

    def flush(self) -> list[Heard]:
        """The input ended: an utterance still open ends at its last voiced sample."""
        if self._start is None:
            return []
        end = self.endpointer.last_voiced if self.endpointer.in_speech else self._seen
        out = [self._finish(self._start, min(end, self._seen))]
        self.endpointer.next_turn()
        return out

    # -- internals -----------------------------------------------------------------------------------------
    def _span(self, start: int, end: int) -> np.ndarray:
        a = max(self._buf_start, start - self.pre_roll) - self._buf_start
        b = min(self._seen, end + self.post_roll) - self._buf_start
        return self._buf[a:b].copy()

    def _maybe_speculate(self, start: int, end: int) -> None:
        if self._job is not None and self._job.span == (start, end):
            return
        if self._seen < end + self.post_roll:
            return  # the utterance's tail has not been heard yet
        self._drop()
        audio = self._span(start, end)
        asr = self._pool.submit(self._timed, audio)
        cancelled = threading.Event()
        ahead = self._pool.submit(self._ahead, asr, cancelled) if self.prepare is not None else None
        self._job = _Job((start, end), asr, ahead, cancelled)

    def _drop(self) -> None:
        """Speech resumed: the speculation under way is for an utterance that is not over."""
        job, self._job = self._job, None
        if job is not None:
            job.cancelled.set()
            if job.ahead is not None:
                job.ahead.cancel()

    def _timed(self, audio: np.ndarray) -> tuple[Any, float]:
        tr = self.transcribe(audio)
        return tr, time.monotonic()

    def _ahead(self, asr: Future[Any], cancelled: threading.Event) -> Any:
        if cancelled.is_set() or self.prepare is None:
            return None
        try:
            return self.prepare(asr.result()[0], cancelled)
        except Exception as e:  # noqa: BLE001 - preparing ahead is an optimisation; the turn goes on without
            log.warning("preparing the turn ahead failed: %s", e)
            return None

    def _finish(self, start: int, end: int, silence_heard: float | None = None) -> Heard:
        endpoint = time.monotonic()
        job = self._job
        audio = self._span(start, end)
        speculative = job is not None and job.span == (start, end)
        ahead = None
        if speculative:
            assert job is not None
            self._job = None
            (transcript, done), ahead = job.asr.result(), job.ahead
        else:
            self._drop()
            transcript, done = self._pool.submit(self._timed, audio).result()
        heard = Heard(audio=audio, transcript=transcript, speech_start=self.time_of(start),
                      speech_end=self.time_of(end), endpoint=endpoint, transcribed=done,
                      speculative=speculative, ahead=ahead, silence_heard=silence_heard)
        self._start = self._pause = None
        self._trim(end + self.post_roll)
        return heard

    def _trim(self, keep_from: int) -> None:
        cut = keep_from - self._buf_start
        if cut > 0:
            self._buf = self._buf[cut:]
            self._buf_start += cut
            keep = max(0, bisect.bisect_right(self._marks, (self._buf_start, float("inf"))) - 1)
            del self._marks[:keep]


def speech_span(audio: np.ndarray, *, pre_roll_s: float = 0.3,
                post_roll_s: float = POST_ROLL_S) -> np.ndarray:
    """The part of a recording that holds speech (first voiced window to last, with the same rolls as
    :class:`Listener`); the whole recording when no speech is found. Used for spoken scripts."""
    from parley.audio.vad import EndPointer as _EP

    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    ep = _EP(end_silence_s=3600.0)
    events = ep.push(SileroStream()(np.pad(audio, (0, -audio.size % 512))))
    starts = [e.sample for e in events if e.kind == "start"]
    if not starts:
        return audio
    end = ep.last_voiced
    a = max(0, starts[0] - int(pre_roll_s * SAMPLE_RATE))
    b = min(audio.size, end + int(post_roll_s * SAMPLE_RATE))
    return audio[a:b].copy()
