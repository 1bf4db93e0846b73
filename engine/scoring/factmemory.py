"""What the fact audit remembers of a dialogue, from the replies' text: the venues and trains named, the
bookings announced (reference, what was booked), the taxis booked; and what a user's question is about
("the guesthouse", "the first one", "the taxi", a venue's name) resolved against that record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from parley.engine.mwdb import MultiwozDB
from parley.engine.scoring.claims import VENUES, Reader


@dataclass(frozen=True)
class Entity:
    """A thing replies talk about: a venue (its DB name), a train (its id), the hospital or a department,
    the police station, or a taxi booked (``id`` = its car)."""

    domain: str
    id: str


@dataclass(frozen=True)
class Booking:
    entity: Entity
    reference: str | None  # taxis have none
    phone: str | None = None  # taxis: the driver's number


_ORDINAL = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "last": -1, "latest": -1}
_NOUN = (r"one|booking|reservation|hotel|guest ?house|b and b|bed and breakfast|restaurant|table|place|train"
         r"|room")
_ORD_RE = re.compile(r"\b(?:the|my|our) (first|1st|second|2nd|third|3rd|last|latest|earlier|previous|other)"
                     r" (" + _NOUN + r")\b")
_KIND_RE = re.compile(r"\b(?:the|my|our|that|this) (guest ?house|b and b|bed and breakfast|hotel|restaurant|"
                      r"table|train|tickets?|taxi|cab|car|driver|museum|college|theatre|park|nightclub|cinema|"
                      r"pool|gallery|church|attraction|hospital|police(?: station)?)\b")
_KIND_DOMAIN = {"guest house": "hotel", "guesthouse": "hotel", "b and b": "hotel",
                "bed and breakfast": "hotel", "hotel": "hotel", "restaurant": "restaurant",
                "table": "restaurant", "train": "train",
                "ticket": "train", "tickets": "train", "taxi": "taxi", "cab": "taxi", "car": "taxi",
                "driver": "taxi", "hospital": "hospital", "police": "police", "police station": "police"}
_ATTRACTION_KIND = {"gallery": "museum", "church": "architecture", "pool": "swimmingpool"}


@dataclass
class Memory:
    """The dialogue so far, as its replies told it."""

    named: list[Entity] = field(default_factory=list)  # in the order replies named them (repeats moved last)
    bookings: list[Booking] = field(default_factory=list)
    trip: tuple[tuple[str, str], ...] = ()  # the taxi state of the last taxi booked

    def name(self, e: Entity) -> None:
        if e in self.named:
            self.named.remove(e)
        self.named.append(e)

    def last(self, domain: str | None = None) -> Entity | None:
        return next((e for e in reversed(self.named) if domain is None or e.domain == domain), None)

    def references(self) -> dict[str, Booking]:
        return {b.reference: b for b in self.bookings if b.reference}

    def taxi(self) -> Booking | None:
        return next((b for b in reversed(self.bookings) if b.entity.domain == "taxi"), None)


class Resolver:
    """What a user's turn asks about, resolved against the :class:`Memory` (None when it names nothing)."""

    def __init__(self, db: MultiwozDB, reader: Reader) -> None:
        self.db = db
        self.reader = reader

    def _type(self, e: Entity) -> str:
        row = self.db.find(e.domain, e.id) if e.domain in VENUES else None
        return str(row.get("type", "")).lower() if row else ""

    def target(self, user: str, mem: Memory, booked: bool = False) -> Entity | None:
        """The entity ``user`` asks about. ``booked``: the question is about a booking (a reference), so
        booked entities are the candidates."""
        text = " " + re.sub(r"\s+", " ", user.lower().replace("\u2019", "'")) + " "
        pool = [b.entity for b in mem.bookings] if booked else list(mem.named)
        for mention in self.reader.mentions(text):
            if mention.domain in VENUES:
                return Entity(mention.domain, mention.id)
        m = _ORD_RE.search(text)
        if m:
            noun = m.group(2)
            domain = _KIND_DOMAIN.get(noun.replace("guest house", "guesthouse"))
            cands = [e for e in (pool if booked or noun in ("booking", "reservation") else mem.named)
                     if domain is None or e.domain == domain]
            if noun in ("booking", "reservation"):
                cands = [b.entity for b in mem.bookings]
            if not cands:
                return None
            word = m.group(1)
            if word in ("other", "previous", "earlier"):
                return cands[-2] if len(cands) >= 2 else None
            i = _ORDINAL[word]
            return cands[i] if -len(cands) <= i < len(cands) else None
        for k in _KIND_RE.finditer(text):
            kind = k.group(1)
            if kind in _ATTRACTION_KIND or kind in ("museum", "college", "theatre", "park", "nightclub",
                                                    "cinema", "attraction"):
                want = _ATTRACTION_KIND.get(kind, kind)
                cands = [e for e in pool if e.domain == "attraction"
                         and (want == "attraction" or self._type(e) == want)]
                return cands[-1] if cands else None
            domain = _KIND_DOMAIN.get(kind.replace("guest house", "guesthouse"), "")
            cands = [e for e in pool if e.domain == domain]
            if domain == "hotel" and cands:
                wanted = "guesthouse" if kind != "hotel" else "hotel"
                typed = [e for e in cands if self._type(e) == wanted]
                if typed or kind != "hotel":
                    cands = typed
            if cands:
                return cands[-1]
            if domain:
                return None
        return None
