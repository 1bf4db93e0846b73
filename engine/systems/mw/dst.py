"""Dialogue state tracking: the belief state ``{domain: {slot: value}}`` accumulated over the user's turns.

The tracker keeps what the policy needs between turns besides the state: the venue offered per domain, the
slots the system asked for last, whether the user wants a booking, the references already given.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable

from parley.engine.mwdb import BOOKABLE, MultiwozDB
from parley.engine.systems.mw.nlu import NluContext, NluResult
from parley.engine.types import DialogueAct
from parley.jsontypes import JSONObject, as_json_object

VENUE = ("restaurant", "hotel", "attraction")
#: the user starts a search ("I need a cheap hotel", "find me another restaurant")
SEARCH_RE = re.compile(r"\b(?:i need|i'm looking|i am looking|looking for|find me|find a|find an|i want|"
                       r"i'd like|i would like|we need|we want|we're looking|another|a different|also need|"
                       r"search for|is there|are there|do you have|can you find|could you find|recommend)\b")
#: the attributes of the venues a dialogue holds that the NLU may compare ("the other one" that still fits)
HELD = ("area", "pricerange", "stars", "type", "food", "parking", "internet")
#: a venue named as a place of reference ("a restaurant near the Cityroomz hotel"), not as the one sought
NEAR_RE = re.compile(r"\b(?:near|close to|nearby|next to|around|from|same area as|walking distance)\b")


class Tracker:
    """Belief state plus dialogue bookkeeping for one dialogue."""

    def __init__(self, passive: bool = False) -> None:
        #: passive: the system turns are not ours (scoring on a corpus), so the policy's own choices must not
        #: leak into the state
        self.passive = passive
        self.reset()

    def reset(self) -> None:
        self.state: dict[str, dict[str, str]] = {}
        self.requested: dict[str, list[str]] = {}
        self.checks: dict[str, list[tuple[str, str]]] = {}
        #: constraints the belief state has no slot for (``{"attraction": {"entrance fee": "free"}}``)
        self.filters: dict[str, dict[str, str]] = {}
        # (domain, time slot) the user does not mind
        # domain → (slot, value) asked about the venue
        self.flexible: set[tuple[str, str]] = set()
        self.offered: dict[str, str] = {}
        self.offer_history: dict[str, list[str]] = {}  # every venue offered per domain, oldest first
        self.heard: dict[str, str] = {}  # venues named in system turns the pipeline did not write (listen.py)
        self.booked: dict[str, str] = {}  # domain → reference of the last booking
        self.booked_before: dict[str, list[str]] = {}  # references of earlier bookings (before a new search)
        #: every booking made, oldest first (``records``): domain, key, reference and what was booked
        self.bookings: list[dict[str, str]] = []
        self.wants_booking: dict[str, bool] = {}
        self.active_domain: str | None = None
        self.sys_requested: tuple[str, ...] = ()
        self.last_offer_domain: str | None = None
        self.turns = 0
        self.changed: set[tuple[str, str]] = set()

    def context(self, db: MultiwozDB | None = None) -> NluContext:
        """What the NLU may know; with ``db``, also the attributes of the venues on the table."""
        venues: dict[str, dict[str, str]] = {}
        held: dict[str, dict[str, str]] = {}
        if db is not None:
            for d in VENUE:
                vid = self.state.get(d, {}).get("name") or self.offered.get(d)
                row = db.find(d, vid) if vid else None
                if row:
                    venues[d] = {k: str(row[k]) for k in ("area", "pricerange", "stars", "type", "food")
                                 if k in row}
                names = [*self.offer_history.get(d, ()),
                         *(b["key"] for b in self.bookings if b["domain"] == d)]
                for name in [*names, vid] if vid else names:
                    found = db.find(d, name)
                    if found:
                        held[name] = {k: str(found.get(k, "no" if k in ("parking", "internet") else ""))
                                      .lower() for k in HELD}
        return NluContext(active_domain=self.active_domain, sys_requested=self.sys_requested,
                          state=self.state, offered=self.offered, offer_domain=self.last_offer_domain,
                          venues=venues,
                          offer_history={d: tuple(v) for d, v in self.offer_history.items()},
                          bookings=tuple((b["domain"], b["key"]) for b in self.bookings), held=held,
                          asked=tuple(s for slots in self.requested.values() for s in slots))

    def note_offers(self, acts: Iterable[DialogueAct]) -> None:
        """Remember the venues the system just offered, so "the first one you said" can name one later."""
        for a in acts:
            domain, value = a.get("domain"), a.get("value")
            if a.get("act") == "offer" and a.get("slot") == "name" and domain in VENUE and domain \
                    and isinstance(value, str) and value:
                seen = self.offer_history.setdefault(domain, [])
                if value not in seen:
                    seen.append(value)

    def snapshot(self) -> dict[str, dict[str, str]]:
        return copy.deepcopy({d: s for d, s in self.state.items() if s})

    def update(self, nlu: NluResult, db: MultiwozDB | None = None) -> None:
        """Fold one NLU result into the state."""
        self.turns += 1
        self.changed = set()
        if nlu.domain:
            self.active_domain = nlu.domain
        d = self.active_domain
        self._new_search(nlu)
        for dom, slot, value in nlu.inform:
            if value == "dontcare" and slot in ("leaveAt", "arriveBy"):
                self.flexible.add((dom, slot))  # "any time": not a constraint, but nothing to ask either
                continue
            cur = self.state.setdefault(dom, {})
            if cur.get(slot) != value:
                self.changed.add((dom, slot))
            cur[slot] = value
            if slot == "name":
                self.offered[dom] = value
        if "correct" in nlu.intents:  # "no, I meant leaving after 10": the other kind of time was the slip
            for dom, slot in list(self.changed):
                other = {"leaveAt": "arriveBy", "arriveBy": "leaveAt"}.get(slot)
                if other and (dom, other) not in self.changed and other in self.state.get(dom, {}):
                    del self.state[dom][other]  # (the changed time already makes the policy search again)
        for dom, slot in list(self.changed):
            self._drop_broken(dom, slot, db)
        self.requested = {}
        for dom, slot in nlu.requests:
            self.requested.setdefault(dom, []).append(slot)
            if slot == "reference" and dom not in self.booked and BOOKABLE.get(dom) and not self.passive:
                self.wants_booking[dom] = True  # "... and the reference number, please": book it
        for dom, slot, value in nlu.filters:
            if value == "dontcare":
                self.filters.get(dom, {}).pop(slot, None)
            elif self.filters.get(dom, {}).get(slot) != value:
                self.filters.setdefault(dom, {})[slot] = value
                self.changed.add((dom, slot))
                row = db.find(dom, self.offered[dom]) if db is not None and self.offered.get(dom) else None
                if row is not None and str(row.get(slot, "")).lower() != value \
                        and (dom, "name") not in self.changed:  # the venue offered is not free
                    if self.state.get(dom, {}).get("name") == self.offered[dom]:
                        del self.state[dom]["name"]
                    del self.offered[dom]
        self.checks = {}
        for dom, slot, value in nlu.checks:
            self.checks.setdefault(dom, []).append((slot, value))  # asked about the venue: not a constraint
        if d is None:
            return
        intents = set(nlu.intents)
        book_info = any(s.startswith("book_") for dom, s, _ in nlu.inform if dom == d)
        rebook = d in self.booked and not book_info and (d, "name") not in self.changed
        if "nobook" in intents:
            self.wants_booking[d] = False
        elif rebook:
            pass  # "thanks for the reservation": booked already, nothing new to book with
        elif "book" in intents or book_info or ("affirm" in intents and self.last_offer_domain == d
                                                 and any(s.startswith("book_") or s == "book"
                                                         for s in self.sys_requested)):
            self.wants_booking[d] = True
        # The state holds what the user said: a venue the system offered enters it only when the user names
        # it.
        # Reading a corpus (passive), the wizard's offer accepted by the user is taken, as the corpus
        # annotates.
        engaged = "book" in intents or "affirm" in intents or book_info or bool(self.requested.get(d))
        if self.passive and d in VENUE and self.offered.get(d) and not self.state.get(d, {}).get("name") \
                and engaged \
                and (self.wants_booking.get(d) or self.last_offer_domain == d) and "reqalts" not in intents \
                and not any(s != "name" and not s.startswith("book_") for dom, s in self.changed if dom == d):
            self.state.setdefault(d, {})["name"] = self.offered[d]
        if "reqalts" in intents and d in self.offered \
                and self.state.get(d, {}).get("name") == self.offered[d] \
                and (d, "name") not in self.changed:
            del self.state[d]["name"]

    def constrain(self, dom: str, slot: str, value: str, db: MultiwozDB | None) -> None:
        """Add a constraint the user accepted ("yes" to "shall I look for one in the centre?")."""
        self.state.setdefault(dom, {})[slot] = value
        self.changed.add((dom, slot))
        self._drop_broken(dom, slot, db)

    def _drop_broken(self, dom: str, slot: str, db: MultiwozDB | None) -> None:
        """A new constraint that the offered venue breaks: forget the offer so the policy searches again (and,
        after a booking there, the booking details: they were given for that venue)."""
        if slot == "name" or slot.startswith("book_") or dom not in self.offered or db is None:
            return
        row = db.find(dom, self.offered[dom])
        value = self.state[dom][slot]
        if row is None or slot not in row or str(row[slot]).lower() == value or value == "dontcare":
            return
        if self.state.get(dom, {}).get("name") == self.offered[dom] and (dom, "name") not in self.changed:
            del self.state[dom]["name"]
        del self.offered[dom]
        if dom in self.booked and not self.passive:
            for s in [s for s in self.state[dom] if s.startswith("book_")]:
                del self.state[dom][s]
            self.wants_booking[dom] = False
            self.booked_before.setdefault(dom, []).append(self.booked.pop(dom))

    def _new_search(self, nlu: NluResult) -> None:
        """A search in a domain that already has a booking starts again from what the user says now: the old
        constraints, venue and booking details (people, day, stay, time) are dropped, so nothing is booked
        with details given for another venue."""
        if self.passive:
            return
        for dom in {x for x, _, _ in nlu.inform}:
            if dom not in self.booked or dom not in VENUE:
                continue
            informs = {s: v for x, s, v in nlu.inform if x == dom}
            named = informs.get("name")
            if named and named == self.state.get(dom, {}).get("name"):
                continue  # talking about the booked venue
            fresh = named or any(s != "name" and not s.startswith("book_") for s in informs)
            wants = SEARCH_RE.search(nlu.text) or (named and "book" in nlu.intents)
            if fresh and wants and nlu.domain == dom and not nlu.checks and not NEAR_RE.search(nlu.text):
                self.state[dom] = {}
                self.offered.pop(dom, None)
                self.wants_booking[dom] = False
                self.booked_before.setdefault(dom, []).append(self.booked.pop(dom))

    def to_json(self) -> JSONObject:
        return as_json_object({"state": self.snapshot(), "requested": self.requested, "offered": self.offered,
                               "booked": self.booked, "bookings": self.bookings,
                               "active_domain": self.active_domain, "sys_requested": self.sys_requested},
                              other="text")
