"""`parley train tod`: data → SimpleTOD sequences, a tiny deterministic training run, the manifest, the CLI.

The dialogues are written here (MultiWOZ 2.1 / ConvLab-3 layout); the models are tiny GPT-2s built by the run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from parley.engine.mwdb import load_db
from parley.engine.systems.hf_common import load_format
from parley.engine.train.data import DataError, build_examples, delexicalise, read_dialogues


def _frame(semi: dict[str, str], book: dict[str, str] | None = None) -> dict[str, Any]:
    return {"book": {"booked": [], **(book or {})}, "semi": semi}


def _metadata(restaurant: dict[str, str], book: dict[str, str] | None = None) -> dict[str, Any]:
    empty_train = {"leaveAt": "", "destination": "", "day": "", "arriveBy": "", "departure": ""}
    return {"restaurant": _frame({"food": "", "pricerange": "", "name": "", "area": "", **restaurant}, book),
            "train": _frame(empty_train), "police": _frame({})}


def _dialogue(area: str, food: str, name: str, people: str) -> dict[str, Any]:
    sys1 = f"There are some {food} places in the {area} . Any price range ?"
    sys2 = f"I booked {name} for {people} , the reference is ABCD1234 ."
    n = len(name.split())
    return {"goal": {"restaurant": {"info": {"area": area, "food": food}, "reqt": [], "fail_info": {}}},
            "log": [
                {"text": f"I want {food} food in the {area} please .", "metadata": {}, "dialog_act": {},
                 "span_info": []},
                {"text": sys1, "metadata": _metadata({"food": food, "area": area}),
                 "dialog_act": {"Restaurant-Inform": [["Food", food], ["Area", area]],
                                "Restaurant-Request": [["Price", "?"]]},
                 "span_info": [["Restaurant-Inform", "Food", food, 3, 3],
                               ["Restaurant-Inform", "Area", area, 7, 7]]},
                {"text": f"Any is fine . Book it for {people} people .", "metadata": {}, "dialog_act": {},
                 "span_info": []},
                {"text": sys2, "metadata": _metadata({"food": food, "area": area, "pricerange": "dontcare"},
                                                     {"people": people}),
                 "dialog_act": {"Booking-Book": [["Name", name], ["People", people], ["Ref", "ABCD1234"]]},
                 "span_info": [["Booking-Book", "Name", name, 2, 1 + n],
                               ["Booking-Book", "People", people, 3 + n, 3 + n],
                               ["Booking-Book", "Ref", "ABCD1234", 8 + n, 8 + n]]},
            ]}


DIALOGUES = {
    "T0001.json": _dialogue("north", "italian", "da vinci pizzeria", "2"),
    "T0002.json": _dialogue("centre", "chinese", "charlie chan", "4"),
    "T0003.json": _dialogue("south", "indian", "taj tandoori", "3"),
    "T0004.json": _dialogue("east", "british", "grafton hotel restaurant", "5"),
    "T0005.json": _dialogue("west", "thai", "sala thong", "2"),
}


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    p = tmp_path / "mini.json"
    p.write_text(json.dumps(DIALOGUES), encoding="utf-8")
    return p


def test_sequences_in_simpletod_db_format(data_file: Path) -> None:
    fmt = load_format("simpletod-db")
    ex = build_examples(read_dialogues(data_file), fmt, load_db())
    assert len(ex) == 10 and ex[0].prompt == ("<|endoftext|> <|context|> <|user|> i want italian food in the "
                                              "north please . <|endofcontext|>")
    assert ex[0].target == (
        "<|belief|> restaurant food italian , restaurant area north <|endofbelief|> <|dbsearch|> restaurant "
        "match=1 <|endofdbsearch|> <|action|> restaurant inform food , restaurant inform area , restaurant "
        "request price <|endofaction|> <|response|> there are some [value_food] places in the [value_area] . "
        "any price range ? <|endofresponse|>")
    # turn 2: the lexicalised system turn in the context, booking spans delexicalised for the turn's domain
    assert "<|system|> there are some italian places in the north . any price range ?" in ex[1].prompt
    assert ex[1].target.endswith("<|response|> i booked [restaurant_name] for [value_people] , the reference "
                                 "is [restaurant_reference] . <|endofresponse|>")
    assert ex[1].target.startswith("<|belief|> restaurant food italian , restaurant pricerange dontcare , "
                                   "restaurant area north , restaurant book people 2 <|endofbelief|>")


def test_delexicalise_overlaps_and_bad_indices() -> None:
    spans = [["Train-Inform", "Leave", "10:15", 3, 3], ["Train-Inform", "Time", "10:15", 3, 3],
             ["Train-Inform", "Id", "TR1234", 9, 9], ["Hotel-Inform", "Price", "cheap", 6, 6]]
    assert delexicalise("the train leaves 10:15 , a cheap one", spans, "train") == \
        "the train leaves [value_leave] , a [value_pricerange] one"


def test_bad_data_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_dialogues(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"x": {"turns": []}}')
    with pytest.raises(DataError, match="ConvLab-3"):
        read_dialogues(bad)


def _tiny(data: Path, out: Path, **kw: Any) -> Any:
    from parley.engine.train.loop import TrainConfig, train

    cfg = TrainConfig(data=str(data), out=str(out), layers=1, dim=32, heads=2, vocab=300, block=256, steps=3,
                      batch_size=4, threads=1, **kw)
    return train(cfg)


def test_tiny_run_is_deterministic_and_matches_its_manifest(data_file: Path, tmp_path: Path) -> None:
    from parley.engine.train.manifest import verify

    a, b = _tiny(data_file, tmp_path / "a"), _tiny(data_file, tmp_path / "b")
    assert a.steps == b.steps == 3 and a.examples == 10
    for name in ("model.safetensors", "tokenizer.json", "config.json", "parley-format.toml"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    c = _tiny(data_file, tmp_path / "c", seed=1)
    weights = [(tmp_path / d / "model.safetensors").read_bytes() for d in "ac"]
    assert weights[0] != weights[1]
    assert c.steps == 3
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["seed"] == 0 and manifest["steps"] == 3 and manifest["format"] == "simpletod-db"
    assert manifest["data"]["file"] == "mini.json" and len(manifest["data"]["sha256"]) == 64
    assert manifest["figures"]["tokens"] > 0 and manifest["figures"]["tokens_per_s"] > 0
    assert verify(tmp_path / "a") == []
    (tmp_path / "a" / "tokenizer.json").write_text("{}")
    assert verify(tmp_path / "a") == ["changed: tokenizer.json"]


def test_trained_folder_answers_through_hf_causal(data_file: Path, tmp_path: Path) -> None:
    from parley.engine.systems import build_system
    from parley.engine.types import Message

    _tiny(data_file, tmp_path / "m")
    fmt = (tmp_path / "m" / "parley-format.toml").read_text()
    assert "max_turns = 3" in fmt and "salesforce/simpletod" in fmt
    system = build_system(f"neural:model={tmp_path / 'm'},max_new_tokens=12")
    turn = system.respond((Message("user", "I want italian food in the north"),))
    assert isinstance(turn.text, str) and turn.text  # an untrained model: most likely the fallback reply
    assert turn.internals["format"] == "simpletod-db" and "raw_output" in turn.internals


@pytest.mark.subprocess
def test_cli_refuses_a_non_empty_output_folder_and_bad_data(data_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    cmd = [sys.executable, "-c", "from parley.cli import main; main()", "train", "tod", "--data",
           str(data_file), "--steps", "1"]
    r = subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not empty" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert (out / "keep.txt").read_text() == "mine"
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    r = subprocess.run([*cmd[:6], str(bad), "--steps", "1", "--out", str(tmp_path / "new")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "bad.json" in r.stderr and "Traceback" not in r.stderr


def test_fine_tuning_a_base_model_adds_the_markers(data_file: Path, tmp_path: Path) -> None:
    """--base: the base tokenizer gets the format's markers as single tokens, the embeddings grow;
    deterministic."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from parley.engine.train.loop import TrainConfig, train

    base = tmp_path / "base"
    words = sorted({w for d in DIALOGUES.values() for t in d["log"] for w in t["text"].lower().split()})
    vocab = {t: i for i, t in enumerate(["<|endoftext|>", "<unk>", *words])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", eos_token="<|endoftext|>")
    tok.save_pretrained(str(base))
    torch.manual_seed(0)
    conf = GPT2Config(vocab_size=len(tok), n_embd=16, n_layer=1, n_head=2, n_positions=512)
    GPT2LMHeadModel(conf).save_pretrained(str(base))
    runs = []
    for name in ("x", "y"):
        cfg = TrainConfig(data=str(data_file), out=str(tmp_path / name), base=str(base), steps=2,
                          batch_size=4, lr=1e-3, threads=1)
        runs.append(train(cfg))
    weights = [(tmp_path / d / "model.safetensors").read_bytes() for d in "xy"]
    assert weights[0] == weights[1]
    from transformers import AutoTokenizer

    trained = AutoTokenizer.from_pretrained(str(tmp_path / "x"))
    assert len(trained("<|belief|> <|endofbelief|>", add_special_tokens=False)["input_ids"]) == 2
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    assert runs[0].parameters > 0 and manifest["config"]["base"] == str(base)


def test_delta_format_sequences_carry_the_previous_state(data_file: Path) -> None:
    """``simpletod-delta``: the state before the turn is in the context, the target is the turn's update."""
    fmt = load_format("simpletod-delta")
    ex = build_examples(read_dialogues(data_file), fmt, load_db())
    assert ex[0].prompt == ("<|endoftext|> <|context|> <|belief|> <|endofbelief|> <|user|> i want italian "
                            "food in the north please . <|endofcontext|>")
    assert ex[0].target.startswith("<|belief|> restaurant food italian , restaurant area north "
                                   "<|endofbelief|> <|dbsearch|> restaurant match=1 <|endofdbsearch|>")
    # turn 2: the corpus state of turn 1 before the user's turn; only the new slots are written
    assert ex[1].prompt.endswith("<|system|> there are some italian places in the north . any price range ? "
                                 "<|belief|> restaurant food italian , restaurant area north <|endofbelief|> "
                                 "<|user|> any is fine . book it for 2 people . <|endofcontext|>")
    assert ex[1].target.startswith("<|belief|> restaurant pricerange dontcare , restaurant book people 2 "
                                   "<|endofbelief|> <|dbsearch|> restaurant match=1 <|endofdbsearch|>")
