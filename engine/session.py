"""A dialogue session: history + rewriter chain + system under test + the store.

The TUI, ``parley chat`` and ``parley run`` all drive dialogues through this class, so a turn is processed and
stored the same way everywhere: the user turn (typed text, every rewrite step, final text) is committed before the
system is asked, and the system turn is committed before ``turn()`` returns — a crash loses at most the turn in
flight. A failing rewriter or system becomes a stored failed turn; the session goes on.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from parley import __version__
from parley.engine.locations import adopt_audio, turn_audio_path
from parley.engine.rewrite.chain import Chain
from parley.engine.types import DialogueSystem, Message, Rewrite, SystemTurn
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
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.reply is not None


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


class Session:
    """Holds one dialogue. Thread-safe: turns are serialised by a lock (workers may call ``turn``)."""

    def __init__(
        self,
        store: Store,
        system: DialogueSystem,
        *,
        system_spec: str | None = None,
        system_config: dict[str, Any] | None = None,
        chain: Chain | None = None,
        tester: str = "",
        mode: str = "live",
        seed: int | None = None,
        goal: dict[str, Any] | None = None,
        source: str | None = None,
    ) -> None:
        self.store = store
        self.system = system
        self.chain = chain or Chain()
        self.seed = seed if seed is not None else new_seed()
        self.history: list[Message] = []
        self._lock = threading.Lock()
        system.reset(self.seed)
        self.record = store.add_session(SessionRecord(
            tester=tester,
            mode=mode,  # type: ignore[arg-type]
            system_name=str(system_spec or getattr(system, "name", None) or type(system).__name__),
            system_config=system_config or {},
            condition={"name": self.chain.name, "rewriters": self.chain.config()},
            goal=goal,
            seed=self.seed,
            app_version=__version__,
            source=source,
        ))
        self._next_index = 0

    @property
    def id(self) -> str:
        return self.record.id

    def set_chain(self, chain: Chain) -> None:
        """Swap the rewriter chain; it applies from the next turn (each turn stores the chain in force)."""
        self.chain = chain

    def turn(self, text: str, *, audio_in: str | None = None, input_info: dict[str, Any] | None = None) -> Exchange:
        with self._lock:
            return self._turn(text, audio_in, input_info or {})

    def _turn(self, text: str, audio_in: str | None, input_info: dict[str, Any]) -> Exchange:
        chain = self.chain
        u_index = self._next_index
        condition = {"name": chain.name, "rewriters": chain.config()}
        internals: dict[str, Any] = {"condition": condition}
        if input_info:
            internals["input"] = input_info
        t0 = time.perf_counter()
        error = None
        steps: tuple[Rewrite, ...] = ()
        final = text
        try:
            result = chain.apply(text, seed=self.seed, turn_index=u_index, history=tuple(self.history))
            steps, final = result.steps, result.after
        except Exception as e:  # a broken rewriter must not end the session
            error = f"rewriter failed: {type(e).__name__}: {e}"
        rewrite_ms = (time.perf_counter() - t0) * 1000
        if audio_in:  # the recording takes its place in the session's folder, named by turn
            audio_in = adopt_audio(audio_in, self.id, u_index, "user")
        user = self.store.add_turn(TurnRecord(
            session_id=self.id, index=u_index, role="user", text=text, text_final=final,
            rewrite_steps=[s.to_json() for s in steps], internals=internals, latency_ms=rewrite_ms,
            audio_in=audio_in, status="failed" if error else "ok", error=error))
        self._next_index += 1
        base = Exchange(user_turn_id=user.id, user_index=u_index, typed=text, final=final, steps=steps,
                        condition=chain.name, audio_in=audio_in)
        if error:
            return replace(base, error=error)
        self.history.append(Message("user", final))

        s_index = self._next_index
        t1 = time.perf_counter()
        try:
            reply = self.system.respond(tuple(self.history))
        except Exception as e:
            msg = f"{type(e).__name__}: {e}"
            failed = self.store.add_turn(TurnRecord(
                session_id=self.id, index=s_index, role="system", text="", status="failed", error=msg,
                latency_ms=(time.perf_counter() - t1) * 1000))
            self._next_index += 1
            return replace(base, system_turn_id=failed.id, system_index=s_index, error=msg)
        latency = reply.latency_ms or (time.perf_counter() - t1) * 1000
        info = reply.to_json()
        info.pop("text", None)
        sys_rec = self.store.add_turn(TurnRecord(
            session_id=self.id, index=s_index, role="system", text=reply.text, internals=info,
            latency_ms=latency))
        self._next_index += 1
        self.history.append(Message("system", reply.text))
        return replace(base, system_turn_id=sys_rec.id, system_index=s_index, reply=reply)

    # -- spoken replies ----------------------------------------------------------------------------------
    def reply_audio_path(self, exchange: Exchange) -> str | None:
        """Where the spoken reply of ``exchange``'s system turn is saved (None: there is no system turn)."""
        if exchange.system_index is None:
            return None
        return str(turn_audio_path(self.id, exchange.system_index, "system"))

    def record_speech(self, exchange: Exchange, audio_out: str | None, timings: dict[str, Any]) -> None:
        """Store the spoken reply's WAV and the voice stage latencies (``internals["voice"]``) on the system
        turn."""
        if exchange.system_turn_id is not None:
            self.store.set_turn_audio(exchange.system_turn_id, audio_out, {"voice": timings})

    # -- ratings -----------------------------------------------------------------------------------------
    def rate_turn(self, system_turn_id: str, rater: str, *, relevance: int | None = None,
                  interestingness: int | None = None) -> TurnRating:
        return self.store.rate_turn(TurnRating(system_turn_id, rater, relevance, interestingness))

    def rate_dialogue(self, rating: DialogueRating) -> DialogueRating:
        return self.store.rate_dialogue(rating, lock=True)

    def end(self) -> None:
        self.store.end_session(self.id)
