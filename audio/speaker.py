"""Spoken replies, played as they are made: sentence by sentence, the first playing while the rest is made.

:func:`speak_reply` synthesises a reply one sentence at a time (:func:`parley.audio.tts.sentence_stream`) and
feeds a PortAudio output stream from a queue, so the first sentence plays as soon as it exists. Setting the
``stop`` event (barge-in: the tester started speaking) stops playback within one audio block. A first sentence
synthesised ahead (``ahead``, :mod:`parley.audio.ahead`) plays at once. The whole reply
(every sentence, even after a barge-in) is saved as a WAV file. Audio errors never raise: without an output
device the reply is only saved, and :attr:`SpokenReply.played` says so.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from parley.audio.voices import GAP_S, join_sentences

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SpokenReply:
    """What :func:`speak_reply` did. Times are ``time.monotonic()`` seconds."""

    path: str | None          # the reply's WAV (None when nothing could be synthesised or saved)
    seconds: float            # length of the whole reply audio
    sentences: int
    started: float            # when speak_reply was called
    first_ready: float | None  # the first sentence was synthesised
    first_audio: float | None  # the first sample reached the output device (None: not played)
    played_s: float           # audio actually played before the end or the barge-in
    interrupted: bool         # stopped by the ``stop`` event (barge-in)
    played: bool              # an output device played it
    backend: str
    error: str | None = None
    ahead_ms: float | None = None  # the first sentence was synthesised ahead, in this long

    def timings(self) -> dict[str, Any]:
        """``reply_to_audio_ms`` (the call → first audio sample, or → first sentence made when not played),
        ``tts_first_ms`` (the first sentence's synthesis), playback facts."""
        first = self.first_audio if self.first_audio is not None else self.first_ready
        out: dict[str, Any] = {
            "reply_to_audio_ms": None if first is None else round((first - self.started) * 1000, 1),
            "tts_first_ms": None if self.first_ready is None
            else round((self.first_ready - self.started) * 1000, 1),
            "reply_s": round(self.seconds, 3), "played_s": round(self.played_s, 3),
            "sentences": self.sentences,
            "played": self.played, "barge_in": self.interrupted, "tts": self.backend}
        if self.ahead_ms is not None:
            out["tts_ahead_ms"] = round(self.ahead_ms, 1)
        if self.error:
            out["error"] = self.error
        return out


class _Player:
    """A PortAudio output stream fed from a queue of float32 pieces."""

    def __init__(self, sample_rate: int, device: Any = None) -> None:
        from parley.audio.devices import import_sounddevice

        self.sd = import_sounddevice()
        self.pending: deque[np.ndarray] = deque()
        self.lock = threading.Lock()
        self.no_more = threading.Event()
        self.finished = threading.Event()
        self.first_audio: float | None = None
        self.played = 0
        self.stream = self.sd.OutputStream(samplerate=sample_rate, channels=1, dtype="float32", device=device,
                                           callback=self._callback, finished_callback=self.finished.set)
        self.stream.start()

    def add(self, audio: np.ndarray) -> None:
        with self.lock:
            self.pending.append(audio)

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: object) -> None:
        out = outdata[:, 0]
        n = 0
        with self.lock:
            while n < frames and self.pending:
                head = self.pending[0]
                take = min(frames - n, head.size)
                out[n:n + take] = head[:take]
                n += take
                if take == head.size:
                    self.pending.popleft()
                else:
                    self.pending[0] = head[take:]
            empty = not self.pending
        out[n:] = 0.0
        if n and self.first_audio is None:
            ahead = 0.0
            with contextlib.suppress(Exception):  # some host APIs give no times
                ahead = max(0.0, float(time_info.outputBufferDacTime - time_info.currentTime))
            self.first_audio = time.monotonic() + min(ahead, 1.0)
        self.played += n
        if empty and self.no_more.is_set():
            raise self.sd.CallbackStop

    def wait(self, stop: threading.Event) -> bool:
        """Until everything played (True) or ``stop`` is set (False, playback aborted)."""
        self.no_more.set()
        while not self.finished.wait(0.02):
            if stop.is_set():
                self.close(abort=True)
                return False
        self.close()
        return True

    def close(self, abort: bool = False) -> None:
        try:
            if abort:
                self.stream.abort()
            self.stream.close()
        except Exception:  # noqa: BLE001 - the device may be gone
            pass


def speak_reply(tts: Any, text: str, out_path: str | None, *, stop: threading.Event | None = None,
                play: bool = True, device: Any = None, speed: float = 1.0, ahead: Any = None) -> SpokenReply:
    """Speak ``text`` with the loaded synthesiser ``tts`` (see the module doc) and save it to ``out_path``;
    ``ahead``: a :class:`parley.audio.ahead.FirstSpeech` of this text (its first sentence is already made)."""
    from parley.audio.capture import write_wav
    from parley.audio.devices import check_output
    from parley.audio.tts import sentence_stream

    stop = stop or threading.Event()
    started = time.monotonic()
    pieces: list[np.ndarray] = []
    first_ready: float | None = None
    player: _Player | None = None
    error: str | None = None
    want_play = play and check_output().available
    sample_rate = int(getattr(tts, "sample_rate", 22050))
    if ahead is not None and (ahead.text != text or ahead.speed != speed):
        ahead = None
    if ahead is not None:
        sample_rate = ahead.sample_rate
    made = ahead.pieces() if ahead is not None else sentence_stream(tts, text, speed, quick_start=True)
    try:
        for piece in made:
            if ahead is None:
                sample_rate = int(getattr(tts, "sample_rate", sample_rate))
            gap = np.zeros(int(sample_rate * GAP_S), dtype=np.float32) if pieces else None
            pieces.append(np.asarray(piece, dtype=np.float32))
            if first_ready is None:
                first_ready = time.monotonic()
                if want_play and not stop.is_set():
                    try:
                        player = _Player(sample_rate, device)
                    except Exception as e:  # noqa: BLE001 - no usable output: save only
                        error = f"playback failed: {e}"
                        log.warning("reply playback failed: %s", e)
            if player is not None:
                if gap is not None:
                    player.add(gap)
                player.add(pieces[-1])
    except Exception as e:  # noqa: BLE001 - a synthesiser failure must not end the session
        error = f"speech synthesis failed: {e}"
        log.warning("reply synthesis failed: %s", e)
    interrupted = False
    if player is not None:
        interrupted = not player.wait(stop)
    audio = join_sentences(pieces, sample_rate)
    path = None
    if out_path and audio.size:
        try:
            path = write_wav(out_path, audio, sample_rate)
        except Exception as e:  # noqa: BLE001
            error = error or f"could not save {out_path}: {e}"
    return SpokenReply(path=path, seconds=audio.size / sample_rate if sample_rate else 0.0,
                       sentences=len(pieces),
                       started=started, first_ready=first_ready,
                       first_audio=player.first_audio if player else None,
                       played_s=(player.played / sample_rate) if player else 0.0, interrupted=interrupted,
                       played=player is not None and player.played > 0,
                       backend=str(getattr(tts, "name", "?")),
                       error=error, ahead_ms=ahead.tts_ms if ahead is not None else None)

