"""Everything the Scores screen shows, computed headlessly: ``parley score --multiwoz`` and ``--satisfaction``
of one database plus its row counts (the TUI runs :func:`compute` in a worker and only draws the result)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ScoreData:
    """``parley score --multiwoz`` and ``--satisfaction`` results (``satisfaction`` None: no ratings) and
    counts."""

    multiwoz: dict[str, Any]
    satisfaction: dict[str, Any] | None
    counts: dict[str, int]


def compute(store: Any) -> ScoreData:
    """Score a ``store.Store`` (no writes)."""
    from parley.engine.scoring.satisfaction import analyse, rows_from_store
    from parley.engine.scoring.stored import score_stored

    mwz = score_stored(store)
    rows, turns = rows_from_store(store)
    sat = analyse(rows, turns).to_json() if rows else None
    return ScoreData(mwz, sat, store.counts())
