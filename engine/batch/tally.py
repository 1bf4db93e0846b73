"""Scoring a run as its dialogues are committed, in constant memory per dialogue.

For every dialogue the tally keeps Inform/Success (two booleans), its sacreBLEU sufficient statistics (ten
integers) and its count of failed turns — never the dialogue itself — so a 10,000-dialogue run scores in
bounded memory, and the paired bootstrap of :mod:`engine.scoring.bootstrap` works from the same arrays.
Dialogues are read back from their stored records (:func:`engine.scoring.stored.session_turns`), whether they
were played just now or before an interruption, so a resumed run scores exactly like an uninterrupted one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from parley.engine.scoring.corpus import CorpusDialogue
from parley.engine.scoring.multiwoz import EvalTurn, Metrics, bleu_normalise, score_dialogue

if TYPE_CHECKING:
    import numpy as np

    from parley.engine.scoring.bootstrap import DialogueStats
    from parley.store.records import TurnRecord

#: dialogues whose BLEU statistics are extracted together (one sacreBLEU call, whose caches then stay small)
BLEU_BATCH = 256


class ConditionTally:
    def __init__(self, name: str) -> None:
        self.name = name
        self.inform: list[bool] = []
        self.success: list[bool] = []
        self.bleu: list[np.ndarray] = []  # arrays of shape (k, 10), in dialogue order
        self._hyps: list[list[str]] = []
        self._refs: list[list[str]] = []
        self.failed_turns = 0
        self.seconds = 0.0

    @property
    def n(self) -> int:
        return len(self.inform)

    def add(self, ref: CorpusDialogue, turns: Sequence[EvalTurn], failed: int) -> None:
        score = score_dialogue(ref.goal, turns, booked=ref.booked or None)
        self.inform.append(score.inform)
        self.success.append(score.success)
        n = min(len(turns), len(ref.system_turns))
        self._hyps.append([bleu_normalise(t.response) for t in turns[:n]])
        self._refs.append([bleu_normalise(r) for r in ref.system_turns[:n]])
        if len(self._hyps) >= BLEU_BATCH:
            self._flush()
        self.failed_turns += failed

    def _flush(self) -> None:
        from parley.engine.scoring.bootstrap import bleu_statistics

        if self._hyps:
            self.bleu.append(bleu_statistics(self._hyps, self._refs))
            self._hyps, self._refs = [], []

    def stats(self) -> DialogueStats:
        import numpy as np

        from parley.engine.scoring.bootstrap import DialogueStats

        self._flush()
        bleu = np.concatenate(self.bleu) if self.bleu else np.zeros((0, 10), dtype=np.int64)
        return DialogueStats(
            inform=np.array(self.inform, dtype=float), success=np.array(self.success, dtype=float), bleu=bleu
        )

    def metrics(self) -> Metrics:
        from parley.engine.scoring.bootstrap import point

        p = point(self.stats())
        return Metrics(p["inform"] or 0.0, p["success"] or 0.0, p["bleu"], p["combined"], self.n)


def failed_turns(turns: Sequence[TurnRecord]) -> int:
    """User turns of stored records that got no successful system answer."""
    ordered = sorted(turns, key=lambda t: t.index)
    failed = 0
    for k, t in enumerate(ordered):
        if t.role != "user":
            continue
        nxt = ordered[k + 1] if k + 1 < len(ordered) else None
        failed += nxt is None or nxt.role != "system" or nxt.status != "ok"
    return failed


class MwzevalWriter:
    """Writes one condition's outputs in mwzeval's input format, dialogue by dialogue, to a temporary file
    beside the target; :meth:`close` renames it into place (an interrupted run leaves the target
    untouched)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self.fh = self.tmp.open("w", encoding="utf-8")
        self.fh.write("{")
        self.first = True

    def add(self, dialogue_id: str, turns: Sequence[EvalTurn]) -> None:
        from parley.engine.scoring.corpus import to_mwzeval

        for key, rows in to_mwzeval({dialogue_id: turns}).items():
            self.fh.write(
                ("\n" if self.first else ",\n")
                + json.dumps(key)
                + ": "
                + json.dumps(rows, ensure_ascii=False)
            )
            self.first = False

    def close(self) -> None:
        self.fh.write("\n}\n")
        self.fh.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        self.fh.close()
        self.tmp.unlink(missing_ok=True)
