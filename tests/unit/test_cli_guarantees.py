"""The command line's contract: a ParleyError anywhere is one line and exit 2 (a bug keeps its traceback);
options given before a command reach it; untrusted text is printed literally; a chat script is read before
anything is stored and the session always ends."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.errors import ParleyError
from parley.store import open_store
from parley.store.records import SessionRecord
from tests.unit.clihelpers import REPO, cli, one_line_error, run


def test_parley_error_from_deep_inside_is_one_line_exit_2(tmp_path: Path) -> None:
    line = one_line_error(cli(["import", str(tmp_path / "absent.json"), "--format", "multiwoz",
                               "--db", str(tmp_path / "p.db")]))
    assert "absent.json: no such file" in line
    bad = tmp_path / "labels.json"
    bad.write_text("{", encoding="utf-8")
    line = one_line_error(cli(["sktod", "score", "--labels", str(bad), "--pred", str(bad)]))  # a nested group
    assert "invalid JSON" in line


def _import_raising(error: BaseException, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """argv of an import whose importer raises ``error`` (the rest of the command is real)."""
    import parley.store.imports as imports

    def fail(*a: object, **k: object) -> None:
        raise error

    monkeypatch.setattr(imports, "import_file", fail)
    f = tmp_path / "x.jsonl"
    f.write_text("", encoding="utf-8")
    return ["import", str(f), "--format", "jsonl", "--db", str(tmp_path / "p.db")]


def test_error_message_cannot_drive_the_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    error = ParleyError("bad \x1b]0;TITLE\x07 name\x1b[2J\nsecond line")
    line = one_line_error(cli(_import_raising(error, monkeypatch, tmp_path)))
    assert "\x1b" not in line and "second line" not in line and "␛]0;TITLE" in line


def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    r = CliRunner().invoke(main, _import_raising(RuntimeError("a bug"), monkeypatch, tmp_path))
    assert r.exit_code == 1 and isinstance(r.exception, RuntimeError)


def test_usage_errors_keep_exit_2() -> None:
    r = CliRunner().invoke(main, ["export", "--format", "xml", "--out", "x"])
    assert r.exit_code == 2 and "Traceback" not in r.output


def _db_with(path: Path, tester: str) -> Path:
    store = open_store(path)
    store.add_session(SessionRecord(tester=tester, mode="batch", system_name="echo"))
    store.close()
    return path


def _dialogues(tmp_path: Path) -> Path:
    f = tmp_path / "dialogues.json"
    f.write_text(json.dumps({"d1.json": {"goal": {}, "log": [
        {"text": "i need a train", "metadata": {}}, {"text": "where to?", "metadata": {}}]}}),
        encoding="utf-8")
    return f


@pytest.mark.parametrize("command", ["sessions", "export", "chat", "run", "score", "import", "rate"])
def test_db_given_before_the_command_reaches_it(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    """`parley --db X <command>` uses X, never the default database (every command that takes --db)."""
    default = tmp_path / "default.db"
    monkeypatch.setenv("PARLEY_DB", str(default))
    x = _db_with(tmp_path / "x.db", "in-x")
    export_file = tmp_path / "x.jsonl"
    if command == "import":
        cli(["--db", str(x), "export", "--format", "jsonl", "--out", str(export_file)])
    argv = {
        "sessions": ["sessions", "--json"],
        "export": ["export", "--format", "jsonl", "--out", str(tmp_path / "out.jsonl")],
        "chat": ["chat", "--system", "echo", "--script", "-"],
        "run": ["run", "--system", "echo", "--dialogues", str(_dialogues(tmp_path)), "--bootstrap", "0"],
        "score": ["score", "--satisfaction"],
        "import": ["import", str(export_file), "--format", "jsonl"],
        "rate": ["rate", "--rater", "ann"],
    }[command]
    before = open_store(x).counts()
    r = CliRunner().invoke(main, ["--db", str(x), *argv], input="hello\n")
    assert "Traceback" not in r.output
    assert not default.exists(), f"{command} used the default database"
    after = open_store(x).counts()
    if command == "sessions":
        assert r.exit_code == 0 and "in-x" in r.output
    elif command == "export":
        assert r.exit_code == 0 and "in-x" in (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    elif command in ("chat", "run"):
        assert r.exit_code == 0, r.output
        assert after["sessions"] == before["sessions"] + 1
    elif command == "import":
        assert r.exit_code == 0 and "1 already in the database" in r.output
    else:  # score, rate: nothing to do in X, and the message names X
        assert r.exit_code == 2 and str(x) in r.output


def test_other_group_options_reach_the_command(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    r = cli(["--db", str(db), "--system", "echo", "--tester", "bob", "--seed", "5", "--rewrite", "asr-sim",
             "chat", "--script", "-"], input="I need a cheap hotel\n")
    assert r.exit_code == 0, r.output
    (s,) = open_store(db).sessions()
    assert (s.tester, s.system_name, s.seed, s.condition["name"]) == ("bob", "echo", 5, "asr-sim")
    r = cli(["--tester", "ann", "chat", "--tester", "cy", "--system", "echo", "--script", "-",
             "--db", str(db)], input="hi\n")
    assert open_store(db).sessions()[-1].tester == "cy"  # given on the command itself, it wins


def test_sessions_shows_names_literally(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    names = ["x[/bold]", "[link=file:///etc/passwd]evil[/link]", "t\x1b]0;TITLE\x07\x1b[2Jz"]
    for n in names:
        _db_with(db, n)
    r = CliRunner().invoke(main, ["sessions", "--db", str(db)], env={"COLUMNS": "250"},
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "x[/bold]" in r.output and "[link=file:///etc/passwd]evil[/link]" in r.output
    assert "\x1b" not in r.output and "t␛]0;TITLE␇␛[2Jz" in r.output


def test_chat_prints_replies_literally(tmp_path: Path) -> None:
    r = cli(["chat", "--system", "echo", "--script", "-", "--db", str(tmp_path / "p.db")],
            input="hi \x1b[2J [bold]there\n")
    assert r.exit_code == 0 and "\x1b" not in r.stdout and "␛[2J [bold]there" in r.stdout


def test_unreadable_script_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    argv = ["chat", "--system", "echo", "--script", "-", "--db", str(db)]
    one_line_error(cli(argv, input=b"hi\n\xff\xfe\n"))
    assert not db.exists() or open_store(db).counts()["sessions"] == 0


@pytest.mark.subprocess
def test_chat_session_always_ends(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    p = run(["chat", "--system", "echo", "--script", "-", "--db", str(db)], cwd=REPO, input=b"one\ntwo\n")
    assert p.returncode == 0, p.stderr
    rows = sqlite3.connect(db).execute("SELECT ended_at FROM sessions").fetchall()
    assert len(rows) == 1 and rows[0][0] is not None


@pytest.mark.subprocess
@pytest.mark.parametrize("script", [b"", b"\n  \n# only a comment\n"])
def test_script_without_turns_is_refused(tmp_path: Path, script: bytes) -> None:
    """An empty script used to end with exit 0 and "session …: 0 user turn(s) … stored in DB" while nothing
    was stored."""
    db = tmp_path / "p.db"
    p = run(["chat", "--system", "echo", "--script", "-", "--db", str(db)], cwd=REPO, input=script)
    assert "holds no user turns" in one_line_error(p)
    assert "stored" not in p.stderr and not db.exists()


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [
    ["--db", "{tmp}", "sessions"],                        # an option of the group: a folder as database
    ["export", "--format", "xml", "--out", "x"],          # a value outside the choices
    ["sessions", "--bogus"],                              # an unknown option
    ["chat", "--script", "{tmp}"],                        # a folder as script
    ["no-such-command"],
    ["sktod", "run"],                                     # a missing option of a subcommand
    ["rewrite", "-r", "wp", "--seed", "1" + "0" * 30],    # out of range
])
def test_usage_errors_are_one_line(argv: list[str], tmp_path: Path) -> None:
    """click's usage errors printed three lines (usage, a hint, then the error); like every error a user
    causes they are now one ``parley: error:`` line on stderr naming the help to read, exit 2."""
    p = run([a.replace("{tmp}", str(tmp_path)) for a in argv], cwd=REPO, input=b"")
    line = one_line_error(p)
    assert p.stderr == line + "\n" and p.stdout == ""
    assert "--help')" in line


def test_a_group_without_its_subcommand_still_shows_help() -> None:
    r = CliRunner().invoke(main, ["sktod"])
    assert "Usage:" in r.output and "score" in r.output and "parley: error" not in r.output


@pytest.mark.subprocess
def test_rewrite_report_of_nothing_is_refused() -> None:
    """An empty stdin gave a report of n 0, BLEU 0.0 and 0 % preserved: figures about nothing."""
    p = run(["rewrite", "-r", "wp", "--report", "--no-ppl"], cwd=REPO, input=b"")
    assert "standard input holds no lines" in one_line_error(p) and p.stdout == ""


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["chat", "--system", "echo", "--script", "-"], ["rewrite", "-r", "wp"]])
def test_stdin_is_called_stdin(argv: list[str], tmp_path: Path) -> None:
    """Errors about stdin said "script - is not UTF-8" / "standard input - is not UTF-8"."""
    argv = [*argv, "--db", str(tmp_path / "p.db")] if argv[0] == "chat" else argv
    line = one_line_error(run(argv, cwd=REPO, input=b"\xff\n"))
    assert " - " not in line
    assert "script (stdin) is not UTF-8" in line or "standard input is not UTF-8" in line


@pytest.mark.subprocess
@pytest.mark.parametrize("n", ["-5", "1" + "0" * 20])
def test_run_bootstrap_count_is_checked_first(n: str, tmp_path: Path) -> None:
    """``--bootstrap -5`` replayed and stored every dialogue, then ended in scipy's traceback; a huge count
    ran on for ever. Both are refused before anything is read or stored."""
    db = tmp_path / "p.db"
    argv = ["run", "--system", "echo", "--dialogues", str(_dialogues(tmp_path)), "--db", str(db),
            "--bootstrap", n]
    assert "--bootstrap" in one_line_error(run(argv, cwd=REPO, timeout=60))
    assert not db.exists()
