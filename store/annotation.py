"""Annotation mode, headless: which dialogues a rater still has to rate, which turns, and what is locked.

The protocol of the user-satisfaction study: rate the selected system turns on relevance and interestingness
(1-3; relevance may be "not applicable"), then the whole dialogue on understanding, task completion, interest
arousal (1-3), efficiency (0/1) and overall impression (1-5) with a justification, without going back to the
turns: once the dialogue rating starts, the turn ratings lock (``lock_turn_ratings``; the start is stored, so
it survives a quit). Everything is derived from the database, so a rater resumes where they left off.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from parley.scales import DIALOGUE_ASPECTS, TURN_ASPECTS
from parley.store.db import Store, StoreError
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord, now

TURN_SCALES: dict[str, tuple[int, int]] = {a.key: (a.lo, a.hi) for a in TURN_ASPECTS}
DIALOGUE_SCALES: dict[str, tuple[int, int]] = {a.key: (a.lo, a.hi) for a in DIALOGUE_ASPECTS}


class AnnotationError(StoreError):
    """A rating that annotation mode refuses (locked, out of scale); one line for the user."""


def parse_turns(value: str | int | None) -> int | None:
    """``"all"``/None → None (every system turn); ``"3"`` → 3 (the first three). Raises ValueError otherwise."""
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
    """A turn is rated once interestingness is set (relevance None means "not applicable")."""
    return r is not None and r.interestingness is not None


@dataclass(frozen=True)
class DialogueView:
    """A dialogue to rate: the session, all its turns and the ids of the system turns to rate, in order."""

    session: SessionRecord
    turns: tuple[TurnRecord, ...]
    rated: tuple[str, ...]

    def turn(self, turn_id: str) -> TurnRecord:
        return next(t for t in self.turns if t.id == turn_id)


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


class Annotation:
    """One rater's annotation queue over a store.

    ``turns``: rate the first N system turns of each dialogue (None: all). ``sample``: a random sample of N
    dialogues; ``shuffle``: every dialogue in a random order (blind rating: systems do not come in blocks). Both
    depend only on the database and ``seed``, so a rater who quits gets the same queue back.
    """

    def __init__(self, store: Store, rater: str, *, turns: int | None = None, sample: int | None = None,
                 seed: int = 0, shuffle: bool = False, lock_turn_ratings: bool = True) -> None:
        if not rater.strip():
            raise AnnotationError("a rater name is needed")
        self.store = store
        self.rater = rater.strip()
        self.turns = turns
        self.lock = lock_turn_ratings
        store.ensure_rater(self.rater)
        eligible = [r[0] for r in store.db.execute(
            "SELECT s.id FROM sessions s WHERE EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND "
            "t.role = 'system' AND t.status = 'ok' AND t.text != '') ORDER BY s.started_at, s.id").fetchall()]
        if sample is not None or shuffle:
            n = len(eligible) if sample is None else min(sample, len(eligible))
            eligible = random.Random(seed).sample(eligible, n)
        #: session ids in rating order (the sample depends only on the database and the seed: resumable)
        self.queue: list[str] = eligible

    # -- reading --------------------------------------------------------------------------------------------
    def dialogue(self, session_id: str) -> DialogueView:
        session = self.store.session(session_id)
        if session is None:
            raise AnnotationError(f"no session {session_id}")
        turns = tuple(self.store.turns(session_id))
        rated = [t.id for t in turns if t.role == "system" and t.status == "ok" and t.text.strip()]
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

    def pending(self) -> list[str]:
        done = {r[0] for r in self.store.db.execute(
            "SELECT session_id FROM dialogue_ratings WHERE rater = ?", [self.rater]).fetchall()}
        return [s for s in self.queue if s not in done]

    def current(self) -> str | None:
        """The dialogue to resume: the first in the queue without this rater's dialogue rating."""
        pending = self.pending()
        return pending[0] if pending else None

    def position(self, session_id: str) -> int:
        """1-based position of the dialogue in the queue ("n of N")."""
        return self.queue.index(session_id) + 1

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
        rows = []
        for i, sid in enumerate(self.queue, start=1):
            view = self.dialogue(sid)
            ratings = self.turn_ratings(sid)
            s = view.session
            label = s.source or s.id[:8]
            rows.append(ProgressRow(i, sid, label, sum(turn_rating_complete(ratings.get(t)) for t in view.rated),
                                    len(view.rated), self.turns_locked(sid), self.done(sid)))
        return rows

    # -- writing --------------------------------------------------------------------------------------------
    def rate_turn(self, turn_id: str, relevance: int | None, interestingness: int | None) -> TurnRating:
        """Store this rater's rating of a system turn; refused once the turns are locked."""
        for name, v in (("relevance", relevance), ("interestingness", interestingness)):
            lo, hi = TURN_SCALES[name]
            if v is not None and not lo <= v <= hi:
                raise AnnotationError(f"{name} must be {lo}-{hi}, not {v}")
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

    # -- instructions ---------------------------------------------------------------------------------------
    def instructions_seen(self) -> bool:
        return self.store.db.execute("SELECT 1 FROM annotation_raters WHERE name = ?",
                                     [self.rater]).fetchone() is not None

    def mark_instructions_seen(self) -> None:
        with self.store.write() as conn:
            conn.execute("INSERT OR IGNORE INTO annotation_raters (name, instructions_seen_at) VALUES (?, ?)",
                         [self.rater, now()])

