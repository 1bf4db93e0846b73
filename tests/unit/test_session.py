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
