"""Times and days of the embedded MultiWOZ system that a tester says in passing: another event's time ("I have
dinner at 8"), relative days ("tomorrow") and corrected times."""

from __future__ import annotations

import pytest

from parley.engine.mwdb import load_db
from parley.engine.systems.mw.lexicon import lexicon_for
from parley.engine.systems.mw.nlu import NluContext, parse


@pytest.fixture(scope="module")
def lex():  # type: ignore[no-untyped-def]
    return lexicon_for(load_db())


TRAIN = "I need a train from ely to cambridge on saturday"


@pytest.mark.parametrize(("said", "want"), [
    # the time of another event is not the train's ...
    (f"{TRAIN}. I have dinner at 8 in the evening", {}),
    (f"{TRAIN}, my meeting starts at 10", {}),
    ("a train from cambridge to ely on sunday leaving after 9. I have a meeting at 11", {"leaveAt": "09:00"}),
    # ... unless the trip is tied to it: to reach it ...
    (f"{TRAIN}, I want to arrive before my dinner at 8", {"arriveBy": "20:00"}),
    (f"{TRAIN} to get there in time for a show at 7:30 pm", {"arriveBy": "19:30"}),
    (f"{TRAIN} for a meeting at 10", {"arriveBy": "10:00"}),
    (f"{TRAIN}, I have a meeting at 10 so I need to get there before that", {"arriveBy": "10:00"}),
    # ... or to leave after it
    (f"{TRAIN}, after my lunch at 1", {"leaveAt": "13:00"}),
    (f"{TRAIN}. My meeting ends at 3 so I can leave after that", {"leaveAt": "15:00"}),
    # times with no event are read as before
    (f"{TRAIN}, leaving after 8 in the evening", {"leaveAt": "20:00"}),
])
def test_a_time_of_another_event_is_no_departure(lex, said: str, want: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    r = parse(said, NluContext(), lex)
    got = {s: v for d, s, v in r.inform if s in ("leaveAt", "arriveBy", "book_time")}
    assert got == want and all(d == "train" for d, s, _ in r.inform), r.inform


def test_dinner_at_8_is_still_a_tables_time(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("book a table for 2 for dinner at 8", NluContext(active_domain="restaurant"), lex)
    assert ("restaurant", "book_time", "20:00") in r.inform


def test_a_taxi_for_an_event_arrives_by_its_time(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I need a taxi to the museum for my appointment at 3", NluContext(), lex)
    assert ("taxi", "arriveBy", "15:00") in r.inform
