"""Snapping generated belief values onto the MultiWOZ database's values (``snap=true`` of the checkpoint
systems).

A small model often writes a value a letter or a word off the one the database knows ("the gonvile hotel",
"museum of archaeology and antropology", "moderatly"), or another venue than the one the user just named; the
DB query then finds nothing, or the wrong row, and the dialogue goes wrong. :func:`snap_state` looks at each
value written this turn (times, booking numbers and ``dontcare`` are left as written):

- when the user's turn names a DB value of that slot (:data:`SAID_SLOTS`: names, stations, food, area) and
  the written value is not in the user's words, the named value replaces it (the longest named; one already
  held by another slot of the domain — "from ely to cambridge" — is not taken);
- else a value that is not a DB value of its slot becomes the closest DB value
  (:func:`rapidfuzz.fuzz.ratio` ≥ :data:`CUTOFF`, ties broken by the DB order); with none that close it
  stays as it is.

Every replacement is reported so the system can count it in ``internals``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from parley.engine.mwdb import MultiwozDB

#: lowest similarity (0-100, rapidfuzz ``ratio`` on the lower-case values) for a value to be replaced
CUTOFF = 85.0
#: slots whose values are not a closed set of the DB (times, numbers of people, nights)
OPEN_SLOTS = frozenset({"leaveAt", "arriveBy", "book_time", "book_people", "book_stay"})
#: slots whose value the user usually says as the DB spells it
SAID_SLOTS = frozenset({"name", "departure", "destination", "food", "area"})
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def choices(db: MultiwozDB, domain: str, slot: str) -> list[str]:
    """The values ``slot`` of ``domain`` can take in the DB (empty when it is not a closed set)."""
    if slot in OPEN_SLOTS:
        return []
    if slot in ("book_day", "day"):
        return list(DAYS)
    if domain == "taxi" and slot in ("departure", "destination"):
        return db.places
    return db.values(domain, slot)


def snap_value(value: str, options: list[str]) -> str | None:
    """The DB value closest to ``value`` when it is not one itself and one is close enough, else None."""
    from rapidfuzz import fuzz, process

    if not options or value in options or value == "dontcare":
        return None
    best = process.extractOne(value, options, scorer=fuzz.ratio, score_cutoff=CUTOFF)
    return None if best is None else str(best[0])


def words(text: str) -> str:
    """Lower-case words of ``text`` joined by single spaces, padded with one space each side."""
    return f" {' '.join(re.findall(r'[a-z0-9]+', text.lower()))} "


def said_value(value: str, options: list[str], user: str, taken: set[str]) -> str | None:
    """The longest DB value of ``options`` the user's words name, when ``value`` is not in them itself."""
    if value == "dontcare" or words(value) in user:
        return None
    named = [o for o in options if o not in taken and words(o) in user]
    return max(named, key=len) if named else None


def snap_state(state: Mapping[str, Mapping[str, str]], previous: Mapping[str, Mapping[str, str]],
               db: MultiwozDB, user: str = "") -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """``(state, snapped)``: ``state`` with this turn's values (those that differ from ``previous``) snapped
    to DB values named in ``user`` (the user's turn) or close to them, and ``{"domain-slot": "written →
    snapped"}`` for each replacement."""
    out = {d: dict(s) for d, s in state.items()}
    snapped: dict[str, str] = {}
    said = words(user)
    for domain, slots in out.items():
        for slot, value in slots.items():
            if previous.get(domain, {}).get(slot) == value:
                continue
            options = choices(db, domain, slot)
            new = None
            if slot in SAID_SLOTS and user:
                new = said_value(value, options, said, {v for s, v in slots.items() if s != slot})
            new = new or snap_value(value, options)
            if new is not None:
                slots[slot] = new
                snapped[f"{domain}-{slot}"] = f"{value} → {new}"
    return out, snapped
