"""Scoring a belief tracker against MultiWOZ gold states: joint goal accuracy (JGA) and slot
precision/recall/F1.

Gold states come from the corpus's system-turn metadata ``{domain: {"book": {...}, "semi": {...}}}``;
:func:`gold_state` maps them to parley's naming (semi slots by name, book slots as ``book_*``; empty, "not
mentioned" and "none" values dropped). Both sides go through :func:`normalise_value` (don't-care spellings,
``HH:MM`` times, ``centre``/``center``, hotel and attraction type spellings, leading "the" of names, and —
when a database is given — names mapped to their DB spelling), so a tracker is not punished for spelling.

>>> s = DstScores()
>>> s.add({"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}})
>>> (s.jga, round(s.f1, 2))
(0.0, 0.67)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from parley.engine.mwdb import MultiwozDB
from parley.formats.multiwoz import flatten_state, read_dialogues
from parley.jsontypes import JSONObject
from parley.text import fold

EMPTY = frozenset({"", "not mentioned", "none", "not given"})
DONTCARE = frozenset({"dontcare", "don't care", "do n't care", "dont care", "doesn't care", "any", "?"})
_TYPE = {"swimming pool": "swimmingpool", "swimming": "swimmingpool", "pool": "swimmingpool",
         "night club": "nightclub", "concert hall": "concerthall", "multiple sports": "mutliple sports",
         "guest house": "guesthouse", "guesthouses": "guesthouse", "hotels": "hotel", "museums": "museum",
         "colleges": "college", "churches": "architecture", "church": "architecture", "gallery": "museum"}
_AREA = {"center": "centre", "central": "centre", "city centre": "centre", "town centre": "centre"}
_NAMEISH = ("name", "departure", "destination")


def _time(v: str) -> str:
    m = re.fullmatch(r"(\d{1,2})[:.](\d{2})", v)
    if m:
        return f"{int(m.group(1)):02d}:{m.group(2)}"
    m = re.fullmatch(r"(\d{1,2})(\d{2})", v)
    if m and int(m.group(1)) < 25:
        return f"{int(m.group(1)):02d}:{m.group(2)}"
    return v


#: maps a name-like value to its database spelling (:func:`name_mapper`)
Names = Callable[[str], str]


class _Names:
    """Maps name-like values to DB spellings with rapidfuzz (cached)."""

    def __init__(self, db: MultiwozDB | None) -> None:
        self.choices: list[str] = []
        if db is not None:
            self.choices = list(dict.fromkeys(
                [*db.values("restaurant", "name"), *db.values("hotel", "name"),
                 *db.values("attraction", "name"), *db.places]))
        self.cache: dict[str, str] = {}

    def __call__(self, v: str) -> str:
        if not self.choices:
            return v
        if v not in self.cache:
            from rapidfuzz import fuzz, process

            key = v.removeprefix("the ")
            best = process.extractOne(key, [c.removeprefix("the ") for c in self.choices], scorer=fuzz.ratio,
                                      score_cutoff=85)
            self.cache[v] = self.choices[best[2]] if best else v
        return self.cache[v]


def normalise_value(domain: str, slot: str, value: object, names: Names | None = None) -> str | None:
    """A comparable form of one slot value, or None when the value means "no value"."""
    v = fold(str(value))
    if v in EMPTY:
        return None
    if v in DONTCARE:
        return "dontcare"
    v = v.replace(" 's", "s").replace("'s", "s").replace("'", "")
    if v in ("do nt care", "dont care"):
        return "dontcare"
    if slot in ("leaveAt", "arriveBy", "book_time"):
        return _time(v)
    if slot == "area":
        return _AREA.get(v, v)
    if slot == "type":
        return _TYPE.get(v, v)
    if slot in ("parking", "internet"):
        return {"free": "yes", "y": "yes", "n": "no"}.get(v, v)
    if slot in ("book_people", "book_stay", "stars"):
        return v.split()[0] if v.split() and v.split()[0].isdigit() else v
    if slot == "food" and v == "portugese":
        return "portuguese"
    if slot in _NAMEISH:
        if names is not None:
            v = names(v)
        v = v.removeprefix("the ")
        v = v.replace("guest house", "guesthouse").replace(" & ", " and ")
        v = re.sub(r" (train|railway)? ?station$", "", v) if slot != "name" else v
    return v


def gold_state(metadata: Mapping[str, object], names: Names | None = None) -> dict[str, dict[str, str]]:
    """parley-named, normalised state from a MultiWOZ system turn's ``metadata`` (the one flattener of
    ``parley.formats.multiwoz``, then :func:`normalise_state`)."""
    return normalise_state(flatten_state(metadata), names)


def normalise_state(state: Mapping[str, Mapping[str, object]], names: Names | None = None
                    ) -> dict[str, dict[str, str]]:
    """The same normalisation applied to a predicted state."""
    out: dict[str, dict[str, str]] = {}
    for domain, slots in state.items():
        norm = {}
        for slot, value in slots.items():
            nv = normalise_value(domain, slot, value, names)
            if nv is not None:
                norm[slot] = nv
        if norm:
            out[domain] = norm
    return out


def _triples(state: Mapping[str, Mapping[str, str]]) -> set[tuple[str, str, str]]:
    return {(d, s, v) for d, slots in state.items() for s, v in slots.items()}


@dataclass
class DstScores:
    """Running JGA and slot precision/recall/F1 over turns (``add`` takes already-normalised states)."""

    turns: int = 0
    joint: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    errors: dict[str, int] = field(default_factory=dict)  # "domain-slot" → wrong/missing/extra count

    def add(self, pred: Mapping[str, Mapping[str, str]], gold: Mapping[str, Mapping[str, str]]) -> bool:
        p, g = _triples(pred), _triples(gold)
        self.turns += 1
        ok = p == g
        self.joint += ok
        self.tp += len(p & g)
        self.fp += len(p - g)
        self.fn += len(g - p)
        for d, s, _ in p ^ g:
            self.errors[f"{d}-{s}"] = self.errors.get(f"{d}-{s}", 0) + 1
        return ok

    @property
    def jga(self) -> float:
        return self.joint / self.turns if self.turns else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_json(self) -> JSONObject:
        return {"turns": self.turns, "jga": self.jga, "slot_precision": self.precision,
                "slot_recall": self.recall, "slot_f1": self.f1}


def load_multiwoz(path: Path | str) -> JSONObject:
    """The ConvLab-3 ``test.json.zip`` (or a plain ``.json``) as ``{dialogue id: dialogue}``."""
    return read_dialogues(path)


def iter_turns(dialogue: Mapping[str, object]) -> Iterator[tuple[int, str, str | None, Mapping[str, object]]]:
    """``(turn index, user text, previous system text, gold metadata)`` for each user turn of a dialogue."""
    raw = dialogue["log"]
    log = [t if isinstance(t, Mapping) else {} for t in raw] if isinstance(raw, list) else []
    for i in range(0, len(log) - 1, 2):
        prev = str(log[i - 1]["text"]) if i > 0 else None
        meta = log[i + 1].get("metadata")
        yield i, str(log[i]["text"]), prev, meta if isinstance(meta, Mapping) else {}


def evaluate(tracker_fn: Callable[[str, tuple[tuple[str, str], ...]], Mapping[str, Mapping[str, object]]],
             dialogues: Mapping[str, Mapping[str, object]], db: MultiwozDB | None = None) -> DstScores:
    """Score ``tracker_fn(dialogue_id, history_tuple_of_(role, text)) -> state`` over ``dialogues``."""
    names = _Names(db)
    scores = DstScores()
    for did, dia in dialogues.items():
        history: list[tuple[str, str]] = []
        for _, user, prev, meta in iter_turns(dia):
            if prev is not None:
                history.append(("system", prev))
            history.append(("user", user))
            pred = tracker_fn(did, tuple(history))
            scores.add(normalise_state(pred, names), gold_state(meta, names))
    return scores


def name_mapper(db: MultiwozDB | None) -> Names:
    """The DB-spelling mapper :func:`normalise_value` accepts as ``names``."""
    return _Names(db)
