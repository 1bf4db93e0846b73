"""The training data loader keeps the evaluation split out: a training dialogue with a held-out id, or a copy
of a held-out dialogue (re-cased, re-punctuated, under another id or none), is dropped with a reason, whatever
layout it comes in; dialogue text without ids is refused unless a split to keep out is named.

The dialogues below are our own, written for these tests.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.engine.train.data import DataError
from parley.engine.train.overlap import HeldOut, utterance_key
from parley.engine.train.sources import load, summary

#: the held-out split: two dialogues of our own
HELD = {
    "PMUL9001.json": ["i am after a quiet guest house on the north side",
                      "there are four of those, do you want free parking?",
                      "yes parking matters to me, and wifi too",
                      "the lime tree lodge has both, shall i book it?",
                      "thank you goodbye",
                      "goodbye"],
    "SNG9002.json": ["which trains go to stansted on a sunday morning",
                     "the first one leaves at five past six",
                     "book me two seats on that one please",
                     "done, your reference is qq77aa11",
                     "thank you goodbye",
                     "goodbye"],
}
#: utterances nobody held out said
FRESH = ["could you find me a cheap curry house in the centre",
         "i have three of those, any area you prefer?",
         "the centre is fine, book a table for five at noon",
         "all set, the table is yours",
         "thank you goodbye",
         "goodbye"]


def _mwz(dialogues: dict[str, list[str]]) -> dict[str, Any]:
    return {did: {"log": [{"text": u, "metadata": {}} for u in us]} for did, us in dialogues.items()}


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _recase(u: str) -> str:
    """The same utterance as another copy of the corpus might spell it."""
    return u[0].upper() + u[1:].replace(",", " ,") + " ."


@pytest.fixture
def held(tmp_path: Path) -> HeldOut:
    with zipfile.ZipFile(tmp_path / "test.json.zip", "w") as zf:
        zf.writestr("test.json", json.dumps(_mwz(HELD)))
    return HeldOut.from_file(tmp_path / "test.json.zip")


def test_multiwoz_layout_drops_held_out_ids_and_copies(tmp_path: Path, held: HeldOut) -> None:
    train = _write(tmp_path / "train.json", _mwz({
        "pmul9001": FRESH,                                           # a held-out id (case, no .json)
        "MUL0001.json": [_recase(u) for u in HELD["SNG9002.json"]],  # a copy under another id
        "MUL0002.json": FRESH,                                       # shares only "thank you goodbye"
        "MUL0003.json": FRESH[:2] + HELD["PMUL9001.json"][:1] + FRESH[2:],  # one held-out sentence: kept
    }))
    data = load([train], [held])
    assert sorted(data.dialogues) == ["MUL0002", "MUL0003"]
    reasons = {d.dialogue: d.reason for d in data.dropped}
    assert reasons == {"pmul9001": "its id is a dialogue of test.json.zip",
                       "MUL0001": "4 of its utterances are in sng9002 of test.json.zip"}
    assert summary(data) == [{"file": "train.json", "kind": "multiwoz", "sha256": data.files[0].sha256,
                              "read": 4, "kept": 2, "repeated": 0, "dropped_overlap": 2}]


def test_icdst_records_with_a_held_out_id_are_dropped(tmp_path: Path, held: HeldOut) -> None:
    def records(did: str, usr: list[str], sys: list[str]) -> list[dict[str, Any]]:
        return [{"ID": did, "turn_id": i, "dialog": {"usr": usr[:i + 1], "sys": ["none", *sys[:i]]},
                 "slot_values": {"hotel-area": "north"}} for i in range(len(usr))]

    fresh_usr, fresh_sys = FRESH[0::2], FRESH[1::2]
    train = _write(tmp_path / "icdst.json", records("SNG9002.json", fresh_usr, fresh_sys)
                   + records("MUL0100.json", fresh_usr, fresh_sys))
    data = load([train], [held])
    assert list(data.dialogues) == ["MUL0100"]
    assert data.dialogues["MUL0100"]["log"][1]["metadata"]["hotel"]["semi"] == {"area": "north"}
    assert [(d.dialogue, d.reason) for d in data.dropped] == [
        ("SNG9002", "its id is a dialogue of test.json.zip")]


def test_dialogue_text_drops_copies_and_needs_a_split_to_keep_out(tmp_path: Path, held: HeldOut) -> None:
    blocks = [FRESH, [_recase(u) for u in HELD["PMUL9001.json"]],
              ["hello there", "thank you goodbye", "goodbye"]]  # short, mostly held-out stock phrases
    with zipfile.ZipFile(tmp_path / "text.zip", "w") as zf:
        zf.writestr("shard_001.txt", "\n\n".join("\n".join(b) for b in blocks) + "\n")
    data = load([tmp_path / "text.zip"], [held])
    assert list(data.texts.values()) == [FRESH]
    assert [d.reason for d in data.dropped] == ["4 of its utterances are in pmul9001 of test.json.zip",
                                                "2 of its 3 utterances occur in test.json.zip"]
    with pytest.raises(DataError, match="name the split to keep out"):
        load([tmp_path / "text.zip"])


def test_train_tod_refuses_text_without_exclude(tmp_path: Path) -> None:
    from parley.cli import main

    (tmp_path / "t.txt").write_text("\n".join(FRESH) + "\n", encoding="utf-8")
    train = _write(tmp_path / "train.json", _mwz({"MUL0002.json": FRESH}))
    res = CliRunner().invoke(main, ["train", "tod", "--data", str(train), "--pretrain-text",
                                    str(tmp_path / "t.txt"), "--out", str(tmp_path / "m"), "--steps", "1"])
    assert res.exit_code == 2
    assert "parley: error:" in res.stderr and "--exclude" in res.stderr
    assert not (tmp_path / "m").exists() or not any((tmp_path / "m").iterdir())


_SPELLINGS = st.sampled_from([str.upper, str.lower, _recase, lambda u: u.replace(" ", "  ") + "!"])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(HELD)), st.lists(_SPELLINGS, min_size=6, max_size=6), st.booleans())
def test_any_respelling_of_a_held_out_dialogue_is_dropped(did: str, spell: list[Any], text: bool) -> None:
    held = HeldOut(HELD, name="test")
    copy = [f(u) for f, u in zip(spell, HELD[did], strict=True)]
    assert {utterance_key(u) for u in copy} == {utterance_key(u) for u in HELD[did]}
    assert held.reason(None if text else "MUL7777", copy) is not None
    assert held.reason(None if text else "MUL7777", [f(u) for f, u in zip(spell, FRESH, strict=True)]) is None


@pytest.mark.shared
def test_real_train_text_keeps_the_test_split_out(shared_data: Path) -> None:
    """The offline train utterances hold copies of test dialogues' turns: the loader drops what matches test,
    and no kept dialogue shares three long utterances with one test dialogue."""
    test = HeldOut.from_file(shared_data / "multiwoz" / "convlab3" / "test.json.zip")
    partial = shared_data / "multiwoz" / "train-partial"
    data = load([partial / "mwz22_train_utterances.zip", partial / "damd_subset_903.json.zip"], [test])
    assert data.texts and any(d.source == "mwz22_train_utterances.zip" for d in data.dropped)
    assert all(test.reason(None, b) is None for b in data.texts.values())
    # the DAMD file holds 83 test dialogues (its README): all dropped by id, none kept
    by_id = [d for d in data.dropped if d.reason.startswith("its id is")]
    assert len(by_id) == 83 and not test.ids & set(map(str.lower, data.dialogues))


def test_a_training_run_records_what_it_kept_out(tmp_path: Path, held: HeldOut) -> None:
    """A tiny run on annotated dialogues plus dialogue text: the held-out copies are not trained on and the
    manifest names each with its reason."""
    from parley.engine.train.loop import TrainConfig, train
    from tests.unit.test_train import DIALOGUES

    data = _write(tmp_path / "mini.json", {**DIALOGUES, "PMUL9001.json": DIALOGUES["T0001.json"]})
    text = "\n\n".join("\n".join(b) for b in (FRESH, HELD["SNG9002.json"])) + "\n"
    (tmp_path / "text.txt").write_text(text, encoding="utf-8")
    cfg = TrainConfig(data=str(data), out=str(tmp_path / "m"), layers=1, dim=32, heads=2, vocab=300,
                      block=256, steps=2, batch_size=4, threads=1, pretrain=(str(tmp_path / "text.txt"),),
                      pretrain_steps=1, exclude=(str(tmp_path / "test.json.zip"),))
    result = train(cfg)
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text(encoding="utf-8"))
    dropped = manifest["data"]["dropped"]
    assert [(d["file"], d["reason"]) for d in dropped] == [
        ("mini.json", "its id is a dialogue of test.json.zip"),
        ("text.txt", "4 of its utterances are in sng9002 of test.json.zip")]
    assert manifest["data"]["dialogues"] == 5 and manifest["data"]["texts"] == 1
    assert set(result.stages) == {"pretrain", "finetune"}
