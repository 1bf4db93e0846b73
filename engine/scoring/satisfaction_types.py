"""What the satisfaction analysis (:mod:`engine.scoring.satisfaction`) reports, as typed records."""

from __future__ import annotations

from typing import TypedDict


class Correlation(TypedDict):
    """Spearman ρ and Pearson r of one aspect with overall impression (None: too few or constant values)."""

    spearman: float | None
    spearman_p: float | None
    pearson: float | None
    pearson_p: float | None
    n: int


class TurnCorrelation(TypedDict):
    """The turn level: the means over turn positions of ρ and r, and each position's correlation."""

    spearman: float | None
    pearson: float | None
    n: int
    positions: dict[str, Correlation]


class Regression(TypedDict):
    aspects: list[str]
    r2: float | None
    adj_r2: float | None
    n: int


class Agreement(TypedDict):
    items: int
    fleiss_kappa: float | None
    fleiss_items: int
    fleiss_raters: int
    krippendorff_alpha: float | None
