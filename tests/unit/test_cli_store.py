"""`parley sessions` / `parley export`: golden exports, empty databases, bad files (exit 2, file
untouched)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.store import open_store
from tests.unit.storehelpers import fill_fixed

GOLDEN = Path(__file__).parent / "golden" / "export"
UPDATE = os.environ.get("PARLEY_UPDATE_GOLDEN") == "1"


def _compare(actual: Path, golden: Path) -> None:
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(actual.read_bytes())
    assert actual.read_bytes() == golden.read_bytes(), f"{actual.name} differs from {golden}"


@pytest.fixture
def filled_db(tmp_path):
    path = tmp_path / "filled.db"
    store = open_store(path)
    fill_fixed(store)
    store.close()
    return path


def test_export_jsonl_golden(filled_db, tmp_path):
    out = tmp_path / "out.jsonl"
    r = CliRunner().invoke(main, ["export", "--db", str(filled_db), "--format", "jsonl", "--out", str(out)])
    assert r.exit_code == 0, r.output
    _compare(out, GOLDEN / "sessions.jsonl")
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [len(x["turns"]) for x in lines] == [2, 2]
    assert set(lines[0]) == {"session", "turns", "turn_ratings", "dialogue_ratings"}
    assert lines[0]["turns"][1]["internals"]["db_count"] == {"restaurant": 9}
    assert lines[0]["dialogue_ratings"][0]["overall"] == 4


def test_export_csv_golden(filled_db, tmp_path):
    out = tmp_path / "csv"
    r = CliRunner().invoke(main, ["export", "--db", str(filled_db), "--format", "csv", "--out", str(out)])
    assert r.exit_code == 0, r.output
    for table in ("sessions", "turns", "turn_ratings", "dialogue_ratings", "raters"):
        _compare(out / f"{table}.csv", GOLDEN / f"{table}.csv")
    rows = list(csv.DictReader((out / "turns.csv").open(encoding="utf-8")))
    assert len(rows) == 4 and rows[3]["status"] == "failed"


def test_export_empty_database_gives_valid_empty_output(tmp_path):
    db = tmp_path / "empty.db"
    open_store(db).close()
    out = tmp_path / "e.jsonl"
    r = CliRunner().invoke(main, ["export", "--db", str(db), "--format", "jsonl", "--out", str(out)])
    assert r.exit_code == 0 and out.read_text() == ""
    r = CliRunner().invoke(main, ["export", "--db", str(db), "--format", "csv", "--out", str(tmp_path / "c")])
    assert r.exit_code == 0
    with (tmp_path / "c" / "turns.csv").open() as fh:
        assert list(csv.reader(fh))[0][:3] == ["id", "session_id", "index"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from parley.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )


@pytest.mark.subprocess
@pytest.mark.parametrize("command", [["sessions"], ["export", "--format", "jsonl", "--out", "x.jsonl"]])
def test_bad_files_one_line_exit_2_untouched(tmp_path, command):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"\x00\x01 definitely not sqlite" * 50)
    before = bad.read_bytes()
    p = _run(*command, "--db", str(bad))
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "not a SQLite database" in p.stderr
    assert bad.read_bytes() == before

    future = tmp_path / "future.db"
    store = open_store(future)
    store.db.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                     "VALUES ('parley', 'm900_future', '2031-01-01')")
    store.db.conn.commit()
    store.close()
    before = future.read_bytes()
    p = _run(*command, "--db", str(future))
    assert p.returncode == 2 and "newer parley" in p.stderr and p.stderr.strip().count("\n") == 0
    assert future.read_bytes() == before


def test_missing_database_is_a_clear_error(tmp_path):
    r = CliRunner().invoke(main, ["sessions", "--db", str(tmp_path / "nope.db")])
    assert r.exit_code == 2 and "no such database" in r.output


def test_sessions_lists(filled_db):
    r = CliRunner().invoke(main, ["sessions", "--db", str(filled_db), "--json"])
    assert r.exit_code == 0
    rows = [json.loads(x) for x in r.output.splitlines()]
    assert [x["turns"] for x in rows] == [2, 2] and rows[0]["tester"] == "ada"
    r = CliRunner().invoke(main, ["sessions", "--db", str(filled_db)])
    assert r.exit_code == 0 and "2 session(s)" in r.output


def test_jsonl_lines_match_decoded_records(filled_db, tmp_path):
    from parley.store.export import export_jsonl, iter_sessions_json

    store = open_store(filled_db)
    out = tmp_path / "x.jsonl"
    assert export_jsonl(store, out) == 2
    from_file = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert from_file == list(iter_sessions_json(store))
