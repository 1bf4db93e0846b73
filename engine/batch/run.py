"""The batch-run driver: a run id, N dialogues in flight, one writer committing in corpus order, resume.

:func:`open_run` finds or creates the run: ``resume=RUN_ID`` continues that run; otherwise an unfinished run
with the same key (system, corpus content, conditions, limit, seed, tester) is continued, unless ``new``.
:func:`execute` streams the corpus once per condition, hands the dialogues the run has not stored yet to a
backend, and commits each result — session, turns and the run's record of it, in one transaction — strictly in
order (conditions outer, dialogues inner). Since every dialogue's seed depends only on the run seed and the
dialogue id, and results are committed in order, any number of workers stores what a serial run stores; after
ctrl+c or kill -9 the same command stores exactly the dialogues that are missing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from parley.engine.batch.backends import Backend
from parley.engine.batch.corpus import count_dialogues, file_digest, stream_corpus
from parley.engine.batch.play import Played, WorkItem, build_chains
from parley.engine.batch.tally import ConditionTally, MwzevalWriter, failed_turns
from parley.engine.scoring.corpus import CorpusDialogue
from parley.engine.scoring.replay import dialogue_seed
from parley.engine.scoring.stored import session_turns
from parley.errors import ParleyError
from parley.jsontypes import JSONObject
from parley.store.records import TurnRecord, from_row, now, to_row
from parley.store.runs import (
    RunRecord,
    add_run,
    commit_dialogue,
    done_items,
    finish_run,
    get_run,
    unfinished_run,
)

if TYPE_CHECKING:
    from parley.store.db import Store

#: progress(condition, done, total, fresh) after every dialogue (fresh: played now, not read back from the
#: store)
Progress = Callable[[str, int, int, bool], None]


class RunError(ParleyError):
    """A run that cannot start or resume as asked."""


class RunInterrupted(ParleyError):
    """ctrl+c: what was committed stays; the same command (or ``--resume``) continues."""

    def __init__(self, run_id: str, done: int, total: int) -> None:
        super().__init__(
            f"interrupted: {done} of {total} dialogues of run {run_id} are stored; run the same "
            f"command again (or add --resume {run_id}) to continue"
        )
        self.run_id = run_id


@dataclass(frozen=True)
class RunParams:
    """What defines a run (its key); workers and backend do not change what is stored."""

    system_spec: str
    dialogues: str
    digest: str
    conditions: tuple[str, ...]
    limit: int | None = None
    seed: int = 0
    tester: str = "replay"

    @classmethod
    def make(
        cls,
        system_spec: str,
        dialogues: str | Path,
        conditions: Sequence[str],
        *,
        limit: int | None = None,
        seed: int = 0,
        tester: str = "replay",
    ) -> RunParams:
        path = Path(dialogues).resolve()
        if not path.is_file():
            raise RunError(f"{dialogues}: no such file")
        return cls(system_spec, str(path), file_digest(path), tuple(conditions), limit, seed, tester)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> RunParams:
        """The parameters a run was stored with (:meth:`to_json`)."""
        conditions, limit, seed = data["conditions"], data.get("limit"), data.get("seed", 0)
        if not isinstance(conditions, list) or not isinstance(limit, int | None) or not isinstance(seed, int):
            raise RunError(f"a run stored with parameters parley does not know: {data}")
        return cls(str(data["system_spec"]), str(data["dialogues"]), str(data["digest"]),
                   tuple(map(str, conditions)), limit, seed, str(data.get("tester", "replay")))

    def to_json(self) -> JSONObject:
        return {"system_spec": self.system_spec, "dialogues": self.dialogues, "digest": self.digest,
                "conditions": list(self.conditions), "limit": self.limit, "seed": self.seed,
                "tester": self.tester}

    @property
    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:32]


@dataclass
class RunOutcome:
    run: RunRecord
    params: RunParams
    tallies: list[ConditionTally]
    resumed_from: int = 0
    played: int = 0
    seconds: float = 0.0
    mwzeval: dict[str, Path] = field(default_factory=dict)


def open_run(
    store: Store, params: RunParams, *, resume: str | None = None, new: bool = False
) -> tuple[RunRecord, bool]:
    """The run to execute and whether it is a continued one."""
    if resume:
        rec = get_run(store, resume)
        if rec is None:
            raise RunError(f"no run {resume} in {store.path}")
        if rec.key != params.key:
            old = RunParams.from_json(rec.params)
            diff = [k for k in params.to_json() if params.to_json()[k] != old.to_json()[k]]
            raise RunError(f"run {resume} was started with other settings ({', '.join(diff)} differ)")
        return rec, True
    if not new:
        rec = unfinished_run(store, params.key)
        if rec is not None:
            return rec, True
    names = list(build_chains(params.conditions))
    n = count_dialogues(params.dialogues, limit=params.limit)
    if n == 0:
        raise RunError(f"{params.dialogues}: no dialogues")
    return add_run(store, RunRecord(key=params.key, total=n * len(names), params=params.to_json())), False


class _Stamp:
    """Strictly increasing timestamps (sessions sort by start time, so dispatch order is stored order)."""

    def __init__(self) -> None:
        self.last = ""

    def __call__(self) -> str:
        ts = now()
        if ts <= self.last:
            ts = (datetime.fromisoformat(self.last) + timedelta(microseconds=1)).isoformat(
                timespec="microseconds"
            )
        self.last = ts
        return ts


def _roundtrip(turns: Sequence[TurnRecord]) -> list[TurnRecord]:
    """The turns as the database gives them back (JSON fields decoded), so fresh and resumed dialogues score
    alike."""
    return [from_row(TurnRecord, to_row(t)) for t in turns]


def execute(
    store: Store,
    run: RunRecord,
    backend: Backend,
    *,
    window: int | None = None,
    progress: Progress | None = None,
    mwzeval: dict[str, Path] | None = None,
) -> RunOutcome:
    """Play every dialogue the run has not stored yet; commit in order; score everything. Raises
    RunInterrupted on ctrl+c (after cancelling the work in flight)."""
    params = RunParams.from_json(run.params)
    names = list(build_chains(params.conditions))
    n = run.total // len(names)
    done = dict(done_items(store, run.id))
    tallies = [ConditionTally(name) for name in names]
    writers = {name: MwzevalWriter(path) for name, path in (mwzeval or {}).items()}
    window = window or 2 * backend.workers
    source = params.dialogues
    stamp = _Stamp()
    pending: deque[tuple[WorkItem, str | None]] = deque()  # in seq order: (item, stored session id or None)
    running = 0
    committed = len(done)
    t0 = time.perf_counter()
    first: dict[int, float] = {}
    outcome = RunOutcome(run, params, tallies, resumed_from=len(done))

    def items() -> Iterator[WorkItem]:
        for ci, name in enumerate(names):
            for di, dia in enumerate(stream_corpus(source, limit=params.limit)):
                yield WorkItem(
                    ci * n + di, name, dia, dialogue_seed(params.seed, dia.id), "", source + "#" + dia.id
                )

    def finish_head() -> None:
        nonlocal running, committed
        item, sid = pending.popleft()
        ci = item.seq // n
        if sid is None:
            played: Played = backend.next_result()
            running -= 1
            assert played.seq == item.seq, (played.seq, item.seq)
            commit_dialogue(
                store, run.id, item.seq, item.condition, item.dialogue.id, played.session, played.turns
            )
            committed += 1
            outcome.played += 1
            turns = _roundtrip(played.turns)
        else:
            turns = store.turns(sid)
        _score(tallies[ci], writers.get(item.condition), item.dialogue, turns)
        tallies[ci].seconds = time.perf_counter() - first.setdefault(ci, t0)
        if progress is not None:
            progress(item.condition, item.seq % n + 1, n, sid is None)

    try:
        for item in items():
            first.setdefault(item.seq // n, time.perf_counter())
            sid = done.pop(item.seq, None)
            if sid is None:
                item = replace(item, started_at=stamp())
                backend.submit(item)
                running += 1
            pending.append((item, sid))
            while pending and (pending[0][1] is not None or running >= window):
                finish_head()
        while pending:
            finish_head()
    except KeyboardInterrupt:
        backend.close(cancel=True)
        for w in writers.values():
            w.abort()
        raise RunInterrupted(run.id, committed, run.total) from None
    except BaseException:
        backend.close(cancel=True)
        for w in writers.values():
            w.abort()
        raise
    backend.close()
    for w in writers.values():
        w.close()
    finish_run(store, run.id)
    outcome.seconds = time.perf_counter() - t0
    outcome.mwzeval = dict(mwzeval or {})
    return outcome


def _score(
    tally: ConditionTally, writer: MwzevalWriter | None, ref: CorpusDialogue, turns: Sequence[TurnRecord]
) -> None:
    evals = session_turns(turns)
    tally.add(ref, evals, failed_turns(turns))
    if writer is not None:
        writer.add(ref.id, evals)
