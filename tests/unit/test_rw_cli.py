"""``parley rewrite`` through click's CliRunner."""

from __future__ import annotations

import json

from click.testing import CliRunner

from parley.cli import main

LINES = ("Could you please find me a cheap hotel in the north ? Thank you !\n"
         "I need a train at 13:45 for 3 people .\n")


def test_jsonl_with_steps_in_chain_order() -> None:
    r = CliRunner().invoke(main, ["rewrite", "-r", "asr-sim", "-r", "impolite:scenario=2", "--seed", "5"],
                           input=LINES)
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in r.output.splitlines()]
    assert len(rows) == 2
    for row, line in zip(rows, LINES.splitlines(), strict=True):
        assert row["before"] == line
        assert [s["name"] for s in row["steps"]] == ["impolite", "asr-sim"]
        assert row["steps"][-1]["after"] == row["after"]
        assert row["steps"][0]["params"]["scenario"] == 2
        assert row["after"] == row["after"].lower()
    assert any(c["before"] == "13:45" for c in rows[1]["steps"][1]["changes"])
    again = CliRunner().invoke(main, ["rewrite", "-r", "asr-sim", "-r", "impolite:scenario=2", "--seed", "5"],
                               input=LINES)
    assert again.output == r.output


def test_report_without_ppl() -> None:
    r = CliRunner().invoke(main, ["rewrite", "-r", "impolite", "--report", "--no-ppl"], input=LINES)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert set(rep) == {"n", "acc", "acc_judge", "courtesy_free", "bleu", "ppl", "ppl_ratio_median",
                        "ppl_model",
                        "preserved", "gmean", "change_rate"}
    assert rep["n"] == 2 and rep["ppl"] is None and rep["gmean"] is None and rep["ppl_ratio_median"] is None
    assert rep["acc"] == 100.0 and rep["courtesy_free"] == 100.0 and rep["preserved"] == 100.0
    assert "politeness scorer" in rep["acc_judge"] and "not the paper" in rep["acc_judge"]
    assert "SmolLM2" in rep["ppl_model"]
    assert 0 < rep["bleu"] <= 100
    assert set(rep["change_rate"]) == {"char", "word", "slot"}
    assert rep["change_rate"]["slot"] == 0.0


def test_report_has_no_acc_without_impoliteness() -> None:
    r = CliRunner().invoke(main, ["rewrite", "-r", "disfluency", "--report", "--no-ppl"], input=LINES)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert not {"acc", "gmean", "acc_judge", "courtesy_free"} & set(rep)
    assert rep["preserved"] == 100.0 and set(rep["change_rate"]) == {"char", "word", "slot"}


def test_list_writes_values_as_specs_do() -> None:
    r = CliRunner().invoke(main, ["rewrite", "--list"])
    assert r.exit_code == 0
    assert "profanity=false" in r.output and "model=none" in r.output and "None" not in r.output
    if "asr-real" in r.output and "unavailable" not in r.output:
        assert "snr=none" in r.output


def test_errors_and_list() -> None:
    r = CliRunner().invoke(main, ["rewrite", "-r", "impolite:scenario=9"], input="hi\n")
    assert r.exit_code == 2
    assert "scenario" in r.output
    r = CliRunner().invoke(main, ["rewrite"], input="hi\n")
    assert r.exit_code == 2
    r = CliRunner().invoke(main, ["rewrite", "--list"])
    assert r.exit_code == 0 and "asr-sim" in r.output and "wer=" in r.output
    r = CliRunner().invoke(main, ["rewrite", "--help"])
    assert r.exit_code == 0 and "--report" in r.output
