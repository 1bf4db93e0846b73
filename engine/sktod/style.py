"""The weights of each wording choice of ``sktod``'s template answers (:mod:`engine.sktod.wording`): the
frame, the words for the reviewers, the minority clause, the follow-up question. :data:`STYLE` gives every
choice the same weight; ``assets/sktod/style.json`` (chosen on half of DSTC11 val's dialogues by
``bench/sktod_bench.py --fit-style``; the other half scores them) overrides them, also per kind of answer and
aspect.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

Style = Mapping[str, Any]

#: weights of each choice (see the module docstring); ``follow_up`` is the share of answers that end on one
STYLE: dict[str, Any] = {
    "frame": {"plain": 1.0, "say": 1.0, "according": 1.0, "described": 1.0, "has": 1.0},
    "who": {"guests": 1.0, "previous guests": 1.0, "customers": 1.0, "reviewers": 1.0},
    "say": {"say": 1.0, "said": 1.0, "have said": 1.0},
    "that": {"": 1.0, "that ": 1.0},
    "tense": {"present": 1.0, "past": 1.0},
    "minor": {"though": 1.0, "but": 1.0, "however": 1.0},
    "follow": {"more": 1.0, "else": 1.0, "book": 1.0, "reserve": 1.0},
    "follow_up": 0.5,
    "adjectives": 2,
}


def fitted_style() -> dict[str, Any]:
    """:data:`STYLE` with the choices fitted on DSTC11 val half 0 (``assets/sktod/style.json``, written by
    ``bench/sktod_bench.py --fit-style``) over it."""
    import json

    from parley.assets import asset_path

    f = asset_path("sktod", "style.json")
    try:
        fitted = json.loads(f.read_text(encoding="utf-8")) if f.is_file() else {}
    except (OSError, ValueError):
        fitted = {}
    return {**STYLE, **(fitted if isinstance(fitted, dict) else {})}


def draw(rng: random.Random, style: Style, slot: str, allowed: Sequence[str] | None = None) -> str:
    """One choice of ``slot``, drawn with the style's weights (among ``allowed`` when given)."""
    weights: Mapping[str, float] = style.get(slot) or STYLE[slot]
    keys = [k for k in weights if allowed is None or k in allowed]
    ws = [max(float(weights[k]), 0.0) for k in keys]
    if not keys:
        return allowed[0] if allowed else ""
    if sum(ws) <= 0:
        return keys[0]
    return rng.choices(keys, weights=ws)[0]

