"""Turns computed ahead (Session.speculate): a discarded speculation leaves the stored session and the system
exactly as if it never ran; one that still fits is committed as it was and stores what the turn would have."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.engine.rewrite.chain import Chain
from parley.engine.session import Session
from parley.engine.systems import build_system
from parley.store import open_store

TURNS = ("I am looking for a cheap restaurant in the north.", "Italian food, please.",
         "Can I have the phone number?", "Book a table for two at seven thirty on Friday.")
OTHER = "I need a hotel in the east with free parking."
CHAIN = ("impolite", "disfluency", "wp")


@pytest.fixture
def store():
    s = open_store(":memory:")
    yield s
    s.close()


def session(store: Any, system: str = "multiwoz", chain: tuple[str, ...] = CHAIN) -> Session:
    return Session(store, build_system(system), system_spec=system, chain=Chain(chain), seed=11)


def scrub(value: Any) -> Any:
    """Stored JSON without the timings (which differ between any two runs)."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not k.endswith("latency_ms")}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def stored(store: Any, ses: Session) -> list[tuple[Any, ...]]:
    return [(t.index, t.role, t.text, t.text_final, scrub(t.rewrite_steps), scrub(t.internals), t.status,
             t.error) for t in store.turns(ses.id)]


def reference(turns: tuple[str, ...] = TURNS) -> list[tuple[Any, ...]]:
    with_store = open_store(":memory:")
    ses = session(with_store)
    for text in turns:
        ses.turn(text)
    out = stored(with_store, ses)
    with_store.close()
    return out


def test_a_discarded_speculation_leaves_the_session_as_if_it_never_ran(store):
    ses = session(store)
    ses.turn(TURNS[0])
    before = stored(store, ses)
    tracker = dict(vars(ses.system.tracker))
    for text in (TURNS[1], OTHER, TURNS[1]):  # speech resumed, or the transcript changed: all dropped
        ahead = ses.speculate(text)
        assert ahead is not None and ahead.reply is not None and ahead.index == 2
    assert stored(store, ses) == before and dict(vars(ses.system.tracker)) == tracker
    for text in TURNS[1:]:
        assert not ses.turn(text).ahead
    assert stored(store, ses) == reference()


def test_a_speculation_that_fits_is_committed_as_it_was(store):
    ses = session(store)
    ahead = ses.speculate(TURNS[0])
    assert ahead is not None and store.sessions() == []  # nothing stored, not even the session
    ex = ses.run(ses.accept(TURNS[0]), ahead)
    assert ex.ahead and ex.reply == ahead.reply and ex.final == ahead.rewritten.final
    for text in TURNS[1:]:
        ahead = ses.speculate(text)
        ex = ses.run(ses.accept(text), ahead)
        assert ex.ahead and ex.reply == ahead.reply
    assert stored(store, ses) == reference()


def test_a_changed_transcript_or_a_turn_run_since_drops_the_speculation(store):
    ses = session(store)
    ses.turn(TURNS[0])
    stale = ses.speculate(TURNS[2])
    ex = ses.run(ses.accept(TURNS[1]), stale)  # the final transcript differs
    assert not ex.ahead
    ex = ses.run(ses.accept(TURNS[2]), stale)  # same text, but a turn ran since (and the index moved on)
    assert not ex.ahead
    ahead = ses.speculate(TURNS[3])
    ses.set_chain(Chain(CHAIN))  # the chain was switched meanwhile
    assert not ses.run(ses.accept(TURNS[3]), ahead).ahead
    assert stored(store, ses) == reference()


def test_no_speculation_without_a_fork_a_pure_chain_or_while_a_turn_runs(store):
    from tests.unit.test_session import Boom

    assert Session(store, Boom(), system_spec="boom").speculate("hi") is None  # cannot fork
    served = Chain(["impolite:backend=openai,url=http://127.0.0.1:9/v1,model=m"])
    assert not served.pure and Session(store, build_system("echo"), chain=served).speculate("hi") is None
    ses = session(store, "echo")
    with ses._lock:  # a turn is running: the history is about to change
        assert ses.speculate("hi") is None
    assert ses.speculate("hi") is not None and store.sessions() == []


def test_a_failing_rewriter_ahead_is_committed_as_the_same_failed_turn(store, monkeypatch):
    ses = session(store, "echo")
    monkeypatch.setattr(ses.chain, "apply", lambda *a, **k: (_ for _ in ()).throw(ValueError("broken")))
    ahead = ses.speculate("hi")
    assert ahead is not None and ahead.answered is None and ahead.rewritten.error
    ex = ses.run(ses.accept("hi"), ahead)
    assert ex.ahead and ex.error and "broken" in ex.error and ex.system_turn_id is None
    assert ses.system.turns == 0  # the system was never asked


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(("discard", "commit", "other", "none")), st.integers(0, 2)),
                min_size=len(TURNS), max_size=len(TURNS)))
def test_any_mix_of_speculations_stores_what_plain_turns_store(plan):
    """Per turn: speculations discarded (0–2 of them, for the turn's text or another), then the turn run with
    a fitting speculation, a stale one or none: the stored session is always the plain one."""
    store = open_store(":memory:")
    ses = session(store)
    for text, (how, extra) in zip(TURNS, plan, strict=True):
        for _ in range(extra):
            ses.speculate(text if extra % 2 else OTHER)
        ahead = {"commit": lambda t=text: ses.speculate(t), "other": lambda: ses.speculate(OTHER),
                 "discard": lambda: None, "none": lambda: None}[how]()
        assert ses.run(ses.accept(text), ahead).ahead == (how == "commit")
    assert stored(store, ses) == reference()
    store.close()
