"""Annotation studies: a coordinator assigns dialogues to raters, and sees how far each rater is.

:func:`assign` gives every selected dialogue ``per_dialogue`` raters. It balances over *strata* (system and
condition): each rater gets as many dialogues of each stratum as any other (±1) and as many in all (±1), and
where it can, never two versions of the same source dialogue (the same corpus dialogue replayed under two
conditions; in a paired design, every dialogue under every condition, with at least as many raters as
conditions, this always holds in the tests). Each rater's new dialogues come in a seeded random order, so
conditions do not come in blocks; raters of an assigned list rate blind (``parley rate`` hides systems,
sources and conditions).

Assigning again adds only what is missing: a dialogue that already has its raters is left alone, and earlier
assignments count toward the balance. Nothing is ever reassigned or removed.

:func:`rater_progress` counts, per rater, the dialogues assigned, rated, skipped (with reasons) and in
progress, over one database or several (each rater's copy: a dialogue counts as done when it is done in any).
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from parley.store.db import Store, StoreError
from parley.store.records import Rater, now, to_row
from parley.store.selection import EVERYTHING, Candidate, Selection, select


class AssignError(StoreError):
    """An assignment that cannot be made (no raters, more raters per dialogue than raters, ...)."""


@dataclass(frozen=True)
class AssignReport:
    """What :func:`assign` added: per rater, the number of new dialogues per stratum."""

    added: dict[str, dict[str, int]]
    selected: int
    already: int  # selected dialogues that had their raters already

    @property
    def total(self) -> int:
        return sum(sum(v.values()) for v in self.added.values())


def _raters(names: Sequence[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        n = n.strip()
        if n and n not in out:
            out.append(n)
    if not out:
        raise AssignError("give the raters, e.g. --raters ann,bob")
    return out


class _Loads:
    """What each rater holds so far: dialogues in all, per stratum, and which corpus dialogues."""

    def __init__(self, names: list[str], seed: int) -> None:
        self.names = names
        self.total: Counter[str] = Counter()
        self.strata: dict[str, Counter[str]] = defaultdict(Counter)
        self.sources: dict[str, set[str]] = defaultdict(set)
        self.rotation = {r: i for i, r in enumerate(random.Random(seed).sample(names, len(names)))}

    def add(self, rater: str, c: Candidate) -> None:
        self.total[rater] += 1
        self.strata[c.stratum][rater] += 1
        self.sources[rater].add(c.source or c.id)

    def slots(self, stratum: str, n: int) -> tuple[list[str], list[str]]:
        """The raters who may take the next ``n`` dialogues of ``stratum``, filling the least loaded first (in
        the stratum, then in all), so both stay within one of each other: ``(sure, tied)``, where every rater
        in ``sure`` takes one and ``n - len(sure)`` of the equally loaded ``tied`` raters take the rest."""
        extra: Counter[str] = Counter()

        def key(r: str) -> tuple[int, int]:
            return self.strata[stratum][r] + extra[r], self.total[r] + extra[r]

        order: list[tuple[tuple[int, int], str]] = []
        for _ in range(n):
            r = min(self.names, key=lambda r: (key(r), self.rotation[r]))
            order.append((key(r), r))
            extra[r] += 1
        last = order[-1][0]
        sure = [r for k, r in order if k < last]
        tied = [r for k, r in order if k == last]
        rest = sorted(self.names, key=self.rotation.__getitem__)
        tied += [r for r in rest if key(r) == last and r not in tied]
        return sure, tied

    def match(self, items: list[Candidate], sure: list[str], tied: list[str],
              holders: dict[str, set[str]]) -> list[str]:
        """Who takes each item: a minimum-cost matching of items to raters (scipy's linear_sum_assignment)
        that uses every ``sure`` slot, never a rater who holds the item already, and avoids a rater who holds
        another version of its corpus dialogue where it can."""
        from scipy.optimize import linear_sum_assignment

        never, must = len(items) + 1, -(len(items) + 1) ** 2
        slots = sure + tied
        cost = [[never * (r in holders[c.id]) + ((c.source or c.id) in self.sources[r])
                 + (must if k < len(sure) else 0) for k, r in enumerate(slots)] for c in items]
        rows, cols = linear_sum_assignment(cost)
        if all(cost[i][j] - (must if j < len(sure) else 0) < never for i, j in zip(rows, cols, strict=True)):
            return [slots[j] for _, j in sorted(zip(rows, cols, strict=True))]
        out: list[str] = []  # overlap rounds where the slots cannot fit: the least loaded rater free for each
        extra: Counter[str] = Counter()
        for c in items:
            r = min((r for r in self.names if r not in holders[c.id]), key=lambda r: (
                self.strata[c.stratum][r] + extra[r], self.total[r] + extra[r], self.rotation[r]))
            extra[r] += 1
            out.append(r)
        return out


def assign(store: Store, raters: Sequence[str], selection: Selection = EVERYTHING, *, per_dialogue: int = 1,
           seed: int = 0) -> AssignReport:
    """Assign the selected dialogues (see the module docstring); one transaction."""
    names = _raters(raters)
    if not 1 <= per_dialogue <= len(names):
        raise AssignError(f"--per-dialogue must be between 1 and the number of raters ({len(names)}), "
                          f"not {per_dialogue}")
    chosen = select(store, selection)
    holders: dict[str, set[str]] = defaultdict(set)  # session -> raters
    for rater, sid in store.db.execute("SELECT rater, session_id FROM assignments").fetchall():
        holders[sid].add(rater)
    loads = _Loads(names, seed)
    everything = {c.id: c for c in select(store, EVERYTHING)}
    for sid, who in holders.items():
        for r in who:
            if sid in everything:
                loads.add(r, everything[sid])
    rng = random.Random(seed)
    grouped: dict[str, list[Candidate]] = defaultdict(list)
    for c in chosen:
        grouped[c.stratum].append(c)
    new: dict[str, list[str]] = {r: [] for r in names}
    added: dict[str, dict[str, int]] = {r: {} for r in names}
    already = sum(len(holders[c.id]) >= per_dialogue for c in chosen)
    for stratum in sorted(grouped):
        items = grouped[stratum]
        rng.shuffle(items)
        for _ in range(per_dialogue):  # one more rater for every dialogue that lacks some, per round
            todo = [c for c in items if len(holders[c.id]) < per_dialogue]
            if not todo:
                break
            for c, r in zip(todo, loads.match(todo, *loads.slots(stratum, len(todo)), holders), strict=True):
                holders[c.id].add(r)
                loads.add(r, c)
                new[r].append(c.id)
                added[r][stratum] = added[r].get(stratum, 0) + 1
    stamp = now()
    with store.write() as conn:
        for r in names:
            store.db.table("raters").insert(to_row(Rater(r)), ignore=True)
            if not new[r]:
                continue
            (last,) = conn.execute("SELECT coalesce(max(position), 0) FROM assignments WHERE rater = ?",
                                   [r]).fetchone()
            order = random.Random(f"{seed}:{r}").sample(new[r], len(new[r]))
            conn.executemany(
                "INSERT INTO assignments (rater, session_id, position, created_at) VALUES (?, ?, ?, ?)",
                [(r, sid, last + i, stamp) for i, sid in enumerate(order, start=1)])
    return AssignReport(added, len(chosen), already)


def copy_paths(raters: Sequence[str], folder: Path) -> dict[str, Path]:
    """Where each rater's copy of the database goes, ``folder/RATER.db``; refused (before anything is written)
    when one exists already or two raters' names give the same file name."""
    paths = {r: folder / f"{_file_name(r)}.db" for r in _raters(raters)}
    if len(set(paths.values())) < len(paths):
        raise AssignError("two raters' names give the same file name; rename one")
    for p in paths.values():
        if p.exists():
            raise AssignError(f"{p} exists already; choose another folder for the copies")
    return paths


def write_copies(store: Store, paths: Sequence[Path]) -> None:
    """Copy the database to each path with SQLite's backup API: a consistent snapshot, whatever is still in
    the write-ahead log (a plain file copy can miss it)."""
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
        dst = sqlite3.connect(p)
        try:
            store.db.conn.backup(dst)
        except sqlite3.Error as e:
            dst.close()
            p.unlink(missing_ok=True)
            raise AssignError(f"cannot write {p}: {e}") from None
        dst.close()


def _file_name(rater: str) -> str:
    return re.sub(r"[^\w.-]+", "_", rater).strip("._") or "rater"


def assigned(store: Store, rater: str) -> list[str]:
    """The session ids assigned to ``rater``, in their order (empty: no assignment in this database)."""
    return [r[0] for r in store.db.execute(
        "SELECT session_id FROM assignments WHERE rater = ? ORDER BY position", [rater]).fetchall()]


@dataclass(frozen=True)
class RaterProgress:
    """How far one rater is with the dialogues assigned to them."""

    rater: str
    assigned: int
    done: int
    skipped: int
    in_progress: int
    reasons: tuple[str, ...] = field(default=())

    @property
    def to_do(self) -> int:
        return self.assigned - self.done - self.skipped - self.in_progress

    def to_json(self) -> dict[str, object]:
        return {"rater": self.rater, "assigned": self.assigned, "done": self.done, "skipped": self.skipped,
                "in_progress": self.in_progress, "to_do": self.to_do, "skip_reasons": list(self.reasons)}


Pair = tuple[str, str]  # (rater, session id)


def _states(store: Store) -> tuple[dict[Pair, int], set[Pair], dict[Pair, str], set[Pair]]:
    """(assignment positions, done pairs, skip reasons, started pairs) of one database."""
    db = store.db
    pos = {(r, s): p for r, s, p in db.execute("SELECT rater, session_id, position FROM assignments")}
    done = {(r, s) for s, r in db.execute("SELECT session_id, rater FROM dialogue_ratings")}
    skips = {(r, s): why for s, r, why in db.execute(
        "SELECT session_id, rater, reason FROM annotation_skips")}
    started = {(r, s) for r, s in db.execute(
        "SELECT tr.rater, t.session_id FROM turn_ratings tr JOIN turns t ON t.id = tr.turn_id")}
    started |= {(r, s) for s, r in db.execute("SELECT session_id, rater FROM annotation_progress")}
    return pos, done, skips, started


def rater_progress(stores: Sequence[Store]) -> list[RaterProgress]:
    """Progress per rater over the assignments found in ``stores`` (each rater's copy of a study database)."""
    pos: dict[tuple[str, str], int] = {}
    done: set[tuple[str, str]] = set()
    skips: dict[tuple[str, str], str] = {}
    started: set[tuple[str, str]] = set()
    for st in stores:
        p, d, s, b = _states(st)
        pos.update(p)
        done |= d
        for k, v in s.items():
            skips.setdefault(k, v)
        started |= b
    out: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: dict[str, list[str]] = defaultdict(list)
    for key in sorted(pos, key=lambda k: (k[0], pos[k])):
        rater = key[0]
        out[rater]["assigned"] += 1
        if key in done:
            out[rater]["done"] += 1
        elif key in skips:
            out[rater]["skipped"] += 1
            reasons[rater].append(skips[key])
        elif key in started:
            out[rater]["in_progress"] += 1
    return [RaterProgress(r, c["assigned"], c["done"], c["skipped"], c["in_progress"], tuple(reasons[r]))
            for r, c in sorted(out.items())]
