"""Answers from the dialogue's records: a question about a venue offered, named or booked, the train on the
table, the taxi booked or an earlier booking (read by :mod:`asked`) is answered from that record — its
database row and the booking made — and never becomes a new search or booking.

Bookings are kept by the tracker (``Tracker.bookings``), oldest first, each a dict with ``domain``, ``key``
(venue name, train id or the taxi's car), ``reference`` (taxis: the driver's number), and what was booked
(``book_people``, ``book_day``, ...; a taxi's trip).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from parley.engine.mwdb import BOOKABLE, Row
from parley.engine.systems.mw.asked import Asked
from parley.engine.systems.mw.dst import Tracker
from parley.engine.systems.mw.transport import act
from parley.engine.types import DialogueAct
from parley.jsontypes import JSONValue

if TYPE_CHECKING:
    from parley.engine.systems.mw.policy import Policy

TAXI_INFO = ("departure", "destination", "leaveAt", "arriveBy")


def booking_of(tr: Tracker, domain: str, key: str | None = None) -> dict[str, str] | None:
    """The latest booking of ``key`` (any in ``domain`` when None)."""
    return next((b for b in reversed(tr.bookings) if b["domain"] == domain
                 and (key is None or str(b["key"]).lower() == key.lower())), None)


def answer(pol: Policy, tr: Tracker, asked: Asked, acts: list[DialogueAct]) -> Row | None:
    """Inform acts answering ``asked`` from its record; returns the venue talked about (for the wording)."""
    d = asked.domain
    if d == "taxi":
        taxi = booking_of(tr, "taxi", asked.key)
        if taxi is None:
            acts.append(act("nobook", "taxi", "reference"))
            return None
        answer_taxi(taxi, asked.slots, acts)
        acts.append(act("reqmore", "general"))
        return None
    row = train_row(pol, tr, asked.key) if d == "train" else pol.db.find(d, asked.key)
    if row is None:
        return None
    venue = {**row, "name": row["trainID"]} if d == "train" else dict(row)
    for slot in asked.slots:
        if slot == "reference":
            b = booking_of(tr, d, asked.key)
            acts.append(act("inform", d, "reference", b["reference"]) if b else act("nobook", d, "reference"))
        elif slot == "takesbookings":
            acts.append(act("inform", d, "takesbookings", "yes" if BOOKABLE.get(d) and row.get(
                "takesbookings", "yes") != "no" else "no"))
        else:
            pol._answer(d, row, [slot], acts, tr)
    acts.append(act("reqmore", "general"))
    return venue


def answer_taxi(taxi: Mapping[str, JSONValue], slots: tuple[str, ...] | list[str],
                acts: list[DialogueAct]) -> None:
    """The booked taxi's car, driver's number and trip, as asked (the car and number when nothing is)."""
    want = [s for s in slots if s in ("car type", "phone", "reference", *TAXI_INFO)] or ["car type", "phone"]
    for s in dict.fromkeys("phone" if s == "reference" else s for s in want):
        value = taxi.get("car" if s == "car type" else s)
        other = {"leaveAt": "arriveBy", "arriveBy": "leaveAt"}.get(s)
        if not value and other and taxi.get(other):  # booked to arrive by a time: that is the time there is
            s, value = other, taxi[other]
        if value:
            acts.append(act("inform", "taxi", s, value))


def train_row(pol: Policy, tr: Tracker, train_id: str) -> Row | None:
    """The row of a train id that fits the dialogue (ids are not unique: some run on two days or routes)."""
    rows = [r for r in pol.db.rows("train") if str(r["trainID"]).lower() == train_id.lower()]
    want = {k: v for k, v in tr.state.get("train", {}).items() if k in ("day", "departure", "destination")}
    fit = [r for r in rows if all(str(r.get(k, "")).lower() == v for k, v in want.items() if v != "dontcare")]
    return (fit or rows)[0] if rows else None
