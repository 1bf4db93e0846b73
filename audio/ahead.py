"""Replies made ahead: while the end-of-turn silence is still being waited out, the rest of the turn runs on
the speculative transcript — rewriters and the system (:meth:`parley.engine.session.Session.speculate`,
which stores nothing) and the synthesis of the reply's first sentence — so that when the silence confirms the
end of the turn the reply can be committed and played at once.

:func:`preparer` makes the ``prepare`` hook of :class:`parley.audio.listen.Listener`; the
:class:`parley.audio.listen.Heard` of a speculative utterance then carries its future, which
:class:`AheadReply` reads: :meth:`AheadReply.turn` for ``Session.run(pending, ahead)`` (used only if it still
fits the turn as accepted) and :meth:`AheadReply.speech_for` for :func:`parley.audio.speaker.speak_reply`
(used only for the same reply text). Nothing here is shown, stored or played: a speculation dropped because
speech resumed, or the final transcript differs, leaves no trace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import numpy as np

from parley.engine.session import Session
from parley.engine.speculate import Speculation

log = logging.getLogger(__name__)
WAIT_S = 30.0  # the longest a committed turn waits for its speculation (it is normally long done)


@dataclass(frozen=True)
class FirstSpeech:
    """A reply's first piece, synthesised ahead; the remaining pieces are made when asked for."""

    text: str
    first: np.ndarray
    rest: Iterator[np.ndarray]
    sample_rate: int
    speed: float
    tts_ms: float  # how long the first piece took (spent during the silence)

    def pieces(self) -> Iterator[np.ndarray]:
        yield self.first
        yield from self.rest


@dataclass(frozen=True)
class Prepared:
    """What a speculation made: the turn (rewriters, system) and the first spoken sentence of its reply."""

    turn: Speculation | None
    speech: FirstSpeech | None


class AheadReply:
    """The future of a :class:`Prepared`, as a spoken turn hands it on; every read waits for it (bounded)."""

    def __init__(self, future: Future[Any]) -> None:
        self._future = future

    def _prepared(self) -> Prepared | None:
        try:
            out = self._future.result(timeout=WAIT_S)
        except Exception as e:  # noqa: BLE001 - cancelled, timed out or failed: the turn runs as usual
            log.info("no reply made ahead: %s", e)
            return None
        return out if isinstance(out, Prepared) else None

    def turn(self) -> Speculation | None:
        prepared = self._prepared()
        return prepared.turn if prepared is not None else None

    def speech_for(self, text: str, speed: float = 1.0) -> FirstSpeech | None:
        """The first sentence made ahead, if it was made for this very reply text (and speed)."""
        prepared = self._prepared()
        speech = prepared.speech if prepared is not None else None
        return speech if speech is not None and speech.text == text and speech.speed == speed else None


def preparer(session_of: Callable[[], Session | None], tts: Any = None, *,
             speed: float = 1.0) -> Callable[[Any, threading.Event], Prepared | None]:
    """The Listener's ``prepare`` hook: the turn of ``session_of()`` (None: nothing to prepare) computed
    ahead on the transcript, and with ``tts`` its reply's first sentence synthesised."""
    from parley.audio.tts import sentence_stream

    def prepare(transcript: Any, cancelled: threading.Event) -> Prepared | None:
        session = session_of()
        text = str(getattr(transcript, "text", "")).strip()
        if session is None or not text or cancelled.is_set():
            return None
        turn = session.speculate(text)
        reply = turn.reply.text if turn is not None and turn.reply is not None else ""
        if turn is None or tts is None or not reply.strip() or cancelled.is_set():
            return Prepared(turn, None) if turn is not None else None
        t0 = time.perf_counter()
        stream = sentence_stream(tts, reply, speed, quick_start=True)
        first = next(stream, None)
        if first is None:
            return Prepared(turn, None)
        made_ms = (time.perf_counter() - t0) * 1000
        speech = FirstSpeech(reply, np.asarray(first, dtype=np.float32), stream,
                             int(getattr(tts, "sample_rate", 22050)), speed, made_ms)
        return Prepared(turn, speech)

    return prepare
