"""Numbers, times and prices as a speaker says them (and an ASR system writes them).

The words come from num2words, in parley's spoken style: no "and", no hyphens, no commas ("one hundred five",
"twenty three"); long digit strings digit by digit; times as "seventeen oh five".

>>> spoken_time("13:45")
'thirteen forty five'
>>> spoken_number("23.60")
'twenty three point six zero'
>>> spoken_int(1105)
'one thousand one hundred five'
>>> spoken_ordinal(22)
'twenty second'
"""

from __future__ import annotations

import re
from functools import lru_cache

from num2words import num2words

#: from here on an integer is said digit by digit (a reference, not an amount)
_DIGIT_BY_DIGIT = 10**12
_ORDINAL_SUFFIX = re.compile(r"^(\d+)(st|nd|rd|th)$", re.IGNORECASE)


def _spoken(n: int, to: str) -> str:
    """num2words' English in parley's style: "one hundred and twenty-one" → "one hundred twenty one"."""
    words = num2words(n, lang="en", to=to).replace(",", " ").replace("-", " ").split()
    return " ".join(w for w in words if w != "and")


@lru_cache(maxsize=4096)
def spoken_int(n: int) -> str:
    """``n`` in words without "and" ("one hundred five"); from 10**12 on digit by digit."""
    if n < 0:
        return "minus " + spoken_int(-n)
    if n >= _DIGIT_BY_DIGIT:
        return " ".join(spoken_digits(str(n)))
    return _spoken(n, "cardinal")


def spoken_digits(s: str) -> list[str]:
    return [spoken_int(int(c)) for c in s if c in "0123456789"]


@lru_cache(maxsize=1024)
def spoken_ordinal(n: int) -> str:
    """``n`` as an ordinal ("second", "twenty first"); from 10**12 on digit by digit, the last one ordinal."""
    if n < 0:
        return "minus " + spoken_ordinal(-n)
    if n >= _DIGIT_BY_DIGIT:
        return " ".join([*spoken_digits(str(n // 10)), _spoken(n % 10, "ordinal")])
    return _spoken(n, "ordinal")


def spoken_number(s: str) -> str:
    """"3" → "three", "23.60" → "twenty three point six zero", "2nd" → "second".

    Long digit strings (phone numbers, postcodes, references) are said digit by digit.
    """
    m = _ORDINAL_SUFFIX.match(s)
    if m:
        return spoken_ordinal(int(m.group(1)))
    if "." in s:
        whole, _, frac = s.partition(".")
        head = spoken_number(whole) if whole else "point"
        return (head + " point " if whole else "point ") + " ".join(spoken_digits(frac)) if frac else head
    digits = "".join(c for c in s if c in "0123456789")
    if not digits:
        return s
    if len(digits) > 6 or (len(digits) > 1 and digits.startswith("0")):
        return " ".join(spoken_digits(digits))  # phone numbers, postcodes, references
    return spoken_int(int(digits))


def spoken_time(s: str) -> str:
    """"13:45" → "thirteen forty five", "05:00" → "five o'clock", "19:00" → "nineteen hundred",
    "17:05" → "seventeen oh five", "7pm" → "seven p m"."""
    m = re.match(r"^\s*(\d{1,2})(?:[:.](\d{2}))?\s*([ap])?\.?\s*(m)?\.?\s*$", s, re.IGNORECASE | re.ASCII)
    if not m:
        return s
    h, mins, ap = int(m.group(1)), m.group(2), m.group(3)
    head = spoken_int(h)
    if mins is None or mins == "00":
        out = head + ("" if ap else " hundred" if h > 12 or h == 0 else " o'clock")
    elif mins.startswith("0"):
        out = f"{head} oh {spoken_int(int(mins[1]))}"
    else:
        out = f"{head} {spoken_int(int(mins))}"
    if ap:
        out += " " + ap.lower() + " m"
    return out


_TIME_RE = re.compile(r"\b\d{1,2}[:.]\d{2}(?:\s?[ap]\.?m\.?)?|\b\d{1,2}\s?[ap]\.?m\.?(?!\w)",
                      re.IGNORECASE | re.ASCII)
_NUM_RE = re.compile(r"£?\d+(?:\.\d+)?(?:st|nd|rd|th)?\b", re.ASCII)


def speak_numbers(text: str) -> str:
    """Every time and number of ``text`` in words (prices keep their unit: "£5" → "five pounds")."""
    text = _TIME_RE.sub(lambda m: spoken_time(m.group(0)), text)

    def num(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.startswith("£"):
            return spoken_number(tok[1:]) + " pounds"
        return spoken_number(tok)

    return _NUM_RE.sub(num, text)
