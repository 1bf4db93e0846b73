"""Bad input is one line and exit 2, never a traceback, and nothing is half-written: JSON nested 100,000 deep,
bytes that are not UTF-8, AB-ReDial cells nan/inf/1e400, a read-only database, a seed too large for SQLite,
predictions of the wrong shape, output paths that cannot be written. Ends with a property test: every command
that reads a file, fed arbitrary bytes, exits 0 or 2 and never prints a traceback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.store import open_store
from tests.unit.clihelpers import cli, env_in, one_line_error, run, shared_dir

DEEP = b"[" * 100_000
NOT_UTF8 = b'{"a": "caf\xe9"}\n'


def _file(tmp_path: Path, name: str, data: bytes) -> str:
    p = tmp_path / name
    p.write_bytes(data)
    return str(p)


def _good_logs(tmp_path: Path) -> str:
    logs = [[{"speaker": "U", "text": "is the wifi good?"}]]
    return _file(tmp_path, "logs.json", json.dumps(logs).encode())


def _commands(tmp_path: Path, bad: str) -> dict[str, list[str]]:
    """Every command reading a user file, with ``bad`` in the place of that file."""
    db = str(tmp_path / "p.db")
    logs = _good_logs(tmp_path)
    pred = str(tmp_path / "pred.json")
    labels = _file(tmp_path, "labels.json", json.dumps([{"target": False}]).encode())
    log = [{"text": "hi", "metadata": {}}, {"text": "hello", "metadata": {}}]
    dialogues = _file(tmp_path, "d.json", json.dumps({"d1.json": {"log": log}}).encode())
    return {
        "import multiwoz": ["import", bad, "--format", "multiwoz", "--db", db],
        "import dstc11": ["import", bad, "--format", "dstc11", "--db", db],
        "import dstc11 --labels": ["import", logs, "--format", "dstc11", "--labels", bad, "--db", db],
        "import jsonl": ["import", bad, "--format", "jsonl", "--db", db],
        "import abredial": ["import", bad, "--format", "abredial", "--db", db],
        "run --dialogues": ["run", "--system", "echo", "--dialogues", bad, "--db", db],
        "sktod run --logs": ["sktod", "run", "--logs", bad, "--out", str(tmp_path / "pred.json")],
        "sktod score --labels": ["sktod", "score", "--labels", bad, "--pred", bad],
        "sktod train --logs": ["sktod", "train", "--logs", bad, "--labels", bad, "--knowledge", bad, "--out",
                               str(tmp_path / "model")],
        "chat --script": ["chat", "--system", "echo", "--script", bad, "--db", db],
        "score --db": ["score", "--satisfaction", "--db", bad],
        "sessions --db": ["sessions", "--db", bad],
        "export --db": ["export", "--format", "jsonl", "--out", str(tmp_path / "o.jsonl"), "--force",
                        "--db", bad],
        "merge": ["merge", bad, db, "--out", str(tmp_path / "merged.db")],
        "import dstc11 --pred": ["import", logs, "--format", "dstc11", "--pred", bad, "--db", db],
        "sktod run --knowledge": ["sktod", "run", "--logs", logs, "--knowledge", bad, "--out", pred],
        "sktod run --entity-mapping": ["sktod", "run", "--logs", logs, "--entity-mapping", bad,
                                       "--out", pred],
        "sktod score --pred": ["sktod", "score", "--labels", labels, "--pred", bad],
        "score --abredial": ["score", "--satisfaction", "--abredial", bad],
        "score --mwzeval-file": ["score", "--mwzeval-file", bad, "--dialogues", dialogues],
        "score --dialogues": ["score", "--mwzeval-file", _file(tmp_path, "p.json", b"{}"),
                              "--dialogues", bad],
        "score --references": ["score", "--mwzeval-file", _file(tmp_path, "p.json", b"{}"), "--dialogues",
                               dialogues, "--references", bad],
        "progress": ["progress", bad],
        "assign --db": ["assign", "--raters", "a,b", "--db", bad],
        "train tod --data": ["train", "tod", "--data", bad, "--out", str(tmp_path / "ckpt"), "--steps", "1"],
    }


DEEP_COMMANDS = ["import multiwoz", "import dstc11", "import dstc11 --labels", "import jsonl",
                 "run --dialogues", "sktod run --logs", "sktod score --labels"]


@pytest.mark.parametrize("name", DEEP_COMMANDS)
def test_json_nested_100000_deep(name: str, tmp_path: Path) -> None:
    bad = _file(tmp_path, "deep.json", DEEP)
    line = one_line_error(cli(_commands(tmp_path, bad)[name]))
    assert "nested too deeply" in line


@pytest.mark.parametrize("name", ["import jsonl", "import multiwoz", "sktod run --logs",
                                  "sktod score --labels", "chat --script"])
def test_not_utf8(name: str, tmp_path: Path) -> None:
    bad = _file(tmp_path, "bad.json", NOT_UTF8)
    line = one_line_error(cli(_commands(tmp_path, bad)[name]))
    assert "not UTF-8" in line
    db = tmp_path / "p.db"
    if db.exists():  # nothing half-written: no session, and none left open
        assert sqlite3.connect(db).execute("SELECT count(*) FROM sessions").fetchone()[0] == 0


@pytest.mark.parametrize("cell", ["nan", "inf", "-inf", "1e400", "NaN"])
def test_abredial_cells(cell: str, tmp_path: Path) -> None:
    head = ("ConvId,utterance0,utterance1,understanding,task-completion,interest-arousal,efficiency,"
            "dialogue-overall,justification-text\n")
    row = f"c1,USER\thi,SYSTEM\thello,{cell},2,2,1,4,fine\n"
    bad = _file(tmp_path, "dialogues.csv", (head + row).encode())
    line = one_line_error(cli(_commands(tmp_path, bad)["import abredial"]))
    assert "line 2" in line and cell in line


@pytest.mark.subprocess
def test_read_only_database(tmp_path: Path) -> None:
    with shared_dir() as d:
        db = d / "p.db"
        open_store(db).close()
        db.chmod(0o444)  # the file is read-only; its folder is writable (SQLite opens it read-only)
        d.chmod(0o777)
        p = run(["chat", "--system", "echo", "--script", "-", "--db", str(db)], cwd=d, env=env_in(d),
                input=b"hello\n", unprivileged=True)
        line = one_line_error(p)
        assert str(db) in line
        assert sqlite3.connect(f"file:{db}?mode=ro", uri=True).execute(
            "SELECT count(*) FROM sessions").fetchone()[0] == 0


@pytest.mark.parametrize("argv", [
    ["chat", "--system", "echo", "--script", "-"], ["--system", "echo", "chat", "--script", "-"],
    ["rewrite", "-r", "asr-sim"], ["rate", "--rater", "a"],
])
def test_seed_too_large_for_sqlite(argv: list[str], tmp_path: Path) -> None:
    r = cli([*argv, "--seed", "99999999999999999999999"] if argv[0] != "--system" else
            ["--seed", "99999999999999999999999", *argv], input="hi\n")
    assert r.exit_code == 2 and "Traceback" not in r.output and "--seed" in r.output


def test_sktod_score_with_a_logs_file_as_predictions(tmp_path: Path) -> None:
    logs = _good_logs(tmp_path)
    labels = _file(tmp_path, "labels.json", json.dumps([{"target": False}]).encode())
    line = one_line_error(cli(["sktod", "score", "--labels", labels, "--pred", logs]))
    assert "labels-format" in line and "[0]" in line


@pytest.mark.parametrize("option", ["--plot", "--html", "--mwzeval-out"])
def test_run_output_paths_checked_before_the_work(option: str, tmp_path: Path) -> None:
    dialogues = tmp_path / "d.json"
    log = [{"text": "hi", "metadata": {}}, {"text": "hello", "metadata": {}}]
    dialogues.write_text(json.dumps({"d1.json": {"log": log}}), encoding="utf-8")
    db = tmp_path / "p.db"
    line = one_line_error(cli(["run", "--system", "echo", "--dialogues", str(dialogues), "--db", str(db),
                               option, "/proc/x/y.png"]))
    assert "/proc/x" in line
    assert not db.exists(), "the run was stored although its output could not be written"


@pytest.mark.parametrize(("spec", "needle"), [("nosuch", "unknown system"),
                                              ("remote", "url"), ("echo --trust-remote-code", "trust")])
def test_run_checks_the_system_before_reading_the_corpus(spec: str, needle: str, tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    system, *flags = spec.split()
    absent = str(tmp_path / "absent.json")
    line = one_line_error(cli(["run", "--system", system, *flags, "--dialogues", absent, "--db", str(db)]))
    assert needle in line and "absent.json" not in line
    assert not db.exists(), "a database was created for a run whose system spec is wrong"


def test_run_condition_given_twice(tmp_path: Path) -> None:
    dialogues = tmp_path / "d.json"
    dialogues.write_text(json.dumps({"d1.json": {"log": [{"text": "hi", "metadata": {}}]}}), encoding="utf-8")
    db = tmp_path / "p.db"
    line = one_line_error(cli(["run", "--system", "echo", "--dialogues", str(dialogues), "--db", str(db),
                               "--condition", "original", "--condition", "none"]))
    assert "condition given twice: original" in line and not db.exists()


# -- property: arbitrary bytes -----------------------------------------------------------------------------
TRICKY = [b"", b"[]", b"{}", b"null", b"[[]]", b"[{}]", b'[{"target": true}]', DEEP[:5000], b"\xef\xbb\xbf{}",
          b"SQLite format 3\x00" + b"\0" * 100]
FILE_COMMANDS = ["import multiwoz", "import dstc11", "import dstc11 --labels", "import jsonl",
                 "import abredial", "run --dialogues", "sktod run --logs", "sktod score --labels",
                 "sktod train --logs",
                 "chat --script", "score --db", "sessions --db", "export --db", "merge",
                 "import dstc11 --pred", "sktod run --knowledge", "sktod run --entity-mapping",
                 "sktod score --pred", "score --abredial", "score --mwzeval-file", "score --dialogues",
                 "score --references", "progress", "assign --db", "train tod --data"]
#: commands that load a model for each of the examples (minutes on a loaded machine): in the slow run
SLOW_COMMANDS = {"sktod run --logs", "sktod run --knowledge", "sktod run --entity-mapping",
                 "sktod score --labels", "train tod --data"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_COMMANDS else n
                                  for n in FILE_COMMANDS])
def test_arbitrary_bytes_never_a_traceback(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(data=st.one_of(st.binary(max_size=300), st.sampled_from(TRICKY)))
    def check(data: bytes) -> None:
        tmp = tmp_path_factory.mktemp("bytes")
        bad = _file(tmp, "input.bin", data)
        r = cli(_commands(tmp, bad)[name], input=b"")
        assert r.exit_code in (0, 2), r.output
        assert "Traceback" not in r.output

    check()



def test_progress_on_an_older_database_is_one_line_and_leaves_it_untouched(tmp_path: Path) -> None:
    from sqlite_utils import Database

    from parley.store.migrations import migrations

    old = tmp_path / "old.db"
    migrations.apply(Database(old), stop_before="m005_assignments")  # a rater copy from before parley assign
    before = old.read_bytes()
    for argv in (["progress", str(old)], ["progress", "--db", str(old)],
                 ["score", "--satisfaction", "--db", str(old)], ["score", "--latency", "--db", str(old)]):
        assert "older parley" in one_line_error(cli(argv))
    assert old.read_bytes() == before


def test_sktod_run_on_an_empty_knowledge_file_is_one_line(tmp_path: Path) -> None:
    kb = _file(tmp_path, "knowledge.json", b"{}")
    line = one_line_error(cli(["sktod", "run", "--logs", _good_logs(tmp_path), "--knowledge", kb,
                               "--out", str(tmp_path / "pred.json")]))
    assert "knowledge.json" in line and "no reviews" in line and not (tmp_path / "pred.json").exists()


def test_chat_with_sktod_on_an_empty_knowledge_file_is_one_line_and_stores_nothing(tmp_path: Path) -> None:
    kb = _file(tmp_path, "knowledge.json", b"{}")
    script = _file(tmp_path, "turns.txt", b"is the wifi any good at the acorn guest house?\n")
    db = tmp_path / "chat.db"
    line = one_line_error(cli(["chat", "--system", f"sktod:knowledge={kb}", "--script", script,
                               "--db", str(db)]))
    assert "knowledge.json" in line and "no reviews" in line
    assert not db.exists() or not open_store(db).sessions()
