"""Going back to a venue the system offered earlier: "the first one you said", "the second hotel you
mentioned", "the other one"; and what must not be read so ("the first train", "the last one was too far")."""

from __future__ import annotations

import pytest

from parley.engine.mwdb import load_db
from parley.engine.systems.mw.lexicon import lexicon_for
from parley.engine.systems.mw.nlu import NluContext, parse

THREE = ("pizza hut city centre", "charlie chan", "ask restaurant")


@pytest.fixture(scope="module")
def lex():  # type: ignore[no-untyped-def]
    return lexicon_for(load_db())


def names(said: str, lex, history=THREE, domain="restaurant"):  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain=domain, offered={domain: history[-1]}, offer_history={domain: history})
    return [(d, v) for d, s, v in parse(said, ctx, lex).inform if s == "name"]


@pytest.mark.parametrize(("said", "want"), [
    ("i'll take the first one you said", "pizza hut city centre"),
    ("the first one", "pizza hut city centre"),
    ("what about the second place you mentioned", "charlie chan"),
    ("go with the 2nd one", "charlie chan"),
    ("the third option please", "ask restaurant"),
    ("the last one you suggested sounds good", "ask restaurant"),
    ("actually the previous one", "charlie chan"),
    ("the other one", "charlie chan"),
])
def test_a_place_named_by_its_place_in_the_offers(said: str, want: str, lex) -> None:  # type: ignore[no-untyped-def]
    assert names(said, lex) == [("restaurant", want)]


@pytest.mark.parametrize("said", [
    "the last one was too far",  # a remark, no choice
    "the fourth one you said",  # there were three
    "book the first one for 2 people at 7",  # only one offered so far: "first" names nothing new
])
def test_what_is_no_choice_among_the_offers(said: str, lex) -> None:  # type: ignore[no-untyped-def]
    history = THREE if "first" not in said else THREE[:1]
    assert names(said, lex, history=history) == []


def test_a_named_venue_wins_and_the_first_train_is_the_earliest(lex) -> None:  # type: ignore[no-untyped-def]
    assert names("not the first one, charlie chan please", lex) == [("restaurant", "charlie chan")]
    ctx = NluContext(active_domain="train", offer_history={"restaurant": THREE})
    assert not [s for d, s, v in parse("the first train you said", ctx, lex).inform if s == "name"]


def test_the_second_hotel_you_mentioned_while_trains_are_talked_about(lex) -> None:  # type: ignore[no-untyped-def]
    history = {"hotel": ("acorn guest house", "alexander bed and breakfast")}
    ctx = NluContext(active_domain="train", offer_history=history)
    got = [(d, v) for d, s, v in parse("book the second hotel you mentioned", ctx, lex).inform if s == "name"]
    assert got == [("hotel", "alexander bed and breakfast")]
