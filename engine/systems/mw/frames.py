"""Data the rule NLU passes around: its context, its result, and the builder that collects slot values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from parley.engine.mwdb import BOOKABLE, INFORMABLE
from parley.jsontypes import JSONObject

PRIMARY = ("taxi", "train", "police", "hospital")


@dataclass(frozen=True)
class NluContext:
    """What the NLU may know about the dialogue so far."""

    active_domain: str | None = None
    # slots the system asked for last turn ("leaveAt", "book_people", ...)
    sys_requested: tuple[str, ...] = ()
    state: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    offered: Mapping[str, str] = field(default_factory=dict)
    offer_domain: str | None = None  # the domain of the offer / booking question the system just made
    # attributes of offered/named venues
    venues: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: the date "today" and "tomorrow" are counted from; None leaves them unmapped (corpus dialogues)
    today: date | None = None
    #: the venues the system offered so far, per domain, oldest first ("the first one you said")
    offer_history: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the bookings made so far, oldest first: ``(domain, key)`` with the venue name, train id or taxi's car
    bookings: tuple[tuple[str, str], ...] = ()
    #: what the user asked for last turn ("and the one for the guesthouse?" asks it again)
    asked: tuple[str, ...] = ()
    #: the attributes of every venue the dialogue holds (offered, named or booked): name → {area, type, ...}
    held: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class NluResult:
    """What one user utterance says: ``inform`` as ``(domain, slot, value)``, ``requests`` as ``(domain,
    slot)``."""

    text: str
    domain: str | None
    domains: tuple[str, ...] = ()
    intents: tuple[str, ...] = ()
    inform: tuple[tuple[str, str, str], ...] = ()
    requests: tuple[tuple[str, str], ...] = ()
    #: yes/no questions about the venue on the table, ``(domain, slot, value asked about)``
    checks: tuple[tuple[str, str, str], ...] = ()
    #: a question about a record the dialogue holds (``asked.Asked``: domain, key, slots): answered from it
    about: tuple[str, str] | None = None
    #: constraints the belief state has no slot for, ``(domain, slot, value)``: a free entrance
    filters: tuple[tuple[str, str, str], ...] = ()

    def to_json(self) -> JSONObject:
        out: JSONObject = {"text": self.text, "domain": self.domain, "domains": list(self.domains),
               "intents": list(self.intents), "inform": [list(x) for x in self.inform],
               "requests": [list(x) for x in self.requests], "checks": [list(x) for x in self.checks]}
        if self.about:
            out["about"] = list(self.about)
        if self.filters:
            out["filters"] = [list(x) for x in self.filters]
        return out


def slots_of(domain: str) -> tuple[str, ...]:
    """Informable and booking slots of a domain."""
    return INFORMABLE.get(domain, ()) + BOOKABLE.get(domain, ())


class Builder:
    """Collects informs with a position so later mentions of a slot win (corrections: "north, no, east")."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], tuple[int, str]] = {}

    def add(self, domain: str | None, slot: str, value: str, pos: int) -> None:
        if domain is None or slot not in slots_of(domain):
            return
        key = (domain, slot)
        if key not in self.items or self.items[key][0] <= pos:
            self.items[key] = (pos, value)

    def result(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((d, s, v) for (d, s), (_, v) in sorted(self.items.items(), key=lambda kv: kv[1][0]))


def domain_for(slot: str, primary: str | None, mentioned: list[str], ctx: NluContext) -> str | None:
    """The domain a slot value most likely belongs to."""
    order = [d for d in [primary, *mentioned, ctx.active_domain] if d]
    for d in order:
        if slot in slots_of(d):
            return d
    defaults = {"food": "restaurant", "stars": "hotel", "parking": "hotel", "internet": "hotel",
                "book_stay": "hotel", "pricerange": "restaurant", "area": "restaurant",
                "book_time": "restaurant", "book_day": "restaurant", "book_people": "restaurant",
                "day": "train", "leaveAt": "train", "arriveBy": "train", "departure": "train",
                "destination": "train", "type": "attraction", "department": "hospital"}
    if not order:
        return defaults.get(slot)
    # the domain talked about has no such slot ("east please" after a question about the train): the one
    # venue domain of the dialogue that has it
    known = [d for d in dict.fromkeys([*ctx.state, *ctx.offered]) if slot in slots_of(d)]
    return known[-1] if len(known) == 1 else None
