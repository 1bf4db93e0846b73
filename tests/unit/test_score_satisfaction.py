"""Satisfaction statistics on a small authored ratings table, checked against values computed here with plain
numpy (ranks, correlation, least squares, Fleiss' formula) rather than the libraries the module uses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from parley.engine.scoring.satisfaction import analyse, rows_from_store
from parley.store import open_store
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord
from tests.unit.goldens import check_golden

GOLDEN = Path(__file__).parent / "golden"

#: session -> rater -> (understanding, task completion, interest arousal, efficiency, overall,
#:                      [(relevance, interestingness) of system turn 1, of system turn 2])
TABLE = {
    "s1": {"ann": (3, 3, 3, 1, 5, [(3, 2), (3, 3)]), "ben": (3, 3, 2, 1, 4, [(3, 2), (2, 2)]),
           "cy": (3, 2, 3, 1, 5, [(3, 3), (3, 2)])},
    "s2": {"ann": (2, 2, 2, 0, 3, [(2, 1), (2, 2)]), "ben": (2, 1, 1, 0, 2, [(1, 1), (2, 1)]),
           "cy": (3, 2, 2, 1, 3, [(2, 2), (3, 1)])},
    "s3": {"ann": (1, 1, 1, 0, 1, [(1, 1), (1, 1)]), "ben": (2, 1, 2, 0, 2, [(1, 2), (1, 1)]),
           "cy": (1, 1, 1, 0, 1, [(2, 1), (1, 1)])},
    "s4": {"ann": (3, 3, 2, 1, 4, [(3, 1), (2, 2)]), "ben": (3, 2, 3, 0, 4, [(2, 3), (3, 2)]),
           "cy": (2, 3, 3, 1, 5, [(3, 2), (3, 3)])},
}


def build_store(path: Path):  # type: ignore[no-untyped-def]
    store = open_store(path)
    for sid, by_rater in TABLE.items():
        store.add_session(SessionRecord(id=sid, mode="annotation", system_name="authored",
                                        started_at=f"2026-01-01T10:00:0{sid[1]}.000000+00:00"))
        for i, role in enumerate(("user", "system", "user", "system")):
            store.add_turn(
                TurnRecord(
                    session_id=sid,
                    index=i,
                    role=role,
                    text=f"{role} {i}",
                    id=f"{sid}-t{i}",
                    created_at="2026-01-01T10:00:00.000000+00:00",
                )
            )
        for rater, (u, tc, ia, e, o, turns) in by_rater.items():
            for (rel, intr), idx in zip(turns, (1, 3), strict=True):
                store.rate_turn(TurnRating(f"{sid}-t{idx}", rater, rel, intr))
            store.rate_dialogue(DialogueRating(sid, rater, u, tc, ia, e, o, "", created_at="2026-01-01"))
    return store


def _ranks(x: np.ndarray) -> np.ndarray:
    order = x.argsort(kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    for v in np.unique(x):  # average ranks of ties
        ranks[x == v] = ranks[x == v].mean()
    return ranks


def _columns() -> dict[str, np.ndarray]:
    cols: dict[str, list[float]] = {k: [] for k in ("understanding", "task_completion", "interest_arousal",
                                                     "efficiency", "overall", "relevance", "interestingness")}
    for by_rater in TABLE.values():
        for u, tc, ia, e, o, turns in by_rater.values():
            for k, v in zip(("understanding", "task_completion", "interest_arousal", "efficiency", "overall"),
                            (u, tc, ia, e, o), strict=True):
                cols[k].append(v)
            cols["relevance"].append(sum(t[0] for t in turns) / len(turns))
            cols["interestingness"].append(sum(t[1] for t in turns) / len(turns))
    return {k: np.array(v, dtype=float) for k, v in cols.items()}


def _r2(y: np.ndarray, xs: list[np.ndarray]) -> float:
    x = np.column_stack([np.ones(len(y)), *xs])
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    res = y - x @ beta
    return float(1 - (res @ res) / ((y - y.mean()) @ (y - y.mean())))


def _fleiss(table: np.ndarray) -> float:
    n = table.sum(axis=1)[0]
    p_j = table.sum(axis=0) / table.sum()
    p_i = ((table * table).sum(axis=1) - n) / (n * (n - 1))
    return float((p_i.mean() - (p_j**2).sum()) / (1 - (p_j**2).sum()))


@pytest.fixture
def report(tmp_path: Path):  # type: ignore[no-untyped-def]
    store = build_store(tmp_path / "r.db")
    rows, turns = rows_from_store(store)
    return analyse(rows, turns)


def test_counts_and_distributions(report) -> None:  # type: ignore[no-untyped-def]
    assert (report.n_ratings, report.n_dialogues, report.n_raters) == (12, 4, 3)
    assert report.distributions["overall"] == {1: 2, 2: 2, 3: 2, 4: 3, 5: 3}
    assert sum(report.distributions["relevance"].values()) == 24  # every rated turn, not per-dialogue means
    assert report.distributions["efficiency"] == {0: 6, 1: 6}


def test_correlations_match_independent_computation(report) -> None:  # type: ignore[no-untyped-def]
    c = _columns()
    y = c["overall"]
    for aspect in ("relevance", "interestingness", "understanding", "task_completion", "interest_arousal",
                   "efficiency"):
        x = c[aspect]
        pearson = np.corrcoef(x, y)[0, 1]
        spearman = np.corrcoef(_ranks(x), _ranks(y))[0, 1]
        got = report.correlations[aspect]
        assert got["n"] == 12
        assert got["pearson"] == pytest.approx(pearson, abs=1e-4), aspect
        assert got["spearman"] == pytest.approx(spearman, abs=1e-4), aspect
        assert 0 <= got["pearson_p"] <= 1


def test_regressions_match_least_squares(report) -> None:  # type: ignore[no-untyped-def]
    c = _columns()
    y = c["overall"]
    assert report.regression["TC"]["r2"] == pytest.approx(_r2(y, [c["task_completion"]]), abs=1e-4)
    assert report.regression["R+I"]["r2"] == pytest.approx(
        _r2(y, [c["relevance"], c["interestingness"]]), abs=1e-4
    )
    full = [
        c[a]
        for a in (
            "interest_arousal",
            "task_completion",
            "understanding",
            "interestingness",
            "efficiency",
            "relevance",
        )
    ]
    assert report.regression["IA+TC+U+I+E+R"]["r2"] == pytest.approx(_r2(y, full), abs=1e-4)
    assert list(report.regression) == ["R", "I", "R+I", "U", "TC", "IA", "E", "IA+TC+U+E", "R+TC", "IA+U+I+E",
                                       "IA+TC+U+I+E+R"]


def test_fleiss_kappa_matches_the_formula(report) -> None:  # type: ignore[no-untyped-def]
    table = np.array([[sum(1 for r in TABLE[s].values() if r[4] == k) for k in range(1, 6)] for s in TABLE])
    g = report.agreement["overall"]
    assert (g["items"], g["fleiss_items"], g["fleiss_raters"]) == (4, 4, 3)
    assert g["fleiss_kappa"] == pytest.approx(_fleiss(table), abs=1e-4)
    # turn aspects are agreed over turns: 8 turns, 3 raters each
    assert report.agreement["relevance"]["items"] == 8


def test_krippendorff_alpha_is_one_when_raters_agree(tmp_path: Path) -> None:
    from parley.engine.scoring.satisfaction import agreement

    vals = [(f"d{i}", r, v) for i, v in enumerate([1, 2, 3, 2]) for r in ("a", "b")]
    res = agreement(vals, lo=1, hi=3)
    assert res["krippendorff_alpha"] == pytest.approx(1.0)
    assert res["fleiss_kappa"] == pytest.approx(1.0)


def test_score_satisfaction_cli_json_golden(tmp_path: Path) -> None:
    from parley.cli import main

    db = tmp_path / "r.db"
    build_store(db).close()
    png, page = tmp_path / "s.png", tmp_path / "s.html"
    res = CliRunner().invoke(main, ["score", "--db", str(db), "--satisfaction", "--json", "--plot", str(png),
                                    "--html", str(page)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    golden = GOLDEN / "score_satisfaction.json"
    check_golden(golden, out)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    html = page.read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and "Spearman" in html and "<script" not in html


def test_score_needs_something_to_do(tmp_path: Path) -> None:
    from parley.cli import main

    res = CliRunner().invoke(main, ["score", "--db", str(tmp_path / "none.db"), "--satisfaction"])
    assert res.exit_code == 2 and "no such database" in res.output
    res = CliRunner().invoke(main, ["score", "--db", str(tmp_path / "none.db")])
    assert res.exit_code == 2
