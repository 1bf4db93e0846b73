"""Numbers, times and prices as a speaker says them (and an ASR system writes them).

>>> spoken_time("13:45")
'thirteen forty five'
>>> spoken_number("23.60")
'twenty three point six zero'
"""

from __future__ import annotations

import re

_ONES = tuple(re.findall(r"\w+", "zero one two three four five six seven eight nine ten eleven twelve "
                                  "thirteen fourteen fifteen sixteen seventeen eighteen nineteen"))
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINAL_SUFFIX = re.compile(r"^(\d+)(st|nd|rd|th)$", re.IGNORECASE)
_ORDINALS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
             "nine": "ninth", "twelve": "twelfth"}


def spoken_int(n: int) -> str:
    """0 ≤ n < 10**12 in words, British style without "and" ("one hundred five")."""
    if n < 0:
        return "minus " + spoken_int(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        t, o = divmod(n, 10)
        return _TENS[t] + ("" if o == 0 else " " + _ONES[o])
    if n < 1000:
        h, r = divmod(n, 100)
        return _ONES[h] + " hundred" + ("" if r == 0 else " " + spoken_int(r))
    for size, word in ((10**9, "billion"), (10**6, "million"), (1000, "thousand")):
        if n >= size:
            q, r = divmod(n, size)
            if q >= 1000 and size == 10**9:
                return " ".join(spoken_digits(str(n)))
            return spoken_int(q) + " " + word + ("" if r == 0 else " " + spoken_int(r))
    return str(n)  # unreachable


def spoken_digits(s: str) -> list[str]:
    return [_ONES[int(c)] for c in s if c in "0123456789"]


def spoken_ordinal(n: int) -> str:
    words = spoken_int(n).split(" ")
    last = words[-1]
    if last in _ORDINALS:
        words[-1] = _ORDINALS[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return " ".join(words)


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
        out = f"{head} oh {_ONES[int(mins[1])]}"
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
