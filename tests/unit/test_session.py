"""Session: every turn stored before the reply returns, failures stored, chain config recorded per turn."""

from __future__ import annotations

import pytest

from parley.engine.session import Session
from parley.engine.systems import build_system
from parley.engine.types import Message, SystemTurn
from parley.store import open_store
from parley.store.records import DialogueRating


class Boom:
    name = "boom"

    def reset(self, seed=None):
        pass

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if "fail" in history[-1].text:
            raise TimeoutError("no answer in 5 s")
        return SystemTurn(text="fine", state={"hotel": {"area": "north"}}, latency_ms=1.0)


@pytest.fixture
def store():
    s = open_store(":memory:")
    yield s
    s.close()


def test_turns_stored_in_order(store):
    ses = Session(store, build_system("echo"), system_spec="echo", tester="ada", seed=4)
    ex = ses.turn("hello there")
    assert ex.ok and ex.reply is not None and ex.reply.text.endswith("hello there")
    turns = store.turns(ses.id)
    assert [(t.role, t.index) for t in turns] == [("user", 0), ("system", 1)]
    assert turns[0].text == "hello there" and turns[0].text_final == "hello there"
    assert turns[0].internals["condition"] == {"name": "original", "rewriters": []}
    assert store.session(ses.id).seed == 4


def test_failed_system_turn_is_stored_and_session_goes_on(store):
    ses = Session(store, Boom(), system_spec="boom")
    bad = ses.turn("please fail")
    assert bad.error and "TimeoutError" in bad.error
    good = ses.turn("again")
    assert good.ok
    turns = store.turns(ses.id)
    assert [t.status for t in turns] == ["ok", "failed", "ok", "ok"]
    assert turns[1].error == "TimeoutError: no answer in 5 s"
    assert turns[3].internals["state"] == {"hotel": {"area": "north"}}


def test_ratings_and_lock(store):
    ses = Session(store, Boom(), system_spec="boom")
    ex = ses.turn("hi")
    ses.rate_turn(ex.system_turn_id, "ada", relevance=3, interestingness=1)
    ses.rate_dialogue(DialogueRating(ses.id, "ada", 3, 2, 1, 1, 4, "ok"))
    assert store.session(ses.id).locked
    assert store.dialogue_ratings(ses.id)[0].overall == 4


class Gate:
    """A system that answers only when the test opens the gate (a slow bot, deterministically)."""

    name = "gate"

    def __init__(self) -> None:
        import threading

        self.asked = threading.Event()
        self.open = threading.Event()

    def reset(self, seed=None):
        pass

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        self.asked.set()
        assert self.open.wait(10)
        return SystemTurn(text=f"re: {history[-1].text}")


def test_accepted_turns_are_stored_pending_before_they_run(store):
    ses = Session(store, build_system("echo"), system_spec="echo", tester="ada")
    assert store.session(ses.id) is None  # nothing typed yet: no session record
    a, b = ses.accept("one"), ses.accept("two", input_info={"asr": {"model": "tiny.en"}})
    rows = store.turns(ses.id)
    assert [(t.index, t.text, t.status) for t in rows] == [(0, "one", "pending"), (2, "two", "pending")]
    assert rows[1].internals == {"input": {"asr": {"model": "tiny.en"}}}
    assert store.session(ses.id).tester == "ada"
    ses.run(a)
    ses.run(b)
    rows = store.turns(ses.id)
    assert [(t.index, t.role, t.status) for t in rows] == [
        (0, "user", "ok"), (1, "system", "ok"), (2, "user", "ok"), (3, "system", "ok")]
    assert rows[2].internals["input"]["asr"]["model"] == "tiny.en" and "condition" in rows[2].internals


def test_cancel_keeps_unsent_turns_as_cancelled_and_drops_a_late_answer(store):
    import threading

    system = Gate()
    ses = Session(store, system, system_spec="gate")
    first, second = ses.accept("first"), ses.accept("second")
    out: list = []
    worker = threading.Thread(target=lambda: out.append(ses.run(first)))
    worker.start()
    assert system.asked.wait(10)
    assert store.turns(ses.id)[0].status == "pending" and store.turns(ses.id)[0].text_final == "first"
    assert ses.cancel_pending() == 2
    system.open.set()  # the answer arrives after the tester cancelled: not stored
    worker.join(10)
    assert out[0].cancelled and out[0].reply is None
    assert ses.run(second).cancelled
    ses.end()
    rows = store.turns(ses.id)
    assert [(t.role, t.text, t.status) for t in rows] == [("user", "first", "cancelled"),
                                                          ("user", "second", "cancelled")]
    assert store.session(ses.id).ended_at is not None


def test_tester_change_updates_the_session_record(store):
    ses = Session(store, Boom(), system_spec="boom", tester="ada")
    ses.set_tester("bea")  # not stored yet: the record carries the new name
    ses.turn("hi")
    assert store.session(ses.id).tester == "bea"
    ses.set_tester("cy")
    assert store.session(ses.id).tester == "cy"


def test_a_session_nobody_typed_into_leaves_nothing(store):
    ses = Session(store, Boom(), system_spec="boom")
    ses.end()
    assert store.sessions() == [] and ses.cancel_pending() == 0


def test_rewriter_failure_leaves_a_failed_user_turn(store, monkeypatch):
    from parley.engine.rewrite.chain import Chain

    chain = Chain(["asr-sim"])
    monkeypatch.setattr(chain, "apply", lambda *a, **k: (_ for _ in ()).throw(ValueError("broken")))
    ses = Session(store, Boom(), system_spec="boom", chain=chain)
    ex = ses.turn("hi")
    assert ex.error and "rewriter failed" in ex.error and ex.system_turn_id is None
    (row,) = store.turns(ses.id)
    assert row.status == "failed" and "broken" in (row.error or "")


def test_a_session_stores_turns_before_its_system_is_loaded_and_names_the_one_that_answers(store):
    ses = Session(store, None, system_spec="llm", tester="ada", seed=3)
    first = ses.accept("first")  # the system is still loading: stored, pending
    assert [(s.system_name, s.ended_at) for s in store.sessions()] == [("llm", None)]
    with pytest.raises(RuntimeError, match="no system"):
        ses.run(first)
    ses.attach(build_system("echo"), "echo")  # llm failed to load; the tester picked echo
    assert store.session(ses.id).system_name == "echo" and ses.run(first).ok
    with pytest.raises(ValueError, match="has a system already"):
        ses.attach(Boom(), "boom")  # what answered the session stays what it names
    assert store.session(ses.id).system_name == "echo"


def test_a_session_answered_by_a_system_never_names_another(store):
    ses = Session(store, build_system("echo"), system_spec="echo")
    ses.turn("hi")
    assert not store.set_session_system(ses.id, "boom", {})
    assert store.session(ses.id).system_name == "echo"


def test_cancelled_turns_keep_why_they_were_never_sent(store):
    ses = Session(store, None, system_spec="llm")
    ses.accept("one")
    assert ses.cancel_pending("never sent: llm failed to load: no weights") == 1
    (turn,) = store.turns(ses.id)
    assert (turn.status, turn.error) == ("cancelled", "never sent: llm failed to load: no weights")
