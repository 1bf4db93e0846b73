"""Corpus replay: feed the user turns of MultiWOZ-format dialogues to a system under rewriter conditions.

Every dialogue of every condition goes through :class:`engine.session.Session`, so it is stored as a ``batch``
session with its condition, goal and source (``FILE#DIALOGUE_ID``) exactly like a live one. The session seed
of a dialogue depends only on the run seed and the dialogue id, so conditions are paired: the same dialogue
gets the same seed (and the same rewriter randomness for shared rewriters) under every condition.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from parley.engine.scoring.corpus import CorpusDialogue
from parley.engine.scoring.multiwoz import (
    DialogueScore,
    EvalTurn,
    Metrics,
    aggregate,
    bleu_normalise,
    score_dialogue,
)

if TYPE_CHECKING:
    from parley.engine.scoring.bootstrap import DialogueStats, Intervals
    from parley.engine.types import DialogueSystem
    from parley.store.db import Store

#: progress(condition, done, total) is called after every dialogue
#: ``progress(condition, dialogues done, total)``: a counter, unlike ``parley.progress.Progress``
ReplayProgress = Callable[[str, int, int], None]


def dialogue_seed(seed: int, dialogue_id: str) -> int:
    """The session seed of one dialogue: stable across runs and Python versions, shared by all conditions."""
    return zlib.crc32(f"{seed}:{dialogue_id}".encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class ReplayedDialogue:
    """One dialogue under one condition: the stored session and what the system said."""

    dialogue_id: str
    session_id: str
    turns: tuple[EvalTurn, ...]
    failed_turns: int = 0


@dataclass
class ConditionRun:
    """Everything one condition produced, scored."""

    name: str
    dialogues: list[ReplayedDialogue] = field(default_factory=list)
    scores: list[DialogueScore] = field(default_factory=list)
    metrics: Metrics | None = None
    seconds: float = 0.0

    @property
    def failed_turns(self) -> int:
        return sum(d.failed_turns for d in self.dialogues)


def replay(
    corpus: Sequence[CorpusDialogue],
    system: DialogueSystem,
    store: Store,
    *,
    conditions: Sequence[str] = ("original",),
    system_spec: str | None = None,
    seed: int = 0,
    source: str = "",
    tester: str = "replay",
    progress: ReplayProgress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[ConditionRun]:
    """Replay ``corpus`` through ``system`` once per condition, serially, in this thread; returns the scored
    runs in condition order. Each dialogue is stored whole (one transaction) once played.

    ``conditions`` are spec strings (``original``, ``impolite:scenario=2``, ``disfluency+asr-sim``); they are
    parsed and their chains built before anything runs, so a bad spec fails fast. ``parley run`` uses
    :mod:`engine.batch` instead (workers, resume, streaming).
    """
    from parley.engine.batch.play import Worker, WorkItem
    from parley.engine.batch.tally import failed_turns
    from parley.engine.scoring.stored import session_turns
    from parley.store.records import now

    worker = Worker(
        system, conditions, system_spec=str(system_spec or getattr(system, "name", "system")), tester=tester
    )
    runs: list[ConditionRun] = []
    for name in worker.chains:
        run = ConditionRun(name)
        t0 = time.perf_counter()
        for k, dia in enumerate(corpus):
            if should_stop is not None and should_stop():
                break
            played = worker.play(
                WorkItem(
                    k,
                    name,
                    dia,
                    dialogue_seed(seed, dia.id),
                    now(),
                    f"{source}#{dia.id}" if source else dia.id,
                )
            )
            with store.write():
                store.add_session(played.session)
                for t in played.turns:
                    store.add_turn(t)
            turns = session_turns(played.turns)
            run.dialogues.append(
                ReplayedDialogue(dia.id, played.session.id, tuple(turns), failed_turns(played.turns))
            )
            if progress is not None:
                progress(name, k + 1, len(corpus))
        run.seconds = time.perf_counter() - t0
        score_run(run, corpus)
        runs.append(run)
    return runs


def score_run(run: ConditionRun, corpus: Sequence[CorpusDialogue]) -> ConditionRun:
    """Fill ``run.scores`` and ``run.metrics`` (BLEU against the corpus system turns)."""
    by_id = {d.id: d for d in corpus}
    run.scores = []
    hyps: list[str] = []
    refs: list[str] = []
    for rd in run.dialogues:
        ref = by_id[rd.dialogue_id]
        run.scores.append(score_dialogue(ref.goal, rd.turns, booked=ref.booked or None))
        for i, t in enumerate(rd.turns):
            if i < len(ref.system_turns):
                hyps.append(t.response)
                refs.append(ref.system_turns[i])
    run.metrics = aggregate(run.scores, hyps, refs)
    return run


def dialogue_stats(run: ConditionRun, corpus: Sequence[CorpusDialogue]) -> DialogueStats:
    """The bootstrap inputs (``bootstrap.DialogueStats``) of a scored run."""
    import numpy as np

    from parley.engine.scoring.bootstrap import DialogueStats, bleu_statistics

    by_id = {d.id: d for d in corpus}
    hyps, refs = [], []
    for rd in run.dialogues:
        ref = by_id[rd.dialogue_id]
        n = min(len(rd.turns), len(ref.system_turns))
        hyps.append([bleu_normalise(t.response) for t in rd.turns[:n]])
        refs.append([bleu_normalise(r) for r in ref.system_turns[:n]])
    return DialogueStats(
        inform=np.array([s.inform for s in run.scores], dtype=float),
        success=np.array([s.success for s in run.scores], dtype=float),
        bleu=bleu_statistics(hyps, refs),
    )


def summarise(
    runs: Sequence[ConditionRun],
    corpus: Sequence[CorpusDialogue],
    *,
    baseline: str = "original",
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, object]:
    """The ``--json`` result of scored runs (see :func:`summary`)."""
    rows = []
    for r in runs:
        assert r.metrics is not None
        rows.append((r.name, r.metrics, dialogue_stats(r, corpus) if n_boot else None, r.failed_turns))
    return summary(rows, baseline=baseline, n_boot=n_boot, seed=seed)


def summary(
    rows: Sequence[tuple[str, Metrics, DialogueStats | None, int]],
    *,
    baseline: str = "original",
    n_boot: int = 1000,
    seed: int = 0,
) -> dict[str, object]:
    """``{"conditions": {name: {inform, success, bleu, combined, n, failed_turns, drop, ci}}}`` from
    ``(name, metrics, bootstrap.DialogueStats, failed turns)`` rows.

    ``drop`` is the relative decrease against ``baseline`` in percent (positive = worse, as Table VII's ↓);
    ``ci`` holds paired-bootstrap 95 % intervals per metric and, under ``delta``, of the difference to the
    baseline (``n_boot`` resamples; 0 turns the bootstrap off).
    """
    from parley.engine.scoring.bootstrap import METRICS, paired_bootstrap

    ci: dict[str, Intervals] = {}
    if n_boot and rows:
        ci = paired_bootstrap(
            {name: stats for name, _, stats, _ in rows if stats is not None},
            baseline=baseline, n=n_boot, seed=seed
        )
    base = next((m for name, m, _, _ in rows if name == baseline), None)
    out: dict[str, object] = {}
    for name, metrics, _, failed in rows:
        drop: dict[str, float | None] = {}
        if base is not None:
            for k in METRICS:
                b, v = getattr(base, k), getattr(metrics, k)
                drop[k] = None if not b or v is None else round(100.0 * (b - v) / b, 2)
        out[name] = {**metrics.to_json(), "failed_turns": failed, "drop": drop, "ci": ci.get(name, {})}
    return {"conditions": out}
