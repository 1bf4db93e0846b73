"""The shared slot-value span detector."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parley.engine.mwdb import load_db
from parley.engine.spans import find_spans
from tests.polite_requests import spoken_times

#: the words before a time and the slot they give it
CUES = {"leave after": "leaveAt", "departing at": "leaveAt", "arrive by": "arriveBy", "get there before":
        "arriveBy", "a table at": "book_time", "book it for": "book_time"}


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


@pytest.mark.parametrize(("text", "want"), [
    ("I want to arrive by eleven o'clock please.", [("eleven o'clock", "arriveBy")]),
    ("Could I leave after half past six on Monday?", [("half past six", "leaveAt"), ("Monday", "day")]),
    ("Book a table for 4 people at quarter to seven.",
     [("4", "book_people"), ("quarter to seven", "book_time")]),
    ("a taxi at six thirty, thanks", [("six thirty", "book_time")]),
    ("the train should depart after noon", [("noon", "leaveAt")]),
    ("get there before midnight", [("midnight", "arriveBy")]),
    ("a cab for seven pm.", [("seven pm", "book_time")]),
    ("a cab for 7 p.m. tomorrow", [("7 p.m.", "book_time")]),
    ("leaving at ten in the morning", [("ten in the morning", "leaveAt")]),
    ("By Twenty-Five Past 8 In The Evening", [("Twenty-Five Past 8 In The Evening", "arriveBy")]),
    ("arrive until seventeen oh five", [("seventeen oh five", "arriveBy")]),
    ("we'll eat at nineteen hundred hours", [("nineteen hundred hours", "book_time")]),
    ("and 7 o'clock in the evening", [("7 o'clock in the evening", "book_time")]),
    ("leave at 18:00 or twelve noon", [("18:00", "leaveAt"), ("twelve noon", "leaveAt")]),
])
def test_spoken_times(text: str, want: list[tuple[str, str]]) -> None:
    assert [(s.value, s.slot) for s in _check(text)] == want


@pytest.mark.parametrize("text", [
    "Good morning, is there a hotel in the afternoon sun?", "Is there one in the afternoon?",
    "from ten to twelve people", "two to three nights", "it costs twelve fifty pounds",
    "I need it for seven nights, thank you", "one of them, at night"])
def test_words_that_are_no_time(text: str) -> None:
    assert [s for s in _check(text) if s.slot in ("leaveAt", "arriveBy", "book_time")] == []


@settings(max_examples=150, deadline=None)
@given(time=st.sampled_from(spoken_times()), cue=st.sampled_from(list(CUES)),
       before=st.sampled_from(("", "Yes. ", "I'd like a train, ")),
       after=st.sampled_from(("", ".", " please?")))
def test_every_spoken_time_is_one_span(time: str, cue: str, before: str, after: str) -> None:
    text = f"{before}{cue} {time}{after}"
    got = [s for s in _check(text) if s.value == time]
    assert len(got) == 1 and got[0].slot == CUES[cue], (text, find_spans(text))
    assert got[0].start == len(before) + len(cue) + 1


def _digit_times() -> st.SearchStrategy[str]:
    """Digit times as users type them: "18:00", "7.30", "6 pm", "6pm", "5:30 p.m.", "11 AM"."""
    clock = st.builds(lambda h, m, sep: f"{h}{sep}{m:02d}", st.integers(0, 23), st.integers(0, 59),
                      st.sampled_from((":", ".")))
    hour = st.integers(1, 12).map(str)
    ampm = st.sampled_from(("am", "pm", "AM", "PM", "a.m.", "p.m.", "p.m", "Pm"))
    spaced = st.sampled_from(("", " "))
    return st.one_of(clock, st.builds(lambda t, s, a: f"{t}{s}{a}", st.one_of(clock, hour), spaced, ampm))


@settings(max_examples=200, deadline=None)
@given(time=_digit_times(), cue=st.sampled_from(list(CUES)),
       end=st.sampled_from(("", ".", "!", "?", ",", ". Thanks.", "... ok", " please.")))
def test_a_digit_times_span_is_the_time_without_the_sentences_punctuation(time: str, cue: str,
                                                                           end: str) -> None:
    assume(not (time.lower().endswith("p.m") or time.lower().endswith("a.m")) or not end.startswith("."))
    text = f"I'd like to {cue} {time}{end}"  # ("p.m" + "." is "p.m.": the dot is the time's then)
    got = [s for s in _check(text) if s.slot in ("leaveAt", "arriveBy", "book_time")]
    # the full stop of "p.m." is the time's; the one after "pm" ends the sentence
    assert [(s.value, s.slot) for s in got] == [(time, CUES[cue])], (text, got)


@pytest.mark.parametrize(("text", "want"), [
    ("at 6 pm.", "6 pm"), ("at 6pm.", "6pm"), ("by 18:00.", "18:00"), ("at 5:30 PM!", "5:30 PM"),
    ("at 6 p.m.", "6 p.m."), ("at 6 p.m. Thanks", "6 p.m."), ("at 7 a.m", "7 a.m"), ("at 7.30.", "7.30"),
])
def test_sentence_final_full_stop_after_a_digit_time(text: str, want: str) -> None:
    assert [s.value for s in _check(text)] == [want]


@pytest.mark.parametrize(("text", "want"), [
    # a clock time before counts as one word: "leave" is four words back, not five
    ("leave at 18:00 or at twelve noon", [("18:00", "leaveAt"), ("twelve noon", "leaveAt")]),
    ("leave after half past six or at twelve noon",
     [("half past six", "leaveAt"), ("twelve noon", "leaveAt")]),
    ("arrive by 5:30 pm or at 6 pm.", [("5:30 pm", "arriveBy"), ("6 pm", "arriveBy")]),
    ("depart 7.30 or 8.15 or 9.45", [("7.30", "leaveAt"), ("8.15", "leaveAt"), ("9.45", "leaveAt")]),
    # a cue in the sentence before is not this time's
    ("I arrive by 17:00. A table at 19:00 please", [("17:00", "arriveBy"), ("19:00", "book_time")]),
    ("Leave after 9! Then dinner at seven pm", [("seven pm", "book_time")]),
    # six words back is out of sight, times or not
    ("leave on a slow and quiet train at 18:00", [("18:00", "book_time")]),
])
def test_the_slot_of_a_time_reads_the_words_before_it(text: str, want: list[tuple[str, str]]) -> None:
    got = [(s.value, s.slot) for s in _check(text) if s.slot in ("leaveAt", "arriveBy", "book_time")]
    assert got == want
