"""Spoken numbers (engine.rewrite.numbers): num2words' words in parley's spoken style."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.engine.rewrite import numbers
from parley.engine.rewrite.numbers import (
    speak_numbers,
    spoken_int,
    spoken_number,
    spoken_ordinal,
    spoken_time,
)


@pytest.mark.parametrize(("n", "words"), [
    (0, "zero"), (7, "seven"), (13, "thirteen"), (20, "twenty"), (23, "twenty three"), (99, "ninety nine"),
    (100, "one hundred"), (105, "one hundred five"), (110, "one hundred ten"),
    (1001, "one thousand one"), (1105, "one thousand one hundred five"), (2024, "two thousand twenty four"),
    (12345, "twelve thousand three hundred forty five"), (1_000_000, "one million"),
    (1_234_567, "one million two hundred thirty four thousand five hundred sixty seven"),
    (10**9 + 1, "one billion one"), (-5, "minus five"),
    (10**12, "one zero zero zero zero zero zero zero zero zero zero zero zero"),
])
def test_spoken_int(n: int, words: str) -> None:
    assert spoken_int(n) == words


@pytest.mark.parametrize(("n", "words"), [
    (0, "zeroth"), (1, "first"), (2, "second"), (3, "third"), (5, "fifth"), (8, "eighth"), (9, "ninth"),
    (12, "twelfth"), (20, "twentieth"), (21, "twenty first"), (40, "fortieth"), (100, "one hundredth"),
    (105, "one hundred fifth"), (1_000_000, "one millionth"), (10**12 + 2, "one" + " zero" * 11 + " second"),
])
def test_spoken_ordinal(n: int, words: str) -> None:
    assert spoken_ordinal(n) == words


def test_spoken_number_and_time() -> None:
    assert spoken_number("2nd") == "second"
    assert spoken_number("23rd") == "twenty third"
    assert spoken_number("23.60") == "twenty three point six zero"
    assert spoken_number(".5") == "point five"
    assert spoken_number("1234567") == "one two three four five six seven"  # more than six digits
    assert spoken_number("042") == "zero four two"  # a leading zero: a reference
    assert spoken_time("17:05") == "seventeen oh five"
    assert spoken_time("19:00") == "nineteen hundred"
    assert spoken_time("7pm") == "seven p m"
    assert spoken_time("7.30 a.m.") == "seven thirty a m"
    assert speak_numbers("£105 for the 2nd room at 19:45") == (
        "one hundred five pounds for the second room at nineteen forty five")


@given(st.integers(min_value=0, max_value=10**12 - 1))
def test_spoken_style_holds_for_every_integer(n: int) -> None:
    for words in (spoken_int(n), spoken_ordinal(n)):
        assert "and" not in words.split()
        assert "-" not in words and "," not in words and "  " not in words
        assert words == words.strip() and words.islower()


def test_module_doctests() -> None:
    assert doctest.testmod(numbers).failed == 0
