"""``multiwoz``: the embedded task-oriented dialogue system (the default system under test).

A classic pipeline over the MultiWOZ databases, offline and fast: rule NLU (rapidfuzz over DB values) →
dialogue state tracking → database query → rule policy → template NLG. See ``engine/systems/mw/``.

Relative days ("today", "tonight", "tomorrow", "the day after tomorrow") are weekdays counted from the
``clock`` parameter: the machine's date by default, as a live tester means them, or a fixed ``YYYY-MM-DD``
(``multiwoz:clock=2026-11-26``) for reproducible scripted sessions and tests. Corpus replays pass no clock
(``clock=None``, or ``clock=off`` in a spec), so the days stay unmapped: MultiWOZ dialogues have no date, and
their gold states set no day on any of the 209 val user turns holding one of these words (28 use it as a
day; most others say "that's all I need today"). ``bench/mw_bench.py`` does so; with a fixed clock, val JGA
fell from 0.5149 to 0.5086 (own) and 0.5329 to 0.5274 (read), because a day set by "tonight" stays wrong for
the rest of the dialogue.

>>> from engine.types import Message
>>> bot = MultiwozSystem(seed=1)
>>> turn = bot.respond((Message("user", "I want a cheap chinese restaurant in the centre"),))
>>> turn.state["restaurant"]["food"]
'chinese'
"""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import ClassVar, SupportsInt

from parley.engine.mwdb import MultiwozDB, Row, load_db
from parley.engine.params import Field, Params, SystemParams
from parley.engine.spec import SpecError
from parley.engine.speculate import adopt_state, fork_copy
from parley.engine.systems.mw.dst import Tracker
from parley.engine.systems.mw.lexicon import Lexicon, lexicon_for
from parley.engine.systems.mw.nlg import realise as _realise
from parley.engine.systems.mw.nlu import NluResult, parse
from parley.engine.systems.mw.policy import Decision, Policy, _h
from parley.engine.types import DialogueSystem, LoadError, Message, SystemInternals, SystemTurn
from parley.engine.vocabulary import KnownNames
from parley.params import Text
from parley.progress import Progress

__all__ = ["Decision", "MultiwozSystem"]

FALLBACK = "Sorry, something went wrong on my side. Could you say that again?"


def _seed(seed: object) -> int:
    """Seeds are ints; any other value (a spec string, say) is mapped to one deterministically."""
    if seed is None:
        return 0
    if isinstance(seed, str | bytes | SupportsInt):
        try:
            return int(seed)
        except (TypeError, ValueError):
            pass
    return zlib.crc32(str(seed).encode()) & 0x7FFFFFFF


def _venue_name(venue: Row | None) -> str | None:
    """The name (a train's id) of the venue a turn is about."""
    name = venue.get("name") or venue.get("trainID") if venue else None
    return None if name is None else str(name)


def _clock(clock: bool | str | Callable[[], date | None] | None) -> Callable[[], date | None] | None:
    """The date "today" / "tomorrow" are counted from: "today" (the machine's date at each turn), a fixed
    ``YYYY-MM-DD``, "off" or None (not mapped: a replayed corpus dialogue has no date), or a callable."""
    if clock is None or clock is False or (isinstance(clock, str) and clock.lower() in ("off", "none")):
        return None
    if callable(clock):
        return clock
    if clock is True or clock.lower() == "today":
        return date.today
    try:
        fixed = date.fromisoformat(clock)
    except ValueError:
        raise SpecError(f"multiwoz: clock: must be today, off or a date YYYY-MM-DD, got {clock!r}") from None
    return lambda: fixed


class MultiwozParams(SystemParams):
    seed: int | Text | None = Field(None, description="the policy's seed (text is hashed to a number)")
    db_dir: Text | None = Field(None, description="folder of MultiWOZ database files (default: bundled)")
    read_system: bool = Field(False, description="also read system turns it did not write (corpus scoring)")
    clock: bool | Text | Callable[[], date | None] | None = Field(
        "today", description='the date "today" and "tomorrow" count from: today, off or YYYY-MM-DD')


class MultiwozSystem:
    """Rule pipeline over the MultiWOZ DB. ``read_system=True`` also reads system turns it did not write
    (for scoring the tracker on corpus dialogues). ``clock`` gives the date "today", "tonight", "tomorrow" and
    "the day after tomorrow" are counted from (see :func:`_clock`): the machine's date by default, as a live
    tester means it; a fixed date makes a scripted session reproducible; corpus replays pass ``None`` (the
    corpus dialogues have no date, and their gold states leave such days unset)."""

    name = "multiwoz"

    PARAMS: ClassVar[type[Params]] = MultiwozParams

    def __init__(self, **given: object) -> None:
        p = MultiwozParams.from_spec(self.name, given)
        seed, db_dir, read_system, clock = p.seed, p.db_dir, p.read_system, p.clock
        self.seed = _seed(seed)
        self.clock = clock
        self.db_dir = db_dir
        self.read_system = bool(read_system)
        self._db: MultiwozDB | None = None
        self._lex: Lexicon | None = None
        self.tracker = Tracker(passive=self.read_system)
        self.policy: Policy | None = None
        self.last_nlu: NluResult | None = None
        self._user_turns = 0
        self._turn = 0

    @property
    def clock(self) -> Callable[[], date | None] | None:
        """The function giving the date "today" is (None: relative days stay unmapped)."""
        return self._clock

    @clock.setter
    def clock(self, value: bool | Text | Callable[[], date | None] | None) -> None:
        self._clock = _clock(value)  # a spec value ("today", "off", a date) or a function, checked here

    # -- lifecycle -------------------------------------------------------------------------------------------
    def load(self, progress: Progress = None) -> None:
        """Load the databases and build the lexicon (a fraction of a second; done on first use otherwise)."""
        if self._db is not None:
            return
        if progress:
            progress("loading MultiWOZ databases")
        try:
            self._db = load_db(Path(self.db_dir) if self.db_dir else None)
        except (OSError, ValueError) as e:
            raise LoadError(f"cannot load the MultiWOZ databases from {self.db_dir or 'the bundled assets'}: "
                            f"{e}") \
                from None
        self._lex = lexicon_for(self._db)
        self.policy = Policy(self._db, self.seed)

    @property
    def db(self) -> MultiwozDB:
        self.load()
        assert self._db is not None
        return self._db

    def reset(self, seed: int | None = None) -> None:
        """Start a new dialogue (with a new seed if given)."""
        if seed is not None:
            self.seed = _seed(seed)
        self.tracker.reset()
        self.policy = Policy(self.db, self.seed)
        self.last_nlu = None
        self._user_turns = 0
        self._turn = 0

    def vocabulary(self) -> KnownNames:
        """The names this system understands (:class:`parley.engine.vocabulary.Vocabulary`): venues, train
        stations, foods and areas of its databases."""
        db = self.db
        stations = {*db.values("train", "departure"), *db.values("train", "destination")}
        return KnownNames.of({"venue": [n for d in ("restaurant", "hotel", "attraction")
                                        for n in db.values(d, "name")],
                              "station": sorted(stations), "food": db.values("restaurant", "food"),
                              "area": db.values("restaurant", "area")})

    # -- answering ahead (engine.speculate) ----------------------------------------------------------------
    def fork(self) -> MultiwozSystem:
        """A copy whose tracker and policy are its own (databases, lexicon and search shared, read-only)."""
        self.load()
        assert self.policy is not None
        return fork_copy(self, (self._db, self._lex, self.policy.db, self.policy.search))

    def adopt(self, fork: DialogueSystem) -> None:
        """Take over the dialogue state of a fork that answered a turn."""
        adopt_state(self, fork)

    # -- the pipeline ----------------------------------------------------------------------------------------
    def decide(self, history: tuple[Message, ...]) -> Decision:
        """NLU + DST + DB + policy for the last user message; updates the tracker. No wording."""
        self.load()
        assert self._lex is not None and self.policy is not None
        n_user = sum(1 for m in history if m.role == "user")
        if len(history) <= 1 or n_user <= self._user_turns:
            self.reset()  # a new dialogue, or the history started over: rebuild from this turn
        self._user_turns = n_user
        self._turn += 1
        if self.read_system and len(history) >= 2 and history[-2].role == "system":
            from parley.engine.systems.mw.listen import listen

            listen(history[-2].text, self.tracker, self._lex)
        text = history[-1].text if history and history[-1].role == "user" else ""
        ctx = replace(self.tracker.context(self._db), today=self.clock() if self.clock else None)
        nlu = parse(text, ctx, self._lex)
        self.last_nlu = nlu
        self.tracker.update(nlu, self._db)
        decision = self.policy.decide(self.tracker, nlu)
        self.tracker.note_offers(decision.acts)
        return decision

    def realise(self, decision: Decision) -> str:
        """Template wording of a decision (seeded: same seed and turn, same words)."""
        rng = random.Random(_h("nlg", self.seed, self._turn))
        return _realise(decision.acts, decision.venue, rng)

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        """Decide and realise; never raises on odd input."""
        t0 = time.perf_counter()
        try:
            decision = self.decide(tuple(history))
            text = self.realise(decision)
        except LoadError:
            raise
        except Exception as e:  # noqa: BLE001 - a bad turn must not end the session
            return SystemTurn(text=FALLBACK, state=self.tracker.snapshot(),
                              internals={"error": f"{type(e).__name__}: {e}"},
                              latency_ms=(time.perf_counter() - t0) * 1000)
        return SystemTurn(text=text, state=decision.state, acts=decision.acts,
                          internals=self.internals_of(decision), latency_ms=(time.perf_counter() - t0) * 1000)

    def internals_of(self, decision: Decision) -> SystemInternals:
        """What a turn's internals show of ``decision`` and the tracker after it (the fact audit reads the
        venue and the filters)."""
        return {
            "db_count": dict(decision.db_count),
            "offered": dict(decision.offered),
            "requested": {d: list(s) for d, s in decision.requested.items()},
            "active_domain": decision.active_domain,
            "nlu": self.last_nlu.to_json() if self.last_nlu else {},
            "venue": _venue_name(decision.venue),
            "booked": dict(self.tracker.booked),
            "bookings": [dict(b) for b in self.tracker.bookings],
            "filters": {d: dict(f) for d, f in self.tracker.filters.items() if f},
        }
