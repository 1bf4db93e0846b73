"""Another value of the same slot, drawn from the MultiWOZ databases (disfluency repairs, wp slot swaps)."""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from parley.engine.types import Span

if TYPE_CHECKING:
    from parley.engine.mwdb import MultiwozDB

_NUM_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@lru_cache(maxsize=4)
def _pools(db_key: int) -> dict[tuple[str | None, str], tuple[str, ...]]:
    from parley.engine.mwdb import load_db

    db = load_db()
    pools: dict[tuple[str | None, str], set[str]] = {}
    for domain, slot, value in db.all_values():
        if slot in ("parking", "internet") or not value or value.isdigit():
            continue
        pools.setdefault((domain, slot), set()).add(value)
        pools.setdefault((None, slot), set()).add(value)
    stations = pools.get((None, "departure"), set()) | pools.get((None, "destination"), set())
    for slot in ("departure", "destination"):
        pools[(None, slot)] = stations
    return {k: tuple(sorted(v)) for k, v in pools.items()}


def _match_case(template: str, value: str) -> str:
    if template.isupper() and len(template) > 1:
        return value.upper()
    if template[:1].isupper():
        return " ".join(w[:1].upper() + w[1:] for w in value.split(" "))
    return value


def _other_time(value: str, rng: random.Random) -> str:
    m = re.match(r"^(\d{1,2})([:.])(\d{2})(.*)$", value)
    if m:
        h = int(m.group(1))
        minute = int(m.group(3))
        for _ in range(10):
            nh = ((h + rng.choice((-3, -2, -1, 1, 2, 3))) % 24 if "m" not in m.group(4).lower()
                  else rng.randint(1, 12))
            nm = rng.choice((0, 15, 30, 45, minute))
            if (nh, nm) != (h, minute):
                break
        width = len(m.group(1))
        return f"{nh:0{width}d}{m.group(2)}{nm:02d}{m.group(4)}"
    m = re.match(r"^(\d{1,2})(\s?[ap]\.?m\.?)$", value, re.IGNORECASE)
    if m:
        h = int(m.group(1))
        return f"{(h + rng.choice((1, 2, -1))) % 12 or 12}{m.group(2)}"
    return value


def _other_count(value: str, rng: random.Random) -> str:
    low = value.lower()
    n = int(low) if low.isdigit() else (_NUM_WORDS.index(low) if low in _NUM_WORDS else 2)
    choices = [k for k in range(1, 9) if k != n]
    k = rng.choice(choices)
    return str(k) if low.isdigit() else _match_case(value, _NUM_WORDS[k])


def other_value(span: Span, rng: random.Random, db: MultiwozDB | None = None) -> str | None:
    """A plausible different value for ``span``'s slot (same case style), or None when there is none."""
    slot = span.slot
    value = span.value
    if slot in ("book_people", "book_stay", "stars"):
        return _other_count(value, rng)
    if slot in ("leaveAt", "arriveBy", "book_time") or re.match(
        r"^\d{1,2}([:.]\d{2})?\s?([ap]\.?m\.?)?$", value, re.I
    ):
        out = _other_time(value, rng)
        return out if out != value else None
    if slot in ("day", "book_day"):
        pool: tuple[str, ...] = _DAYS
    else:
        pools = _pools(id(db) if db is not None else 0)
        pool = pools.get((span.domain, slot)) or pools.get((None, slot)) or ()
    low = value.lower()
    cands = [v for v in pool if v != low and v.replace(" ", "") != low.replace(" ", "")]
    if not cands:
        return None
    return _match_case(value, rng.choice(cands))
