"""Policy for the venue domains (restaurant, hotel, attraction): search, offer, answer, check, book, relax.

Split from :mod:`policy` to keep modules short; functions take the :class:`policy.Policy` as ``pol``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parley.engine.mwdb import BOOKABLE, Row
from parley.engine.systems.mw.dst import Tracker
from parley.engine.systems.mw.nlu import NluResult
from parley.engine.systems.mw.transport import act
from parley.engine.types import DialogueAct

if TYPE_CHECKING:
    from parley.engine.systems.mw.policy import Policy

ASK_ORDER = {"restaurant": ("food", "area", "pricerange"), "hotel": ("area", "pricerange", "type"),
             "attraction": ("type", "area")}
SHOW = {"restaurant": ("food", "area", "pricerange"), "hotel": ("type", "area", "pricerange", "stars"),
        "attraction": ("type", "area")}
REQ_FIELDS = {"phone", "address", "postcode", "area", "pricerange", "food", "stars", "trainID", "price",
              "duration", "leaveAt", "arriveBy", "entrance fee", "type", "internet", "parking", "name",
              "openhours", "department", "day", "departure", "destination", "price single", "price double",
              "price family", "takesbookings"}


def venue_turn(pol: Policy, d: str, tr: Tracker, nlu: NluResult, acts: list[DialogueAct],
               counts: dict[str, int], sys_req: list[str]) -> Row | None:
    """One turn about a restaurant, hotel or attraction."""
    cons = {s: v for s, v in tr.state.get(d, {}).items() if not s.startswith("book_")}
    rq = [s for s in tr.requested.get(d, []) if s in REQ_FIELDS or s in ("reference", "choice")]
    intents = set(nlu.intents)
    name = cons.get("name")
    if name and name != "dontcare":
        row = pol.db.find(d, name)
        rows = [row] if row else []
    else:
        rows = with_filters(pol.search.query(d, cons), tr.filters.get(d))
    counts[d] = len(rows)
    if "choice" in rq:  # "how many are there?"
        acts.append(act("inform", d, "choice", len(rows)))
        rq.remove("choice")
    venue = None
    if tr.offered.get(d):
        venue = pol.db.find(d, tr.offered[d])
    if "reqalts" in intents and rows:
        venue = pol._pick(tr, d, rows, avoid=True)
        tr.offered[d] = pol.db.venue_id(d, venue)
        acts.append(act("offer", d, "name", tr.offered[d]))
        show(d, venue, acts)
        acts.append(act("request", d, "book") if BOOKABLE.get(d) else act("reqmore", d))
        return venue
    checks = tr.checks.get(d, [])
    if checks and venue is not None:
        missed = pol._check(d, venue, checks, acts)
        if missed:  # "No, it's in the north. Shall I look for one in the centre?"
            pol.pending_relax, pol.pending_search = (d, *missed[0]), True
            acts.append(act("reqalt", d, *missed[0]))
            pol._answer(d, venue, rq, acts, tr)
            return venue
        if not rq and not tr.wants_booking.get(d):
            acts.append(act("request", d, "book") if BOOKABLE.get(d) and not tr.booked.get(d)
                        else act("reqmore", "general"))
            return venue
    booking = bool(tr.wants_booking.get(d) and BOOKABLE.get(d))
    if rq and not booking:
        if venue is None and rows:
            venue = pol._pick(tr, d, rows, avoid=False)
            tr.offered[d] = pol.db.venue_id(d, venue)
            acts.append(act("offer", d, "name", tr.offered[d]))
        if venue is None:
            no_match(pol, d, cons, acts, sys_req)
        else:
            pol._answer(d, venue, rq, acts, tr)
        return venue
    if booking:
        return book_turn(pol, d, tr, rows, venue, cons, [s for s in rq if s != "reference"], acts, sys_req)
    if not rows:
        no_match(pol, d, cons, acts, sys_req)
        tr.offered.pop(d, None)
        return None
    if venue is not None and not (tr.changed & {(d, s) for s in [*cons, *tr.filters.get(d, {})]}) \
            and "recommend" not in intents:
        if "affirm" in intents and BOOKABLE.get(d):
            acts.append(act("request", d, "book"))
            return venue
        if "affirm" in intents:  # "yes" to "shall I give you the address and phone number?"
            pol._answer(d, venue, ["address", "phone", "entrance fee"], acts, tr)
        acts.append(act("reqmore", "general"))
        return venue
    given = [s for s in ASK_ORDER.get(d, ()) if cons.get(s)]
    missing = [s for s in ASK_ORDER.get(d, ()) if not cons.get(s) and (d, s) not in pol.asked]
    if len(rows) > 5 and len(given) < 2 and missing and "recommend" not in intents and not name:
        acts.append(act("inform", d, "choice", len(rows)))
        acts.append(act("request", d, missing[0]))
        pol.asked.add((d, missing[0]))
        sys_req.extend((missing[0], "pref"))
        return None
    venue = pol._pick(tr, d, rows, avoid=False)
    tr.offered[d] = pol.db.venue_id(d, venue)
    if len(rows) > 1:
        acts.append(act("inform", d, "choice", len(rows)))
    acts.append(act("offer", d, "name", tr.offered[d]))
    show(d, venue, acts)
    if BOOKABLE.get(d):
        acts.append(act("request", d, "book"))
    else:
        acts.append(act("reqmore", d))  # "would you like the address or the entrance fee?"
    return venue

def with_filters(rows: list[Row], filters: dict[str, str] | None) -> list[Row]:
    """The rows that also meet the constraints the belief state has no slot for (a free entrance)."""
    if not filters:
        return rows
    return [r for r in rows if all(str(r.get(s, "")).lower() == v for s, v in filters.items())]


def show(d: str, venue: Row, acts: list[DialogueAct]) -> None:
    for s in SHOW.get(d, ()):
        if venue.get(s) not in (None, "", "?"):
            acts.append(act("inform", d, s, venue[s]))

def no_match(pol: Policy, d: str, cons: dict[str, str], acts: list[DialogueAct],
             sys_req: list[str]) -> None:
    acts.append(act("nooffer", d))
    for s, v in {**cons, **pol.filters.get(d, {})}.items():
        if v != "dontcare":
            acts.append(act("inform", d, s, v))
    relax(pol, d, cons, acts, sys_req)

def relax(pol: Policy, d: str, cons: dict[str, str], acts: list[DialogueAct], sys_req: list[str]) -> None:
    """Find one constraint whose removal gives matches and offer that as an alternative."""
    order = ("area", "pricerange", "stars", "internet", "parking", "type", "food", "name")
    fresh = pol._fresh.get(d, set())
    for s in sorted(cons, key=lambda s: (s in fresh, order.index(s) if s in order else 9)):
        if cons[s] == "dontcare":
            continue
        rest = {k: v for k, v in cons.items() if k != s}
        rows = with_filters(pol.search.query(d, rest), pol.filters.get(d))
        if rows:
            allv = sorted({str(r.get(s)) for r in rows if r.get(s)})
            vals = allv[:3]
            pol.pending_relax = (d, s, allv[0] if len(allv) == 1 else "dontcare")
            acts.append(act("select", d, s, ", ".join(vals) if s != "name" and vals else None))
            acts.append(act("inform", d, "choice", len(rows)))
            sys_req.append(s)
            return
    acts.append(act("request", d, "constraints"))


def book_turn(pol: Policy, d: str, tr: Tracker, rows: list[Row], venue: Row | None,
              cons: dict[str, str], rq: list[str], acts: list[DialogueAct], sys_req: list[str],
              ) -> Row | None:
    """The user wants a booking: offer a venue if none is on the table, ask for what is missing, or book;
    other questions of the same turn ("... and what's the address?") are answered too."""
    if venue is None:
        if not rows:
            no_match(pol, d, cons, acts, sys_req)
            tr.offered.pop(d, None)
            return None
        venue = pol._pick(tr, d, rows, avoid=False)
        tr.offered[d] = pol.db.venue_id(d, venue)
        acts.append(act("offer", d, "name", tr.offered[d]))
    book = tr.state.get(d, {})
    missing = [s for s in BOOKABLE[d] if not book.get(s) or book.get(s) == "dontcare"]
    pol._answer(d, venue, rq, acts, tr)
    if missing:
        for s in missing:
            acts.append(act("request", d, s))
        sys_req.extend(missing)
        return venue
    pol._book(d, tr.offered[d], tr, acts)
    for s in BOOKABLE[d]:
        acts.append(act("inform", d, s, book[s]))
    return venue
