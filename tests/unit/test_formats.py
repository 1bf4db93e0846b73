"""parley.formats: one reader per format, used by engine, store and the benchmarks alike."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from parley.formats import FormatError, read_json
from parley.formats.dstc11 import read_labels, read_logs
from parley.formats.multiwoz import booked_domains, flatten_state, literal, read_dialogues

META = {"train": {"book": {"booked": [], "people": "2"}, "semi": {"leaveAt": "9:15", "day": "Friday ",
                                                                   "arriveBy": "not mentioned"}},
        "hotel": {"book": {"booked": [{"reference": "X"}], "stay": "", "time": "7:05"}, "semi": {"stars": 4}},
        "bus": {"semi": {"day": "monday"}}}


def test_one_flattener_for_every_reader() -> None:
    assert flatten_state(META) == {"train": {"leaveAt": "09:15", "day": "friday", "book_people": "2"},
                                   "hotel": {"stars": "4", "book_time": "07:05"}}
    assert booked_domains(META) == ("hotel",)
    from parley.engine.scoring.corpus import state_from_metadata
    from parley.engine.systems.mw.dst_eval import gold_state
    from parley.store.imports.multiwoz import flatten_state as store_flatten

    assert state_from_metadata is flatten_state and store_flatten is flatten_state
    assert gold_state(META)["train"]["leaveAt"] == "09:15"


def test_zip_and_json_read_alike(tmp_path: Path) -> None:
    data = {"SNG01": {"goal": {}, "log": []}}
    plain = tmp_path / "d.json"
    plain.write_text(json.dumps(data), encoding="utf-8")
    packed = tmp_path / "d.zip"
    with zipfile.ZipFile(packed, "w") as z:
        z.writestr("d.json", json.dumps(data))
        z.writestr("other.json", "{}")
    assert read_dialogues(plain) == read_dialogues(packed) == data
    with pytest.raises(FormatError, match="exactly one .json"):
        read_dialogues(packed, single_in_zip=True)
    plain.write_text('{"a": [1,', encoding="utf-8")
    with pytest.raises(FormatError, match="line 1, column"):
        read_json(plain)
    with pytest.raises(FormatError, match="no such file"):
        read_json(tmp_path / "none.json")
    plain.write_text("[]", encoding="utf-8")
    with pytest.raises(FormatError, match="object of dialogues"):
        read_dialogues(plain)


def test_literals() -> None:
    assert literal("{'hotel': {'semi': {}}}") == {"hotel": {"semi": {}}}
    assert literal('{"a": 1}') == {"a": 1} and literal("  ") == {}
    with pytest.raises(FormatError, match="key x.metadata"):
        literal("{not it", "x.metadata")


def test_dstc11_files_are_checked(tmp_path: Path) -> None:
    logs, labels = tmp_path / "logs.json", tmp_path / "labels.json"
    logs.write_text(json.dumps([[{"speaker": "U", "text": "is it quiet?"}]]), encoding="utf-8")
    assert read_logs(logs)[0][0]["speaker"] == "U"
    labels.write_text(json.dumps([{"target": True, "knowledge": [{"domain": "hotel"}], "response": "yes"}]),
                      encoding="utf-8")
    with pytest.raises(FormatError, match=r"knowledge\[0\].entity_id: missing"):
        read_labels(labels, 1)
    labels.write_text(json.dumps([{"target": False}, {"target": False}]), encoding="utf-8")
    with pytest.raises(FormatError, match="2 entries but logs.json has 1"):
        read_labels(labels, 1)
    logs.write_text(json.dumps([[{"speaker": "S", "text": "hello"}]]), encoding="utf-8")
    with pytest.raises(FormatError, match="last turn must be the user's"):
        read_logs(logs)


def test_shared_text_steps() -> None:
    from parley.text import fold, squash

    assert squash("  a\u2003 b\n\tc ") == "a b c"
    assert fold(" Two  WORDS ") == "two words"
    from parley.engine.systems import llm_check
    from parley.store.imports import abredial

    assert llm_check._norm is fold and abredial._norm is squash
