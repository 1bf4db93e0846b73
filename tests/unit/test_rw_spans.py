"""The shared slot-value span detector."""

from __future__ import annotations

from parley.engine.mwdb import load_db
from parley.engine.spans import find_spans


def _check(text: str):
    spans = find_spans(text)
    for s in spans:
        assert text[s.start:s.end] == s.value
    for a, b in zip(spans, spans[1:], strict=False):
        assert a.end <= b.start
    return spans


def test_names_places_times_counts() -> None:
    text = "I need a taxi from Saint John 's college to Pizza Hut Fen Ditton at 17:15 for 3 people ."
    by_slot = {s.slot: s.value for s in _check(text)}
    assert by_slot["name"] in ("Saint John 's college", "Pizza Hut Fen Ditton")
    assert by_slot["book_people"] == "3"
    assert any(s.value == "17:15" for s in find_spans(text))
    assert {s.value for s in find_spans(text)} >= {"Saint John 's college", "Pizza Hut Fen Ditton"}


def test_categorical_values_and_slots() -> None:
    spans = _check("a cheap italian place in the centre on Friday, leaving after 9:30 and arriving by 11:00")
    got = {(s.slot, s.value) for s in spans}
    assert ("pricerange", "cheap") in got
    assert ("food", "italian") in got
    assert ("area", "centre") in got
    assert ("day", "Friday") in got
    assert ("leaveAt", "9:30") in got
    assert ("arriveBy", "11:00") in got


def test_train_stations_by_preposition() -> None:
    spans = _check("a train from cambridge to london kings cross")
    got = {s.slot: s.value for s in spans}
    assert got == {"departure": "cambridge", "destination": "london kings cross"}


def test_near_misses_are_found_but_common_words_are_not() -> None:
    assert [s.value for s in find_spans("a train from cambrige please")] == ["cambrige"]
    assert find_spans("please find a restaurant for me") == ()
    assert find_spans("thank you so much, have a nice day") == ()


def test_empty_and_explicit_db() -> None:
    assert find_spans("") == ()
    assert find_spans("   ") == ()
    db = load_db()
    assert find_spans("the north of town", db) == find_spans("the north of town")
