"""Everything the Scores screen shows, computed headlessly: ``parley score --multiwoz`` and ``--satisfaction``
of one database plus its row counts (the TUI runs :func:`compute` in a worker and only draws the result)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from parley.extras import explain

if TYPE_CHECKING:
    from parley.store.db import Store
    from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord

#: ``progress(what, done, total)``: what is being computed and how far (``total`` None: not counted)
StepProgress = Callable[[str, int, int | None], None]


@dataclass(frozen=True)
class ScoreData:
    """``parley score --multiwoz`` and ``--satisfaction`` results (``satisfaction`` None: no ratings) and
    counts."""

    multiwoz: dict[str, object]
    satisfaction: dict[str, object] | None
    counts: dict[str, int]


class _Counted:
    """The store as one stage sees it: each session the stage reads is reported to ``progress`` (how far)."""

    def __init__(self, store: Store, what: str, progress: StepProgress) -> None:
        self._store, self._what, self._progress = store, what, progress

    def sessions(self, *, mode: str | None = None) -> Iterator[SessionRecord]:
        records = self._store.sessions(mode=mode)
        self._progress(self._what, 0, len(records))
        for i, rec in enumerate(records, start=1):
            yield rec
            self._progress(self._what, i, len(records))

    def session(self, session_id: str) -> SessionRecord | None:
        return self._store.session(session_id)

    def turns(self, session_id: str) -> list[TurnRecord]:
        return self._store.turns(session_id)

    def turn_ratings(self, session_id: str | None = None) -> list[TurnRating]:
        return self._store.turn_ratings(session_id)

    def dialogue_ratings(self) -> list[DialogueRating]:
        return self._store.dialogue_ratings()


def compute(store: Store, progress: StepProgress | None = None) -> ScoreData:
    """Score a ``store.Store`` (no writes), telling ``progress`` what is being computed and how far."""
    say: StepProgress = progress or (lambda what, done, total: None)
    say("loading the scoring code", 0, None)
    from parley.engine.scoring.satisfaction import analyse, rows_from_store
    from parley.engine.scoring.stored import score_stored

    say("counting rows", 0, None)
    counts = store.counts()
    try:
        mwz = score_stored(_Counted(store, "MultiWOZ scores: sessions read", say))
        rows, turns = rows_from_store(_Counted(store, "satisfaction: ratings read, by session", say))
        say(f"satisfaction analysis of {len(rows)} dialogue ratings", 0, None)
        sat = analyse(rows, turns).to_json() if rows else None
    except ModuleNotFoundError as e:  # a core install scores nothing it needs numpy/scipy for: say so
        told = explain(e, "scoring", "stats")
        if told is None:
            raise
        raise told from None
    return ScoreData(mwz, sat, counts)
