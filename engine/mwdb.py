"""The MultiWOZ venue databases: loading, normalisation and the standard query semantics.

Belief states everywhere in parley use the MultiWOZ 2.1 slot names: informable ``semi`` slots by their own
name (``food``, ``pricerange``, ``area``, ``name``, ``stars``, ``parking``, ``internet``, ``type``,
``department``, ``leaveAt``, ``arriveBy``, ``day``, ``departure``, ``destination``) and booking slots prefixed
``book_`` (``book_day``, ``book_people``, ``book_time``, ``book_stay``). Values are lower-case strings; times
are ``HH:MM``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TypeAlias

from parley.formats.multiwoz import normalise_time
from parley.jsontypes import JSONValue

__all__ = [
    "BOOKABLE",
    "DOMAINS",
    "DONTCARE",
    "HOSPITAL",
    "INFORMABLE",
    "VENUE_DOMAINS",
    "MultiwozDB",
    "Venue",
    "default_db_dir",
    "load_db",
    "normalise_time",
]

DOMAINS: tuple[str, ...] = ("restaurant", "hotel", "attraction", "train", "taxi", "hospital", "police")
#: domains whose rows can be offered by name / id
VENUE_DOMAINS: tuple[str, ...] = ("restaurant", "hotel", "attraction", "train", "hospital", "police")

INFORMABLE: dict[str, tuple[str, ...]] = {
    "restaurant": ("food", "pricerange", "name", "area"),
    "hotel": ("name", "area", "parking", "pricerange", "stars", "internet", "type"),
    "attraction": ("type", "name", "area"),
    "train": ("leaveAt", "destination", "day", "arriveBy", "departure"),
    "taxi": ("leaveAt", "destination", "departure", "arriveBy"),
    "hospital": ("department",),
    "police": (),
}
BOOKABLE: dict[str, tuple[str, ...]] = {
    "restaurant": ("book_time", "book_day", "book_people"),
    "hotel": ("book_stay", "book_day", "book_people"),
    "train": ("book_people",),
    "attraction": (),
    "taxi": (),
    "hospital": (),
    "police": (),
}
DONTCARE = frozenset({"dontcare", "don't care", "do n't care", "dont care", "any", "?"})
#: the hospital itself: its database lists departments only (name, address, postcode and the switchboard's
#: phone as the corpus's wizards gave them)
HOSPITAL: dict[str, str] = {"name": "addenbrookes hospital", "address": "Hills Rd, Cambridge",
                            "postcode": "cb20qq", "phone": "01223245151"}

#: A database row: the MultiWOZ JSON object of a venue, train or department (values normalised on load).
Row: TypeAlias = dict[str, JSONValue]


def text(row: Mapping[str, JSONValue], slot: str) -> str:
    """A row's value of ``slot`` as text ("" when the row has none): the values the policy compares and
    says (train times and ids, names) are strings in every database."""
    value = row.get(slot)
    return "" if value is None else str(value)


def default_db_dir() -> Path:
    from parley.assets import asset_path

    return asset_path("multiwoz", "db")


@dataclass(frozen=True)
class Venue:
    """A DB row as offered to a user: domain, its id (venue name or train id) and all attributes."""

    domain: str
    id: str
    row: Mapping[str, JSONValue]


class MultiwozDB:
    """Read-only access to the seven MultiWOZ databases (thread-safe once loaded)."""

    def __init__(self, db_dir: Path | None = None) -> None:
        self.db_dir = Path(db_dir) if db_dir else default_db_dir()
        self._tables: dict[str, list[Row]] = {}
        for domain in DOMAINS:
            path = self.db_dir / f"{domain}_db.json"
            rows = json.loads(path.read_text(encoding="utf-8"))
            if domain == "taxi":
                self.taxi = rows[0] if isinstance(rows, list) else rows
                self._tables[domain] = []
                continue
            self._tables[domain] = [self._normalise_row(domain, r) for r in rows]

    @staticmethod
    def _normalise_row(domain: str, row: Mapping[str, JSONValue]) -> Row:
        out: Row = {}
        for k, v in row.items():
            if isinstance(v, str):
                v = v.strip()
                if k in ("name", "area", "food", "pricerange", "type", "day", "departure", "destination",
                         "department", "parking", "internet"):
                    v = v.lower()
            out[k] = v
        if domain == "police":
            out.setdefault("name", str(out.get("name", "police station")).lower())
        if domain == "hospital":
            for k in ("name", "address", "postcode"):
                out.setdefault(k, HOSPITAL[k])
        if "stars" in out:
            out["stars"] = str(out["stars"])
        return out

    def rows(self, domain: str) -> list[Row]:
        return self._tables[domain]

    @staticmethod
    def venue_id(domain: str, row: Mapping[str, JSONValue]) -> str:
        if domain == "train":
            return str(row.get("trainID", ""))
        if domain == "hospital":
            return str(row.get("department", ""))
        return str(row.get("name", ""))

    def query(self, domain: str, constraints: Mapping[str, JSONValue]) -> list[Row]:
        """Rows of ``domain`` matching the informable constraints (MultiWOZ semantics).

        Unknown slots, empty values and don't-care values are ignored; ``leaveAt`` matches trains leaving at
        or after, ``arriveBy`` trains arriving at or before the given time on the day they leave (a train
        that arrives after midnight meets no arrive-by time); ``name`` matches exactly (case-blind).
        """
        if domain not in self._tables:
            return []
        conds: list[tuple[str, str]] = []
        for slot, value in constraints.items():
            if slot.startswith("book_") or value is None:
                continue
            v = str(value).strip().lower()
            if not v or v in DONTCARE or v == "not mentioned":
                continue
            if slot not in INFORMABLE.get(domain, ()):
                continue
            conds.append((slot, normalise_time(v) if slot in ("leaveAt", "arriveBy") else v))
        out = []
        for row in self._tables[domain]:
            if all(self._match(domain, row, s, v) for s, v in conds):
                out.append(row)
        return out

    @staticmethod
    def _match(domain: str, row: Mapping[str, JSONValue], slot: str, value: str) -> bool:
        if domain == "taxi":
            return True
        have = row.get(slot)
        if have is None:
            # e.g. attraction/hospital rows lack slots that the state may carry: not a constraint we can check
            return True
        have_s = str(have).lower()
        if slot == "leaveAt":
            return have_s >= value
        if slot == "arriveBy":  # a train arriving after midnight (23:39 → 01:07) arrives the next day
            return have_s <= value and have_s >= str(row.get("leaveAt", "")).lower()
        if slot == "type" and domain == "hotel":
            return have_s == value or (value == "hotel" and have_s == "hotel") or (
                value in ("guesthouse", "guest house") and have_s == "guesthouse")
        return have_s == value

    def find(self, domain: str, venue_id: str) -> Row | None:
        key = venue_id.strip().lower()
        for row in self._tables.get(domain, []):
            if self.venue_id(domain, row).lower() == key:
                return row
        return None

    def values(self, domain: str, slot: str) -> list[str]:
        """Distinct values of ``slot`` in ``domain`` (the ontology read off the DB), sorted."""
        seen = {
            str(r[slot]).lower() for r in self._tables.get(domain, []) if isinstance(r.get(slot), str | int)
        }
        return sorted(v for v in seen if v)

    @cached_property
    def places(self) -> list[str]:
        """Every place name a taxi or train may go to or from."""
        names: set[str] = set()
        for d in ("restaurant", "hotel", "attraction"):
            names.update(self.values(d, "name"))
        names.update(self.values("train", "departure"))
        names.update(self.values("train", "destination"))
        return sorted(names)

    def all_values(self) -> Iterable[tuple[str, str, str]]:
        """``(domain, slot, value)`` for every categorical or name value: the span detector's vocabulary."""
        for domain in DOMAINS:
            for slot in INFORMABLE[domain]:
                if slot in ("leaveAt", "arriveBy"):
                    continue
                for v in self.values(domain, slot):
                    yield domain, slot, v


_lock = threading.Lock()
_cache: dict[str, MultiwozDB] = {}


def load_db(db_dir: Path | str | None = None) -> MultiwozDB:
    """The shared, cached database for ``db_dir`` (the bundled one by default)."""
    key = str(db_dir or "")
    with _lock:
        if key not in _cache:
            _cache[key] = MultiwozDB(Path(db_dir) if db_dir else None)
        return _cache[key]
