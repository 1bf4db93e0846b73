"""`parley export --format csv` is safe to open in a spreadsheet: text cells starting with =, +, -, @, a tab
or CR get a leading ' (OWASP's advice against CSV injection), control characters are shown as the terminal
shows them (JSON columns escape theirs as JSON), numbers and plain-number text are untouched, newlines inside
a cell kept. The expected files in golden/export_hostile were written by hand, never by the exporter.
--raw-csv writes the stored text unchanged; JSONL is not guarded (it escapes controls itself)."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.display import visible
from parley.store import open_store
from parley.store.export import safe_cell
from parley.store.records import SessionRecord, TurnRating, TurnRecord
from tests.unit.clihelpers import cli, one_line_error

GOLDEN = Path(__file__).parent / "golden" / "export_hostile"
SID = "00000000-0000-4000-8000-0000000000aa"
TEXTS = [  # (text, text_final, extra fields)
    ("=1+1", "+cmd|' /C calc'!A0", {"latency_ms": -0.5}),
    ("-2+3", None, {"internals": {"x": "a\x9bb"}}),
    ("@SUM(A1)", "\tTAB", {}),
    ("ESC\x1b[2J NUL\x00 DEL\x7f C1\x9b bidi\u202e end", None, {}),
    ("\rCR first", "multi\nline", {}),
    ("-0.5", None, {"status": "failed", "error": "=err"}),
    (" =space first", "-", {}),
]


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.db"
    store = open_store(path)
    store.add_session(SessionRecord(id=SID, started_at="2026-02-02T09:00:00.000000+00:00",
                                    tester='=HYPERLINK("http://x")', mode="live", system_name="@evil",
                                    system_config={"note": "\x9b\u202e"},
                                    condition={"name": "original", "rewriters": []}, seed=-5,
                                    app_version="-1+2"))
    for i, (text, final, extra) in enumerate(TEXTS):
        store.add_turn(TurnRecord(session_id=SID, index=i, role="user" if i % 2 == 0 else "system", text=text,
                                  text_final=final, id=f"30000000-0000-4000-8000-00000000000{i}",
                                  created_at=f"2026-02-02T09:00:0{i}.000000+00:00", **extra))
    store.rate_turn(TurnRating("30000000-0000-4000-8000-000000000001", "-rater", 3, 2,
                               created_at="2026-02-02T09:10:00.000000+00:00"))
    store.close()
    return path


def test_hostile_csv_matches_the_hand_written_golden_files(hostile_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "csv"
    r = cli(["export", "--db", str(hostile_db), "--format", "csv", "--out", str(out)])
    assert r.exit_code == 0, r.output
    for table in ("turns", "sessions"):
        got, want = (out / f"{table}.csv").read_bytes(), (GOLDEN / f"{table}.csv").read_bytes()
        assert got == want, f"{table}.csv differs from {GOLDEN / table}.csv:\n{got!r}\n{want!r}"
    raters = list(csv.DictReader((out / "raters.csv").open(encoding="utf-8", newline="")))
    assert [x["name"] for x in raters] == ["'-rater"]
    ratings = list(csv.DictReader((out / "turn_ratings.csv").open(encoding="utf-8", newline="")))
    assert ratings[0]["rater"] == "'-rater" and ratings[0]["relevance"] == "3"


def test_no_control_character_reaches_the_csv(hostile_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "csv"
    assert cli(["export", "--db", str(hostile_db), "--format", "csv", "--out", str(out)]).exit_code == 0
    for f in out.glob("*.csv"):
        text = f.read_text(encoding="utf-8").replace("\r\n", "").replace("\n", "").replace("\t", "")
        bad = [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or 0x202A <= ord(c) <= 0x202E]
        assert bad == [], (f.name, bad)
    # the JSON columns still decode to the stored values
    rows = list(csv.DictReader((out / "turns.csv").open(encoding="utf-8", newline="")))
    assert json.loads(rows[1]["internals"]) == {"x": "a\x9bb"}


def test_raw_csv_writes_the_stored_text(hostile_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "raw"
    r = cli(["export", "--db", str(hostile_db), "--format", "csv", "--out", str(out), "--raw-csv"])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader((out / "turns.csv").open(encoding="utf-8", newline="")))
    assert [x["text"] for x in rows] == [t for t, _, _ in TEXTS]


def test_raw_csv_goes_with_csv_only(hostile_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    line = one_line_error(cli(["export", "--db", str(hostile_db), "--format", "jsonl", "--out", str(out),
                               "--raw-csv"]))
    assert "--raw-csv" in line and not out.exists()


def test_jsonl_keeps_the_stored_values(hostile_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    assert cli(["export", "--db", str(hostile_db), "--format", "jsonl", "--out", str(out)]).exit_code == 0
    line = json.loads(out.read_text(encoding="utf-8"))
    assert [t["text"] for t in line["turns"]] == [t for t, _, _ in TEXTS]
    assert line["session"]["tester"] == '=HYPERLINK("http://x")'


@pytest.mark.parametrize("number", [-0.5, -5, 0, 3.25, None])
def test_numbers_are_never_touched(number: float | None) -> None:
    assert safe_cell(number) is number


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_a_guarded_cell_never_starts_a_formula_or_holds_a_control(text: str) -> None:
    cell = safe_cell(text)
    if cell.startswith(("=", "+", "-", "@", "\t", "\r")):  # only a plain number may start so
        assert re.fullmatch(r"[+-][0-9.eE+-]+", cell) and math.isfinite(float(cell)), cell
    assert not any(ord(c) < 0x20 and c not in "\t\n" or 0x7F <= ord(c) <= 0x9F for c in cell)
    assert cell in (visible(text), "'" + visible(text))
