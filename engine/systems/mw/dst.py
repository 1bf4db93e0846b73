"""Dialogue state tracking: the belief state ``{domain: {slot: value}}`` accumulated over the user's turns.

The tracker keeps what the policy needs between turns besides the state: the venue offered per domain, the
slots the system asked for last, whether the user wants a booking, the references already given.
"""

from __future__ import annotations

import copy
from typing import Any

from parley.engine.mwdb import MultiwozDB
from parley.engine.systems.mw.nlu import NluContext, NluResult

VENUE = ("restaurant", "hotel", "attraction")


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
        self.offered: dict[str, str] = {}
        self.heard: dict[str, str] = {}  # venues named in system turns the pipeline did not write (listen.py)
        self.booked: dict[str, str] = {}  # domain → reference of the last booking
        self.wants_booking: dict[str, bool] = {}
        self.active_domain: str | None = None
        self.sys_requested: tuple[str, ...] = ()
        self.last_offer_domain: str | None = None
        self.turns = 0
        self.changed: set[tuple[str, str]] = set()

    def context(self, db: MultiwozDB | None = None) -> NluContext:
        """What the NLU may know; with ``db``, also the attributes of the venues on the table."""
        venues: dict[str, dict[str, str]] = {}
        if db is not None:
            for d in VENUE:
                vid = self.state.get(d, {}).get("name") or self.offered.get(d)
                row = db.find(d, vid) if vid else None
                if row:
                    venues[d] = {k: str(row[k]) for k in ("area", "pricerange", "stars", "type", "food") if k in row}
        return NluContext(active_domain=self.active_domain, sys_requested=self.sys_requested,
                          state=self.state, offered=self.offered, offer_domain=self.last_offer_domain,
                          venues=venues)

    def snapshot(self) -> dict[str, dict[str, str]]:
        return copy.deepcopy({d: s for d, s in self.state.items() if s})

    def update(self, nlu: NluResult, db: MultiwozDB | None = None) -> None:
        """Fold one NLU result into the state."""
        self.turns += 1
        self.changed = set()
        if nlu.domain:
            self.active_domain = nlu.domain
        d = self.active_domain
        for dom, slot, value in nlu.inform:
            cur = self.state.setdefault(dom, {})
            if cur.get(slot) != value:
                self.changed.add((dom, slot))
            cur[slot] = value
            if slot == "name":
                self.offered[dom] = value
        for dom, slot in self.changed:
            # a new constraint that the offered venue breaks: forget the offer so the policy searches again
            if slot != "name" and not slot.startswith("book_") and dom in self.offered and db is not None:
                row = db.find(dom, self.offered[dom])
                if row is not None and slot in row and str(row[slot]).lower() != self.state[dom][slot] \
                        and self.state[dom][slot] != "dontcare":
                    if self.state.get(dom, {}).get("name") == self.offered[dom] and (dom, "name") not in self.changed:
                        del self.state[dom]["name"]
                    del self.offered[dom]
        self.requested = {}
        for dom, slot in nlu.requests:
            self.requested.setdefault(dom, []).append(slot)
        if d is None:
            return
        intents = set(nlu.intents)
        book_info = any(s.startswith("book_") for dom, s, _ in nlu.inform if dom == d)
        if "nobook" in intents:
            self.wants_booking[d] = False
        elif "book" in intents or book_info or ("affirm" in intents and self.last_offer_domain == d
                                                 and any(s.startswith("book_") or s == "book"
                                                         for s in self.sys_requested)):
            self.wants_booking[d] = True
        engaged = "book" in intents or "affirm" in intents or book_info or bool(self.requested.get(d))
        if d in VENUE and self.offered.get(d) and not self.state.get(d, {}).get("name") and engaged \
                and (self.wants_booking.get(d) or self.last_offer_domain == d) and "reqalts" not in intents \
                and not any(s != "name" and not s.startswith("book_") for dom, s in self.changed if dom == d):
            self.state.setdefault(d, {})["name"] = self.offered[d]
        if "reqalts" in intents and d in self.offered and self.state.get(d, {}).get("name") == self.offered[d] \
                and (d, "name") not in self.changed:
            del self.state[d]["name"]

    def to_json(self) -> dict[str, Any]:
        return {"state": self.snapshot(), "requested": copy.deepcopy(self.requested), "offered": dict(self.offered),
                "booked": dict(self.booked), "active_domain": self.active_domain,
                "sys_requested": list(self.sys_requested)}
