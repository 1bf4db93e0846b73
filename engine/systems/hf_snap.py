"""Snapping generated belief values onto the MultiWOZ database's values (``snap=true`` of the checkpoint
systems).

A small model often writes a value a letter or a word off the one the database knows ("the gonvile hotel",
"museum of archaeology and antropology", "moderatly"); the DB query then finds nothing and the dialogue goes
wrong although the model meant the right thing. :func:`snap_state` replaces each value written this turn that
is not a DB value of its slot by the closest DB value (:func:`rapidfuzz.fuzz.ratio` ≥ :data:`CUTOFF`, ties
broken by the DB order), and reports every replacement so the system can count it in ``internals``. Values
already in the DB, ``dontcare``, times and booking numbers are left as written; nothing is invented: a value
with no close DB value stays as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

from parley.engine.mwdb import MultiwozDB

#: lowest similarity (0-100, rapidfuzz ``ratio`` on the lower-case values) for a value to be replaced
CUTOFF = 85.0
#: slots whose values are not a closed set of the DB (times, numbers of people, nights)
OPEN_SLOTS = frozenset({"leaveAt", "arriveBy", "book_time", "book_people", "book_stay"})
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


def snap_state(state: Mapping[str, Mapping[str, str]], previous: Mapping[str, Mapping[str, str]],
               db: MultiwozDB) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """``(state, snapped)``: ``state`` with this turn's values (those that differ from ``previous``) snapped
    to DB values, and ``{"domain-slot": "written → snapped"}`` for each replacement."""
    out = {d: dict(s) for d, s in state.items()}
    snapped: dict[str, str] = {}
    for domain, slots in out.items():
        for slot, value in slots.items():
            if previous.get(domain, {}).get(slot) == value:
                continue
            new = snap_value(value, choices(db, domain, slot))
            if new is not None:
                slots[slot] = new
                snapped[f"{domain}-{slot}"] = f"{value} → {new}"
    return out, snapped
