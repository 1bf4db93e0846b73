"""JSONL importer: parley's own export round-trips, ratings included; malformed lines are refused whole."""

from __future__ import annotations

import json

import pytest

from parley.store import open_store
from parley.store.export import export_jsonl
from parley.store.imports import ImportFileError, import_file
from tests.unit.storehelpers import fill_fixed


def test_export_then_import_reproduces_the_database(tmp_path):
    src = open_store(tmp_path / "a.db")
    fill_fixed(src)
    out = tmp_path / "x.jsonl"
    export_jsonl(src, out)
    dst = open_store(tmp_path / "b.db")
    r = import_file(dst, out, "jsonl")
    assert r.added["sessions"] == 2 and r.added["turns"] == 4
    assert r.added["turn_ratings"] == 1 and r.added["dialogue_ratings"] == 1
    out2 = tmp_path / "y.jsonl"
    export_jsonl(dst, out2)
    assert out2.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")
    again = import_file(dst, out, "jsonl")
    assert again.added["sessions"] == 0 and again.present["turns"] == 4


def test_conflicting_rating_is_refused(tmp_path):
    src = open_store(tmp_path / "a.db")
    fill_fixed(src)
    out = tmp_path / "x.jsonl"
    export_jsonl(src, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[0])
    rec["dialogue_ratings"][0]["overall"] = 1
    lines[0] = json.dumps(rec)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ImportFileError) as e:
        import_file(src, out, "jsonl")
    assert "line 1" in str(e.value) and "overall" in str(e.value)


@pytest.mark.parametrize(
    "line2,needle",
    [
        ("{not json", "line 2, column"),
        ('{"turns": []}', "line 2: missing key 'session'"),
        (
            '{"session": {"id": "s9", "started_at": "2026"}, "turns": [{"session_id": "s9", "index": 0}]}',
            "line 2, key turns[0].role: is missing",
        ),
        ('{"session": {"id": "s9", "started_at": "2026", "mode": "weird"}}', "line 2"),
        (
            '{"session": {"id": "s9", "started_at": "2026"}, '
            '"dialogue_ratings": [{"session_id": "s9", "rater": "a", "understanding": 9, '
            '"task_completion": 1, "interest_arousal": 1, "efficiency": 1, "overall": 1}]}',
            "outside its scale",
        ),
    ],
)
def test_malformed_line_imports_nothing(tmp_path, line2, needle):
    good = {"session": {"id": "s1", "started_at": "2026-01-01T00:00:00+00:00", "mode": "live"},
            "turns": [{"session_id": "s1", "index": 0, "role": "user", "text": "hi", "id": "t1"}]}
    f = tmp_path / "x.jsonl"
    f.write_text(json.dumps(good) + "\n" + line2 + "\n", encoding="utf-8")
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError) as e:
        import_file(store, f, "jsonl")
    assert needle in str(e.value)
    assert store.counts()["sessions"] == 0 and store.counts()["turns"] == 0
