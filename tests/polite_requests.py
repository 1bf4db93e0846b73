"""Polite task-oriented requests written for parley's tests and benchmark: greeting + request + thanks
variants built from templates and MultiWOZ database values (facts, MIT), never from corpus sentences.

``generate(rng)`` draws one :class:`PoliteRequest` with ``random.Random``; ``polite_requests()`` is the same
grammar as a hypothesis strategy (so failures shrink to the smallest greeting/request/thanks combination).
Each request knows the slot values it holds and the attributes it requests, which a rewrite must keep.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# (verb, gerund, rest): the action a request asks for; {x} fields are filled from the database
ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("find", "finding", "me a {price} {food} restaurant in the {area}"),
    ("book", "booking", "a table for {people} people at {time} on {day}"),
    ("recommend", "recommending", "a {atype} in the {area}"),
    ("give", "giving", "me the {attr} of {rname}"),
    ("tell", "telling", "me the {attr} and the {attr2} of {hname}"),
    ("book", "booking", "{hname} for {people} people for {nights} nights from {day}"),
    ("check", "checking", "the trains from {dep} to {dest} on {day}"),
    ("find", "finding", "me a train to {dest} leaving after {time}"),
    ("reserve", "reserving", "a room at {hname} for {nights} nights"),
    ("send", "sending", "me the {attr} for the booking"),
    ("look", "looking", "up the {attr} of {aname}"),
    ("get", "getting", "me a taxi to {rname} for {time}"),
)
WANTS: tuple[str, ...] = (
    "a {price} hotel in the {area} with free parking", "a train from {dep} to {dest} on {day}",
    "a taxi to {aname} at {time}", "the {attr} of {rname}", "a table for {people} at {rname} on {day}",
    "a {food} restaurant in the {area}", "a {atype} to visit in the {area}",
)
QUESTIONS: tuple[str, ...] = (
    "is there a {food} restaurant in the {area}", "does {hname} have free wifi",
    "are there any trains to {dest} on {day}", "is {aname} in the {area}", "what is the {attr} of {rname}",
    "what time does the train to {dest} leave on {day}", "how much is the {attr} for {aname}",
    "which hotels in the {area} have free parking",
)
ACT_WRAPS: tuple[str, ...] = (
    "could you {vp}", "can you please {vp}", "would you {vp}", "would you mind {ving}",
    "I'd be grateful if you could {vp}", "I'd appreciate it if you could {vp}", "I was wondering if you "
                                                                                "could {vp}",
    "is it possible to {vp}", "please {vp}", "could you possibly {vp}", "would you be so kind as to {vp}",
    "do you think you could {vp}", "kindly {vp}", "please could you {vp}", "could you also {vp}",
)
WANT_WRAPS: tuple[str, ...] = (
    "I would like {np}", "I'm looking for {np}", "I need {np}", "I'd love {np}", "could I get {np}",
    "may I please have {np}", "I'm hoping to find {np}",
)
FIND_WRAPS: tuple[str, ...] = ("I would love some help finding {np}", "can I get some help finding {np}")
GREETINGS: tuple[str, ...] = (
    "", "Hello, ", "Hi there! ", "Good morning. ", "Hi, ", "Excuse me, ", "Sorry to bother you, but ",
    "Pardon me, ", "Thanks a lot for your help, ", "Many thanks, and ", "Thank you! ",
    "Hello. Thanks for that. ",
)
CLOSERS: tuple[str, ...] = (
    "", " Thank you.", " Thanks so much!", " Many thanks.", ", thank you.", ", if that's okay.",
    ", if it's not too much trouble.", " I'd really appreciate it.", " Have a nice day!", ", please.",
    " Cheers.", " Thanks in advance.", " Thank you very much for your help.", " I'm grateful for your help.",
)
ATTRS: tuple[str, ...] = ("phone number", "postcode", "address", "reference number", "price", "entrance fee",
                          "travel time")


@dataclass(frozen=True)
class PoliteRequest:
    text: str
    values: tuple[str, ...]  # slot values the text holds
    attrs: tuple[str, ...]  # requested attributes it names


@lru_cache(maxsize=1)
def _values() -> dict[str, tuple[str, ...]]:
    from parley.engine.mwdb import load_db

    db = load_db()
    by: dict[tuple[str, str], list[str]] = {}
    for domain, slot, value in db.all_values():
        by.setdefault((domain, slot), []).append(value)

    def names(domain: str) -> tuple[str, ...]:  # the title-case names a user would type, no punctuation
        return tuple(sorted(v.title() for v in by[(domain, "name")] if v.replace(" ", "").isalpha()))

    return {"rname": names("restaurant"), "hname": names("hotel"), "aname": names("attraction"),
            "food": tuple(sorted(set(by[("restaurant", "food")]) - {"the americas"})),
            "area": ("north", "south", "east", "west", "centre"), "price": ("cheap", "moderate", "expensive"),
            "atype": ("museum", "college", "park", "theatre", "nightclub", "swimming pool", "cinema"),
            "dep": tuple(sorted(v.title() for v in by[("train", "departure")])),
            "dest": tuple(sorted(v.title() for v in by[("train", "destination")])),
            "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
            "time": ("09:15", "10:30", "12:00", "13:45", "17:30", "19:00", "20:15"),
            "people": ("2", "3", "4", "5", "6"), "nights": ("2", "3", "4", "5")}


@lru_cache(maxsize=1)
def spoken_times() -> tuple[str, ...]:
    """Clock times as people say them, number words from num2words ("half past six", "quarter to 7",
    "eleven o'clock", "six thirty", "seventeen oh five", "seven p.m.", "ten in the morning", "noon")."""
    from num2words import num2words

    def w(n: int) -> str:
        return str(num2words(n, lang="en"))

    out = ["noon", "midnight", "midday", "twelve noon", "nineteen hundred", "twenty hundred hours"]
    for h in range(1, 13):
        out += [f"{w(h)} o'clock", f"half past {w(h)}", f"quarter to {w(h)}", f"a quarter past {h}",
                f"{w(h)} p.m.", f"{w(h)} am", f"twenty-five past {w(h)}", f"ten to {h}", f"{h} o'clock"]
        if h > 1:
            out += [f"{w(h)} in the morning", f"{h} in the evening", f"{w(h)} at night"]
    for h in (6, 7, 11, 17, 19, 21):
        out += [f"{w(h)} thirty", f"{w(h)} oh five", f"{w(h)} {w(45)}",
                f"{w(h)} fifteen" + (" pm" if h < 12 else "")]
    return tuple(out)


def _fill(template: str, choose: Any, spoken: bool = False) -> tuple[str, list[str], list[str]]:
    vals: list[str] = []
    attrs: list[str] = []
    pools = _values() if not spoken else {**_values(), "time": spoken_times()}
    out = template
    while "{" in out:
        i = out.index("{")
        key = out[i + 1:out.index("}", i)]
        if key in ("attr", "attr2"):
            v = choose(ATTRS if key == "attr" else tuple(a for a in ATTRS if a not in attrs) or ATTRS)
            attrs.append(v)
        else:
            v = choose(pools[key])
            if key not in ("people", "nights"):
                vals.append(v)
        out = out[:i] + v + out[out.index("}", i) + 1:]
    return out, vals, attrs


def build(choose: Any, spoken: bool = False) -> PoliteRequest:
    """One polite request; ``choose(options)`` picks from a tuple (``random.Random.choice`` or a
    hypothesis draw). ``spoken``: times as people say them (:func:`spoken_times`) instead of digits."""
    def timed(templates: Any) -> Any:  # with spoken times: only the requests that hold a time
        return tuple(t for t in templates if "{time}" in str(t)) if spoken else templates

    kind = choose(("act", "want", "find", "question") if not spoken else ("act", "want", "find"))
    if kind == "act":
        verb, ving, rest = choose(timed(ACTIONS))
        core = choose(ACT_WRAPS).replace("{vp}", f"{verb} {rest}").replace("{ving}", f"{ving} {rest}")
        end = "?" if core.split(" ", 1)[0] in ("could", "can", "would", "is", "do") else "."
    elif kind in ("want", "find"):
        wraps = FIND_WRAPS if kind == "find" else WANT_WRAPS
        nps = timed(WANTS[:3] + WANTS[5:] if kind == "find" else WANTS)
        core = choose(wraps).replace("{np}", choose(nps))
        end = "?" if core.startswith(("could", "may", "can")) else "."
    else:
        core, end = choose(QUESTIONS), "?"
    text, vals, attrs = _fill(core, choose, spoken)
    greet = choose(GREETINGS)
    closer = choose(CLOSERS)
    body = text + closer.rstrip(".!") + end if closer.startswith(",") else text + end + closer
    body = body[0].upper() + body[1:] if not greet or greet.endswith((". ", "! ")) else body
    body = re.sub(r"\ba (?=[aeiou])", "an ", body)
    return PoliteRequest(greet + body, tuple(vals), tuple(attrs))


def generate(rng: random.Random) -> PoliteRequest:
    return build(lambda options: rng.choice(tuple(options)))


def polite_requests(spoken: bool = False) -> Any:
    """A hypothesis strategy drawing :class:`PoliteRequest` values (``spoken``: with spoken times)."""
    from hypothesis import strategies as st

    @st.composite
    def draw_request(draw: Any) -> PoliteRequest:
        return build(lambda options: draw(st.sampled_from(tuple(options))), spoken)

    return draw_request()


_UNITS = re.compile(r"\b\d+(?::\d+)?\s+(?:people|nights|stars|pounds)\b|(?<=[a-z] )(?:[A-Z][a-z]+ "
                    r"){1,4}[A-Z][a-z]+\b")


def speech_units(text: str) -> list[str]:
    """Stretches of ``text`` a speaker does not break with a filler or a repeat: slot values, multi-word
    requested attributes ("phone number"), numbers with their unit ("3 people"), capitalised names inside a
    sentence."""
    from parley.engine.spans import find_requests, find_spans

    out = [s.value for s in find_spans(text)] + [s.value for s in find_requests(text) if " " in s.value]
    return out + [m.group(0) for m in _UNITS.finditer(text)]
