"""Turns computed ahead of time: the two halves of a turn (rewriters, system) as pure steps, and the
:class:`Speculation` that :meth:`parley.engine.session.Session.speculate` makes from them.

A spoken turn is known before it is over: the transcript is usually ready while the end-of-turn silence is
still being waited out. A speculation runs the rest of the turn on that transcript — the rewriter chain (whose
steps are seeded by session seed, turn index and rewriter, so computing them early consumes nothing) and the
system's ``respond`` on a *fork* of the system (:class:`Forkable`: an independent copy of its dialogue state
that shares what is read-only) — and stores nothing. :meth:`Session.run` commits it only if it still fits
(same text, same turn index, no turn run since, same chain): it stores exactly what the turn would have
stored and the system *adopts* the fork's state, as if ``respond`` had run on it. Anything else discards it,
which leaves the session and the system exactly as if it had never run.

Only systems that can fork are answered ahead, and only by chains whose rewriters are ``pure`` (no remote
calls: a discarded speculation must not have asked a server anything).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from parley.engine.rewrite.chain import Chain
from parley.engine.types import DialogueSystem, Message, Rewrite, SystemTurn

T = TypeVar("T")


@runtime_checkable
class Forkable(Protocol):
    """A system that can answer a turn on a copy of itself (see the module doc)."""

    def fork(self) -> DialogueSystem:
        """An independent copy of the dialogue state (read-only parts shared); answering on it changes
        nothing here."""
        ...

    def adopt(self, fork: DialogueSystem) -> None:
        """Take over the dialogue state of ``fork`` (made by :meth:`fork` from this state, then answered)."""
        ...


def fork_copy(obj: T, shared: Iterable[object]) -> T:
    """A deep copy of ``obj`` in which the objects in ``shared`` (databases, weights) are not copied."""
    return copy.deepcopy(obj, {id(o): o for o in shared})


def adopt_state(target: object, fork: object) -> None:
    """``target`` takes every attribute of ``fork`` (a :func:`fork_copy` of it): the fork's state is its."""
    if type(fork) is not type(target):
        raise TypeError(f"cannot adopt a {type(fork).__name__} into a {type(target).__name__}")
    target.__dict__.update(fork.__dict__)


@dataclass(frozen=True)
class Rewritten:
    """What the rewriter chain made of a user turn (``error``: a rewriter failed; ``ms``: their time)."""

    steps: tuple[Rewrite, ...]
    final: str
    error: str | None
    ms: float


@dataclass(frozen=True)
class Answered:
    """The system's answer to a history (``reply`` None and ``error`` set when ``respond`` raised)."""

    reply: SystemTurn | None
    error: str | None
    ms: float


def rewrite_turn(chain: Chain, text: str, *, seed: int, index: int, history: Sequence[Message]) -> Rewritten:
    """Run the chain on one user turn; a failing rewriter becomes ``error`` (the session goes on)."""
    t0 = time.perf_counter()
    try:
        result = chain.apply(text, seed=seed, turn_index=index, history=tuple(history))
    except Exception as e:  # a broken rewriter must not end the session
        error = f"rewriter failed: {type(e).__name__}: {e}"
        return Rewritten((), text, error, (time.perf_counter() - t0) * 1000)
    return Rewritten(result.steps, result.after, None, (time.perf_counter() - t0) * 1000)


def answer(system: DialogueSystem, history: tuple[Message, ...]) -> Answered:
    """``system.respond(history)``; an exception becomes ``error``."""
    t0 = time.perf_counter()
    try:
        reply = system.respond(history)
    except Exception as e:
        return Answered(None, f"{type(e).__name__}: {e}", (time.perf_counter() - t0) * 1000)
    return Answered(reply, None, reply.latency_ms or (time.perf_counter() - t0) * 1000)


@dataclass(frozen=True)
class Speculation:
    """A user turn answered ahead and stored nowhere. ``index`` and ``runs`` are the turn index it would get
    and how many turns the session had run; ``answered`` is None when a rewriter failed (no system asked)."""

    text: str
    index: int
    runs: int
    chain: Chain
    rewritten: Rewritten
    answered: Answered | None
    fork: DialogueSystem

    @property
    def reply(self) -> SystemTurn | None:
        return self.answered.reply if self.answered is not None else None

