"""MultiWOZ importer: a small ConvLab-3-style file the test writes (string literals) and a MultiWOZ 2.x
one."""

from __future__ import annotations

import json
import zipfile

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.store import open_store
from parley.store.imports import ImportFileError, import_file

META = {"restaurant": {"book": {"booked": [], "people": "2"},
                       "semi": {"food": "Thai", "area": "not mentioned", "pricerange": ""}}}


def corpus(literal: bool = True) -> dict:
    def enc(v):
        return repr(v) if literal else v
    return {
        "TEST0001": {"goal": {"restaurant": {"info": {"food": "thai"}}, "message": ["Find a thai place."]},
                     "log": [
                         {"text": "hello , any thai food around ?", "metadata": enc({}),
                          "dialog_act": enc({"Restaurant-Inform": [["Food", "thai"]]}), "span_info": enc([])},
                         {"text": "sure , how many people ?", "metadata": enc(META),
                          "dialog_act": enc({"Booking-Request": [["People", "?"]]}), "span_info": enc([])},
                         {"text": "just two of us .", "metadata": enc({}), "dialog_act": enc({}),
                          "span_info": enc([])},
                         {"text": "done , see you there .", "metadata": enc(META), "dialog_act": enc({}),
                          "span_info": enc([])},
                     ]},
        "TEST0002": {"goal": {}, "log": [
            {"text": "a taxi please", "metadata": enc({})},
            {"text": "where to ?", "metadata": enc({})},
        ]},
    }


def test_imports_sessions_turns_and_state(tmp_path):
    f = tmp_path / "mini.json"
    f.write_text(json.dumps(corpus()), encoding="utf-8")
    store = open_store(tmp_path / "p.db")
    report = import_file(store, f, "multiwoz")
    assert report.dialogues == 2 and report.added["sessions"] == 2 and report.added["turns"] == 6
    sessions = store.sessions()
    assert [s.source for s in sessions] == ["mini.json#TEST0001", "mini.json#TEST0002"]
    assert {s.mode for s in sessions} == {"annotation"}
    assert sessions[0].goal["restaurant"]["info"] == {"food": "thai"}
    turns = store.turns(sessions[0].id)
    assert [t.role for t in turns] == ["user", "system", "user", "system"]
    assert turns[0].text_final == "hello , any thai food around ?"
    assert turns[1].internals["state"] == {"restaurant": {"food": "thai", "book_people": "2"}}
    assert turns[1].internals["internals"]["dialog_act"] == {"Booking-Request": [["People", "?"]]}


def test_import_twice_adds_nothing_and_zip_and_plain_json_agree(tmp_path):
    f = tmp_path / "mini.json"
    f.write_text(json.dumps(corpus(literal=False)), encoding="utf-8")
    z = tmp_path / "mini.json.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("mini.json", json.dumps(corpus()))
    store = open_store(tmp_path / "p.db")
    first = import_file(store, f, "multiwoz")
    again = import_file(store, f, "multiwoz")
    assert again.added["sessions"] == 0 and again.present["sessions"] == 2
    zipped = import_file(store, z, "multiwoz")  # same dialogues: same ids
    assert zipped.added["sessions"] == 0
    assert store.counts()["sessions"] == 2 and store.counts()["turns"] == first.added["turns"]


@pytest.mark.parametrize("text,needle", [
    ('{"A": {"log": [{"text": "hi"},]}}', "line 1, column"),
    ('{"A": {"goal": {}}}', 'key A: a dialogue needs a "log" list'),
    ('{"A": {"log": [{"text": 3}]}}', "key A.log[0].text"),
    ('{"A": {"log": [{"text": "x"}, {"text": "y", "metadata": "{oops"}]}}', "key A.log[1].metadata"),
    ('[1, 2]', "expected an object of dialogues"),
])
def test_malformed_files_name_the_key_and_import_nothing(tmp_path, text, needle):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(corpus()), encoding="utf-8")
    bad = tmp_path / "bad.json"
    # a valid dialogue first, then the broken one: nothing at all may be written
    if text.startswith('{"A"'):
        text = '{"OK1": ' + json.dumps(corpus()["TEST0002"]) + ", " + text[1:]
    bad.write_text(text, encoding="utf-8")
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError) as e:
        import_file(store, bad, "multiwoz")
    assert needle in str(e.value) and "\n" not in str(e.value)
    assert store.counts()["sessions"] == 0 and store.counts()["turns"] == 0


def test_cli_import_and_error(tmp_path):
    f = tmp_path / "mini.json"
    f.write_text(json.dumps(corpus()), encoding="utf-8")
    db = tmp_path / "p.db"
    r = CliRunner().invoke(main, ["import", str(f), "--format", "multiwoz", "--db", str(db)])
    assert r.exit_code == 0, r.output
    assert "2 new session(s)" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    r = CliRunner().invoke(main, ["import", str(bad), "--format", "multiwoz", "--db", str(db)])
    assert r.exit_code == 2 and "parley: error:" in r.output and "line 1" in r.output
    r = CliRunner().invoke(main, ["import", str(f), "--format", "multiwoz", "--db", str(db),
                                  "--labels", str(f)])
    assert r.exit_code == 2 and "does not take labels" in r.output


@pytest.mark.shared
def test_real_convlab3_test_set_imports(shared_data, tmp_path):
    store = open_store(tmp_path / "p.db")
    report = import_file(store, shared_data / "multiwoz" / "convlab3" / "test.json.zip", "multiwoz", limit=20)
    assert report.added["sessions"] == 20
    t = store.turns(store.sessions()[0].id)
    assert t[1].role == "system" and isinstance(t[1].internals["internals"]["metadata"], dict)


def test_empty_dialogue_is_skipped_with_a_warning(tmp_path):
    data = corpus()
    data["EMPTY9"] = {"goal": {}, "log": []}
    f = tmp_path / "mini.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    r = import_file(open_store(tmp_path / "p.db"), f, "multiwoz")
    assert r.added["sessions"] == 2 and r.skipped["dialogues without turns"] == 1
    assert any("EMPTY9" in w for w in r.warnings)
