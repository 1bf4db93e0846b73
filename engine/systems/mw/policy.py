"""Rule policy: from the tracked state and the database to dialogue acts (:class:`Decision`).

Asks for missing constraints, says how many venues match, offers one, answers requested attributes, books with
a reference number that depends only on the session seed and the booking, relaxes a constraint when nothing
matches. Acts are dicts ``{"act", "domain", "slot", "value"}``.
"""

from __future__ import annotations

import copy
import hashlib
import random
from dataclasses import dataclass, field

from parley.engine.mwdb import BOOKABLE, HOSPITAL, MultiwozDB, Row
from parley.engine.systems.mw.dst import Tracker
from parley.engine.systems.mw.nlu import NluResult
from parley.engine.systems.mw.search import search_for
from parley.engine.systems.mw.transport import act as _act
from parley.engine.systems.mw.venue import ASK_ORDER, REQ_FIELDS, SHOW  # noqa: F401 - re-exported
from parley.engine.types import DialogueAct
from parley.jsontypes import JSONObject, as_json_object


@dataclass(frozen=True)
class Decision:
    """What the system decided to say this turn, before wording (see ``realise``)."""

    acts: tuple[DialogueAct, ...]
    state: dict[str, dict[str, str]]
    requested: dict[str, list[str]] = field(default_factory=dict)
    db_count: dict[str, int] = field(default_factory=dict)
    offered: dict[str, str] = field(default_factory=dict)
    venue: Row | None = None
    active_domain: str | None = None

    def to_json(self) -> JSONObject:
        return as_json_object({"acts": self.acts, "state": self.state, "requested": self.requested,
                               "db_count": self.db_count, "offered": self.offered,
                               "venue": self.venue or None, "active_domain": self.active_domain},
                              other="text")


def venue_value(row: Row, slot: str) -> str:
    """A venue's value of a checkable slot, lower-case ("" when the DB does not say)."""
    have = str(row.get(slot, "no" if slot in ("parking", "internet") else "") or "").lower()
    return "" if have == "?" else have


def _h(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


def reference(seed: int, domain: str, venue: str, n: int) -> str:
    """A booking reference: 8 upper-case letters/digits, a function of (seed, domain, venue, booking
    number)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    x = _h("ref", seed, domain, venue.lower(), n)
    return "".join(alphabet[(x >> (5 * i)) & 31] for i in range(8))


def taxi_booking(seed: int, state: dict[str, str], db: MultiwozDB, n: int) -> tuple[str, str]:
    """(car, phone) for a taxi booking, a function of the seed and the trip."""
    x = _h("taxi", seed, state.get("departure"), state.get("destination"), n)
    colours = db.taxi.get("taxi_colors", ["black"])
    makes = db.taxi.get("taxi_types", ["toyota"])
    car = f"{colours[x % len(colours)]} {makes[(x // 7) % len(makes)]}"
    phone = "07" + str(x % 10**9).zfill(9)
    return car, phone


class Policy:
    """Stateless apart from the seed; everything about the dialogue lives in the :class:`Tracker`."""

    def __init__(self, db: MultiwozDB, seed: int) -> None:
        self.db = db
        self.search = search_for(db)
        self.seed = seed
        self.bookings = 0
        self.asked: set[tuple[str, str]] = set()
        self.seen: dict[str, list[str]] = {}
        self.taxi: dict[str, str] = {}
        self.filters: dict[str, dict[str, str]] = {}  # the tracker's, for the turn being decided
        self._fresh: dict[str, set[str]] = {}  # slots the user just gave: relaxed last
        # (domain, slot, value) proposed after no match
        self.pending_relax: tuple[str, str, str] | None = None
        # the proposal was a search for another venue ("shall I look for one ...?")
        self.pending_search = False

    def decide(self, tr: Tracker, nlu: NluResult) -> Decision:
        acts: list[DialogueAct] = []
        venue: Row | None = None
        counts: dict[str, int] = {}
        intents = set(nlu.intents)
        d = tr.active_domain
        self.filters = tr.filters
        pending, self.pending_relax = self.pending_relax, None
        # "yes" takes the proposal; "book it" takes it after no match, but means the venue on the table when
        # the
        # proposal was to look for another one
        takes = set() if self.pending_search and "book" in intents else {"affirm", "book"}
        self.pending_search = False
        # ... unless the user steers the search themselves in the same turn ("yes, still cheap", "yes, the
        # north please")
        steers = any(dom == d and not slot.startswith("book_") and slot != "name"
                     for dom, slot, _ in nlu.inform)
        if pending and not tr.passive and intents & takes and pending[0] == d and not steers \
                and (d, pending[1]) not in tr.changed:
            tr.constrain(d, pending[1], pending[2], self.db)  # "ok" to the alternative just proposed
        self._fresh = {}
        for dom, slot in tr.changed:
            self._fresh.setdefault(dom, set()).add(slot)
        sys_req: list[str] = []
        if "empty" in intents:
            acts.append(_act("request", "general", None, "repeat"))
        elif "stray_time" in intents:  # "no, I meant leaving after 5" with no train or taxi in the dialogue
            acts.append(_act("request", "general", None, "time_for"))
        elif "bye" in intents and not nlu.inform and not nlu.requests:
            acts.append(_act("bye", "general"))
        elif ("thanks" in intents or "negate" in intents) and not nlu.inform and not nlu.requests and not (
                intents & {"book", "reqalts", "affirm"}) and not (d in nlu.domains and d not in tr.state):
            # (not "thanks. also a taxi from the airport": a new domain asked for)
            acts += [_act("welcome", "general"), _act("reqmore", "general")]
        elif nlu.about is not None:  # a question about a record: answered from it, nothing searched or booked
            from parley.engine.systems.mw.asked import Asked
            from parley.engine.systems.mw.records import answer

            slots = tuple(s for dom, s in nlu.requests if dom == nlu.about[0])
            venue = answer(self, tr, Asked(nlu.about[0], nlu.about[1], slots), acts)
        elif d is None:
            if "greet" in intents:
                acts.append(_act("greet", "general"))
            acts.append(_act("request", "general", None, "domain"))
        else:
            handler = {"train": self._train, "taxi": self._taxi, "hospital": self._hospital,
                       "police": self._police}.get(d, self._venue)
            venue = handler(d, tr, nlu, acts, counts, sys_req)
        tr.sys_requested = tuple(sys_req)
        tr.last_offer_domain = d if any(a["act"] in ("offer", "book") for a in acts) or sys_req else None
        if any(a["act"] == "request" and a["slot"] == "book" for a in acts):
            tr.sys_requested = (*tr.sys_requested, "book")
        return Decision(acts=tuple(acts), state=tr.snapshot(), requested=copy.deepcopy(tr.requested),
                        db_count=counts, offered=dict(tr.offered), venue=dict(venue) if venue else None,
                        active_domain=d)

    # -- helpers ---------------------------------------------------------------------------------------------
    def _rng(self, tr: Tracker, domain: str) -> random.Random:
        return random.Random(_h("pick", self.seed, domain, tr.turns))

    def _pick(self, tr: Tracker, domain: str, rows: list[Row], avoid: bool) -> Row:
        seen = set(self.seen.get(domain, [])) if avoid else set()
        fresh = [r for r in rows if self.db.venue_id(domain, r) not in seen] or rows
        row = fresh[0]  # the first match in database order, as the corpus's wizards mostly did
        self.seen.setdefault(domain, []).append(self.db.venue_id(domain, row))
        return row

    def _answer(self, domain: str, row: Row | None, slots: list[str], acts: list[DialogueAct],
                tr: Tracker) -> None:
        for slot in slots:
            if slot == "reference":
                ref = tr.booked.get(domain)
                acts.append(_act("inform", domain, "reference", ref) if ref
                            else _act("nobook", domain, "reference"))
                continue
            if row is None:
                continue
            if slot == "takesbookings":  # "do they take reservations?": every bookable venue does
                acts.append(_act("inform", domain, slot, "yes" if BOOKABLE.get(domain)
                                 and row.get("takesbookings", "yes") != "no" else "no"))
                continue
            value = row.get(slot)
            if slot.startswith("price") and domain == "hotel":  # room prices: "how much is a double room?"
                price = row.get("price")
                prices = price if isinstance(price, dict) else {}
                kinds = [slot.split()[1]] if " " in slot else list(prices)
                for kind in kinds:
                    have = prices.get(kind)
                    acts.append(_act("inform", domain, f"price {kind}",
                                     f"{have} pounds" if have else "unknown"))
                if not kinds:
                    acts.append(_act("inform", domain, "pricerange", row.get("pricerange", "unknown")))
                continue
            if slot == "internet" or slot == "parking":
                value = row.get(slot, "no")
            if isinstance(value, dict):
                value = ", ".join(f"{k} {v}" for k, v in value.items())
            if value in (None, "", "?"):
                value = "unknown"
            acts.append(_act("inform", domain, slot, value))

    def _check(self, domain: str, row: Row, checks: list[tuple[str, str]],
               acts: list[DialogueAct]) -> list[tuple[str, str]]:
        """Yes/no answers about the venue (``affirm``/``negate`` acts carrying the venue's own value); returns
        the ``(slot, value)`` asked about that the venue does not have."""
        asked: dict[str, list[str]] = {}
        for slot, value in checks:
            asked.setdefault(slot, []).append(value)
        missed: list[tuple[str, str]] = []
        for slot, values in asked.items():
            have = venue_value(row, slot)
            if not have:
                acts.append(_act("inform", domain, slot, "unknown"))
                continue
            acts.append(_act("affirm" if have in values else "negate", domain, slot, have))
            if have not in values:
                missed.append((slot, values[0]))
        return missed

    def _book(self, domain: str, vid: str, tr: Tracker, acts: list[DialogueAct]) -> None:
        self.bookings += 1
        ref = reference(self.seed, domain, vid, self.bookings)
        tr.booked[domain] = ref
        tr.wants_booking[domain] = False
        details = {s: v for s, v in tr.state.get(domain, {}).items() if s.startswith("book_")}
        tr.bookings.append({"domain": domain, "key": vid, "reference": ref, **details})
        acts.append(_act("book", domain, "reference", ref))

    # -- venues: restaurant, hotel, attraction ---------------------------------------------------------------
    def _venue(self, d: str, tr: Tracker, nlu: NluResult, acts: list[DialogueAct], counts: dict[str, int],
               sys_req: list[str]) -> Row | None:
        from parley.engine.systems.mw.venue import venue_turn

        return venue_turn(self, d, tr, nlu, acts, counts, sys_req)

    # -- train, taxi, hospital, police -----------------------------------------------------------------------
    def _train(self, d: str, tr: Tracker, nlu: NluResult, acts: list[DialogueAct], counts: dict[str, int],
               sys_req: list[str]) -> Row | None:
        from parley.engine.systems.mw.transport import train_turn

        return train_turn(self, tr, nlu, acts, counts, sys_req)

    def _taxi(self, d: str, tr: Tracker, nlu: NluResult, acts: list[DialogueAct], counts: dict[str, int],
              sys_req: list[str]) -> Row | None:
        from parley.engine.systems.mw.transport import taxi_turn

        return taxi_turn(self, tr, nlu, acts, counts, sys_req)

    def _hospital(self, d: str, tr: Tracker, nlu: NluResult, acts: list[DialogueAct],
                  counts: dict[str, int], sys_req: list[str]) -> Row | None:
        dept = tr.state.get("hospital", {}).get("department")
        rows = self.search.query("hospital", {"department": dept} if dept else {})
        counts["hospital"] = len(rows)
        row = dict(rows[0]) if dept and rows else Row(HOSPITAL)
        rq = tr.requested.get("hospital") or ["address", "postcode", "phone"]
        acts.append(_act("inform", "hospital", "name", "addenbrookes hospital"))
        if dept and rows:
            acts.append(_act("inform", "hospital", "department", dept))
        self._answer("hospital", row, [s for s in rq if s not in ("name", "department")], acts, tr)
        return row

    def _police(self, d: str, tr: Tracker, nlu: NluResult, acts: list[DialogueAct], counts: dict[str, int],
                sys_req: list[str]) -> Row | None:
        rows = self.db.rows("police")
        counts["police"] = len(rows)
        row = dict(rows[0]) if rows else {}
        row.setdefault("postcode", "cb11jg")
        rq = tr.requested.get("police") or ["address", "postcode", "phone"]
        acts.append(_act("inform", "police", "name", row.get("name", "parkside police station")))
        self._answer("police", row, [s for s in rq if s != "name"], acts, tr)
        return row
