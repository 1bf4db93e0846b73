"""DB lookup for a parsed belief state, and lexicalisation of delexicalised system responses.

End-to-end TOD models write responses with placeholders — ``[value_name]``, ``[value_phone]``,
``[value_reference]`` (UBAR/PPTOD), or ``[restaurant_name]``, ``[hotel_phone]`` (MultiWOZ 2.1 / SimpleTOD) —
that parley fills from the matching DB row of the active domain and from the belief state. A second
``[value_name]`` (or train id) in one response moves on to the next matching row.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from parley.engine.mwdb import DOMAINS, VENUE_DOMAINS, MultiwozDB
from parley.engine.types import BeliefState
from parley.jsontypes import JSONObject, JSONValue

if TYPE_CHECKING:
    from parley.engine.systems.hf_common import Format

PLACEHOLDER = re.compile(r"\[(?:value_)?([a-z]+(?:[_ ][a-z]+)*)\]", flags=re.I)  # AuGPT: [price range]
#: placeholder name → row/state attribute
ALIASES = {
    "ref": "reference", "reference": "reference", "id": "trainID", "trainid": "trainID", "train": "trainID",
    "leave": "leaveAt", "leaveat": "leaveAt", "arrive": "arriveBy", "arriveby": "arriveBy",
    "choice": "choice", "count": "choice", "car": "car", "people": "book_people", "stay": "book_stay",
    "entrance": "entrance fee", "fee": "entrance fee", "entrancefee": "entrance fee",
    "price_range": "pricerange", "post": "postcode", "addr": "address", "dest": "destination",
    "depart": "departure", "ticket": "price", "open": "openhours",
}
NAME_KEYS = frozenset({"name", "trainID"})
KEEP_ROWS = 5


@dataclass(frozen=True)
class DBResult:
    """What the DB said for the active domain this turn."""

    domain: str | None
    count: int
    rows: tuple[Mapping[str, JSONValue], ...] = ()

    def to_json(self) -> JSONObject:
        return {"domain": self.domain, "count": self.count,
                "venues": [str(r.get("name") or r.get("trainID") or r.get("department") or "")
                           for r in self.rows]}


@dataclass(frozen=True)
class Lexicalised:
    text: str
    filled: Mapping[str, str] = field(default_factory=dict)
    unfilled: tuple[str, ...] = ()  # placeholders neither the DB nor the state could fill …
    replaced: Mapping[str, str] = field(default_factory=dict)  # … and the words that stand in for them


def lookup(db: MultiwozDB, state: BeliefState, domain: str | None) -> DBResult:
    """Rows of ``domain`` matching its constraints in ``state`` (taxi: none; police: the one station)."""
    if not domain or domain not in DOMAINS:
        return DBResult(domain, 0)
    if domain == "taxi":
        return DBResult(domain, 1 if state.get("taxi") else 0)
    rows = db.query(domain, dict(state.get(domain, {})))
    return DBResult(domain, len(rows), tuple(rows[:KEEP_ROWS]))


def db_counts(fmt: Format, db: MultiwozDB, state: BeliefState, active: str | None,
              result: DBResult | None = None) -> list[tuple[str | None, int | None]]:
    """``(domain, match count)`` for the domains a format's DB segment reports on (``Format.db_domains``); the
    count is None for a domain without constraints or without a database (no query, UBAR's ``[db_nores]``)."""
    out: list[tuple[str | None, int | None]] = []
    for d in fmt.db_domains(state, active):
        if d not in VENUE_DOMAINS or d in ("hospital", "police") or not state.get(d):
            out.append((d, None))
        elif result is not None and result.domain == d:
            out.append((d, result.count))
        else:
            out.append((d, lookup(db, state, d).count))
    return out


def booking_reference(seed: int | None, turn: int, domain: str | None) -> str:
    """A stable made-up booking reference for one turn (8 upper-case letters/digits)."""
    digest = hashlib.sha256(f"{seed}|{turn}|{domain}".encode()).hexdigest()
    return digest[:8].upper()


def _taxi_value(db: MultiwozDB, key: str, seed: int | None, turn: int) -> str | None:
    h = int(hashlib.sha256(f"taxi|{seed}|{turn}".encode()).hexdigest(), 16)
    colors = db.taxi.get("taxi_colors") or ["black"]
    types = db.taxi.get("taxi_types") or ["toyota"]
    if key in ("car", "type"):
        return f"{colors[h % len(colors)]} {types[(h // 7) % len(types)]}"
    if key == "phone":
        return "07" + str(h % 10**9).zfill(9)
    return None


def _split(name: str) -> tuple[str | None, str]:
    low = name.lower()
    for d in DOMAINS:
        if low.startswith(d + "_"):
            return d, low[len(d) + 1:]
    return None, low


def _from_row(row: Mapping[str, JSONValue], key: str, domain: str | None) -> str | None:
    if key == "price" and domain == "attraction":
        key = "entrance fee"
    if key == "price" and domain in ("hotel", "restaurant"):
        key = "pricerange"
    value = row.get(key)
    if value is None:
        low = {k.lower(): v for k, v in row.items()}
        value = low.get(key.lower())
    if value is None or isinstance(value, dict | list) or str(value).strip() in ("", "?"):
        return None
    return str(value)


def lexicalise(text: str, db: MultiwozDB, domain: str | None, result: DBResult,
               state: BeliefState, seed: int | None = None, turn: int = 0) -> Lexicalised:
    """Fill every placeholder of ``text`` from ``result``'s rows, the belief state and made-up booking data.

    A placeholder that cannot be filled is never shown: it is listed in ``unfilled`` and replaced by a phrase
    that gives nothing away (:func:`stand_in`: ``[value_count]`` → ``several``, ``[train_id]`` → ``a train``,
    ``[restaurant_phone]`` → ``not available``), recorded in ``replaced``; stray brackets are dropped. A
    stand-in the model repeats (``[value_area] , [value_area]``) is shown once.
    """
    rows = list(result.rows)
    row_i = 0
    last_stand_in = (-1, "")  # where the last stand-in's placeholder ended, and what stood in
    used_names: set[str] = set()
    filled: dict[str, str] = {}
    unfilled: list[str] = []

    def fill(m: re.Match[str]) -> str:
        nonlocal row_i, last_stand_in
        ph_domain, raw = _split(m.group(1))
        dom = ph_domain or domain
        squashed = raw.replace(" ", "")
        key = ALIASES.get(squashed) or ALIASES.get(raw) or squashed
        value: str | None = None
        if key in NAME_KEYS and rows:
            if key in used_names and row_i + 1 < len(rows):
                row_i += 1
            used_names.add(key)
        if key == "choice":
            value = str(result.count) if result.count else None
        elif key == "reference":
            value = booking_reference(seed, turn, dom)
        elif dom == "taxi" and key in ("car", "type", "phone"):
            value = _taxi_value(db, key, seed, turn)
        else:
            row = rows[row_i] if rows and (ph_domain in (None, result.domain)) else None
            if row is None and ph_domain and ph_domain != result.domain and state.get(ph_domain):
                found = db.query(ph_domain, dict(state[ph_domain])) if ph_domain != "taxi" else []
                row = found[0] if found else None
            if row is not None:
                value = _from_row(row, key, dom)
            if value is None:
                slots = state.get(dom or "", {})
                said = slots.get(key) or slots.get(f"book_{key}") or slots.get(key.replace("book_", ""))
                value = None if said in (None, "", "dontcare") else str(said)
        if value is None and key == "choice" and result.domain and result.count == 0:
            value = "no"
        if value is None:
            unfilled.append(m.group(0))
            value = replaced.setdefault(m.group(0), stand_in(key, dom))
            end, before = last_stand_in
            last_stand_in = (m.end(), value)
            if value == before and _GAP.fullmatch(text, end, m.start()):
                return ""  # "[value_area] , [value_area]" reads "the area you asked for" once
            if _ARTICLE_BEFORE.search(text, 0, m.start()) and value.startswith(("a ", "an ", "the ")):
                value = value.split(" ", 1)[1]  # "the [train_id]" → "the train", not "the a train"
            return value
        filled.setdefault(m.group(0), value)
        return value

    replaced: dict[str, str] = {}
    out = PLACEHOLDER.sub(fill, text)
    if "[" in out or "]" in out:  # a bracket the model opened and never closed, or closed twice
        out = re.sub(r"\[[^\[\]]*\]?|\]", lambda m: replaced.setdefault(m.group(0), ""), out)
    out = re.sub(r"\s+([,.!?;:])", r"\1", out)
    out = re.sub(r"[,;]+([,.!?;:])", r"\1", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    return Lexicalised(out, filled, tuple(unfilled), replaced)


_ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an)\s*$", re.IGNORECASE)
_GAP = re.compile(r"[\s,]*")  # what may sit between two placeholders for one stand-in to cover both
#: what stands in for a placeholder nothing can fill (a phrase that reads right where the value would)
STAND_INS = {
    "choice": "several", "name": "one", "trainID": "a train", "phone": "not available",
    "address": "not available", "postcode": "not available", "entrance fee": "not available",
    "price": "not available", "openhours": "not available", "leaveAt": "the time you asked for",
    "arriveBy": "the time you asked for", "time": "the time you asked for", "duration": "a while",
    "day": "that day", "book_people": "your party", "book_stay": "your stay", "stars": "several",
    "area": "the area you asked for", "food": "suitable", "pricerange": "suitable", "type": "places",
    "destination": "your destination", "departure": "your departure point",
}
_NOUNS = {"restaurant": "a restaurant", "hotel": "a hotel", "attraction": "an attraction", "train": "a train"}


def stand_in(key: str, domain: str | None) -> str:
    """The words shown instead of a placeholder that cannot be filled (see :data:`STAND_INS`)."""
    if key == "name":
        return _NOUNS.get(domain or "", "one")
    return STAND_INS.get(key, "")
