"""Playing one dialogue of a run into records, without a database.

A :class:`Worker` holds a system and one rewriter chain per condition; :meth:`Worker.play` drives the dialogue
through :class:`engine.session.Session` exactly as a live session would, but into a :class:`Recorder`, and
returns the session and its turns as frozen records. The driver commits them (one writer, in corpus order), so
workers can be threads, processes or Ray actors: everything they exchange is picklable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from parley.engine.scoring.corpus import CorpusDialogue
from parley.engine.types import Closable, DialogueSystem, Loadable
from parley.store.records import SessionRecord, TurnRecord, now

if TYPE_CHECKING:
    from parley.engine.rewrite.chain import Chain
    from parley.store.db import Store


@runtime_checkable
class Batched(Protocol):
    """A system whose copies share one model and decode together (``--batch``)."""

    def batch_group(self, n: int) -> Sequence[DialogueSystem]: ...

    def batch_member(self) -> AbstractContextManager[None]: ...


@runtime_checkable
class Dated(Protocol):
    """A system that counts dates ("tomorrow") from a clock."""

    clock: object


def batched(system: DialogueSystem) -> Batched:
    """``system`` as a batch of copies; a system that cannot decode in batches is refused."""
    if not isinstance(system, Batched):
        raise TypeError(f"system {system.name!r} does not decode in batches")
    return system


@dataclass(frozen=True)
class WorkItem:
    """One dialogue under one condition. ``seq`` orders the run (conditions outer, dialogues inner)."""

    seq: int
    condition: str
    dialogue: CorpusDialogue
    seed: int
    started_at: str
    source: str


@dataclass(frozen=True)
class Played:
    """What a worker sends back: the whole dialogue as it will be stored."""

    seq: int
    session: SessionRecord
    turns: tuple[TurnRecord, ...]


@dataclass(frozen=True)
class WorkerSpec:
    """How to build a worker anywhere (a thread, a process, a Ray actor): the system spec and the
    conditions."""

    system_spec: str
    conditions: tuple[str, ...]
    tester: str = "replay"
    system_kwargs: Mapping[str, bool] = field(default_factory=dict)


def build_chains(conditions: Sequence[str]) -> dict[str, Chain]:
    """``{condition name: Chain}`` in the given order; a bad spec or a condition given twice raises
    SpecError."""
    from parley.engine.rewrite.chain import Chain
    from parley.engine.spec import SpecError, parse_condition

    chains: dict[str, Chain] = {}
    for c in conditions:
        chain = Chain(parse_condition(c))
        if chain.name in chains:
            raise SpecError(f"condition given twice: {chain.name}")
        chains[chain.name] = chain
    return chains


class Recorder:
    """Stands in for the store inside :class:`Session`: keeps the records instead of writing them."""

    def __init__(self, started_at: str) -> None:
        self.started_at = started_at
        self.session: SessionRecord | None = None
        self.turns: list[TurnRecord] = []

    def add_session(self, rec: SessionRecord) -> SessionRecord:
        self.session = replace(rec, started_at=self.started_at)
        return self.session

    def add_turn(self, rec: TurnRecord) -> TurnRecord:
        self.turns.append(rec)
        return rec

    def settle_turn(self, rec: TurnRecord, *, reply: TurnRecord | None = None) -> bool:
        """A pending user turn gets its outcome (and the system's reply, if any)."""
        self.turns = [rec if t.id == rec.id else t for t in self.turns]
        if reply is not None:
            self.turns.append(reply)
        return True

    def cancel_pending(self, session_id: str) -> int:
        return 0

    def set_tester(self, session_id: str, tester: str) -> None:
        if self.session is not None:
            self.session = replace(self.session, tester=tester)

    def end_session(self, session_id: str, *, lock: bool = False) -> None:
        assert self.session is not None and self.session.id == session_id
        self.session = replace(
            self.session, ended_at=self.session.ended_at or now(), locked=self.session.locked or lock
        )


class Worker:
    """A system and the chains of every condition; plays dialogues one at a time."""

    def __init__(
        self, system: DialogueSystem, conditions: Sequence[str], *, system_spec: str, tester: str = "replay"
    ) -> None:
        self.system = system
        if isinstance(system, Dated) and system.clock is not None:
            system.clock = None  # a corpus dialogue has no date: no "tomorrow" counted from today (multiwoz)
        self.system_spec = system_spec
        self.tester = tester
        self.chains = build_chains(conditions)

    @classmethod
    def build(cls, spec: WorkerSpec) -> Worker:
        """Build and load the system (once per worker)."""
        from parley.engine.systems import build_system

        system = build_system(spec.system_spec, **dict(spec.system_kwargs))
        if isinstance(system, Loadable):
            system.load()
        return cls(system, spec.conditions, system_spec=spec.system_spec, tester=spec.tester)

    def play(self, item: WorkItem) -> Played:
        from parley.engine.session import Session

        dia = item.dialogue
        rec = Recorder(item.started_at)
        session = Session(
            cast("Store", rec),  # the recorder stands in for the store (the methods a session calls)
            self.system,
            system_spec=self.system_spec,
            chain=self.chains[item.condition],
            tester=self.tester,
            mode="batch",
            seed=item.seed,
            goal=dict(dia.goal),
            source=item.source,
        )
        for text in dia.user_turns:
            session.turn(text)
        session.end()
        stored = rec.session or replace(session.record, started_at=item.started_at, ended_at=now())
        return Played(item.seq, stored, tuple(sorted(rec.turns, key=lambda t: t.index)))

    def close(self) -> None:
        if isinstance(self.system, Closable):
            self.system.close()
