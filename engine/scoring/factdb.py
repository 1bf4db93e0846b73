"""The truth the fact audit (:mod:`engine.scoring.facts`) compares replies with: which MultiWOZ rows meet a
set of constraints, written here on its own rather than taken from the system under test.

- venues: every constraint must equal the row's value (case-blind); don't-care values are no constraint; a
  ``name`` picks that venue; hotel ``type`` is ``hotel`` or ``guesthouse``; an attraction's ``entrance fee``
  of ``free`` keeps the rows whose fee is ``free``;
- trains: ``leaveAt`` keeps trains leaving at or after the time, ``arriveBy`` trains arriving at or before it
  **on the same day** — a train that leaves before midnight and arrives after it (23:39 → 01:07) arrives the
  next day, so it meets no arrive-by time of its own day.
"""

from __future__ import annotations

from collections.abc import Mapping

from parley.engine.mwdb import MultiwozDB

IGNORED = frozenset({"", "dontcare", "don't care", "dont care", "any", "not mentioned", "none", "?"})
#: constraints a reply's count can be about, per domain (booking details are not search constraints)
SEARCHED = {"restaurant": ("food", "pricerange", "area", "name"),
            "hotel": ("name", "area", "parking", "pricerange", "stars", "internet", "type"),
            "attraction": ("type", "name", "area", "entrance fee"),
            "train": ("departure", "destination", "day", "leaveAt", "arriveBy")}


def hhmm(value: str) -> str:
    """``"5:15"`` → ``"05:15"`` (other text unchanged)."""
    h, sep, m = value.strip().partition(":")
    return f"{int(h):02d}:{m[:2]}" if sep and h.isdigit() and m[:2].isdigit() else value.strip()


def overnight(row: Mapping[str, object]) -> bool:
    """A train that arrives after midnight, the day after it left."""
    return hhmm(str(row.get("arriveBy", ""))) < hhmm(str(row.get("leaveAt", "")))


def meets(domain: str, row: Mapping[str, object], slot: str, value: str) -> bool:
    """Whether ``row`` meets one constraint."""
    v = value.strip().lower()
    if v in IGNORED:
        return True
    if domain == "train" and slot == "leaveAt":
        return hhmm(str(row.get("leaveAt", ""))) >= hhmm(v)
    if domain == "train" and slot == "arriveBy":
        return not overnight(row) and hhmm(str(row.get("arriveBy", ""))) <= hhmm(v)
    if slot == "entrance fee":
        return str(row.get("entrance fee", "")).lower() == v
    if slot in ("parking", "internet"):
        return str(row.get(slot, "no")).lower() == v
    cell = row.get(slot)
    return cell is not None and str(cell).strip().lower() == v


def matching(db: MultiwozDB, domain: str, constraints: Mapping[str, str]) -> list[Mapping[str, object]]:
    """The rows of ``domain`` meeting every searchable constraint (others, e.g. ``book_*``, ignored)."""
    cons = {s: str(v) for s, v in constraints.items() if s in SEARCHED.get(domain, ())}
    return [r for r in db.rows(domain) if all(meets(domain, r, s, v) for s, v in cons.items())]


def trains_by_id(db: MultiwozDB, train_id: str) -> list[Mapping[str, object]]:
    """Every row with this id (ids are not unique in the database: some run on two days or routes)."""
    key = train_id.upper()
    return [r for r in db.rows("train") if str(r.get("trainID", "")).upper() == key]
