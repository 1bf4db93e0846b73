"""Remarks about the user's own state ("I'm starving", "I need food and a bed", "I've been on a plane all
day") that ask for nothing.

A tired, hungry or jet-lagged user says so beside the request ("Book it for 2 people. I can barely keep my
eyes open."). Read as words, such a remark names a domain ("food" → restaurant, "a bed" → hotel) or a duration
("in a day" → a one-night stay), and the real request is then filed under the wrong domain.
:func:`drop_remarks` removes the sentences (or ", so ..." clauses) that only describe the speaker's hunger or
tiredness and carry no slot value, no venue word and no request verb; what is left is parsed as usual. A
grudging "Whatever, yes." is read as the "yes" it is.
"""

from __future__ import annotations

import re

from parley.engine.systems.mw import patterns as P

#: the speaker's hunger, tiredness or journey, said of themselves
_STATE = re.compile(
    r"\b(starving|starved|hungry|famished|tired|exhausted|jet[- ]?lagged|sleepy|knackered|worn out|slept|"
    r"eaten|flight|plane|collapse|eyes open|need (?:some )?(?:food|sleep|rest)|need to (?:eat|sleep|rest)|"
    r"off to (?:eat|bed|sleep)|(?:don't|do not) eat|no food|food and a bed|travell?ing (?:for )?(?:a whole|"
    r"all) day)\b")
#: words that make a sentence a request after all ("I'm starving, find me a cheap place to eat")
_REQUEST = re.compile(
    r"\b(restaurants?|hotels?|guest ?houses?|bed and breakfast|place to (?:eat|stay)|somewhere to (?:eat|"
    r"stay)|table|rooms?|find|book|reserve|recommend|suggest|looking for|search|trains?|taxi|cab|tickets?|"
    r"museums?|attractions?|serves?|cuisine|dinner|lunch|breakfast|what|which|where|when|how|can you|"
    r"could you)\b")
_SPLIT = re.compile(r"(?<=[.!?;])\s+|,\s*(?=so\b)")
#: a grudging "whatever," before a yes ("Whatever, yes."): agreement, not a don't-care answer
_GRUDGING = re.compile(r"^\s*(?:whatever|ugh|meh|sigh)\s*[,.!]+\s*(?=(?:yes|yeah|yep|ok|okay|sure|fine)\b)",
                       re.I)


def _is_remark(sentence: str) -> bool:
    s = sentence.lower().replace("\u2019", "'")
    s = re.sub(r"\b(i|we) '", r"\1'", s)
    s = re.sub(r"\b(\w+) n't\b", r"\1n't", s)
    if not _STATE.search(s) or _REQUEST.search(s) or "?" in s or re.search(r"\d", s):
        return False
    rest = _STATE.sub(" ", s)
    return not any(p.search(rest) for p in (P.FOOD_RE, P.AREA_RE, P.PRICE_RE, P.DAY_RE, P.ATYPE_RE))


def drop_remarks(text: str, keep_alone: bool = False) -> str:
    """``text`` without the sentences that only describe the speaker's hunger or tiredness.

    With ``keep_alone`` (nothing is being talked about yet), a turn made only of such remarks is kept whole:
    "I need food and a bed" is then the only request there is.

    >>> drop_remarks("Book it for 2 people. I can barely keep my eyes open.")
    'Book it for 2 people.'
    """
    text = _GRUDGING.sub("", text)
    parts = [p for p in _SPLIT.split(text) if p.strip()]
    kept = [p for p in parts if not _is_remark(p)]
    if len(kept) == len(parts) or (not kept and keep_alone):
        return text
    return " ".join(kept)
