"""Reading a system turn the pipeline did not write (opt-in): which venue it offered and what it asked.

Used when the dialogue history comes from elsewhere (e.g. scoring the tracker on corpus dialogues, where the
system turns are the corpus's). The live system never needs it: it knows its own decisions.
"""

from __future__ import annotations

import re

from parley.engine.systems.mw.dst import Tracker
from parley.engine.systems.mw.lexicon import Lexicon
from parley.engine.systems.mw.normalise import clean
from parley.engine.systems.mw.patterns import TRAIN_ID_RE

_ASKS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"how many (people|persons|guests|tickets|seats|will be|in your party)|for how many|"
                r"party size|number of (people|guests|tickets)"), ("book_people",)),
    (re.compile(r"how many (nights|days)|how long (will|would) you (be staying|like to stay)|"
                r"length of (your )?stay"),
     ("book_stay",)),
    (re.compile(r"what day|which day|day (would|will)|what night|which night|starting (on )?what|"
                r"arrival day"),
     ("day", "book_day")),
    (re.compile(r"what time|when would you like|when (do|will) you (want|need|like)|time (would|will|do) you"
                r"|preferred time|a time"), ("leaveAt", "arriveBy", "book_time")),
    (re.compile(r"departure time|time .{0,20}(depart|leave)|leave (by|at|after)|when .{0,25}(depart|leave)"),
     ("leaveAt",)),
    (re.compile(r"(what time|when) .{0,30}arriv|arrival time|arrive by (what|when)|arrive by\b"),
     ("arriveBy",)),
    (re.compile(r"where (are|will) you (be )?(depart|leav|com|travel(l)?ing from)|departure (station|site|"
                r"location)|departing from|leaving from|where from|pick you up|from where|pickup location"),
     ("departure",)),
    (re.compile(r"where (are|will|would) you (be )?(going|headed|heading|travel(l)?ing to|like to go)|"
                r"destination|going to|where to|drop you off|arriving (in|at)"), ("destination",)),
    (re.compile(r"area|part of (town|the city)|side of town|location"), ("area",)),
    (re.compile(r"price ?range|price point|budget|how expensive|cheap or|expensive or"), ("pricerange",)),
    (re.compile(r"type of food|kind of food|cuisine|food type|what food"), ("food",)),
    (re.compile(r"stars|star rating"), ("stars",)),
    (re.compile(r"type of (attraction|place)|kind of (attraction|place)|what type|what kind|"
                r"preference for a type"),
     ("type",)),
    (re.compile(r"hotel or (a )?guest ?house|guest ?house or (a )?hotel|hotel versus|guest ?house versus"),
     ("type",)),
    (re.compile(r"(something|anything) (in particular|specific)|particular (type|kind)"), ("type",)),
    (re.compile(r"parking"), ("parking",)),
    (re.compile(r"internet|wifi"), ("internet",)),
    (re.compile(r"(would|shall|should|can|do) (you like )?(me|i|you want me) (to )?(book|reserve|make)|"
                r"like (me )?to book|like a reservation|want (me )?to book|like to reserve|book (it|that|"
                r"a table|a room|seats)|make a (reservation|booking)"), ("book",)),
]


def listen(text: str, tr: Tracker, lex: Lexicon) -> None:
    """Update ``tr.offered`` / ``tr.sys_requested`` / ``tr.last_offer_domain`` from a system utterance."""
    t = clean(text)
    if not t:
        return
    found: dict[str, str] = {}
    for nm in lex.find_names(t):
        if nm.domain in ("restaurant", "hotel", "attraction") and nm.domain not in found:
            found[nm.domain] = nm.value
    ids = TRAIN_ID_RE.findall(t)
    if ids:
        found["train"] = "TR" + ids[0]
    # only what the corpus's system said counts as offered (not what the pipeline would have offered)
    tr.heard.update(found)
    tr.offered = dict(tr.heard)
    asked: list[str] = []
    questions = clean(" ".join(re.findall(r"[^.?!]*\?", text)))
    for pat, slots in _ASKS:
        if pat.search(questions):
            asked.extend(s for s in slots if s not in asked)
    if asked and re.search(r"prefer|particular|specific|in mind|certain|any (area|price|type)|looking for|"
                           r"versus|matter",
                           questions):
        asked.append("pref")
    tr.sys_requested = tuple(asked)
    if found or "book" in asked:
        tr.last_offer_domain = (tr.active_domain if tr.active_domain in found or not found
                                else next(iter(found)))
    else:
        tr.last_offer_domain = None
