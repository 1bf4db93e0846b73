"""Questions about something the dialogue already holds: a venue offered, named or booked, the train on the
table, the taxi booked, an earlier booking ("what was the reference for the guesthouse again?", "could you
tell me the phone number of the hotel?", "whats the car", "the reference for the first one?").

:func:`asked_about` reads such a question into an :class:`Asked` — the record's domain and key (venue name,
train id, the taxi's car) and the attributes wanted. Such a turn asks nothing new: the policy answers it from
the record (:mod:`records`), it never starts a search or a booking, and the words naming the record ("the
guesthouse", "the hotel" while a taxi is talked about) are no constraints.

A turn that also asks for something new ("I need a taxi from the hotel, what's the car?", "is there another
one?") is left to the ordinary reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from parley.engine.systems.mw import patterns as P
from parley.engine.systems.mw.frames import NluContext
from parley.engine.systems.mw.lexicon import Lexicon, NameMention


@dataclass(frozen=True)
class Asked:
    domain: str
    key: str  # venue name, train id or the taxi's car
    slots: tuple[str, ...]
    named: bool = False  # the user said the venue's name (it is theirs: the belief state takes it)


_VENUES = ("restaurant", "hotel", "attraction")
#: a new request in the same turn: not only a question about a record
_NEW = re.compile(r"\b(?:" + "|".join((
    "i need an?", "i want an?", "i'd like an?", "i would like an?", "we need an?", "looking for", "find me",
    "book", "reserve", "get me an?", "can you get me", "is there", "are there", "do you have (?:an?|any)",
    "another", "a different", "also need", "instead", "change", "cancel", "any other", "anything else",
    "what else", r"(?:also|too)\b.{0,30}\b(?:taxi|train|restaurant|hotel|attraction)")) + r")\b")
#: booking details or a time given in the same turn: the user is arranging something
_DETAILS = re.compile(r"\b\d\d?:\d\d\b|\b\d+ (?:people|persons?|guests?|nights?|tickets?)\b|\b(?:" + "|".join(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "tomorrow", "tonight"))
    + r")\b")
_ASK = re.compile(r"\b(?:" + "|".join((
    "what", "whats", "what's", "which", "where", "when", "how", "tell me", "give me", "can i (?:get|have)",
    "could i (?:get|have)", "may i (?:get|have)", "do you have the", "remind me", "again", "i need the",
    "i'd like the", "send me")) + r")\b|\?")
_ORD = re.compile(r"\b(?:the|my|our) (first|1st|second|2nd|third|3rd|other|previous|earlier|last|latest) ("
                  + "|".join(("one", "booking", "reservation", "hotel", "guest ?house", "b and b",
                              "restaurant", "table", "place", "train", "room")) + r")s?\b")
#: "the guesthouse", "the driver's number" ("drivers number" once cleaned), not "the pools" (a type)
_KIND = re.compile(r"\b(?:the|my|our|that|this|your) (" + "|".join((
    "guest ?house", "b and b", "bed and breakfast", "hotel", "restaurant", "table", "train", "tickets?",
    "taxi", "cab", "car", "driver", "booking", "reservation", "museum", "college", "theatre", "park",
    "nightclub", "cinema", "pool", "gallery", "church", "attraction"))
    + r")(?:'s|s(?= (?:phone|number|address|postcode|reference|car|name|area)))?\b")
_KIND_DOMAIN = {"guesthouse": "hotel", "guest house": "hotel", "b and b": "hotel",
                "bed and breakfast": "hotel", "hotel": "hotel", "room": "hotel", "restaurant": "restaurant",
                "table": "restaurant",
                "train": "train", "ticket": "train", "tickets": "train", "taxi": "taxi", "cab": "taxi",
                "car": "taxi", "driver": "taxi"}
_ATTRACTION_KIND = {"museum": "museum", "college": "college", "theatre": "theatre", "park": "park",
                    "nightclub": "nightclub", "cinema": "cinema", "pool": "swimmingpool", "gallery": "museum",
                    "church": "architecture", "attraction": ""}
#: what a question about the taxi asks ("whats the car", "the driver's number")
_TAXI_SLOTS = ((re.compile(r"\b(?:car|vehicle|colou?r|make|model|look (?:out )?for)\b"), "car type"),
               (re.compile(r"\b(?:number|phone|contact|call|reach)\b"), "phone"))
_AGAIN = re.compile(r"^\s*(?:and|what about|how about|also|same for|now)\b")
_ROOM = re.compile(r"\b(?:how much|cost|costs|a night|per night|rooms?)\b")
_BOOKING_WORDS = re.compile(r"\b(?:reference|confirmation|booking number|ref number|conf number|"
                            r"booking (?:code|id))\b")


def asked_about(t: str, plain: str, holders: dict[str, NameMention], ctx: NluContext, lex: Lexicon
                ) -> Asked | None:
    """The record a question is about, or None (``t``: the cleaned text, in words, where ``holders`` found
    names; ``plain``: the text as the NLU reads values, numbers in digits and names left out)."""
    words = t
    for nm in holders.values():  # names blanked: "the place" inside a name is no reference
        words = words[: nm.start] + " " * (nm.end - nm.start) + words[nm.end:]
    if not (_ASK.search(t) or P.QUESTION_START.search(plain)):
        return None
    subject = _ORD.search(words) or _KIND.search(words)
    rest = words[: subject.start()] + " " + words[subject.end():] if subject else words
    if _NEW.search(rest) or _DETAILS.search(plain):
        return None
    # another domain brought up ("the taxi needs to arrive at Taj Tandoori by 14:30, what car is it?")
    talked = {d for d, pat in P.DOMAIN_WORDS.items() if pat.search(rest)}
    booking = bool(_BOOKING_WORDS.search(t))
    found = _named(t, holders, ctx) if holders else None
    named = found is not None
    if found is None and subject is not None:
        found = _ordinal(subject, ctx, booking) if subject.re is _ORD else _kind(subject, ctx, lex, booking)
    if found is None:
        return None
    domain, key = found
    if (talked - {domain}) & {"taxi", "train", "restaurant", "hotel", "attraction"}:
        return None
    slots = _slots(rest if domain != "taxi" else words, domain, booking)
    if not slots and _AGAIN.match(words) and subject is not None:  # "and the one for the guesthouse?"
        slots = tuple(s for s in ctx.asked if s in ("reference", "phone", "address", "postcode", "area",
                                                    "pricerange", "entrance fee", "car type"))
    if not slots:
        return None
    if "reference" in slots and (domain, key) not in ctx.bookings:
        return None  # "the reference for the restaurant" before booking it asks for a booking
    return Asked(domain, key, slots, named)


def _known(ctx: NluContext, domain: str) -> list[str]:
    """The records of a domain the dialogue holds, oldest first (offered, named, booked)."""
    out = [k for d, k in ctx.bookings if d == domain]
    out += list(ctx.offer_history.get(domain, ()))
    for v in (ctx.state.get(domain, {}).get("name"), ctx.offered.get(domain)):
        if v and v != "dontcare":
            out.append(v)
    return list(dict.fromkeys(reversed(out)))[::-1]  # unique, keeping each one's latest position


def _named(t: str, holders: dict[str, NameMention], ctx: NluContext) -> tuple[str, str] | None:
    if ctx.active_domain == "taxi" and set(ctx.sys_requested) & {"departure", "destination"}:
        return None  # the taxi asked where from / to: a venue named is a trip end
    for nm in holders.values():
        trip_end = re.search(r"\b(?:from|to|into|towards)\s+(?:the\s+)?$", t[: nm.start])
        if nm.domain in _VENUES and nm.value in _known(ctx, nm.domain) and not trip_end:
            return nm.domain, nm.value
    return None


def _ordinal(m: re.Match[str], ctx: NluContext, booking: bool) -> tuple[str, str] | None:
    noun = m.group(2).replace("guest house", "guesthouse")
    domain = _KIND_DOMAIN.get(noun) or (ctx.active_domain if noun in ("one", "place") else None)
    if booking or noun in ("booking", "reservation"):
        cands = [(d, k) for d, k in ctx.bookings if domain is None or d == domain]
    else:
        cands = [(domain, k) for k in ctx.offer_history.get(domain or "", ())] if domain in _VENUES else []
    word = m.group(1)
    if word in ("other", "previous", "earlier"):
        return cands[-2] if len(cands) >= 2 else None
    i = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2}.get(word, -1)
    return cands[i] if cands and -len(cands) <= i < len(cands) else None


def _kind(m: re.Match[str], ctx: NluContext, lex: Lexicon, booking: bool) -> tuple[str, str] | None:
    kind = m.group(1).replace("guest house", "guesthouse")
    if kind in ("booking", "reservation"):
        return ctx.bookings[-1] if ctx.bookings else None
    if kind in _ATTRACTION_KIND:
        want = _ATTRACTION_KIND[kind]
        cands = [k for k in _known(ctx, "attraction") if not want or _type(lex, "attraction", k) == want]
        return ("attraction", cands[-1]) if cands else None
    domain = _KIND_DOMAIN.get(kind, "")
    if domain == "taxi":
        taxis = [k for d, k in ctx.bookings if d == "taxi"]
        return ("taxi", taxis[-1]) if taxis else None
    if domain == "train":
        trains = [k for d, k in ctx.bookings if d == "train"] if booking else []
        offered = ctx.offered.get("train")
        booked = [k for d, k in ctx.bookings if d == "train"]
        key = trains[-1] if trains else offered or (booked[-1] if booked else None)
        return ("train", key) if key else None
    cands = [k for d, k in ctx.bookings if d == domain] if booking else _known(ctx, domain)
    if domain == "hotel" and len(cands) > 1:
        typed = [k for k in cands if _type(lex, "hotel", k) == ("hotel" if kind == "hotel" else "guesthouse")]
        cands = typed or cands
    elif domain == "hotel" and kind != "hotel":
        cands = [k for k in cands if _type(lex, "hotel", k) == "guesthouse"]
    return (domain, cands[-1]) if cands else None


def _type(lex: Lexicon, domain: str, name: str) -> str:
    row = lex.db.find(domain, name)
    return str(row.get("type", "")).lower() if row else ""


def _slots(plain: str, domain: str, booking: bool) -> tuple[str, ...]:
    out: list[str] = []
    if booking:
        out.append("reference")
    if domain == "taxi":
        out += [s for pat, s in _TAXI_SLOTS if pat.search(plain) and s not in out]
        return tuple(out)
    for pat, slot in P.REQUESTS:
        if not pat.search(plain) or slot in ("reference", "car type"):
            continue
        s = slot
        if slot == "price":
            s = {"train": "price", "attraction": "entrance fee"}.get(domain, "pricerange")
            if domain == "hotel" and _ROOM.search(plain):
                kinds = re.findall(r"\b(single|double|family)\b", plain)
                out += [f"price {k}" for k in dict.fromkeys(kinds) if f"price {k}" not in out]
                s = "price" if not kinds else out[-1]
        if slot == "type" and domain == "restaurant":
            s = "food"
        if slot in ("trainID", "duration", "arriveBy", "leaveAt") and domain != "train":
            continue
        if slot == "stars" and domain != "hotel":
            continue
        if s not in out:
            out.append(s)
    if re.search(r"\b(?:take|takes|accept|accepts|do|does) (?:reservations|bookings)\b", plain) \
            and domain in _VENUES:
        out.append("takesbookings")
    return tuple(out)
