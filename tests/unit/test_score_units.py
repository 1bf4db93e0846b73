"""Units of analysis of the satisfaction statistics (rater, dialogue, the study's turn level) and the
AB-ReDial CSVs read with each relevance coding; the CSVs here are written for this test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from parley.engine.scoring.abredial import read_ratings
from parley.engine.scoring.satisfaction import RatingRow, TurnValue, analyse

DIALOGUES = """ConvId,utterance0,utterance1,understanding,task-completion,interest-arousal,efficiency,\
dialogue-overall,justification-text
c1,USER\tany film tonight?,SYSTEM\ttry a western,3.0,3.0,3.0,1.0,5.0,fine
c1,USER\tany film tonight?,SYSTEM\ttry a western,2.0,3.0,0.0,1.0,4.0,ok
c2,USER\tsomething funny?,SYSTEM\ta comedy then,1.0,1.0,1.0,0.0,1.0,bad
c2,USER\tsomething funny?,SYSTEM\ta comedy then,2.0,1.0,2.0,0.0,2.0,meh
c3,USER\ta thriller?,SYSTEM\tsure one,3.0,2.0,2.0,1.0,4.0,good
c3,USER\ta thriller?,SYSTEM\tsure one,,,,,,
"""
TURNS_HEAD = "ConvId," + ",".join(f"utterance{i}" for i in range(12)) + "," + ",".join(
    f"relevance{k},interestingness{k},overall{k}" for k in (1, 2, 3))


def _turn_row(conv: str, rel: tuple[int, int, int], intr: tuple[int, int, int]) -> str:
    utts = ["USER\thi", "SYSTEM\thello", "SYSTEM\tpick", "USER\tok"] * 3
    return ",".join([conv, *utts] + [f"{r}.0,{i}.0,3.0" for r, i in zip(rel, intr, strict=True)])


TURNS = "\n".join([TURNS_HEAD, _turn_row("c1", (4, 4, 3), (3, 2, 3)), _turn_row("c1", (4, 3, 1), (2, 2, 3)),
                   _turn_row("c2", (2, 0, 1), (1, 1, 2)), _turn_row("c2", (2, 2, 3), (1, 2, 1)),
                   _turn_row("c3", (3, 4, 4), (2, 3, 2)), _turn_row("c3", (4, 4, 4), (3, 3, 3))]) + "\n"


@pytest.fixture()
def csvs(tmp_path: Path) -> tuple[Path, Path]:
    d, t = tmp_path / "d.csv", tmp_path / "t.csv"
    d.write_text(DIALOGUES, encoding="utf-8")
    t.write_text(TURNS, encoding="utf-8")
    return d, t


def test_codings_count_what_they_drop(csvs: tuple[Path, Path]) -> None:
    d, t = csvs
    paper = read_ratings(d, t, "paper")
    assert paper.coding == "paper" and len(paper.rows) == 6 and len(paper.turns) == 18
    assert paper.outside == {"relevance=4": 8, "relevance=0": 1, "interest_arousal=0": 1}
    assert paper.dropped == {
        f"{a} (blank)": 1
        for a in ("understanding", "task_completion", "interest_arousal", "efficiency", "overall")
    }
    shifted = read_ratings(d, t, "auto")
    assert shifted.coding == "shifted"
    # 1 is "not applicable": kept as its own value (counted apart, out of the numbers), 0 is dropped
    assert "relevance=1 (not applicable)" not in shifted.dropped
    assert shifted.dropped["relevance=0 (unexplained)"] == 1
    assert [t.relevance for t in shifted.turns[:3]] == [3, 3, 2]
    assert sum(t.relevance == "n/a" for t in shifted.turns) == 2
    sat = analyse(shifted.rows, shifted.turns).to_json()
    assert sat["distributions"]["relevance"]["n/a"] == 2
    assert any("2 turn rating(s) not applicable" in n for n in sat["notes"])


def test_dialogue_level_is_the_correlation_of_means(csvs: tuple[Path, Path]) -> None:
    d, t = csvs
    r = read_ratings(d, t, "paper")
    units = analyse(r.rows, r.turns).units
    overall = [np.mean([5, 4]), np.mean([1, 2]), 4.0]
    understanding = [2.5, 1.5, 3.0]
    assert units["dialogue"]["understanding"]["spearman"] == pytest.approx(
        stats.spearmanr(understanding, overall).statistic, abs=1e-4)
    relevance = [np.mean([4, 4, 3, 4, 3, 1]), np.mean([2, 0, 1, 2, 2, 3]), np.mean([3, 4, 4, 4, 4, 4])]
    assert units["dialogue"]["relevance"]["pearson"] == pytest.approx(
        stats.pearsonr(relevance, overall).statistic, abs=1e-4)
    assert units["dialogue"]["relevance"]["n"] == 3 and units["rater"]["understanding"]["n"] == 5


def test_turn_level_averages_the_positions() -> None:
    rows = [RatingRow(f"d{i}", "a", o) for i, o in enumerate([1, 2, 3, 4, 5])]
    firsts, seconds = [1, 1, 2, 3, 3], [3, 2, 2, 1, 1]
    turns = [TurnValue(f"t{i}", f"d{i}", "a", v, v, 1) for i, v in enumerate(firsts)]
    turns += [TurnValue(f"u{i}", f"d{i}", "a", v, v, 2) for i, v in enumerate(seconds)]
    tl = analyse(rows, turns).units["turn"]["relevance"]
    rho1 = stats.spearmanr(firsts, [1, 2, 3, 4, 5]).statistic
    rho2 = stats.spearmanr(seconds, [1, 2, 3, 4, 5]).statistic
    assert tl["positions"]["1"]["spearman"] == pytest.approx(rho1, abs=1e-4)
    assert tl["spearman"] == pytest.approx((rho1 + rho2) / 2, abs=1e-4)


def test_cli_reads_the_csvs(csvs: tuple[Path, Path]) -> None:
    from parley.cli import main

    d, t = csvs
    res = CliRunner().invoke(main, ["score", "--satisfaction", "--abredial", str(d), "--turn-file", str(t),
                                    "--relevance-coding", "paper", "--json"])
    assert res.exit_code == 0, res.output
    sat = json.loads(res.stdout)["satisfaction"]
    assert set(sat["units"]) == {"rater", "dialogue", "turn"} and sat["source"]["coding"] == "paper"
    res = CliRunner().invoke(main, ["score", "--satisfaction", "--abredial", str(d), "--turn-file", str(t)])
    assert res.exit_code == 0 and "dialogue-level" in res.output and "paper Table 1" in res.output
    res = CliRunner().invoke(main, ["score", "--abredial", str(d)])
    assert res.exit_code == 2


@pytest.mark.shared
def test_abredial_dialogue_level_lands_on_the_independent_figures(shared_data: Path) -> None:
    folder = shared_data / "ab-redial"
    r = read_ratings(folder / "annotated_dialogues.csv", folder / "annotated_turns.csv", "paper")
    dialogue = analyse(r.rows, r.turns).units["dialogue"]
    # per-dialogue means from the raw CSVs, scales as in the files
    expected = {
        "relevance": 0.416,
        "interestingness": 0.302,
        "understanding": 0.674,
        "task_completion": 0.769,
        "interest_arousal": 0.702,
        "efficiency": 0.527,
    }
    for aspect, rho in expected.items():
        assert dialogue[aspect]["spearman"] == pytest.approx(rho, abs=0.0015), aspect


def test_dialogue_level_turn_aspects_average_each_raters_mean() -> None:
    """A rater who rated more turns of a dialogue does not weigh more: the dialogue's relevance is the mean of
    its raters' own means (2.5 for d1: rater a's 2 and b's 3), not of the pooled turns (7/3)."""
    given = {"d1": ({"a": [3, 1], "b": [3]}, 4), "d2": ({"a": [2, 2], "b": [1]}, 2),
             "d3": ({"a": [3, 3], "b": [2, 2]}, 5)}
    rows, turns = [], []
    for item, (by_rater, overall) in given.items():
        for rater, values in by_rater.items():
            rows.append(RatingRow(item, rater, overall, relevance=float(np.mean(values))))
            turns += [TurnValue(f"{item}{rater}{k}", item, rater, v, None, k)
                      for k, v in enumerate(values, 1)]
    dialogue = analyse(rows, turns).units["dialogue"]["relevance"]
    want = stats.pearsonr([2.5, 1.5, 2.5], [4, 2, 5]).statistic
    assert dialogue["pearson"] == pytest.approx(want, abs=1e-4)
