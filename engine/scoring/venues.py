"""The venue lookup of the MultiWOZ metrics, with the standard evaluator's (mwzeval's) matching semantics.

The metrics ask "which venues fit this state?" of the databases the way mwzeval's
``MultiWOZVenueDatabase.query`` does, not the way the ``multiwoz`` system searches (``engine.mwdb``, which
this module leaves alone):

- only restaurant, hotel, attraction and train have venues (other domains give none);
- a slot the domain's rows do not have is ignored, and so are don't-care values and DB cells holding ``?``;
- venue names (and restaurant food, train departure and destination) match fuzzily: fuzzywuzzy's
  ``partial_ratio`` (:func:`partial_ratio`, rebuilt on rapidfuzz) of the DB value and the state value ≥ 90, so
  ``ask`` finds ``ask restaurant``;
- spellings are normalised on both sides: type spellings (``swimming pool``, ``night club``, ``guest house``,
  ``multiple sports`` / the DB's ``mutliple sports``), ``&`` → ``and``, parking/internet ``free`` → ``yes``;
  a food or venue name that no DB value matches is replaced by the nearest DB spelling (rapidfuzz ``ratio``
  ≥ 85 / 88 over letters and digits: ``portugese``, ``christ college``), which mwzeval does with a
  hand-written list;
- ``arriveBy`` keeps trains arriving at or before, ``leaveAt`` trains leaving at or after the time, compared
  in minutes; a time that is not ``HH:MM`` counts as 00:00 (mwzeval's rule).

Known differences with mwzeval are listed in README.md (section "Scoring and robustness runs").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from parley.engine.mwdb import DONTCARE, MultiwozDB
from parley.text import alnum, fold

VENUE_DOMAINS: tuple[str, ...] = ("restaurant", "hotel", "attraction", "train")
FUZZY: dict[str, frozenset[str]] = {"restaurant": frozenset({"name", "food"}), "hotel": frozenset({"name"}),
                                    "attraction": frozenset({"name"}),
                                    "train": frozenset({"departure", "destination"})}
FUZZY_CUTOFF = 90
_TYPES = {"swimming pool": "swimmingpool", "mutliple sports": "multiple sports", "night club": "nightclub",
          "guest house": "guesthouse", "concert hall": "concerthall"}
_IGNORE = DONTCARE | {"not mentioned", "do not care", "do n't care", "don't care", "dont care", "none", ""}
_TIME = re.compile(r"^(\d{1,2}):(\d{2})")


def minutes(value: str) -> int:
    """``"09:15"`` → 555; anything not starting ``H:MM``/``HH:MM`` → 0."""
    m = _TIME.match(value.strip())
    return int(m.group(1)) * 60 + int(m.group(2)) if m else 0


def normalise(domain: str, slot: str, value: object, db: MultiwozDB | None = None) -> str:
    """One value (state, goal or DB cell) spelled the way the lookup compares it."""
    v = fold(str(value))
    if slot in ("name", "departure", "destination"):
        v = re.sub(r"\s*&\s*", " and ", v).replace(" '", "'")
    elif slot == "type":
        v = _TYPES.get(v, v)
    elif slot in ("parking", "internet"):
        v = "yes" if v == "free" else v
    if db is not None and slot in ("food", "name") and domain in ("restaurant", "hotel", "attraction"):
        v = _near(domain, slot, v, db)
    return v


_NEAR: dict[tuple[int, str, str, str], str] = {}


def _near(domain: str, slot: str, v: str, db: MultiwozDB) -> str:
    """A food or name that no DB value matches, replaced by the DB value spelled nearest (rapidfuzz ratio of
    the letters and digits ≥ 85 for food, ≥ 88 for names): ``portugese``, ``christ college``."""
    key = (id(db), domain, slot, v)
    if key not in _NEAR:
        from rapidfuzz import fuzz, process

        known = db.values(domain, slot)
        out = v
        fits = (lambda k: k == v) if slot == "food" else (lambda k: partial_ratio(k, v) >= FUZZY_CUTOFF)
        if v and not any(fits(k) for k in known):
            squashed = {alnum(k): k for k in known}
            best = process.extractOne(alnum(v), list(squashed), scorer=fuzz.ratio,
                                      score_cutoff=85 if slot == "food" else 88)
            out = squashed[best[0]] if best else v
        _NEAR[key] = out
    return _NEAR[key]


def partial_ratio(a: str, b: str) -> int:
    """fuzzywuzzy's ``partial_ratio`` (the one mwzeval calls, backed by python-Levenshtein), on rapidfuzz.

    The shorter string is compared with windows of the longer one placed by the Levenshtein matching blocks,
    not with the best window (rapidfuzz's own ``partial_ratio`` finds the best: ``bridge guest house`` in
    ``aylesbray lodge guest house`` scores 91 there and 83 here); the result is rounded to an integer.
    """
    from rapidfuzz import fuzz
    from rapidfuzz.distance import Levenshtein

    if a == b:
        return 100
    if not a or not b:
        return 0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    best = 0.0
    for block in Levenshtein.editops(short, long_).as_matching_blocks():
        start = max(block.b - block.a, 0)
        r = fuzz.ratio(short, long_[start:start + len(short)]) / 100
        if r > 0.995:
            return 100
        best = max(best, r)
    return int(round(100 * best))


def _fits(domain: str, slot: str, have: object, want: str) -> bool:
    cell = normalise(domain, slot, have)
    if cell == "?":
        return True
    if slot == "arriveBy":
        return minutes(cell) <= minutes(want)
    if slot == "leaveAt":
        return minutes(cell) >= minutes(want)
    if slot in FUZZY.get(domain, ()):
        return partial_ratio(cell, want) >= FUZZY_CUTOFF
    return cell == want


def query(domain: str, constraints: Mapping[str, object], db: MultiwozDB) -> list[str]:
    """Ids (names; train ids) of the venues of ``domain`` that fit ``constraints`` (parley slot names)."""
    if domain not in VENUE_DOMAINS:
        return []
    rows = db.rows(domain)
    columns = set(rows[0]) if rows else set()
    wanted = []
    for slot, value in constraints.items():
        if slot not in columns or value is None or str(value).strip().lower() in _IGNORE:
            continue
        wanted.append((slot, normalise(domain, slot, value, db)))
    return [MultiwozDB.venue_id(domain, row) for row in rows
            if all(_fits(domain, slot, row.get(slot), want) for slot, want in wanted)]
