"""Booking checks of the fact audit (:mod:`engine.scoring.facts`): references, the taxi's car and number,
what a booking says it booked, and bookings made when the user only asked a question.

- A new reference must come with a booking (the reply says so; with acts, a ``book`` act carrying it) and
  is recorded with what the reply booked. A reference given again must be the one of the booking the user
  asks about ("the first one", "the guesthouse", a name) or, unnamed, of the latest booking.
- A taxi booked is recorded with its car and number; a car or number given again must be that taxi's; the
  same trip booked twice is a second taxi nobody asked for.
- People, nights, day and time a booking states must be those of the turn's state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from parley.engine.scoring import claims as C
from parley.engine.scoring.factmemory import Booking, Entity, Memory
from parley.jsontypes import json_object

if TYPE_CHECKING:
    from parley.engine.scoring.facts import AuditTurn

Report = Callable[[str, str, str], None]

BOOKED = re.compile(r"\b(?:booked|reserved|i've booked|i have booked|booking is confirmed|is confirmed)\b"
                    r"|^done\b", re.I | re.M)
REF_ASK = re.compile(r"\b(?:reference|confirmation|booking number)\b", re.I)
#: what makes a turn a request for a booking, not only a question
BOOK_CUE = re.compile(r"\b(?:book|reserve|reservation|table for|tickets?|seats?|taxi|cab|ride|"
                      r"pick (?:me|us) up|\d+ (?:people|persons?|guests?|adults|nights?|of us)|for \d+\b|"
                      r"i'll take|i will take|"
                      r"\d\d?:\d\d|\d\d?(?: ?[ap]\.?m\b| o'?clock)|monday|tuesday|wednesday|thursday|friday|"
                      r"saturday|sunday|i need (?:a|one)|i want (?:a|one)|i'd like (?:a|one)|"
                      r"get me (?:a|one))"
                      r"|^\W*(?:yes|yeah|yep|sure|ok|okay|please|go ahead|great|perfect|fine|that works|"
                      r"sounds good)\b", re.I)
#: a question about an attribute ("what part of town is it in?", "could you tell me the phone number?")
ASKS = re.compile(r"\b(?:what|what's|whats|which|where|tell me|give me|(?:can|could|may) i (?:get|have)|"
                  r"is it|are they|does it|do they)\b.*\b(?:phone|number|address|postcode|area|part of town|"
                  r"price|cost|fee|stars?|rating|food|type|wifi|internet|parking|reference|id|located|"
                  r"duration|how long)\b", re.I)
TAXI_WORDS = re.compile(r"\b(?:taxi|cab|car|driver|contact number)\b", re.I)
_DETAILS = (("book_people", r"\b(\d+) (?:people|persons?|guests?|seats?|tickets?)\b"
                            r"|\bfor (\d+)\b(?! nights?\b)"),
            ("book_stay", r"\b(\d+) nights?\b"), ("book_time", r"\bat (\d\d?:\d\d)\b"),
            ("book_day", r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"))


def references(s: C.Sentence, t: AuditTurn, mem: Memory, target: Entity | None, subject: Entity | None,
               report: Report) -> int:
    """Check the references a sentence gives (and record new ones); returns how many facts were checked."""
    n = 0
    known = mem.references()
    booking = bool(BOOKED.search(t.system))
    for ref in C.references(s.text):
        n += 1
        if ref in known:
            b = known[ref]
            want = target if target is not None and target.domain != "taxi" else None
            if want is None and s.venues():
                want = Entity(s.venues()[0].domain, s.venues()[0].id)
            if want is not None and b.entity != want:
                report("reference", f"{ref} (the booking at {b.entity.id})", f"asked about {want.id}")
            elif want is None and b is not mem.bookings[-1] and not booking:
                report("reference", f"{ref} (the booking at {b.entity.id})",
                       f"the latest booking is {mem.bookings[-1].entity.id}")
            continue
        books = [a for a in t.acts if a.get("act") == "book"]
        if not booking or (t.acts and not any(str(a.get("value")) == ref for a in books)):
            report("reference", ref, "no booking was made")
            continue
        entity = subject if subject is not None and subject.domain != "taxi" else None
        if entity is None and books:
            entity = Entity(str(books[0].get("domain")), str(t.internals.get("venue") or ""))
        if entity is not None:
            mem.bookings.append(Booking(entity, ref))
            n += details(t, entity.domain, report)
    return n


def details(t: AuditTurn, domain: str, report: Report) -> int:
    """People, nights, time and day a booking reply states, against the turn's state."""
    state = t.state.get(domain) or {}
    n = 0
    text = " ".join(x for x in re.split(r"(?<=[.!?])\s+", t.system) if BOOKED.search(x) or C.references(x))
    for slot, pat in _DETAILS:
        key = "day" if domain == "train" and slot == "book_day" else slot
        m = re.search(pat, text.lower())
        truth = state.get(key)
        if not m or not truth or (domain == "train" and slot in ("book_time", "book_stay")):
            continue
        n += 1
        said = next(g for g in m.groups() if g)
        if said.lstrip("0") != str(truth).lstrip("0"):
            report(slot, said, str(truth))
    return n


def taxis(s: C.Sentence, t: AuditTurn, mem: Memory, subject: Entity | None, own: list[C.Mention],
          colours: list[str], makes: list[str], rows: Callable[[Entity], Mapping[str, object] | None],
          report: Report) -> int:
    """The taxi's car and number, and the phone numbers a sentence gives."""
    n = 0
    car = C.car(s.text, colours, makes)
    taxi = mem.taxi()
    booked_now = any(a.get("act") == "book" and a.get("domain") == "taxi" for a in t.acts)
    if car and BOOKED.search(t.system) and (taxi is None or taxi.entity.id != car or booked_now):
        given = C.PHONE.search(t.system)
        trip = tuple(sorted((k, str(v)) for k, v in json_object(t.state.get("taxi")).items()))
        if trip and trip == mem.trip:
            report("booking", t.system, "this trip's taxi was booked already")
        mem.trip = trip
        number = given.group(0).replace(" ", "") if given else None
        mem.bookings.append(Booking(Entity("taxi", car), None, number))
        mem.name(Entity("taxi", car))
        n += 1
        if number and not re.fullmatch(r"07\d{9}", number):
            report("phone", number, "a mobile number (07…) for the taxi")
    elif car:
        n += 1
        if taxi is None or taxi.entity.id != car:
            report("car", car, taxi.entity.id if taxi else "no taxi was booked")
    for said in C.PHONE.finditer(s.text):
        phone = said.group(0).replace(" ", "")
        n += 1
        if subject is not None and subject.domain == "taxi":
            taxi = mem.taxi()
            if taxi is None or taxi.phone != phone:
                report("phone", phone, (taxi.phone or "none") if taxi else "no taxi was booked")
            continue
        whose = [Entity(x.domain, x.id) for x in own] or ([subject] if subject else [])
        found = [rows(e) for e in whose]
        if not any(r and str(r.get("phone", "")) == phone for r in found):
            report("phone", phone, "; ".join(f"{e.id or e.domain}: {r.get('phone') if r else '?'}"
                                             for e, r in zip(whose, found, strict=True)) or "whose?")
    return n


def unasked(t: AuditTurn, before: set[str], colours: list[str], makes: list[str]) -> bool:
    """A booking announced in reply to a question that asked for none ("could you tell me the phone number
    of the hotel?" → "Booked! A grey volvo will pick you up")."""
    if not BOOKED.search(t.system):
        return False
    books = {str(a.get("domain")) for a in t.acts if a.get("act") == "book"} or {"?"}
    if not ASKS.search(t.user) or BOOK_CUE.search(t.user) or (
            "taxi" in books and "taxi" not in before and TAXI_WORDS.search(t.user)):
        return False
    if REF_ASK.search(t.user) and not books <= before:
        return False  # "... and the reference number, please": nothing of that kind was booked yet
    return bool(C.references(t.system) or C.car(t.system, colours, makes))
