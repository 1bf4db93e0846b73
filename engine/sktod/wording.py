"""Answers written from what the reviews say (:class:`engine.sktod.evidence.Stance`), in parley's own words.

The answer follows the count of reviews: "yes" only when most reviews are positive about what was asked ("is
it quiet?"), "no" when most are negative; a question about a fault ("is it noisy?") is answered the other way
round, never with a "yes" over complaints. When reviews disagree the answer says so ("most guests …, but one
guest said it was slow"; "opinions are mixed"). Reviewers' words appear only as their adjectives ("fast and
reliable"). Several frames say the same thing; each answer draws its frame, its words for the reviewers and
its follow-up question per question, with the weights in :data:`STYLE` and ``assets/sktod/style.json`` (chosen
on half of DSTC11 val's dialogues by ``bench/sktod_bench.py --fit-style``; the other half scores them).
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parley.engine.sktod.aspects import ASPECTS
from parley.engine.sktod.evidence import BAD, GOOD, Stance, distinct, eligible, mentions

Style = Mapping[str, Any]

#: weights of each choice (see the module docstring); ``follow_up`` is the share of answers that end on one
STYLE: dict[str, Any] = {
    "frame": {"plain": 1.0, "say": 1.0, "according": 1.0, "described": 1.0, "has": 1.0},
    "who": {"guests": 1.0, "previous guests": 1.0, "customers": 1.0, "reviewers": 1.0},
    "say": {"say": 1.0, "said": 1.0, "have said": 1.0},
    "that": {"": 1.0, "that ": 1.0},
    "tense": {"present": 1.0, "past": 1.0},
    "minor": {"though": 1.0, "but": 1.0, "however": 1.0},
    "follow": {"more": 1.0, "else": 1.0, "book": 1.0, "reserve": 1.0},
    "follow_up": 0.5,
    "adjectives": 2,
}


def fitted_style() -> dict[str, Any]:
    """:data:`STYLE` with the choices fitted on DSTC11 val half 0 (``assets/sktod/style.json``, written by
    ``bench/sktod_bench.py --fit-style``) over it."""
    import json

    from parley.assets import asset_path

    f = asset_path("sktod", "style.json")
    try:
        fitted = json.loads(f.read_text(encoding="utf-8")) if f.is_file() else {}
    except (OSError, ValueError):
        fitted = {}
    return {**STYLE, **(fitted if isinstance(fitted, dict) else {})}


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
waiting times queue accommodation accommodations restroom restrooms toilet toilets alcohol portion sizes""")
_BARE = (["level"], ["car"], ["park"], ["bar"], ["area"], ["value"], ["selection"], ["times"])
_ARTICLE_LAST = _words("hotel house lodge inn breakfast guesthouse belfry restaurant arms")
_SMALL = _words("and of the by du de la")


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
    if yes_no and sense == 0 and verb:
        v = verb.group(0).lower()
        exists = "has" if v in ("have", "has", "is there", "are there") else v if v.endswith("s") else v + "s"
    return Ask(question, aspects, noun_phrase(question, aspects), yes_no, sense,
               bool(_COMPARE.search(question)), exists, adjective)


def noun_phrase(question: str, aspects: frozenset[str]) -> str:
    """The aspect as the user named it ("the room views", "the wifi"), else the lexicon's phrase."""
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
        if " ".join(best) in _OF_PLACE:
            return "it"
        return "the " + (" ".join(best) if len(best) > 1 else _PLURAL.get(best[0], best[0]))
    if "view" in aspects:
        return "the view"
    for name in ASPECTS:
        if name in aspects:
            return "it" if name in ("noise", "cleanliness", "price", "atmosphere") else ASPECTS[name][0]
    return "it"


#: what a question may name that reviews say of the place itself ("the noise level" → "it is quiet")
_PLURAL = {"drink": "drinks", "beverage": "beverages", "cocktail": "cocktails", "outdoor": "outdoor seating"}
_OF_PLACE = frozenset(["noise", "noise level", "level", "cleanliness", "hygiene", "value", "price", "cost",
                       "atmosphere", "ambience", "ambiance", "vibe"])
_COUNTABLE = frozenset(["view", "location", "room", "bathroom", "atmosphere", "selection", "menu", "patio",
                        "terrace", "garden", "bar", "lobby", "pool", "gym", "spa", "area", "shower", "bed"])


def with_article(words: str, noun: str) -> str:
    """"great view" → "a great view"; "fast wifi", "clean rooms" stay as they are."""
    if noun.split()[-1] not in _COUNTABLE:
        return f"{words} {noun}"
    return f"{'an' if words[:1] in 'aeiou' else 'a'} {words} {noun}"


def display_name(raw: str) -> str:
    """"ACORN GUEST HOUSE" → "the Acorn Guest House"; "PIZZA HUT CITY CENTRE" → "Pizza Hut City Centre"."""
    words = raw.lower().split()
    if words and words[0] == "the":
        words = words[1:]
    out = " ".join(w if (i and w in _SMALL) else (w[:1].upper() + w[1:]) for i, w in enumerate(words))
    if raw.lower().startswith("the ") or (words and words[-1] in _ARTICLE_LAST):
        out = "the " + out
    return out or "this place"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def plural(phrase: str) -> bool:
    last = phrase.split()[-1]
    return (last.endswith("s") and not last.endswith("ss")) or last in ("staff", "people")


def count(n: int, noun: str = "guest") -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    many = "people" if noun == "person" else noun + "s"
    return f"{words[n] if n < len(words) else n} {noun if n == 1 else many}"


def draw(rng: random.Random, style: Style, slot: str, allowed: Sequence[str] | None = None) -> str:
    """One choice of ``slot``, drawn with the style's weights (among ``allowed`` when given)."""
    weights: Mapping[str, float] = style.get(slot) or STYLE[slot]
    keys = [k for k in weights if allowed is None or k in allowed]
    ws = [max(float(weights[k]), 0.0) for k in keys]
    if not keys:
        return allowed[0] if allowed else ""
    if sum(ws) <= 0:
        return keys[0]
    return rng.choices(keys, weights=ws)[0]


def kind(q: Ask, stances: Sequence[Stance]) -> str:
    """The kind of answer, for per-kind style weights: question form + what the first venue's reviews say."""
    st = stances[0] if stances else Stance("", "")
    v = st.verdict
    said = "faq" if st.faq else ("all" if st.unanimous else "most") if v == "positive" else v
    form = ("yn" if q.yes_no else "open") + ("-ex" if q.exists else "")
    return f"{form}-{said}{'-multi' if len(stances) > 1 else ''}"


def opening(q: Ask, st: Stance) -> str:
    """"Yes, " / "No, " / "Unfortunately, " / "" — never a yes over a negative majority."""
    if not q.yes_no or q.compare or st.verdict not in ("positive", "negative"):
        return ""
    good = st.verdict == "positive"
    if q.sense >= 0:
        return "Yes, " if good else "No, "
    return "No, " if good else "Unfortunately, "


@dataclass(frozen=True)
class Parts:
    """The pieces every frame is built from."""

    name: str
    subject: str  # "the wifi at the Acorn Guest House"
    noun: str  # "wifi"
    be: str
    was: str
    pron: str  # "it" / "them"
    they: str  # "it" / "they"
    who: str
    say: str
    that: str
    phrase: str = "it"
    hotel: bool = True


def parts(q: Ask, st: Stance, rng: random.Random, style: Style) -> Parts:
    name = display_name(st.name)
    phrase = q.phrase
    subject = f"{phrase} at {name}" if phrase != "it" else name
    many = phrase != "it" and plural(phrase)
    past = draw(rng, style, "tense") == "past"
    say = draw(rng, style, "say")
    return Parts(name, subject, phrase.removeprefix("the "), "are" if many else "is",
                 ("were" if many else "was") if past else ("are" if many else "is"), "them" if many else "it",
                 "they" if many else "it", draw(rng, style, "who"), say, draw(rng, style, "that"), phrase,
                 st.domain == "hotel")


_PREDICATIVE = ("plain", "say", "according", "described", "past", "reviews_say", "stayed", "possessive",
                "describe", "majority", "reviews_of")


def body(frame: str, p: Parts, desc: str, most: bool) -> str:
    """The main clause of a positive or negative majority, in one of the frames."""
    m = "most " if most else ""
    by_most = ", according to most guests" if most else ""
    return {
        "plain": f"{p.subject} {p.was} {desc}{by_most}",
        "say": f"{m}{p.who} {p.say} {p.that}{p.subject} {p.was} {desc}",
        "according": f"according to {'most of ' if most else ''}the reviews, {p.subject} {p.be} {desc}",
        "described": f"{p.subject} {'has' if p.be == 'is' else 'have'} {'mostly ' if most else ''}been "
                     f"described as {desc}",
        "has": f"{p.name} has {with_article(desc, p.noun)}{by_most}",
        "offers": f"{p.name} offers {with_article(desc, p.noun)}{by_most}",
        "past": f"{m}past guests of {p.name} described {p.phrase} as {desc}",
        "reviews_say": f"{'most of ' if most else ''}the reviews say that {p.subject} {p.be} {desc}",
        "stayed": f"{m}{p.who} who {'stayed' if p.hotel else 'ate'} at {p.name} {p.say} {p.that}{p.phrase} "
                  f"{p.was} {desc}",
        "possessive": f"{p.name}'s {p.noun} {p.be} {desc}{', according to most guests' if most else ''}",
        "describe": f"{m}reviewers describe {p.subject} as {desc}",
        "majority": f"{'the majority of' if most else 'all of the'} {p.who} {p.say} {p.that}{p.subject} "
                    f"{p.was} {desc}",
        "reviews_of": f"according to {'most of ' if most else ''}the reviews of {p.name}, {p.phrase} {p.be} "
                      f"{desc}",
    }[frame]


def sentence(q: Ask, st: Stance, rng: random.Random, style: Style, first: bool = True) -> str:
    """One or two sentences about one venue."""
    v = st.verdict
    if v == "none":
        name = display_name(st.name)
        bare = name.removeprefix("the ")
        faq = re.sub(re.escape(bare), bare, st.faq, flags=re.I)  # "EFES RESTAURANT does …" reads as a name
        return f"{cap(name)}: {faq}" if faq and bare not in faq else faq
    p = parts(q, st, rng, style)
    if v == "neutral":
        if q.exists:
            return f"Yes, {p.who} mention {p.subject}."
        return cap(f"{p.who} mention {p.subject}, but without saying whether {p.they} {p.be} good or bad.")
    if v == "split":
        return split(st, p)
    words = list(st.praise if v == "positive" else st.complaints)
    side = GOOD if v == "positive" else BAD
    if q.adjective in side:  # the user's word first when the reviews use it too; never a word of the user's
        words.sort(key=lambda w: w.split()[-1] != q.adjective)
    words = distinct(words)[: int(style.get("adjectives", 2))]
    most = not st.unanimous
    lead = opening(q, st) if first else ""
    if q.exists and p.noun != "it" and first:
        if v == "negative":
            lead = f"{cap(p.name)} {q.exists} {p.noun}, but "
        else:
            text = f"{lead}{p.name if lead else cap(p.name)} {q.exists} {p.noun}"
            if words:
                m = "most " if most else ""
                text += f", and {m}{p.who} {p.say} {p.that}{p.they} {p.was} {join(words)}"
            return text + (minority(st, p, rng, style) if most else "") + "."
    if words:
        prenominal = not any(w.startswith("not ") for w in words) and p.noun != "it"
        frame = draw(rng, style, "frame", None if prenominal else _PREDICATIVE)
        if p.noun == "it" and frame in ("past", "stayed", "possessive"):
            frame = "plain"
        text = body(frame, p, join(words), most)
    else:
        liked = v == "positive"
        m = "most " if most else ""
        text = (f"{m}{p.who} {p.say} good things about {p.subject}" if liked
                else f"{m}{p.who} {'complained' if p.say != 'say' else 'complain'} about {p.subject}")
    text = (lead + text) if lead else cap(text)
    if most:
        text += minority(st, p, rng, style)
    return text + "."


def split(st: Stance, p: Parts) -> str:
    good, bad = st.praise[:1], st.complaints[:1]
    some = (f"{count(st.positive)} found {p.pron} {good[0]}" if good
            else f"{count(st.positive)} liked {p.pron}")
    other = f"{count(st.negative)} found {p.pron} {bad[0]}" if bad else f"{count(st.negative)} did not"
    return cap(f"opinions on {p.subject} are mixed: {some}, but {other}.")


def minority(st: Stance, p: Parts, rng: random.Random, style: Style) -> str:
    """The other side of a majority: ", though one guest found it slow"."""
    n = st.minority
    other = (st.complaints if st.verdict == "positive" else st.praise)[:1]
    who = count(n)
    if other:
        said = {"though": f", though {who} found {p.pron} {other[0]}",
                "but": f", but {who} said {p.they} {p.was} {other[0]}",
                "however": f". However, {who} found {p.pron} {other[0]}",
                "person": f", but {count(n, 'person')} said {p.they} {p.was} {other[0]}",
                "only": f". Only {count(n, 'person')} found {p.pron} {other[0]}"}
    elif st.verdict == "positive":
        said = {"though": f", though {who} {'was' if n == 1 else 'were'} less impressed",
                "but": f", but {who} did not like {p.pron}", "however": f". However, {who} disagreed",
                "person": f", but {count(n, 'person')} did not like {p.pron}",
                "only": f". Only {count(n, 'person')} did not like {p.pron}"}
    else:
        said = {"though": f", though {who} {'was' if n == 1 else 'were'} happy with {p.pron}",
                "but": f", but {who} liked {p.pron}", "however": f". However, {who} disagreed",
                "person": f", but {count(n, 'person')} liked {p.pron}",
                "only": f". Only {count(n, 'person')} liked {p.pron}"}
    return said[draw(rng, style, "minor")]


FOLLOW = {
    "more": "Would you like to know more about {name}?",
    "else": "Is there anything else you would like to know?",
    "book": "Would you like me to book {what} there?",
    "reserve": "Would you like to make a reservation?",
    "book_it": "Would you like to book {what}?",
    "other": "Would you like me to look for another {domain}?",
    "them": "Would you like to know more about them?",
}


#: a system turn that reports a booking made ("… booked. Your reference number is …")
_BOOKED = re.compile(r"\b(?:booked|reserved|reference (?:number|no|code)|confirmation (?:number|code))\b",
                     re.I)


def booked(turns: Sequence[str]) -> bool:
    """Whether the system's last turn (``turns`` alternate user/system, the last one the user's) reports a
    booking made: then the answer does not offer another."""
    return len(turns) >= 2 and bool(_BOOKED.search(turns[-2]))


def follow_up(stances: Sequence[Stance], rng: random.Random, style: Style,
              after_booking: bool = False) -> str:
    st = stances[0]
    what = "a room" if st.domain == "hotel" else "a table"
    allowed: tuple[str, ...] = ("more", "else", "book", "reserve", "book_it")
    if len(stances) > 1:
        allowed = ("else", "reserve", "them")
    key = draw(rng, style, "follow", allowed)
    if len(stances) == 1 and st.verdict == "negative" and key in ("book", "reserve", "book_it"):
        key = "other"  # no booking offer after complaints
    if after_booking and key in ("book", "reserve", "book_it", "other"):
        key = "more" if len(stances) == 1 else "them"  # nor right after a booking was made
    return FOLLOW[key].format(name=display_name(st.name), what=what, domain=st.domain)
