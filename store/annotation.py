"""Annotation mode, headless: which dialogues a rater still has to rate, which turns, and what is locked.

The protocol of the user-satisfaction study: rate the selected system turns on relevance and interestingness
(1-3; relevance may be "not applicable", stored as ``'n/a'``, never as NULL, which is "not rated"), then
the whole dialogue on understanding, task completion, interest arousal (1-3), efficiency (0/1) and overall
impression (1-5) with a justification, without going back to the turns: once the dialogue rating starts,
the turn ratings lock (``lock_turn_ratings``; the start is stored, so it survives a quit). Everything is
derived from the database, so a rater resumes where they left off; each aspect of a turn is stored as it is
given, so a turn with its relevance but not yet its interestingness is kept too and resumes at its
interestingness.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cached_property

from parley.scales import DIALOGUE_ASPECTS, NOT_APPLICABLE, TURN_ASPECTS, NotApplicable
from parley.store.assign import assigned
from parley.store.db import Store, StoreError
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord, now
from parley.store.selection import EVERYTHING, RATEABLE_TURN, Selection, select

TURN_SCALES: dict[str, tuple[int, int]] = {a.key: (a.lo, a.hi) for a in TURN_ASPECTS}
_TURN_ASPECT = {a.key: a for a in TURN_ASPECTS}
#: a rated turn in SQL over ``turn_ratings tr``: both aspects given ("not applicable" counts as given)
RATED_TURN_SQL = "tr.relevance IS NOT NULL AND tr.interestingness IS NOT NULL"
DIALOGUE_SCALES: dict[str, tuple[int, int]] = {a.key: (a.lo, a.hi) for a in DIALOGUE_ASPECTS}


class AnnotationError(StoreError):
    """A rating that annotation mode refuses (locked, out of scale); one line for the user."""


def parse_turns(value: str | int | None) -> int | None:
    """``"all"``/None: None (every system turn); ``"3"``: 3 (the first three). Raises ValueError otherwise."""
    if value is None or str(value).strip().lower() in ("", "all"):
        return None
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ValueError(f"--turns must be 'all' or a positive number, not {value!r}") from None
    if n < 1:
        raise ValueError(f"--turns must be 'all' or a positive number, not {value!r}")
    return n


def turn_rating_complete(r: TurnRating | None) -> bool:
    """A turn is rated once both aspects are given (a relevance of "not applicable" is given; None is not)."""
    return r is not None and r.relevance is not None and r.interestingness is not None


@dataclass(frozen=True)
class DialogueView:
    """A dialogue to rate: the session, all its turns and the ids of the system turns to rate, in order."""

    session: SessionRecord
    turns: tuple[TurnRecord, ...]
    rated: tuple[str, ...]

    @cached_property
    def _by_id(self) -> dict[str, TurnRecord]:
        return {t.id: t for t in self.turns}

    @cached_property
    def positions(self) -> dict[str, int]:
        """Turn id → its position in ``turns``."""
        return {t.id: i for i, t in enumerate(self.turns)}

    def turn(self, turn_id: str) -> TurnRecord:
        return self._by_id[turn_id]


@dataclass(frozen=True)
class ProgressRow:
    """One line of the progress view."""

    position: int
    session_id: str
    label: str
    rated_turns: int
    total_turns: int
    turns_locked: bool
    done: bool
    skipped: str | None = None  # the reason, when this rater skipped the dialogue


class Annotation:
    """One rater's annotation queue over a store.

    The queue is the rater's assigned list when a coordinator made one (``parley assign``; then rating is
    always ``blind``), otherwise every rateable dialogue ``selection`` covers. ``turns``: rate the first N
    system turns of each dialogue (None: all). ``sample``: a random sample of N dialogues; ``shuffle`` (or
    ``blind``): a random order, so systems do not come in blocks. Both depend only on the database and
    ``seed``, so a rater who quits gets the same queue back.
    """

    def __init__(self, store: Store, rater: str, *, turns: int | None = None, sample: int | None = None,
                 seed: int = 0, shuffle: bool = False, blind: bool = False, selection: Selection = EVERYTHING,
                 lock_turn_ratings: bool = True) -> None:
        if not rater.strip():
            raise AnnotationError("a rater name is needed")
        self.store = store
        self.rater = rater.strip()
        self.turns = turns
        self.lock = lock_turn_ratings
        store.ensure_rater(self.rater)
        selected = [c.id for c in select(store, selection)]
        #: the dialogues a coordinator assigned to this rater (empty: none)
        self.assigned = assigned(store, self.rater)
        self.blind = blind or bool(self.assigned)
        if self.assigned:
            keep = set(selected)
            queue = [s for s in self.assigned if s in keep]
            if sample is not None and sample < len(queue):
                chosen = set(random.Random(seed).sample(queue, sample))
                queue = [s for s in queue if s in chosen]
        else:
            queue = selected
            if sample is not None or shuffle or blind:
                n = len(queue) if sample is None else min(sample, len(queue))
                queue = random.Random(seed).sample(queue, n)
        #: session ids in rating order (the sample depends only on the database and the seed: resumable)
        self.queue: list[str] = queue
        self._positions = {sid: i for i, sid in enumerate(queue, start=1)}

    # -- reading --------------------------------------------------------------------------------------------
    def dialogue(self, session_id: str) -> DialogueView:
        session = self.store.session(session_id)
        if session is None:
            raise AnnotationError(f"no session {session_id}")
        turns = tuple(self.store.turns(session_id))
        rated = [t.id for t in turns if t.role == "system" and t.status == "ok" and t.text.strip(" \t\n\r")]
        if self.turns is not None:
            rated = rated[: self.turns]
        return DialogueView(session, turns, tuple(rated))

    def turn_ratings(self, session_id: str) -> dict[str, TurnRating]:
        return {r.turn_id: r for r in self.store.turn_ratings(session_id, self.rater)}

    def dialogue_rating(self, session_id: str) -> DialogueRating | None:
        rows = self.store.dialogue_ratings(session_id, self.rater)
        return rows[0] if rows else None

    def done(self, session_id: str) -> bool:
        return self.dialogue_rating(session_id) is not None

    def skipped(self) -> dict[str, str]:
        """Session id → reason, for every dialogue this rater skipped."""
        return dict(self.store.db.execute(
            "SELECT session_id, reason FROM annotation_skips WHERE rater = ?", [self.rater]).fetchall())

    def pending(self) -> list[str]:
        """The dialogues of the queue this rater has neither rated nor skipped, in order."""
        done = {r[0] for r in self.store.db.execute(
            "SELECT session_id FROM dialogue_ratings WHERE rater = ?", [self.rater]).fetchall()}
        skipped = self.skipped()
        return [s for s in self.queue if s not in done and s not in skipped]

    def current(self) -> str | None:
        """The dialogue to resume: the first in the queue neither rated nor skipped by this rater."""
        pending = self.pending()
        return pending[0] if pending else None

    def position(self, session_id: str) -> int:
        """1-based position of the dialogue in the queue ("n of N")."""
        return self._positions[session_id]

    def next_turn(self, session_id: str) -> int | None:
        """Index (into ``dialogue().rated``) of the first turn not yet rated; None when all are rated."""
        view = self.dialogue(session_id)
        ratings = self.turn_ratings(session_id)
        for i, tid in enumerate(view.rated):
            if not turn_rating_complete(ratings.get(tid)):
                return i
        return None

    def turns_locked(self, session_id: str) -> bool:
        """True once the dialogue rating has started or been submitted; never when locking is off."""
        if not self.lock:
            return False
        if self.done(session_id):
            return True
        row = self.store.db.execute(
            "SELECT turns_locked_at FROM annotation_progress WHERE session_id = ? AND rater = ?",
            [session_id, self.rater]).fetchone()
        return bool(row and row[0])

    def progress(self) -> list[ProgressRow]:
        """Every dialogue of the queue and how far this rater is (a few queries, whatever its size)."""
        db = self.store.db
        ids = json.dumps(self.queue)
        counts = {sid: (total, rated) for sid, total, rated in db.execute(f"""
            WITH rateable AS (
                SELECT t.session_id, t.id,
                       row_number() OVER (PARTITION BY t.session_id ORDER BY t."index") AS n
                FROM turns t WHERE {RATEABLE_TURN} AND t.session_id IN (SELECT value FROM json_each(?)))
            SELECT r.session_id, count(*), count(tr.turn_id) FROM rateable r
            LEFT JOIN turn_ratings tr ON tr.turn_id = r.id AND tr.rater = ? AND {RATED_TURN_SQL}
            WHERE ? IS NULL OR r.n <= ? GROUP BY r.session_id""", [ids, self.rater, self.turns, self.turns])}
        labels = dict(db.execute(
            "SELECT id, source FROM sessions WHERE id IN (SELECT value FROM json_each(?))", [ids]).fetchall())
        done = {r[0] for r in db.execute(
            "SELECT session_id FROM dialogue_ratings WHERE rater = ?", [self.rater])}
        locked = {r[0] for r in db.execute(
            "SELECT session_id FROM annotation_progress WHERE rater = ? AND turns_locked_at IS NOT NULL",
            [self.rater])} if self.lock else set()
        skipped = self.skipped()
        rows = []
        for i, sid in enumerate(self.queue, start=1):
            total, rated = counts.get(sid, (0, 0))
            rows.append(ProgressRow(i, sid, labels.get(sid) or sid[:8], rated, total,
                                    self.lock and (sid in locked or sid in done), sid in done,
                                    skipped.get(sid)))
        return rows

    # -- writing --------------------------------------------------------------------------------------------
    def rate_turn(self, turn_id: str, relevance: int | NotApplicable | None,
                  interestingness: int | None) -> TurnRating:
        """Store this rater's rating of a system turn (an aspect None: not given yet; relevance may be
        "not applicable"); refused once the turns are locked."""
        for name, v in (("relevance", relevance), ("interestingness", interestingness)):
            a = _TURN_ASPECT[name]
            if v is not None and not a.allowed(v):
                na = f" or {NOT_APPLICABLE!r}" if a.not_applicable else ""
                raise AnnotationError(f"{name} must be {a.lo}-{a.hi}{na}, not {v!r}")
        row = self.store.db.execute("SELECT session_id FROM turns WHERE id = ?", [turn_id]).fetchone()
        if row is None:
            raise AnnotationError(f"no turn {turn_id}")
        if self.turns_locked(row[0]):
            raise AnnotationError("turn ratings are locked: the dialogue rating has started")
        return self.store.rate_turn(TurnRating(turn_id, self.rater, relevance, interestingness))

    def start_dialogue_rating(self, session_id: str) -> None:
        """Record that the dialogue rating has started: from now on the turn ratings are final."""
        with self.store.write() as conn:
            conn.execute(
                "INSERT INTO annotation_progress (session_id, rater, turns_locked_at, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (session_id, rater) DO UPDATE SET "
                "turns_locked_at = coalesce(turns_locked_at, excluded.turns_locked_at)",
                [session_id, self.rater, now(), now()])

    def rate_dialogue(self, rating: DialogueRating) -> DialogueRating:
        if rating.rater != self.rater:
            raise AnnotationError(f"this queue is {self.rater!r}'s, not {rating.rater!r}'s")
        for name, (lo, hi) in DIALOGUE_SCALES.items():
            v = getattr(rating, name)
            if not lo <= v <= hi:
                raise AnnotationError(f"{name.replace('_', ' ')} must be {lo}-{hi}, not {v}")
        self.start_dialogue_rating(rating.session_id)
        return self.store.rate_dialogue(rating, lock=self.lock)

    def skip(self, session_id: str, reason: str) -> None:
        """Skip a dialogue of the queue with a reason (stored; it leaves the pending list). Skipping it again
        changes the reason; a rated dialogue cannot be skipped."""
        reason = reason.strip()
        if not reason:
            raise AnnotationError("say why you skip this dialogue")
        if self.done(session_id):
            raise AnnotationError("this dialogue is rated already")
        with self.store.write() as conn:
            conn.execute(
                "INSERT INTO annotation_skips (session_id, rater, reason, created_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (session_id, rater) DO UPDATE SET reason = excluded.reason",
                [session_id, self.rater, reason, now()])

    # -- instructions ---------------------------------------------------------------------------------------
    def instructions_seen(self) -> bool:
        return self.store.db.execute("SELECT 1 FROM annotation_raters WHERE name = ?",
                                     [self.rater]).fetchone() is not None

    def mark_instructions_seen(self) -> None:
        with self.store.write() as conn:
            conn.execute("INSERT OR IGNORE INTO annotation_raters (name, instructions_seen_at) VALUES (?, ?)",
                         [self.rater, now()])

