"""Paired bootstrap confidence intervals for Inform, Success, BLEU and Combined over dialogues.

Dialogues are resampled with replacement (the same resample for every condition, so differences are paired);
BLEU is recomputed on each resample from per-dialogue sacreBLEU sufficient statistics (n-gram matches and totals,
lengths), which gives exactly sacreBLEU's corpus BLEU for the resampled set without re-tokenising.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

METRICS: tuple[str, ...] = ("inform", "success", "bleu", "combined")


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

    flat_h = [h for d in hypotheses for h in d]
    flat_r = [r for d in references for r in d]
    if len(flat_h) != len(flat_r):
        raise ValueError("hypotheses and references differ in length")
    sent = np.asarray(BLEU(force=True)._extract_corpus_statistics(flat_h, [flat_r]), dtype=np.int64).reshape(-1, 10)
    out = np.zeros((len(hypotheses), 10), dtype=np.int64)
    pos = 0
    for i, d in enumerate(hypotheses):
        out[i] = sent[pos:pos + len(d)].sum(axis=0)
        pos += len(d)
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


def paired_bootstrap(conditions: Mapping[str, DialogueStats], *, baseline: str = "original", n: int = 1000,
                     seed: int = 0, alpha: float = 0.05) -> dict[str, dict[str, Any]]:
    """95 % (``1 - alpha``) percentile intervals per condition and metric, plus intervals of the paired
    difference to ``baseline`` (``"delta"``) when the baseline is present.

    Every condition must hold the same dialogues in the same order.
    """
    import numpy as np

    if not conditions:
        return {}
    sizes = {len(s.inform) for s in conditions.values()}
    if len(sizes) != 1:
        raise ValueError(f"conditions cover different numbers of dialogues: {sorted(sizes)}")
    size = sizes.pop()
    if size == 0:
        return {name: {} for name in conditions}
    rng = np.random.default_rng(seed)
    # resamples are drawn and reduced a block at a time (the same draws as one (n, size) array), so memory
    # stays O(size), not O(n × size × 10), for large runs
    block = max(1, min(n, 2_000_000 // (size * 10)))
    parts: dict[str, dict[str, list[np.ndarray]]] = {name: {} for name in conditions}
    for start in range(0, n, block):
        idx = rng.integers(0, size, size=(min(block, n - start), size))
        for name, st in conditions.items():
            acc = parts[name]
            acc.setdefault("inform", []).append(100.0 * st.inform[idx].mean(axis=1))
            acc.setdefault("success", []).append(100.0 * st.success[idx].mean(axis=1))
            if st.bleu is not None:
                summed = st.bleu[idx].sum(axis=1)
                acc.setdefault("bleu", []).append(np.array([bleu_from_statistics(row) for row in summed]))
    samples: dict[str, dict[str, np.ndarray]] = {}
    for name, acc in parts.items():
        samples[name] = {m: np.concatenate(v) for m, v in acc.items()}
        if "bleu" in samples[name]:
            s = samples[name]
            s["combined"] = (s["inform"] + s["success"]) / 2 + s["bleu"]
    lo_q, hi_q = 100 * alpha / 2, 100 * (1 - alpha / 2)

    def interval(a: np.ndarray) -> list[float]:
        return [round(float(np.percentile(a, lo_q)), 2), round(float(np.percentile(a, hi_q)), 2)]

    out: dict[str, dict[str, Any]] = {}
    base = samples.get(baseline)
    for name, res in samples.items():
        ci: dict[str, Any] = {m: interval(v) for m, v in res.items()}
        if base is not None and name != baseline:
            ci["delta"] = {m: interval(v - base[m]) for m, v in res.items() if m in base}
        out[name] = ci
    return out
