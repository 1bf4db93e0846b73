"""Official DSTC11 track 5 scoring on hand-built files with hand-computed expected values."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from parley.engine.sktod.scoring import average_precision, official_scores, report


def R(domain: str, eid: int, doc: int, sent: int) -> dict:
    return {"domain": domain, "entity_id": eid, "doc_type": "review", "doc_id": doc, "sent_id": sent}


def F(domain: str, eid: int, doc: int, **extra: int) -> dict:
    return {"domain": domain, "entity_id": eid, "doc_type": "faq", "doc_id": doc, **extra}


LABELS = [
    {"target": False},
    {"target": True, "knowledge": [R("hotel", 1, 0, 0), R("hotel", 1, 0, 1), F("hotel", 1, 2)],
     "response": "the wifi is fast"},
    {"target": True, "knowledge": [R("restaurant", 5, 3, 2)], "response": "good food"},
    {"target": False},
    {"target": True, "knowledge": [R("hotel", 2, 1, 1)], "response": "the rooms are quiet"},
]
PREDS = [
    # non-target turn predicted as target: detection FP, and its knowledge counts as selection FP
    {"target": True, "knowledge": [R("hotel", 1, 0, 0)], "response": "x"},
    # a duplicate prediction is dropped; the FAQ matches without sent_id (an extra sent_id is ignored)
    {"target": True, "knowledge": [R("hotel", 1, 0, 0), R("hotel", 1, 0, 0), F("hotel", 1, 2, sent_id=7),
                                   R("hotel", 1, 0, 5)], "response": "the wifi is fast"},
    {"target": False},  # missed: detection FN, selection FN
    {"target": False},  # true negative: counted nowhere in selection
    {"target": True, "knowledge": [R("hotel", 2, 1, 1)], "response": "quiet rooms"},
]


def test_detection_and_selection_hand_computed() -> None:
    s = official_scores(LABELS, PREDS, meteor=False)
    # detection: TP 2 (turns 1, 4), FP 1 (turn 0), FN 1 (turn 2)
    assert s["detection"] == pytest.approx({"prec": 2 / 3, "rec": 2 / 3, "f1": 2 / 3})
    # selection: turn0 tp0 fp1; turn1 tp2 fp1 fn1; turn2 fn1; turn4 tp1 → tp3 fp2 fn2; exact 1 of 4 counted
    assert s["selection"] == pytest.approx({"prec": 0.6, "rec": 0.6, "f1": 0.6, "em_acc": 0.25})


def test_generation_reweighting_hand_computed() -> None:
    import sacrebleu

    s = official_scores(LABELS, PREDS, meteor=False)["generation"]
    # turn 1 identical (all ROUGE 1); turn 4 "quiet rooms" vs "the rooms are quiet" (stemmed):
    # R1 P=1 R=1/2 F=2/3; R2 0; RL LCS 1 → P=1/2 R=1/4 F=1/3. P = sum/(TP+FP) = sum/3, R = sum/(TP+FN) = sum/3
    assert s["rouge_1"] == pytest.approx((1 + 2 / 3) / 3)
    assert s["rouge_2"] == pytest.approx(1 / 3)
    assert s["rouge_l"] == pytest.approx((1 + 1 / 3) / 3)
    bleu = sacrebleu.corpus_bleu(["the wifi is fast", "quiet rooms"],
                                 [["the wifi is fast", "the rooms are quiet"]])
    assert s["bleu"] == pytest.approx(bleu.score / 100 * 2 / 3)
    assert s["meteor"] is None and "disabled" in s["meteor_note"]


def test_reference_duplicates_are_not_removed() -> None:
    gold = [{"target": True, "knowledge": [R("hotel", 1, 0, 0), R("hotel", 1, 0, 0)], "response": "a"}]
    pred = [{"target": True, "knowledge": [R("hotel", 1, 0, 0)], "response": "a"}]
    sel = official_scores(gold, pred, meteor=False)["selection"]
    # the official scorer counts each gold×pred match: tp 2, fp 1-2 = -1, fn 0 → P = 2/(2-1) = 2
    assert sel["rec"] == pytest.approx(1.0)
    assert sel["em_acc"] == 0.0


def test_perfect_predictions_score_one() -> None:
    s = official_scores(LABELS, LABELS, meteor=False)
    assert s["detection"]["f1"] == pytest.approx(1.0)
    assert s["selection"] == pytest.approx({"prec": 1.0, "rec": 1.0, "f1": 1.0, "em_acc": 1.0})
    assert s["generation"]["rouge_l"] == pytest.approx(1.0)
    assert s["generation"]["bleu"] == pytest.approx(1.0)


def test_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="5 entries"):
        official_scores(LABELS, PREDS[:3])


def test_report_breakdowns() -> None:
    r = report(LABELS, PREDS)
    assert r["ktd"] == pytest.approx({"tp": 2, "fp": 1, "fn": 1, "tn": 1, "prec": 2 / 3, "rec": 2 / 3,
                                      "f1": 2 / 3})
    # ET from the selected knowledge: turns 1 and 4 right, turn 2 (not detected) wrong
    assert r["et"]["accuracy"] == pytest.approx(2 / 3)
    assert r["et"]["missing_rate"] == pytest.approx(1 / 3)
    ks = r["ks"]
    assert ks["instances"] == 3
    assert ks["inst_f1"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    # AP turn 1: hits at ranks 1 and 2 of 3 gold → 2/3; turn 2: 0; turn 4: 1
    assert ks["map"] == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert ks["snip_prec"] == pytest.approx(3 / 4) and ks["snip_rec"] == pytest.approx(3 / 5)


def test_average_precision() -> None:
    assert average_precision(["a", "x", "b"], {"a", "b"}) == pytest.approx((1 + 2 / 3) / 2)
    assert average_precision([], {"a"}) == 0.0
    assert average_precision(["a"], set()) == 0.0


def test_cli_score_json(tmp_path) -> None:
    from parley.cli import main

    lab, pred = tmp_path / "labels.json", tmp_path / "pred.json"
    lab.write_text(json.dumps(LABELS))
    pred.write_text(json.dumps(PREDS))
    res = CliRunner().invoke(main, ["sktod", "score", "--labels", str(lab), "--pred", str(pred), "--json",
                                    "--report", "--no-meteor"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert set(out) == {"detection", "selection", "generation", "report"}
    assert set(out["selection"]) == {"prec", "rec", "f1", "em_acc"}
    assert {"bleu", "meteor", "rouge_1", "rouge_2", "rouge_l"} <= set(out["generation"])
    assert out["selection"]["f1"] == pytest.approx(0.6)


def test_cli_score_mismatch_fails_clearly(tmp_path) -> None:
    from parley.cli import main

    lab, pred = tmp_path / "labels.json", tmp_path / "pred.json"
    lab.write_text(json.dumps(LABELS))
    pred.write_text(json.dumps(PREDS[:2]))
    res = CliRunner().invoke(main, ["sktod", "score", "--labels", str(lab), "--pred", str(pred)])
    assert res.exit_code == 2
    assert "5 entries" in res.output


@pytest.mark.slow
def test_meteor_is_a_number_or_explained() -> None:
    s = official_scores(LABELS, PREDS, meteor=True)["generation"]
    if s["meteor"] is None:
        assert s["meteor_note"]
    else:
        assert 0.0 < s["meteor"] <= 1.0


@pytest.mark.parametrize("cmd", [[], ["run"], ["score"], ["train"]])
def test_cli_help(cmd: list[str]) -> None:
    from parley.cli import main

    res = CliRunner().invoke(main, ["sktod", *cmd, "--help"])
    assert res.exit_code == 0 and len(res.output.splitlines()) > 3
