"""Number and time normalisation of the embedded MultiWOZ system's NLU."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from num2words import num2words

from parley.engine.rewrite.numbers import spoken_int
from parley.engine.systems.mw.normalise import clean, find_times, words_to_numbers


def times(text: str) -> list[str]:
    return [t.value for t in find_times(words_to_numbers(clean(text)))]


@pytest.mark.parametrize(("text", "expected"), [
    ("leave after quarter past five in the afternoon", ["17:15"]),
    ("I want to arrive by 5:15pm", ["17:15"]),
    ("at 5.15 pm please", ["17:15"]),
    ("arrive by 17 : 15 .", ["17:15"]),
    ("a table at half past seven in the evening", ["19:30"]),
    ("quarter to six pm", ["17:45"]),
    ("leaving at 9am, back by 10pm", ["09:00", "22:00"]),
    ("around noon", ["12:00"]),
    ("at 5 o'clock", ["17:00"]),
    ("I want to leave after 0915", ["09:15"]),
    ("for 3 people on monday", []),
])
def test_times(text: str, expected: list[str]) -> None:
    assert times(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("a table for three people", "a table for 3 people"),
    ("twenty five minutes", "25 minutes"),
    ("just me", "1 people"),
    ("a couple of nights", "2 nights"),
    ("my wife and i", "2 people"),
    ("sixty two pounds", "62 pounds"),
    ("ninety nine", "99"),
    ("forty-five minutes", "45 minutes"),
    ("a hundred", "100"),
    ("a hundred and twenty pounds", "120 pounds"),
    ("one hundred and twenty", "120"),
    ("two hundred", "200"),
    ("for a week", "for 7 days"),
    ("on the 3rd", "on the 3"),
    ("twenty five past six", "25 past 6"),
    ("leave at nineteen hundred", "leave at 19 hundred"),  # a spoken time, not 1900
    ("the one on the left", "the 1 on the left"),
    ("i want to leave after 0915", "i want to leave after 0915"),
    ("2 2", "2 2"),
])
def test_number_words(text: str, expected: str) -> None:
    assert words_to_numbers(clean(text)) == expected


@given(st.integers(0, 999))
def test_every_number_below_1000_in_words(n: int) -> None:
    """num2words' form ("one hundred and twenty-one") and parley's spoken one ("one hundred twenty one")."""
    assert words_to_numbers(num2words(n)) == str(n)
    assert words_to_numbers(clean(num2words(n))) == str(n)
    assert words_to_numbers(spoken_int(n)) == str(n)
    assert words_to_numbers(f"for {num2words(n)} people") == f"for {n} people"


@given(st.lists(st.integers(0, 99_999).map(str) | st.sampled_from(["0915", "007", "2"]), max_size=6))
def test_digits_stay_as_they_are(parts: list[str]) -> None:
    text = " ".join(parts)
    assert words_to_numbers(text) == text


def test_clean_is_robust() -> None:
    assert clean("I'd like a CHEAP place in the center, please!") == (
        "i'd like a cheap place in the centre please")
    assert clean("Café — Ünïcode ☃ 😀") == "cafe unicode"
    assert clean("") == ""
    assert len(clean("x " * 10_000)) <= 600
    assert clean("I do n't care") == "i don't care"


def test_typo_fixing_keeps_real_words() -> None:
    from parley.engine.systems.mw.normalise import fix_typos

    assert fix_typos("a chinse restaurnt in the nroth on wedensday") == (
        "a chinese restaurant in the north on wednesday")
    assert fix_typos("worth house is three miles from the brain") == (
        "worth house is three miles from the brain")
    assert fix_typos("cheap") == "cheap"


@pytest.mark.parametrize(("text", "expected"), [
    ("arriving by five fifteen pm", ["17:15"]),
    ("leave after seventeen thirty", ["17:30"]),
    ("a table for two at seven forty five in the evening", ["19:45"]),
    ("a table for two at seven forty-five pm", ["19:45"]),
    ("leave at nineteen hundred", ["19:00"]),
])
def test_spoken_times(text: str, expected: list[str]) -> None:
    assert times(text) == expected


def test_terminal_colour_codes_are_not_words() -> None:
    from parley.engine.systems.mw.normalise import clean

    assert clean("a \x1b[31mcheap\x1b[0m hotel") == "a cheap hotel"
    assert clean("a \u241b[1;32mcheap\u241b[0m hotel \x1b") == "a cheap hotel"


def test_an_early_clock_hour_without_am_is_in_the_afternoon() -> None:
    from parley.engine.systems.mw.normalise import find_times

    assert [t.value for t in find_times("leave at 2:15")] == ["14:15"]
    assert [t.value for t in find_times("leave at 2:15 in the morning")] == ["02:15"]
    assert [t.value for t in find_times("at 2:15 am or at 02:15")] == ["02:15", "02:15"]
    assert [t.value for t in find_times("by 5:30")] == ["05:30"]


def test_spoken_times_as_the_rewriters_protect_them() -> None:
    from parley.engine.systems.mw.normalise import clean, find_times, words_to_numbers

    def read(text: str) -> list[str]:
        return [t.value for t in find_times(words_to_numbers(clean(text)))]

    assert read("we leave at seventeen oh five") == ["17:05"]
    assert read("arrive by half six") == ["18:30"]
    assert read("a quarter to seven") == read("six forty-five pm") == ["18:45"]
    assert read("a quarter to seven in the morning") == ["06:45"]
    assert read("half 6 people and about half an hour") == []


def test_in_the_morning_keeps_every_spoken_hour_in_the_morning() -> None:
    from parley.engine.systems.mw.normalise import clean, find_times, words_to_numbers

    def read(text: str) -> list[str]:
        return [t.value for t in find_times(words_to_numbers(clean(text)))]

    assert read("leave at 5 in the morning") == ["05:00"]
    assert read("half six in the morning") == ["06:30"]
    assert read("at five o'clock in the morning") == ["05:00"]
    assert read("leave at five fifteen in the morning") == ["05:15"]
    assert read("at seven o'clock in the evening") == ["19:00"]
    assert read("leave at 4") == ["16:00"]


def test_a_tired_testers_spellings() -> None:
    assert clean("i need a train frm cambrdge tmrw") == "i need a train from cambridge tomorrow"
    assert clean("to Camrbidge, cambride or cmbridge") == "to cambridge cambridge or cambridge"
    assert clean("wat time, 4 ppl, tonite") == "what time 4 people tonight"
    assert clean("the cambridgeshire plains") == "the cambridgeshire plains"  # two letters off: kept
