"""The paired bootstrap draws its resamples in batches sized by the number of dialogues: the intervals are
those of drawing them all at once (or 100 at a time, as scipy's batches did before) for the same seed, and
the memory of one batch no longer grows with 100 × the dialogues."""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.engine.scoring import bootstrap as boot
from parley.engine.scoring.bootstrap import DialogueStats, paired_bootstrap


def _stats(rng: np.random.Generator, size: int, *, bleu: bool) -> DialogueStats:
    inform = rng.integers(0, 2, size)
    success = inform * rng.integers(0, 2, size)
    if not bleu:
        return DialogueStats(inform=inform, success=success)
    totals = rng.integers(0, 30, (size, 4))
    correct = (totals * rng.random((size, 4))).astype(np.int64)
    sys_len = totals[:, :1] + rng.integers(0, 3, (size, 1))
    ref_len = rng.integers(0, 40, (size, 1))
    return DialogueStats(inform=inform, success=success,
                         bleu=np.concatenate([sys_len, ref_len, correct, totals], axis=1))


def _conditions(data_seed: int, size: int, *, bleu: bool) -> dict[str, DialogueStats]:
    rng = np.random.default_rng(data_seed)
    return {"original": _stats(rng, size, bleu=bleu), "typos": _stats(rng, size, bleu=bleu)}


def _reference(monkeypatch: pytest.MonkeyPatch, batch: int | None, conditions: dict[str, DialogueStats],
               **kw: Any) -> str:
    """The intervals when scipy draws ``batch`` resamples at a time (``None``: all in one draw)."""
    with monkeypatch.context() as m:
        m.setattr(boot, "resample_batch", lambda size: batch)
        return json.dumps(paired_bootstrap(conditions, **kw))


@pytest.mark.parametrize("size", [2, 3, 17, 250, 3000, 6000])
@pytest.mark.parametrize("old_batch", [100, None])
def test_intervals_identical_to_unbatched_draws(monkeypatch: pytest.MonkeyPatch, size: int,
                                                old_batch: int | None) -> None:
    conditions = _conditions(size, size, bleu=size <= 250)
    kw: dict[str, Any] = {"n": 230, "seed": 7}
    new = json.dumps(paired_bootstrap(conditions, **kw))
    assert new == _reference(monkeypatch, old_batch, conditions, **kw)
    assert json.loads(new)["typos"]["delta"]


@settings(max_examples=25, deadline=None)
@given(size=st.integers(1, 30), n=st.integers(1, 60), seed=st.integers(0, 2**32 - 1),
       budget=st.integers(1, 200), data_seed=st.integers(0, 1000), bleu=st.booleans())
def test_any_batch_gives_the_same_intervals(size: int, n: int, seed: int, budget: int, data_seed: int,
                                            bleu: bool) -> None:
    conditions = _conditions(data_seed, size, bleu=bleu)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(boot, "RESAMPLE_ELEMENTS", budget)  # batches of 1 … 100 resamples on these small sizes
        new = json.dumps(paired_bootstrap(conditions, n=n, seed=seed))
        m.setattr(boot, "resample_batch", lambda size: None)
        whole = json.dumps(paired_bootstrap(conditions, n=n, seed=seed))
    assert new == whole


def test_resample_batch_bounds_the_indices_held() -> None:
    assert boot.resample_batch(20) == 100
    assert boot.resample_batch(0) == 100
    for size in (3000, 60_000, 125_786, 10**7):
        b = boot.resample_batch(size)
        assert 1 <= b < 100
        assert b == 1 or b * size <= boot.RESAMPLE_ELEMENTS


def test_memory_of_a_large_run_does_not_grow_with_100_resamples_per_batch() -> None:
    size = 60_000                       # 100 resamples of it: 48 MB of indices per copy
    conditions = _conditions(1, size, bleu=False)
    paired_bootstrap(_conditions(1, 5, bleu=False), n=3)  # scipy's imports are not the bootstrap's memory
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = paired_bootstrap(conditions, n=100, seed=0)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert out["typos"]["delta"]["inform"]
    assert peak < 20 * 2**20, f"peak {peak / 2**20:.0f} MB"
