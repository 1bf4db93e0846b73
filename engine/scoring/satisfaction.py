"""Six-aspect satisfaction analysis of ratings (Siro, Aliannejadi & de Rijke, SIGIR 2022, Tables 1-2).

A row is one rater's rating of one dialogue: the dialogue aspects (understanding, task completion, interest
arousal 1-3; efficiency 0/1), overall impression (1-5), and the turn aspects (relevance, interestingness 1-3)
that rater gave the dialogue's system turns, averaged per dialogue. Correlations with overall impression are
reported in three named units (``units``):

- ``rater``: every rater × dialogue row (``correlations`` holds this unit too); the study's Table 1 bottom
  (dialogue aspects) is in this unit: each annotator's rating of a dialogue is one data point;
- ``dialogue``: one row per dialogue, every aspect and overall impression averaged over its raters (a turn
  aspect: the mean of each rater's own mean over the dialogue's turns, so a rater who rated more turns does
  not weigh more);
- ``turn`` (the study's turn level, Table 1 top: "for each turn and average across the three turns"): per turn
  position (the rater's first, second, third rated system turn), the turn aspect against that rater's overall
  impression, then the mean of the per-position ρ and r.

Relevance "not applicable" (``'n/a'``) is a value of its own: counted in the distribution (key ``n/a``) and in
a note, and left out of every number computed on the scale (means, correlations, regressions, agreement), as
an unrated relevance is. Means are exact (:func:`mean`), so dialogues whose ratings have the same mean tie in
Spearman's ranks (float noise such as 2.1666666666666665 against 2.166666666666667 broke such ties).

Also reported:

- per-aspect distributions (turn aspects per rated turn, dialogue aspects per rating);
- Spearman ρ and Pearson r of each aspect with overall impression (``scipy.stats``);
- OLS R² of overall impression on the aspect sets of the study's Table 2 (``statsmodels``);
- inter-rater agreement where several raters rated the same item: Fleiss κ over the items with the most common
  number of raters (``statsmodels.stats.inter_rater``) and Krippendorff α over all items (``krippendorff``;
  ordinal, nominal for efficiency), when that package is installed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from fractions import Fraction
from statistics import fmean
from typing import TYPE_CHECKING, Protocol

from parley.engine.scoring.satisfaction_types import Agreement, Correlation, Regression, TurnCorrelation
from parley.scales import NOT_APPLICABLE, scale

if TYPE_CHECKING:
    from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord

TURN_ASPECTS: tuple[str, ...] = ("relevance", "interestingness")
DIALOGUE_ASPECTS: tuple[str, ...] = ("understanding", "task_completion", "interest_arousal", "efficiency")
ASPECTS: tuple[str, ...] = TURN_ASPECTS + DIALOGUE_ASPECTS
SCALES: dict[str, tuple[int, int]] = {a: scale(a) for a in (*ASPECTS, "overall")}
ABBREV: dict[str, str] = {
    "R": "relevance",
    "I": "interestingness",
    "U": "understanding",
    "TC": "task_completion",
    "IA": "interest_arousal",
    "E": "efficiency",
}
#: the aspect sets of the study's Table 2, in its order
REGRESSION_SETS: tuple[str, ...] = ("R", "I", "R+I", "U", "TC", "IA", "E", "IA+TC+U+E", "R+TC", "IA+U+I+E",
                                    "IA+TC+U+I+E+R")


class RatingStore(Protocol):
    """What the analysis reads of a store (``store.Store``, or a view of it that reports progress)."""

    def sessions(self) -> Iterable[SessionRecord]: ...
    def turns(self, session_id: str) -> Sequence[TurnRecord]: ...
    def turn_ratings(self, session_id: str | None = None) -> Sequence[TurnRating]: ...
    def dialogue_ratings(self) -> Sequence[DialogueRating]: ...


@dataclass(frozen=True)
class RatingRow:
    """One rater's rating of one dialogue; turn aspects are that rater's per-dialogue means (None:
    unrated)."""

    item: str
    rater: str
    overall: float | None
    understanding: float | None = None
    task_completion: float | None = None
    interest_arousal: float | None = None
    efficiency: float | None = None
    relevance: float | None = None
    interestingness: float | None = None


@dataclass(frozen=True)
class TurnValue:
    """One rater's rating of one system turn (for turn distributions and agreement); relevance may be
    ``'n/a'`` (not applicable)."""

    turn: str
    item: str
    rater: str
    relevance: float | str | None = None
    interestingness: float | None = None
    position: int | None = None  # 1 = the rater's first rated system turn of the dialogue


@dataclass(frozen=True)
class SatisfactionReport:
    n_ratings: int
    n_dialogues: int
    n_raters: int
    distributions: Mapping[str, Mapping[int | str, int]]  # value (or "n/a") → count
    correlations: Mapping[str, Correlation]
    regression: Mapping[str, Regression]
    agreement: Mapping[str, Agreement]
    overall_by: Mapping[str, Mapping[int, Mapping[int, int]]] = field(default_factory=dict)
    notes: tuple[str, ...] = field(default_factory=tuple)
    units: Mapping[str, Mapping[str, Correlation | TurnCorrelation]] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "n_ratings": self.n_ratings,
            "n_dialogues": self.n_dialogues,
            "n_raters": self.n_raters,
            "distributions": {
                a: {str(k): v for k, v in sorted(d.items(), key=lambda kv: (isinstance(kv[0], str), kv[0]))}
                for a, d in self.distributions.items()
            },
            "correlations": {a: dict(v) for a, v in self.correlations.items()},
            "regression": {a: dict(v) for a, v in self.regression.items()},
            "agreement": {a: dict(v) for a, v in self.agreement.items()},
            "overall_by": {
                a: {str(v): {str(o): n for o, n in sorted(c.items())} for v, c in sorted(d.items())}
                for a, d in self.overall_by.items()
            },
            "units": {u: {a: dict(v) for a, v in c.items()} for u, c in self.units.items()},
            "notes": list(self.notes),
        }


def number(v: object) -> float | None:
    """A rating as a number on its scale; None for unrated and for "not applicable"."""
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def mean(values: Sequence[object]) -> float | None:
    """The mean of the numbers among ``values`` (None: none), computed exactly (see the module docstring).

    Ratings are small integers and the means taken here are means of them (a rater's mean over turns, then
    a mean over raters), so each value is a fraction with a small denominator: read back as that fraction,
    summed exactly and divided, the result is the float nearest the true mean, and two equal means are equal
    floats whatever the order or grouping they came from."""
    nums = [Fraction(x).limit_denominator(10**6) for x in map(number, values) if x is not None]
    return float(sum(nums, Fraction(0)) / len(nums)) if nums else None


def _r4(x: float) -> float | None:
    import math

    return None if x is None or math.isnan(x) else round(float(x), 4)


def rows_from_store(store: RatingStore, *, raters: Sequence[str] = (),
                    sessions: Collection[str] | None = None) -> tuple[list[RatingRow], list[TurnValue]]:
    """Every dialogue rating of the store as a :class:`RatingRow` (with the rater's turn means) and every turn
    rating as a :class:`TurnValue`; ``raters``: only raters matching one of these patterns (shell-style
    wildcards), ``sessions``: only these dialogues."""
    def kept(rater: str) -> bool:
        return not raters or any(fnmatchcase(rater, p) for p in raters)

    turns: list[TurnValue] = []
    for s in store.sessions():
        if sessions is not None and s.id not in sessions:
            continue
        ratings = [r for r in store.turn_ratings(session_id=s.id) if kept(r.rater)]
        if not ratings:
            continue
        index = {t.id: t.index for t in store.turns(s.id)}
        seen: dict[str, int] = {}
        for t in sorted(ratings, key=lambda r: (r.rater, index.get(r.turn_id, 0))):
            seen[t.rater] = seen.get(t.rater, 0) + 1
            turns.append(TurnValue(t.turn_id, s.id, t.rater, t.relevance, t.interestingness, seen[t.rater]))
    by_pair: dict[tuple[str, str], list[TurnValue]] = {}
    for tv in turns:
        by_pair.setdefault((tv.item, tv.rater), []).append(tv)
    rows = []
    for d in store.dialogue_ratings():
        if not kept(d.rater) or (sessions is not None and d.session_id not in sessions):
            continue
        mine = by_pair.get((d.session_id, d.rater), [])
        means = {a: mean([getattr(t, a) for t in mine]) for a in TURN_ASPECTS}
        rows.append(RatingRow(d.session_id, d.rater, d.overall, d.understanding, d.task_completion,
                              d.interest_arousal, d.efficiency, **means))
    return rows, turns


def correlations(rows: Sequence[RatingRow], aspects: Sequence[str] = ASPECTS) -> dict[str, Correlation]:
    """Spearman ρ and Pearson r (with p-values and n) of each aspect with overall impression."""
    from scipy import stats

    out: dict[str, Correlation] = {}
    for a in aspects:
        pairs = [
            (getattr(r, a), r.overall) for r in rows if getattr(r, a) is not None and r.overall is not None
        ]
        if len(pairs) < 3:
            out[a] = {"spearman": None, "spearman_p": None, "pearson": None, "pearson_p": None,
                      "n": len(pairs)}
            continue
        x, y = [p[0] for p in pairs], [p[1] for p in pairs]
        if len(set(x)) < 2 or len(set(y)) < 2:
            out[a] = {"spearman": None, "spearman_p": None, "pearson": None, "pearson_p": None,
                      "n": len(pairs)}
            continue
        rho = stats.spearmanr(x, y)
        r = stats.pearsonr(x, y)
        out[a] = {"spearman": _r4(rho.statistic), "spearman_p": _p(rho.pvalue), "pearson": _r4(r.statistic),
                  "pearson_p": _p(r.pvalue), "n": len(pairs)}
    return out


def dialogue_means(rows: Sequence[RatingRow]) -> list[RatingRow]:
    """One row per dialogue: each aspect and overall impression averaged over the raters who gave it (a turn
    aspect: the mean of the raters' own means, each rater counting once)."""
    by_item: dict[str, list[RatingRow]] = {}
    for r in rows:
        by_item.setdefault(r.item, []).append(r)
    out = []
    for item, group in by_item.items():
        means = {a: mean([getattr(r, a) for r in group]) for a in (*ASPECTS, "overall")}
        out.append(RatingRow(item, "mean", **means))
    return out


def turn_level(rows: Sequence[RatingRow], turns: Sequence[TurnValue]) -> dict[str, TurnCorrelation]:
    """The study's turn level: per turn position, each turn aspect against the rater's overall impression of
    the dialogue; ``spearman``/``pearson`` are the means over positions (``positions`` holds each)."""
    overall = {(r.item, r.rater): r.overall for r in rows if r.overall is not None}
    out: dict[str, TurnCorrelation] = {}
    for a in TURN_ASPECTS:
        per: dict[str, Correlation] = {}
        for pos in sorted({t.position for t in turns if t.position is not None}):
            pts = [RatingRow(t.item, t.rater, overall[(t.item, t.rater)], **{a: number(getattr(t, a))})
                   for t in turns if t.position == pos and (t.item, t.rater) in overall]
            per[str(pos)] = correlations(pts, aspects=(a,))[a]
        rhos = [c["spearman"] for c in per.values() if c["spearman"] is not None]
        rs = [c["pearson"] for c in per.values() if c["pearson"] is not None]
        out[a] = {"spearman": _r4(fmean(rhos)) if rhos else None, "pearson": _r4(fmean(rs)) if rs else None,
                  "n": sum(c["n"] for c in per.values()), "positions": per}
    return out


def _p(p: float) -> float | None:
    import math

    return None if p is None or math.isnan(p) else float(f"{float(p):.3g}")


def regressions(
    rows: Sequence[RatingRow], sets: Sequence[str] = REGRESSION_SETS
) -> dict[str, Regression]:
    """OLS of overall impression on each aspect set (with intercept): R², adjusted R², n."""
    import numpy as np
    import statsmodels.api as sm

    out: dict[str, Regression] = {}
    for name in sets:
        aspects = [ABBREV[k] for k in name.split("+")]
        usable = [
            r for r in rows if r.overall is not None and all(getattr(r, a) is not None for a in aspects)
        ]
        if len(usable) <= len(aspects) + 1:
            out[name] = {"aspects": aspects, "r2": None, "adj_r2": None, "n": len(usable)}
            continue
        x = np.array([[float(getattr(r, a)) for a in aspects] for r in usable])
        y = np.array([float(r.overall) for r in usable])  # type: ignore[arg-type]
        fit = sm.OLS(y, sm.add_constant(x, has_constant="add")).fit()
        out[name] = {
            "aspects": aspects,
            "r2": _r4(fit.rsquared),
            "adj_r2": _r4(fit.rsquared_adj),
            "n": len(usable),
        }
    return out


def _matrix(
    values: Sequence[tuple[str, str, int]],
) -> tuple[list[str], list[str], dict[tuple[str, str], int]]:
    raters = sorted({v[1] for v in values})
    items = sorted({v[0] for v in values})
    return raters, items, {(i, r): x for i, r, x in values}


def agreement(values: Sequence[tuple[str, str, int]], *, lo: int, hi: int, level: str = "ordinal"
              ) -> Agreement:
    """Agreement over ``(item, rater, value)`` triples; only items rated by two raters or more count."""
    import numpy as np

    per_item: dict[str, list[int]] = {}
    for item, _rater, v in values:
        per_item.setdefault(item, []).append(v)
    multi = {i: vs for i, vs in per_item.items() if len(vs) >= 2}
    res: Agreement = {"items": len(multi), "fleiss_kappa": None, "fleiss_items": 0, "fleiss_raters": 0,
                      "krippendorff_alpha": None}
    if not multi:
        return res
    from statsmodels.stats.inter_rater import fleiss_kappa

    k = Counter(len(vs) for vs in multi.values()).most_common(1)[0][0]
    observed = [v for vs in multi.values() for v in vs]
    cats = list(range(min(lo, *observed), max(hi, *observed) + 1))  # values outside the scale stay categories
    table = np.array([[vs.count(c) for c in cats] for vs in multi.values() if len(vs) == k])
    if len(table) >= 2 and (table.sum(axis=0) > 0).sum() >= 2:
        res["fleiss_kappa"] = _r4(fleiss_kappa(table, method="fleiss"))
        res["fleiss_items"], res["fleiss_raters"] = len(table), k
    try:
        import krippendorff
    except ImportError:
        return res
    kept = [(i, r, v) for i, r, v in values if i in multi]
    raters, items, cell = _matrix(kept)
    data = np.array([[cell.get((i, r), np.nan) for i in items] for r in raters], dtype=float)
    if len({v for _i, _r, v in kept}) >= 2:
        res["krippendorff_alpha"] = _r4(krippendorff.alpha(reliability_data=data, level_of_measurement=level))  # type: ignore[arg-type]
    return res


def analyse(rows: Sequence[RatingRow], turns: Sequence[TurnValue] = ()) -> SatisfactionReport:
    """The full analysis of a ratings table (see the module docstring)."""
    dist: dict[str, Counter[int | str]] = {a: Counter() for a in (*ASPECTS, "overall")}
    for t in turns:
        for a in TURN_ASPECTS:
            v = getattr(t, a)
            if v is not None:
                dist[a][NOT_APPLICABLE if v == NOT_APPLICABLE else int(v)] += 1
    for r in rows:
        for a in (*DIALOGUE_ASPECTS, "overall"):
            v = getattr(r, a)
            if v is not None:
                dist[a][int(v)] += 1
    agree: dict[str, Agreement] = {}
    for a in (*DIALOGUE_ASPECTS, "overall"):
        lo, hi = SCALES[a]
        vals = [(r.item, r.rater, int(getattr(r, a))) for r in rows if getattr(r, a) is not None]
        agree[a] = agreement(vals, lo=lo, hi=hi, level="nominal" if a == "efficiency" else "ordinal")
    for a in TURN_ASPECTS:
        lo, hi = SCALES[a]
        vals = [(t.turn, t.rater, int(v)) for t in turns if (v := number(getattr(t, a))) is not None]
        agree[a] = agreement(vals, lo=lo, hi=hi)
    overall_by: dict[str, dict[int, Counter[int]]] = {}
    for a in ("interest_arousal", "efficiency"):
        for r in rows:
            v = getattr(r, a)
            if v is not None and r.overall is not None:
                overall_by.setdefault(a, {}).setdefault(int(v), Counter())[int(r.overall)] += 1
    notes = []
    if not any(r.relevance is not None or r.interestingness is not None for r in rows):
        notes.append("no turn ratings by the raters of the rated dialogues: turn aspects left out")
    na = dist["relevance"].get(NOT_APPLICABLE, 0)
    if na:
        notes.append(f"relevance: {na} turn rating(s) not applicable, left out of means, correlations, "
                     "regressions and agreement")
    rater = correlations(rows)
    units: dict[str, Mapping[str, Correlation | TurnCorrelation]] = {
        "rater": rater,
        "dialogue": correlations(dialogue_means(rows)),
        "turn": turn_level(rows, turns),
    }
    return SatisfactionReport(
        n_ratings=len(rows), n_dialogues=len({r.item for r in rows}), n_raters=len({r.rater for r in rows}),
        distributions={a: dict(c) for a, c in dist.items()}, correlations=rater,
        regression=regressions(rows), agreement=agree,
        overall_by={a: {v: dict(c) for v, c in d.items()} for a, d in overall_by.items()}, notes=tuple(notes),
        units=units)
