"""What a ``sktod`` question asks: the aspects and the words the user names them with ("the room views"),
whether it wants a yes or no, whether about something existing ("do they serve beer?"), a quality ("is it
quiet?") or a fault ("is it noisy?"), and whether it compares venues."""

from __future__ import annotations

import re
from dataclasses import dataclass

from parley.engine.sktod.aspects import ASPECTS
from parley.engine.sktod.evidence import BAD, FINE, GOOD, eligible, mentions


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_YESNO = re.compile(r"^\s*(?:(?:so|and|but|also|ok|okay|well|great|thanks|thank you|hi|hello)[,!.]?\s+)*"
                    r"(?:is|are|does|do|did|has|have|can|could|will|would|was|were|should|shall)\b", re.I)
_EXISTS = re.compile(r"\b(?:have|has|serve|serves|offer|offers|provide|provides|sell|sells|is there|"
                     r"are there)\b", re.I)
_COMPARE = re.compile(r"\b(?:which|better|best|worse|worst|compare|comparison|either|both|neither)\b", re.I)
_FAULT_NOUNS = _words("noise traffic smell smells dirt dust stains problem problems issue issues complaint "
                      "complaints bugs mould mold")
#: nouns a question names its aspect with (team-written); compounds of them ("room views") are kept whole
NOUNS = _words("""view views scenery sights room rooms bed beds bathroom bathrooms shower showers wifi wi-fi
internet connection breakfast buffet parking car park garage staff service employees waiters waiter servers
server reception receptionist host hosts owner owners food meal meals dishes dish menu portions portion
dessert desserts drinks drink beer beers wine wines cocktails coffee bar selection outdoor seating patio
terrace garden atmosphere ambience ambiance decor music vibe location area neighbourhood neighborhood price
prices value cost
rates noise level cleanliness hygiene pool gym spa amenities facilities lobby check-in checkout check-out wait
waiting times queue accommodation accommodations restroom restrooms toilet toilets alcohol portion sizes
lighting lights decoration decorations interior""")
#: aspects nothing "has" ("does it have a good location?" asks about the location, not whether there is one)
_NOT_HAD = frozenset({"location", "price", "noise", "cleanliness", "staff", "wait", "checkin", "atmosphere"})
_PERFECT = re.compile(r"\b(?:has|have)\b[^?]*\bbeen\b", re.I)  # "has this area been liked?"
_BARE = (["level"], ["car"], ["park"], ["bar"], ["area"], ["value"], ["selection"], ["times"])


@dataclass(frozen=True)
class Ask:
    """What a question asks: the aspects, the words it names them with, whether it wants a yes or no (and
    whether about something existing: "do they serve beer?"), and whether it asks about a quality (+1, "is it
    quiet?") or a fault (-1, "is it noisy?")."""

    text: str
    aspects: frozenset[str]
    phrase: str
    yes_no: bool
    sense: int
    compare: bool
    exists: str = ""  # the verb of a question about something existing ("serves"), else ""
    adjective: str = ""  # the quality or fault asked about, when it may describe the aspect ("quiet")


def ask(question: str, aspects: frozenset[str]) -> Ask:
    """``aspects``: what the answer is about (``evidence.focus`` of the question's or the snippets')."""
    words = re.findall(r"[a-z]+(?:'[a-z]+)?", question.lower())
    sense = 0
    adjective = ""
    for i, w in enumerate(words):
        neg = i > 0 and (words[i - 1] in ("not", "no") or words[i - 1].endswith("n't"))
        if w in BAD or w in _FAULT_NOUNS:
            sense = 1 if neg else -1
        elif w in GOOD:
            sense = -1 if neg else 1
        else:
            continue
        if not neg and w not in _FAULT_NOUNS and eligible(w, aspects) and (w not in ("free", "big", "large")
                                                                          or "size" in aspects):
            adjective = w
        break
    yes_no = bool(_YESNO.match(question))
    verb = _EXISTS.search(question)
    exists = ""
    if yes_no and sense == 0 and verb and aspects - _NOT_HAD and not _PERFECT.search(question):
        v = verb.group(0).lower()
        exists = "has" if v in ("have", "has", "is there", "are there") else v if v.endswith("s") else v + "s"
    return Ask(question, aspects, noun_phrase(question, aspects), yes_no, sense,
               bool(_COMPARE.search(question)), exists, adjective)


def noun_phrase(question: str, aspects: frozenset[str], of_place: bool = True) -> str:
    """The aspect as the user named it ("the room views", "the wifi"), else the lexicon's phrase; "it" for
    what reviews say of the place itself ("the noise level": "it is quiet") unless ``of_place`` is False
    ("none of the reviews mention the noise level")."""
    words = re.findall(r"[a-z][a-z\-]*", question.lower())
    runs: list[list[str]] = []
    run: list[str] = []
    for w in [*words, ""]:
        if w in NOUNS:
            run.append(w)
            continue
        if run and run not in _BARE:
            runs.append(run[-2:])
        run = []
    if runs:  # the run about the answer's aspect, else the longest, else the first
        best = max(runs, key=lambda r: (mentions(" ".join(r), aspects), len(r)))
        if "view" in aspects and not any(w.startswith("view") for w in best):
            return "the view"
        fine = sorted(aspects & FINE.keys())
        if fine and not mentions(" ".join(best), aspects):
            return "the " + fine[0]
        if " ".join(best) in _OF_PLACE and of_place:
            return "it"
        return "the " + (" ".join(best) if len(best) > 1 else _PLURAL.get(best[0], best[0]))
    if "view" in aspects or aspects & FINE.keys():
        return "the " + ("view" if "view" in aspects else sorted(aspects & FINE.keys())[0])
    for name in ASPECTS:
        if name in aspects:
            place = name in ("noise", "cleanliness", "price", "atmosphere") and of_place
            return "it" if place else ASPECTS[name][0]
    return "it" if of_place else "that"


#: what a question may name that reviews say of the place itself ("the noise level" → "it is quiet")
_PLURAL = {"drink": "drinks", "beverage": "beverages", "cocktail": "cocktails", "outdoor": "outdoor seating"}
_OF_PLACE = frozenset(["noise", "noise level", "level", "cleanliness", "hygiene", "value", "price", "cost",
                       "atmosphere", "ambience", "ambiance", "vibe"])
