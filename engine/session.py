"""A dialogue session: history + rewriter chain + system under test + the store.

The TUI, ``parley chat`` and ``parley run`` all drive dialogues through this class, so a turn is processed and
stored the same way everywhere. A user turn is committed the moment it is *accepted* (``accept``: status
``pending``, even while earlier turns still wait for the system); ``run`` then stores every rewrite step and
the final text before the system is asked, and the system's turn together with the user turn's outcome (``ok``
or ``failed``) before it returns. A crash loses nothing typed: accepted turns stay ``pending``. A failing
rewriter or system becomes a stored failed turn; the session goes on. ``cancel_pending`` marks what was never
sent ``cancelled`` (the tester quit without waiting).

The session record itself is stored with the first accepted turn, so a session nobody typed into leaves
nothing. A session may be opened (and turns accepted into it) before its system is loaded: ``attach`` gives
it the system once loaded; its record names the system spec it is for, and every turn of a session is
answered by that one system (a session whose system failed to load before answering anything may be given
another one, and its record then names that).

``speculate`` computes a turn ahead without storing or changing anything (a spoken turn, while the
end-of-turn silence is waited out; see :mod:`parley.engine.speculate`); ``run(pending, ahead)`` commits it.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from parley import __version__
from parley.engine.locations import adopt_audio, turn_audio_path
from parley.engine.rewrite.chain import Chain
from parley.engine.speculate import Forkable, Speculation, answer, rewrite_turn
from parley.engine.types import DialogueSystem, Message, Rewrite, SystemTurn
from parley.jsontypes import JSONObject, as_json, as_json_object
from parley.store import Store
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord


@dataclass(frozen=True)
class Exchange:
    """One user turn and the system's answer, as stored."""

    user_turn_id: str
    user_index: int
    typed: str
    final: str
    steps: tuple[Rewrite, ...]
    condition: str
    system_turn_id: str | None = None
    system_index: int | None = None
    reply: SystemTurn | None = None
    error: str | None = None
    audio_in: str | None = None
    extra: JSONObject = field(default_factory=dict)
    cancelled: bool = False  # the tester quit first: stored as cancelled, never (or no longer) answered
    ahead: bool = False  # rewritten and answered ahead of time (Session.speculate), committed as it was

    @property
    def ok(self) -> bool:
        return self.error is None and self.reply is not None


@dataclass(frozen=True)
class Pending:
    """A user turn accepted and stored as ``pending``; :meth:`Session.run` gives it its outcome."""

    record: TurnRecord

    @property
    def text(self) -> str:
        return self.record.text


def _name(system: DialogueSystem | None) -> str:
    return "" if system is None else str(getattr(system, "name", None) or type(system).__name__)


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


class Session:
    """Holds one dialogue. Thread-safe: turns are serialised by a lock (workers may call ``turn``)."""

    def __init__(
        self,
        store: Store,
        system: DialogueSystem | None = None,
        *,
        system_spec: str | None = None,
        system_config: Mapping[str, object] | None = None,
        chain: Chain | None = None,
        tester: str = "",
        mode: str = "live",
        seed: int | None = None,
        goal: Mapping[str, object] | None = None,
        source: str | None = None,
    ) -> None:
        self.store = store
        self.system = system
        self.chain = chain or Chain()
        self.seed = seed if seed is not None else new_seed()
        self.history: list[Message] = []
        self._lock = threading.Lock()  # one turn runs at a time
        self._accept_lock = threading.Lock()  # indices, session record; not held while the system thinks
        if system is not None:
            system.reset(self.seed)
        self.stored = False
        self.record = SessionRecord(
            tester=tester,
            mode=mode,  # type: ignore[arg-type]
            system_name=str(system_spec or _name(system)),
            system_config=as_json_object(system_config or {}, other="text"),
            condition={"name": self.chain.name, "rewriters": self.chain.config()},
            goal=None if goal is None else as_json_object(goal, other="text"),
            seed=self.seed,
            app_version=__version__,
            source=source,
        )
        self._next_index = 0
        self._runs = 0  # turns run so far: a speculation made before another turn ran no longer fits

    @property
    def id(self) -> str:
        return self.record.id

    def attach(self, system: DialogueSystem, spec: str | None = None) -> None:
        """Give a session opened before its system was loaded the system that answers its turns. When ``spec``
        is not the one the record names (that one failed to load and another was picked before anything was
        answered), the record, stored or not yet, names ``spec``. A session that has a system keeps it."""
        with self._lock, self._accept_lock:
            if self.system is not None:
                raise ValueError(f"session {self.id} has a system already")
            name = str(spec or _name(system))
            if name != self.record.system_name:
                if self.stored:  # first: a write the database refuses changes nothing (it may be tried again)
                    self.store.set_session_system(self.id, name, {})
                self.record = replace(self.record, system_name=name, system_config={})
            system.reset(self.seed)
            self.system = system

    def set_chain(self, chain: Chain) -> None:
        """Swap the rewriter chain; it applies from the next turn (each turn stores the chain in force)."""
        self.chain = chain

    def accept(self, text: str, *, audio_in: str | None = None,
               input_info: Mapping[str, object] | None = None) -> Pending:
        """Commit ``text`` as a ``pending`` user turn (quick: call it when the tester presses enter). Each
        turn reserves two indices, its own and its answer's, so turns accepted while others wait keep their
        order."""
        with self._accept_lock:
            if not self.stored:
                self.store.add_session(self.record)
                self.stored = True
            index = self._next_index
            self._next_index += 2
            if audio_in:  # the recording takes its place in the session's folder, named by turn
                audio_in = adopt_audio(audio_in, self.id, index, "user")
            rec = self.store.add_turn(TurnRecord(
                session_id=self.id, index=index, role="user", text=text, audio_in=audio_in,
                internals={"input": as_json_object(input_info, other="text")} if input_info else {},
                status="pending"))
        return Pending(rec)

    def turn(self, text: str, *, audio_in: str | None = None,
             input_info: Mapping[str, object] | None = None) -> Exchange:
        """Accept and run one user turn (headless callers: ``parley chat``, replays)."""
        return self.run(self.accept(text, audio_in=audio_in, input_info=input_info))

    def run(self, pending: Pending, ahead: Speculation | None = None) -> Exchange:
        """Rewrite an accepted turn, ask the system and store the outcome (turns run one at a time, in the
        order the caller gives them). ``ahead``: the turn as :meth:`speculate` computed it, used when it still
        fits (``Exchange.ahead`` says so), else dropped."""
        with self._lock:
            if self.system is None:
                raise RuntimeError(f"session {self.id} has no system yet (attach one)")
            return self._run(pending.record, ahead)

    def cancel_pending(self, reason: str | None = None) -> int:
        """Mark every turn not answered yet ``cancelled`` (a turn in flight keeps no reply), with ``reason``
        as its error (why it was never answered); how many."""
        with self._accept_lock:
            return self.store.cancel_pending(self.id, reason) if self.stored else 0

    def _run(self, user: TurnRecord, ahead: Speculation | None = None) -> Exchange:
        assert self.system is not None
        if ahead is not None and not self._fits(ahead, user):
            ahead = None  # computed for another text, turn or state: it is dropped, nothing of it is kept
        self._runs += 1
        chain = self.chain
        text = user.text
        condition: JSONObject = {"name": chain.name, "rewriters": as_json(chain.config(), other="text")}
        internals: JSONObject = {"condition": condition, **user.internals}
        rw = ahead.rewritten if ahead is not None else rewrite_turn(
            chain, text, seed=self.seed, index=user.index, history=self.history)
        steps, final, error = rw.steps, rw.final, rw.error
        user = replace(user, text_final=final, rewrite_steps=[s.to_json() for s in steps],
                       internals=internals, latency_ms=rw.ms,
                       status="failed" if error else "pending", error=error)
        base = Exchange(user_turn_id=user.id, user_index=user.index, typed=text, final=final, steps=steps,
                        condition=chain.name, audio_in=user.audio_in, ahead=ahead is not None)
        if not self.store.settle_turn(user):
            return replace(base, cancelled=True)
        if error:
            return replace(base, error=error)
        self.history.append(Message("user", final))

        s_index = user.index + 1
        if ahead is not None and ahead.answered is not None and isinstance(self.system, Forkable):
            ans = ahead.answered  # (_fits checked that the system can fork)
            self.system.adopt(ahead.fork)
        else:
            ans = answer(self.system, tuple(self.history))
        reply, error = ans.reply, ans.error
        if reply is None:
            sys_rec = TurnRecord(session_id=self.id, index=s_index, role="system", text="", status="failed",
                                 error=error, latency_ms=ans.ms)
        else:
            info = reply.to_json()
            info.pop("text", None)
            sys_rec = TurnRecord(session_id=self.id, index=s_index, role="system", text=reply.text,
                                 internals=info, latency_ms=ans.ms)
        if not self.store.settle_turn(replace(user, status="ok"), reply=sys_rec):
            self.history.pop()  # cancelled while the system was answering: the answer is not kept
            return replace(base, cancelled=True)
        if reply is None:
            return replace(base, system_turn_id=sys_rec.id, system_index=s_index, error=error)
        self.history.append(Message("system", reply.text))
        return replace(base, system_turn_id=sys_rec.id, system_index=s_index, reply=reply)

    # -- turns computed ahead (engine.speculate) ---------------------------------------------------------
    def speculate(self, text: str) -> Speculation | None:
        """Compute the next user turn ``text`` ahead — rewriters, and the system on a fork of itself — storing
        and changing nothing; ``run(pending, ahead=...)`` commits it if it still fits. None when this session
        cannot (the system cannot fork, a rewriter is not pure) or a turn is running now."""
        system = self.system
        if not isinstance(system, Forkable) or not self.chain.pure:
            return None
        if not self._lock.acquire(blocking=False):  # a turn is running: the history is about to change
            return None
        try:
            with self._accept_lock:
                index, runs = self._next_index, self._runs
            chain, history = self.chain, tuple(self.history)
            fork = system.fork()
        finally:
            self._lock.release()
        rw = rewrite_turn(chain, text, seed=self.seed, index=index, history=history)
        answered = None if rw.error else answer(fork, (*history, Message("user", rw.final)))
        return Speculation(text, index, runs, chain, rw, answered, fork)

    def _fits(self, ahead: Speculation, user: TurnRecord) -> bool:
        """A speculation may stand for ``user``'s turn: same text and index, nothing run since, same chain."""
        return (ahead.text == user.text and ahead.index == user.index and ahead.runs == self._runs
                and ahead.chain is self.chain and isinstance(self.system, Forkable))

    # -- spoken replies ----------------------------------------------------------------------------------
    def reply_audio_path(self, exchange: Exchange) -> str | None:
        """Where the spoken reply of ``exchange``'s system turn is saved (None: there is no system turn)."""
        if exchange.system_index is None:
            return None
        return str(turn_audio_path(self.id, exchange.system_index, "system"))

    def record_speech(self, exchange: Exchange, audio_out: str | None, timings: Mapping[str, object]) -> None:
        """Store the spoken reply's WAV and the voice stage latencies (``internals["voice"]``) on the system
        turn."""
        if exchange.system_turn_id is not None:
            voice = as_json_object(timings, other="text")
            self.store.set_turn_audio(exchange.system_turn_id, audio_out, {"voice": voice})

    # -- ratings -----------------------------------------------------------------------------------------
    def rate_turn(self, system_turn_id: str, rater: str, *, relevance: int | None = None,
                  interestingness: int | None = None) -> TurnRating:
        return self.store.rate_turn(TurnRating(system_turn_id, rater, relevance, interestingness))

    def rate_dialogue(self, rating: DialogueRating) -> DialogueRating:
        return self.store.rate_dialogue(rating, lock=True)

    def set_tester(self, tester: str) -> None:
        """The tester changed mid-session: the record (stored or not yet) names the new one."""
        with self._accept_lock:
            self.record = replace(self.record, tester=tester)
            if self.stored:
                self.store.set_tester(self.id, tester)

    def end(self) -> None:
        """Set ``ended_at`` (a session never typed into was never stored and stays so)."""
        with self._accept_lock:
            if self.stored:
                self.store.end_session(self.id)
