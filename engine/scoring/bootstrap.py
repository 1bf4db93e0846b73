"""Paired bootstrap confidence intervals for Inform, Success, BLEU and Combined over dialogues.

Dialogues are resampled with replacement by ``scipy.stats.bootstrap`` (percentile intervals), with the same
seed for every condition and metric, so every statistic sees the same resamples and differences are paired.
BLEU is recomputed on each resample from per-dialogue sacreBLEU sufficient statistics (n-gram matches and
totals, lengths: the public ``BLEUScore`` fields of each dialogue's corpus score), which gives exactly
sacreBLEU's corpus BLEU for the resampled set without re-tokenising.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np

METRICS: tuple[str, ...] = ("inform", "success", "bleu", "combined")
# resample indices held at once (about 2 MB of int64 per copy): one batch of resamples of a large run stays a
# few megabytes instead of growing with 100 × the number of dialogues
RESAMPLE_ELEMENTS = 1 << 18


#: a condition's intervals: ``[low, high]`` per metric, and under ``"delta"`` those of the paired difference
#: to the baseline
Intervals: TypeAlias = dict[str, "list[float] | dict[str, list[float]]"]


@dataclass(frozen=True)
class DialogueStats:
    """Per-dialogue inputs of the bootstrap for one condition, aligned by dialogue across conditions."""

    inform: np.ndarray                    # shape (n,), 0/1
    success: np.ndarray                   # shape (n,), 0/1
    bleu: np.ndarray | None = None        # shape (n, 10): sys_len, ref_len, correct 1-4, total 1-4


def bleu_statistics(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> np.ndarray:
    """Per-dialogue sacreBLEU statistics: ``hypotheses[i]``/``references[i]`` are dialogue i's turns, already
    normalised (``multiwoz.bleu_normalise``)."""
    import numpy as np
    from sacrebleu.metrics import BLEU

    if len(hypotheses) != len(references) or any(len(h) != len(r) for h, r in zip(hypotheses, references,
                                                                                   strict=True)):
        raise ValueError("hypotheses and references differ in length")
    bleu = BLEU(force=True)
    out = np.zeros((len(hypotheses), 10), dtype=np.int64)
    for i, (hyps, refs) in enumerate(zip(hypotheses, references, strict=True)):
        if hyps:
            sc = bleu.corpus_score(list(hyps), [list(refs)])
            out[i] = [sc.sys_len, sc.ref_len, *sc.counts, *sc.totals]
    return out


def bleu_from_statistics(stats: np.ndarray) -> float:
    """sacreBLEU's corpus BLEU (default exp smoothing) from summed statistics."""
    from sacrebleu.metrics import BLEU

    s = [int(x) for x in stats]
    return float(BLEU.compute_bleu(s[2:6], s[6:10], s[0], s[1], smooth_method="exp").score)


def point(stats: DialogueStats) -> dict[str, float | None]:
    inform = 100.0 * float(stats.inform.mean()) if len(stats.inform) else 0.0
    success = 100.0 * float(stats.success.mean()) if len(stats.success) else 0.0
    bleu = bleu_from_statistics(stats.bleu.sum(axis=0)) if stats.bleu is not None else None
    return {"inform": inform, "success": success, "bleu": bleu,
            "combined": None if bleu is None else (inform + success) / 2 + bleu}


def resample_batch(size: int) -> int:
    """Resamples drawn at a time for ``size`` dialogues: at most 100, and few enough that one batch of indices
    holds about ``RESAMPLE_ELEMENTS`` numbers (scipy keeps several copies of a batch), never fewer than one.

    The batch changes memory only: the generator draws the indices one after another, so any batch gives the
    same resamples and the same intervals for a seed.
    """
    return max(1, min(100, RESAMPLE_ELEMENTS // max(size, 1)))


def paired_bootstrap(conditions: Mapping[str, DialogueStats], *, baseline: str = "original", n: int = 1000,
                     seed: int = 0, alpha: float = 0.05) -> dict[str, Intervals]:
    """95 % (``1 - alpha``) percentile intervals per condition and metric, plus intervals of the paired
    difference to ``baseline`` (``"delta"``) when the baseline is present.

    Every condition must hold the same dialogues in the same order.
    """
    import numpy as np
    from scipy.stats import bootstrap

    if not conditions:
        return {}
    sizes = {len(s.inform) for s in conditions.values()}
    if len(sizes) != 1:
        raise ValueError(f"conditions cover different numbers of dialogues: {sorted(sizes)}")
    size = sizes.pop()
    if size == 0:
        return {name: {} for name in conditions}

    def stat(st: DialogueStats, metric: str) -> Callable[[np.ndarray], float]:
        def value(idx: np.ndarray) -> float:
            inform = 100.0 * float(st.inform[idx].mean())
            success = 100.0 * float(st.success[idx].mean())
            if metric in ("inform", "success"):
                return inform if metric == "inform" else success
            assert st.bleu is not None
            bleu = bleu_from_statistics(st.bleu[idx].sum(axis=0))
            return bleu if metric == "bleu" else (inform + success) / 2 + bleu
        return value

    def interval(fn: Callable[[np.ndarray], float]) -> list[float]:
        if size < 2:  # one dialogue: every resample is that dialogue
            v = fn(np.zeros(1, dtype=int))
            return [round(v, 2), round(v, 2)]
        res = bootstrap(
            (np.arange(size),),
            fn,
            n_resamples=n,
            batch=resample_batch(size),
            vectorized=False,
            method="percentile",
            confidence_level=1 - alpha,
            random_state=np.random.default_rng(seed),
        )
        ci = res.confidence_interval
        return [round(float(ci.low), 2), round(float(ci.high), 2)]

    def metrics(st: DialogueStats) -> tuple[str, ...]:
        return METRICS if st.bleu is not None else ("inform", "success")

    out: dict[str, Intervals] = {}
    base = conditions.get(baseline)
    for name, st in conditions.items():
        ci: Intervals = {m: interval(stat(st, m)) for m in metrics(st)}
        if base is not None and name != baseline:
            def delta(m: str, st: DialogueStats = st) -> Callable[[np.ndarray], float]:
                mine, theirs = stat(st, m), stat(base, m)
                return lambda idx: mine(idx) - theirs(idx)
            ci["delta"] = {m: interval(delta(m)) for m in metrics(st) if m in metrics(base)}
        out[name] = ci
    return out
