"""Delexicalising system turns that carry no span annotations, and guessing their dialogue acts.

MultiWOZ 2.1 marks every value a system turn gives (``span_info``), so :func:`engine.train.data.delexicalise`
replaces exactly those. Other copies of the corpus (DAMD's, IC-DST's records, plain dialogue text) have the
belief state at most. Here values are found by what they are:

- by shape: train ids, phone numbers, postcodes, booking references, times, prices, durations, and numbers
  by the word after them (``4 people``, ``2 nights``, ``3 stars``, ``there are 12``);
- by the MultiWOZ database: venue names and addresses (the domain is the venue's), food, area, price range,
  type, days and the train stations, plus every value of the turn's belief state;
- ``[bracketed]`` spans (as in the MultiWOZ 2.2 text dumps) are classified the same way, or unbracketed.

The placeholders are the ones the span-annotated data gets (``[restaurant_name]``, ``[value_count]``, …), so
the two kinds of data teach the model one vocabulary. The acts of such a turn are guessed from its
placeholders and a few phrasings (:func:`guess_acts`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parley.engine.systems.hf_common import Format

from parley.engine.mwdb import MultiwozDB

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_AREAS = ("centre", "center", "north", "south", "east", "west")
_PRICES = ("cheap", "moderate", "moderately priced", "expensive")
_NUMBER = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
#: (pattern on normalised text, placeholder); the first group is replaced, in this order
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(tr ?\d{4})\b"), "[train_id]"),
    (re.compile(r"\b(\d+(?:\.\d+)? (?:pounds?|gbp))\b"), "[value_price]"),
    (re.compile(r"(?:\bfee is|\bcosts?|\bprice is|\bcharge is|\bcharges|£) ?(\d+(?:\.\d+)?)\b"),
     "[value_price]"),
    (re.compile(r"\b(\d+ (?:minutes?|mins?))\b"), "[value_duration]"),
    (re.compile(rf"\b({_NUMBER}) (?=(?:people|persons|guests|adults|tickets|seats)\b)"), "[value_people]"),
    (re.compile(rf"\b({_NUMBER}) (?=(?:nights?|days?)\b)"), "[value_stay]"),
    (re.compile(rf"\b({_NUMBER})(?=[ -](?:stars?)\b)"), "[value_stars]"),
    (re.compile(rf"(?:\b(?:there are|there is|i have|i found|we have|found|of) )({_NUMBER}|several|many)\b"),
     "[value_count]"),
    (re.compile(rf"\b({_NUMBER}) (?=(?:\w+ )?(?:options|results|places|restaurants|hotels|guesthouses|"
                r"guest houses|attractions|trains|entries|colleges|museums|churches|theatres|"
                r"nightclubs|parks|pools|choices|matches)\b)"), "[value_count]"),
)
_TIME = re.compile(r"\b(\d{1,2}:\d{2})\b")
_PHONE = re.compile(r"\b(0\d{4} ?\d{6}|0\d{10}|0\d{3} ?\d{3} ?\d{4})\b")
_POSTCODE = re.compile(r"\b(c\.? ?b\.? ?\d{1,2} ?,? ?\d ?[a-z]{2})\b")
_REFERENCE = re.compile(r"\b((?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8})\b")
_BRACKET = re.compile(r"\[([^\[\]]+)\]")
_FREE = re.compile(r"\bfree\b(?! (?:parking|wifi|wi-fi|internet|of charge))")
#: belief-state slot → the placeholder of its value in a response (values the database does not spell)
_STATE_PLACEHOLDERS = {"name": "[{d}_name]", "food": "[value_food]", "area": "[value_area]",
                       "pricerange": "[value_pricerange]", "type": "[value_type]", "day": "[value_day]",
                       "book_day": "[value_day]", "departure": "[value_departure]",
                       "destination": "[value_destination]"}


def _norm(value: str) -> str:
    from parley.engine.systems.hf_common import load_format, normalise_text

    return normalise_text(load_format("simpletod-db", kind="causal"), value)


@functools.lru_cache(maxsize=4)
def _vocabulary(db: MultiwozDB) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """``[(normalised value, placeholder)]`` longest first, and phone/postcode → domain."""
    found: dict[str, str] = {}
    owners: dict[str, str] = {}
    for domain in ("restaurant", "hotel", "attraction"):
        for row in db.rows(domain):
            name = str(row.get("name") or "")
            if len(name) > 2:
                found.setdefault(_norm(name), f"[{domain}_name]")
                if name.lower().startswith("the ") and len(name.split()) > 2:
                    found.setdefault(_norm(name[4:]), f"[{domain}_name]")
            address = str(row.get("address") or "")
            if len(address) > 3:
                found.setdefault(_norm(address), f"[{domain}_address]")
            for key in ("phone", "postcode"):
                if row.get(key):
                    owners[re.sub(r"\W", "", str(row[key]).lower())] = domain
    for domain, slot, ph in (("restaurant", "food", "[value_food]"), ("hotel", "type", "[value_type]"),
                             ("attraction", "type", "[value_type]")):
        for v in db.values(domain, slot):
            if len(v) > 2 and v not in ("hotel",):
                found.setdefault(_norm(v), ph)
    for v in _DAYS:
        found.setdefault(v, "[value_day]")
    for v in _AREAS:
        found.setdefault(v, "[value_area]")
    for v in _PRICES:
        found.setdefault(v, "[value_pricerange]")
    for v in db.places:
        found.setdefault(_norm(v), "[value_place]")
    for colour in db.taxi.get("taxi_colors") or ():
        for make in db.taxi.get("taxi_types") or ():
            found.setdefault(_norm(f"{colour} {make}"), "[taxi_car]")
    for v in [v for v, ph in found.items() if ph == "[value_type]"]:
        found.setdefault(v + "s", "[value_type]")
    found.setdefault("guest houses", "[value_type]")
    return sorted(found.items(), key=lambda kv: -len(kv[0])), owners


@functools.lru_cache(maxsize=4)
def _vocabulary_pattern(db: MultiwozDB) -> re.Pattern[str]:
    words, _ = _vocabulary(db)
    return re.compile(r"(?<![\w\[])(" + "|".join(re.escape(w) for w, _ in words) + r")(?![\w\]])")


_TIME_CUES = ((r"arriv|get (?:you )?there|by $", "[value_arrive]"),
              (r"leav|depart|at $|from $", "[value_leave]"))
_PLACE_CUES = ((r"\b(?:to|for|into|arrives? in|arriving in|arrives? at|going to)\s*$", "[value_destination]"),
               (r"\b(?:from|leaving|leaves|departing|departs)\s*$", "[value_departure]"))


def _by_cue(tail: str, cues: tuple[tuple[str, str], ...], default: str) -> str:
    """The placeholder of the first cue found in the words just before a value, else ``default``."""
    return next((ph for rx, ph in cues if re.search(rx, tail)), default)


def _time_key(before: str, state: Mapping[str, Mapping[str, object]], value: str) -> str:
    for slots in state.values():
        if slots.get("leaveAt") == value:
            return "[value_leave]"
        if slots.get("arriveBy") == value:
            return "[value_arrive]"
    return _by_cue(before[-30:], _TIME_CUES, "[value_time]")


def _place_key(before: str, domain: str | None) -> str:
    return _by_cue(before[-16:], _PLACE_CUES, "[value_place]")


def value_delexicalise(text: str, state: Mapping[str, Mapping[str, object]], domain: str | None,
                       db: MultiwozDB) -> str:
    """``text`` (normalised: lower case, corpus tokenisation) with the values it gives as placeholders."""
    words, owners = _vocabulary(db)
    table = dict(words)
    dom = domain or "value"

    t = _BRACKET.sub(lambda m: f" {m.group(1).strip()} ", text).replace("towninfo centre", "towninfo_centre")

    def owned(slot: str) -> Callable[[re.Match[str]], str]:
        return lambda m: f"[{owners.get(re.sub(r'[^a-z0-9]', '', m.group(1)), dom)}_{slot}]"

    t = _PHONE.sub(owned("phone"), t)
    t = _POSTCODE.sub(owned("postcode"), t)
    t = _REFERENCE.sub(lambda m: m.group(0) if m.group(1).startswith("tr") and m.group(1)[2:].isdigit()
                       else f"[{dom}_reference]", t)
    def shape(ph: str) -> Callable[[re.Match[str]], str]:
        # replaces group 1 only, keeps the context the pattern matched around it
        return lambda m: m.group(0)[:m.start(1) - m.start(0)] + ph + m.group(0)[m.end(1) - m.start(0):]

    for rx, ph in _SHAPES:
        t = rx.sub(shape(ph), t)
    t = _TIME.sub(lambda m: _time_key(t[:m.start()], state, m.group(1)), t)

    def value(m: re.Match[str]) -> str:
        ph = table.get(m.group(1), "")
        if ph == "[value_place]" or (dom == "taxi" and ph.endswith("_name]")):
            if dom not in ("train", "taxi"):
                return m.group(1)
            ph = _place_key(m.string[:m.start()], domain)
            if ph == "[value_place]":
                return m.group(1)
        return ph or m.group(1)

    t = _vocabulary_pattern(db).sub(value, t)
    t = _FREE.sub("[value_price]", t) if dom == "attraction" else t
    for domain_, slots in state.items():
        for slot, v in slots.items():
            ph = _STATE_PLACEHOLDERS.get(slot, "").replace("{d}", domain_)
            v = _norm(str(v))
            if ph and len(v) > 2 and not v.isdigit() and v != "dontcare" and v not in table:
                t = re.sub(rf"(?<![\w\[]){re.escape(v)}(?![\w\]])", ph, t)
    return re.sub(r"\s+", " ", t).strip().replace("towninfo_centre", "towninfo centre")


_REQUESTS = (
    ("area", r"\b(?:what|which|any) (?:part of town|area|side of town|location)"),
    ("price", r"\bprice range\b|\bhow much (?:would you like|do you want) to spend"),
    ("food", r"\b(?:what|which) (?:type of |kind of )?(?:food|cuisine)"),
    ("people", r"\bhow many (?:people|persons|guests|tickets|in your party)"),
    ("day", r"\b(?:what|which) day\b"),
    ("stay", r"\bhow many (?:nights|days)\b"),
    ("time", r"\b(?:what time|which time)\b"),
    ("leave", r"\b(?:when|what time) (?:would you like to|do you want to|will you) (?:leave|depart)"),
    ("arrive", r"\b(?:when|what time) (?:would you like to|do you want to|do you need to) arrive"),
    ("depart", r"\bwhere (?:will you be|are you) (?:departing|leaving|coming) from|\bdeparture"),
    ("dest", r"\bwhere (?:are you|will you be) (?:going|heading|traveling|travelling)|\bdestination"),
    ("type", r"\b(?:what|which) (?:type|kind) of (?:attraction|place|hotel|accommodation)"),
    ("stars", r"\bhow many stars|\bstar rating"),
)
_PH_SLOT = re.compile(r"\[(\w+?)_(\w+)\]")
_SLOT_NAMES = {"pricerange": "price", "count": "choice", "reference": "ref", "address": "addr",
               "postcode": "post", "destination": "dest", "departure": "depart", "duration": "time",
               "place": "dest"}


def guess_acts(delex: str, domain: str | None) -> list[tuple[str, str, str]]:
    """``[(domain, act, slot)]`` for a delexicalised system turn without annotated acts (lower case, as
    :func:`engine.train.data.corpus_acts` gives them)."""
    dom = domain or "general"
    acts: list[tuple[str, str, str]] = []

    def add(d: str, a: str, s: str) -> None:
        if (d, a, s) not in acts:
            acts.append((d, a, s))

    booked = bool(re.search(r"\b(?:booked|booking was successful|reserved|reservation (?:is|was) "
                            r"(?:made|successful))", delex))
    for d, slot in _PH_SLOT.findall(delex):
        s = _SLOT_NAMES.get(slot, slot)
        owner = dom if d == "value" else d
        if s == "ref":
            add("booking", "book", "ref")
        else:
            booking = booked and owner == dom and s in ("people", "stay", "day", "time")
            add(owner, "book" if booking else "inform", s)
    for slot, pattern in _REQUESTS:
        if re.search(pattern, delex) and "?" in delex:
            add(dom, "request", slot)
    if re.search(r"\b(?:no|not any|nothing|unable to find|could n't find|can not find|cannot find)\b.{0,30}"
                 r"\b(?:match|available|found|results?|options?)\b", delex):
        add(dom, "nooffer", "none")
    if re.search(r"\bwould you like (?:me to|to) (?:book|reserve|make a reservation)|shall i book", delex):
        add("booking", "inform", "none") if dom == "general" else add(dom, "offerbook", "none")
    if re.search(r"\banything else|\bany other|\bfurther\b.*\?|\bhelp you with\b", delex):
        add("general", "reqmore", "none")
    if re.search(r"\b(?:good ?bye|have a (?:nice|great|good|wonderful) (?:day|time|stay|trip|evening))",
                 delex):
        add("general", "bye", "none")
    if re.search(r"\byou 're welcome|\byou are welcome", delex):
        add("general", "welcome", "none")
    return acts or [(dom, "inform", "none")]


_DOMAIN_WORDS = (
    ("train", r"\btrains?\b|\brailway\b"), ("taxi", r"\btaxi|\bcab\b"),
    ("hotel", r"\bhotels?\b|\bguest ?houses?\b|\bplace to stay\b|\bstay\b|\bnights?\b"),
    ("restaurant", r"\brestaurants?\b|\bfood\b|\beat\b|\bdine|\bdinner|\blunch|\btable\b"),
    ("attraction", r"\battractions?\b|\bmuseums?\b|\bcolleges?\b|\bvisit\b|\bentertainment\b|\bchurch"
                   r"|\bpark\b|\btheatre|\bcinema|\bnightclub|\bpool\b|\bboat"),
    ("hospital", r"\bhospital\b"), ("police", r"\bpolice\b"),
)


def guess_domain(text: str, previous: str | None) -> str | None:
    """The domain a user turn is about, by its words (the last one named wins), else ``previous``."""
    best: tuple[int, str] | None = None
    for domain, pattern in _DOMAIN_WORDS:
        for m in re.finditer(pattern, text):
            if best is None or m.start() >= best[0]:
                best = (m.start(), domain)
    return best[1] if best else previous


def text_sequence(utterances: list[str], fmt: Format, db: MultiwozDB) -> str:
    """A whole unannotated dialogue as one pre-training sequence: user turns as the format writes them, system
    turns delexicalised as responses (``<|user|> … <|response|> … <|endofresponse|> <|user|> …``)."""
    from parley.engine.systems.hf_common import normalise_text

    parts = [fmt.context_prefix]
    domain: str | None = None
    for i, raw in enumerate(utterances):
        text = normalise_text(fmt, _BRACKET.sub(lambda m: m.group(1), raw) if i % 2 == 0 else raw)
        if i % 2 == 0:
            domain = guess_domain(text, domain)
            parts.append(fmt.user.format(text=text))
        else:
            parts += [fmt.response_start, value_delexicalise(text, {}, domain, db), fmt.response_end]
    return " ".join(p for p in parts if p)
