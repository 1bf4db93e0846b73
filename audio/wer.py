"""Word error rate the way Whisper is evaluated: jiwer on text normalised by whisper-normalizer's English
normaliser (lower case, punctuation removed, spelled-out numbers → digits, British → American spelling)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _normaliser() -> Any:
    from whisper_normalizer.english import EnglishTextNormalizer

    return EnglishTextNormalizer()


def normalise(text: str) -> str:
    """Whisper's English normalisation of ``text``."""
    return str(_normaliser()(text))


def wer(reference: str | list[str], hypothesis: str | list[str]) -> float:
    """WER of ``hypothesis`` against ``reference`` (strings or parallel lists), both normalised first.

    An empty normalised reference counts as 0 errors when the hypothesis is empty too, else 1.0.
    """
    import jiwer

    refs = [reference] if isinstance(reference, str) else list(reference)
    hyps = [hypothesis] if isinstance(hypothesis, str) else list(hypothesis)
    if len(refs) != len(hyps):
        raise ValueError(f"{len(refs)} references but {len(hyps)} hypotheses")
    pairs = [(normalise(r), normalise(h)) for r, h in zip(refs, hyps, strict=True)]
    nonempty = [(r, h) for r, h in pairs if r.strip()]
    if not nonempty:
        return 0.0 if all(not h.strip() for _, h in pairs) else 1.0
    return float(jiwer.wer([r for r, _ in nonempty], [h or "<empty>" for _, h in nonempty]))
