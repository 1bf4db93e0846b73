"""Spoken clock times as Whisper writes them, put the way a reader of times expects them (the spoken turn's
text is what the system under test parses).

- ``fix_times``: times as Whisper misspells them: "at 915" → "at 9:15", "half pass 7" → "half past 7",
  "half-past six" → "half past six" (a hyphenated "half-past" is not read as a time by a pipeline that reads
  "half past"), and a number Whisper wrote as a word that sounds like it before "o'clock" ("at the ate
  o'clock" → "at the eight o'clock").
- ``teen_or_ty``: the minutes of a time that may be "-teen" or "-ty" ("4:50" heard for "four fifteen"),
  with the other reading, for the acoustic check of :func:`parley.audio.confirm.confirm_times`.

>>> fix_times("leaving at 915, half pass 7")
('leaving at 9:15, half past 7', 2)
>>> fix_times("at half-past six, or ate o'clock")
("at half past six, or eight o'clock", 2)
>>> teen_or_ty("for 4:50 please")
[(4, 8, '4:15')]
"""

from __future__ import annotations

import re

_TIME_CUE = r"(?:at|by|after|before|around|about|until|till|leaving|leave|arriving|arrive|from|for)"
_BARE_TIME = re.compile(rf"\b({_TIME_CUE})\s+([1-9]|1[0-2])([0-5]\d)\b(?!\s*(?:people|persons|pounds|nights|"
                        r"days|minutes|tickets))", re.IGNORECASE)
_PASS = re.compile(r"\b(half|quarter|ten|five|twenty|twenty-five|\d{1,2})\s+pass\s+(?=\w)", re.IGNORECASE)
_HYPHENATED = re.compile(r"\b(half|quarter)-(past|to)\b", re.IGNORECASE)
_SOUNDS_LIKE = {"ate": "eight", "won": "one", "too": "two", "to": "two", "for": "four", "fore": "four",
                "tree": "three"}
_OCLOCK = re.compile(r"\b(ate|won|too|to|for|fore|tree)(\s+o'?\s?clock)\b", re.IGNORECASE)
#: minutes that are one of a "-teen"/"-ty" pair Whisper confuses
_PAIRS = {"13": "30", "30": "13", "14": "40", "40": "14", "15": "50", "50": "15"}
_CLOCK = re.compile(r"\b(?:[1-9]|1[0-2])(?::|\.|\s)(13|14|15|30|40|50)\b")


def fix_times(text: str) -> tuple[str, int]:
    """``text`` with spoken times as Whisper misspells them put right (bare digits after a time word given
    their colon, "pass" made "past", hyphenated "half-past"/"quarter-to" spaced, a sound-alike word before
    "o'clock" made the number); and how many were changed."""
    text, n1 = _BARE_TIME.subn(lambda m: f"{m.group(1)} {m.group(2)}:{m.group(3)}", text)
    text, n2 = _PASS.subn(lambda m: f"{m.group(1)} past ", text)
    text, n3 = _HYPHENATED.subn(lambda m: f"{m.group(1)} {m.group(2)}", text)
    text, n4 = _OCLOCK.subn(lambda m: _SOUNDS_LIKE[m.group(1).lower()] + m.group(2), text)
    return text, n1 + n2 + n3 + n4


def teen_or_ty(text: str) -> list[tuple[int, int, str]]:
    """Each clock time in ``text`` whose minutes could be the other of a "-teen"/"-ty" pair: its span and the
    time read the other way."""
    out = []
    for m in _CLOCK.finditer(text):
        other = m.group(0)[:m.start(1) - m.start()] + _PAIRS[m.group(1)]
        out.append((m.start(), m.end(), other))
    return out
