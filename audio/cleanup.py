"""Clean-up of what a prompted or hotword-biased Whisper pass said (:mod:`parley.audio.bias`): a second pass
cut to the first's length, made-up words after the last sentence dropped, a run of punctuation from a decoding
loop tidied, and spoken times Whisper writes as bare digits given their colon.

>>> fix_times("leaving at 915, half pass 7")
('leaving at 9:15, half past 7', 2)
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&\-]*")
#: words after the last sentence this unlikely were made up from the prompt or hotwords ("please. this.")
TAIL_PROB = 0.3


def plain(text: str) -> str:
    """Lower case, letters, digits and single spaces only."""
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("'", "")).split())


def trim_to(text: str, like: str) -> str:
    """``text`` cut after the word that best ends it like ``like`` ends, when it runs on longer (a second
    pass that said the sentence and then looped): the prefix within two words of ``like``'s length that is
    most similar to it."""
    from rapidfuzz import fuzz

    spans = list(WORD.finditer(text))
    n = len(WORD.findall(like))
    if len(spans) <= n or n == 0:
        return text
    target = plain(like)
    best = max(range(max(1, n - 2), min(len(spans), n + 2) + 1),
               key=lambda k: fuzz.ratio(plain(text[:spans[k - 1].end()]), target))
    end = spans[best - 1].end()
    return text[:end] + (text[end] if end < len(text) and text[end] in ".?!" else "")


def drop_tail(tr: Any) -> Any:
    """``tr`` (a Transcript with word probabilities) without up to three words the recogniser made up after
    the last sentence: each below ``TAIL_PROB`` (a prompt or hotwords can make Whisper go on past the
    speech: "Italian food, please. this.")."""
    words, toks = list(tr.words), tr.text.split()
    if len(words) != len(toks):
        return tr
    n = 0
    while n < min(3, len(toks) - 1) and words[-1 - n][1] < TAIL_PROB:
        n += 1
    if n and toks[-1 - n].endswith((".", "?", "!")):
        return replace(tr, text=" ".join(toks[:-n]), words=tuple(words[:-n]))
    return tr


_TRAILING = re.compile(r"(?:\s*[.,!?;:-]){2,}\s*$")


def tidy(text: str) -> str:
    """A run of punctuation at the end (". . . ." from a decoding loop) down to its first mark."""
    m = _TRAILING.search(text)
    return text[:m.start()] + text[m.start():].strip()[:1] if m else text


_TIME_CUE = r"(?:at|by|after|before|around|about|until|till|leaving|leave|arriving|arrive|from|for)"
_BARE_TIME = re.compile(rf"\b({_TIME_CUE})\s+([1-9]|1[0-2])([0-5]\d)\b(?!\s*(?:people|persons|pounds|nights|"
                        r"days|minutes|tickets))", re.IGNORECASE)
_PASS = re.compile(r"\b(half|quarter|ten|five|twenty|twenty-five|\d{1,2})\s+pass\s+(?=\w)", re.IGNORECASE)


def fix_times(text: str) -> tuple[str, int]:
    """Spoken times as Whisper misspells them: "at 915" → "at 9:15", "half pass 7" → "half past 7"; and how
    many were fixed."""
    text, n1 = _BARE_TIME.subn(lambda m: f"{m.group(1)} {m.group(2)}:{m.group(3)}", text)
    text, n2 = _PASS.subn(lambda m: f"{m.group(1)} past ", text)
    return text, n1 + n2
