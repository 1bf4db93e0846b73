"""A tired or hostile user at the command line: a mistyped --db folder is refused (the default location
still makes its own folder), ``run --resume BADID`` creates and changes no file, names holding control
characters are refused like the TUI's name prompt refuses them, and ``score --mwzeval-file`` refuses
--plot/--html instead of ignoring them. Every refusal is one line, exit 2, and leaves the user's files as
they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.clihelpers import REPO, cli, one_line_error, run
from tests.unit.storehelpers import fixed_db

ESC_NAME = "ann\x1b]0;owned\x07"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


def _script(tmp_path: Path) -> str:
    p = tmp_path / "script.txt"
    p.write_text("hello\n", encoding="utf-8")
    return str(p)


def _dialogues(tmp_path: Path) -> str:
    log = [{"text": "hi", "metadata": {}}, {"text": "hello", "metadata": {}}]
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"d1.json": {"goal": {}, "log": log}}), encoding="utf-8")
    return str(p)


# -- 1. --db in a folder that does not exist -----------------------------------------------------------------

def _creating_commands(tmp_path: Path, db: str) -> dict[str, list[str]]:
    """Every command that creates its database when it is missing."""
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text("", encoding="utf-8")
    return {
        "chat": ["chat", "--system", "echo", "--script", _script(tmp_path), "--db", db],
        "run": ["run", "--system", "echo", "--dialogues", _dialogues(tmp_path), "--bootstrap", "0",
                "--db", db],
        "import": ["import", str(jsonl), "--format", "jsonl", "--db", db],
        "group --db": ["--db", db, "chat", "--system", "echo", "--script", _script(tmp_path)],
    }


@pytest.mark.parametrize("name", ["chat", "run", "import", "group --db"])
def test_db_in_a_missing_folder_is_refused(tmp_path: Path, name: str) -> None:
    db = tmp_path / "no" / "such" / "x.db"
    argv = _creating_commands(tmp_path, str(db))[name]
    line = one_line_error(cli(argv))
    assert f"folder {tmp_path / 'no' / 'such'} does not exist" in line, line
    assert not (tmp_path / "no").exists()


@pytest.mark.subprocess
def test_tui_with_db_in_a_missing_folder_is_refused(tmp_path: Path) -> None:
    """``parley --db X`` (the TUI) refuses before a screen opens (a subprocess: a TUI that started would
    time out)."""
    db = tmp_path / "no" / "x.db"
    p = run(["--db", str(db)], cwd=REPO, timeout=60)
    line = one_line_error(p)
    assert f"folder {tmp_path / 'no'} does not exist" in line
    assert not (tmp_path / "no").exists()


def test_db_that_is_a_folder_or_has_a_file_as_folder(tmp_path: Path) -> None:
    one_line_error(cli(["chat", "--system", "echo", "--script", _script(tmp_path), "--db", str(tmp_path)]))
    (tmp_path / "plain").write_text("mine", encoding="utf-8")
    line = one_line_error(cli(["chat", "--system", "echo", "--script", _script(tmp_path),
                               "--db", str(tmp_path / "plain" / "x.db")]))
    assert "plain" in line and (tmp_path / "plain").read_text(encoding="utf-8") == "mine"


@pytest.mark.subprocess
def test_default_database_location_makes_its_own_folder(tmp_path: Path) -> None:
    data = tmp_path / "fresh" / "data"
    p = run(["chat", "--system", "echo", "--script", _script(tmp_path)], cwd=REPO,
            env={"PARLEY_DATA": str(data), "PARLEY_DB": ""})
    assert p.returncode == 0, p.stderr
    assert (data / "parley.db").is_file()


def test_existing_folder_still_creates_the_database(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    assert cli(["chat", "--system", "echo", "--script", _script(tmp_path), "--db", str(db)]).exit_code == 0
    assert db.is_file()


# -- 2. run --resume BADID --------------------------------------------------------------------------------

def test_resume_unknown_run_creates_no_database(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    line = one_line_error(cli(["run", "--resume", "BADID", "--db", str(db)]))
    assert "BADID" in line or "no such database" in line
    assert list(tmp_path.iterdir()) == []


def test_resume_unknown_run_changes_no_file(tmp_path: Path) -> None:
    db = fixed_db(tmp_path / "p.db")
    before = _tree(tmp_path)
    line = one_line_error(cli(["run", "--resume", "BADID", "--db", str(db)]))
    assert "no run BADID" in line
    assert _tree(tmp_path) == before


def test_resume_against_an_old_empty_database_changes_nothing(tmp_path: Path) -> None:
    """An empty file (what a mistaken earlier run could leave) is not turned into a database."""
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    one_line_error(cli(["run", "--resume", "BADID", "--db", str(db)]))
    assert _tree(tmp_path) == {"empty.db": b""}


# -- 4. names with control characters -------------------------------------------------------------------

def _rated_db(tmp_path: Path) -> Path:
    return fixed_db(tmp_path / "p.db")


@pytest.mark.parametrize("raters", [ESC_NAME, f"bob,{ESC_NAME}", "ann\tbob", "a\u202eb", "a\x9bb", "a\nb"])
def test_assign_refuses_control_characters_in_rater_names(tmp_path: Path, raters: str) -> None:
    db = _rated_db(tmp_path)
    before = _tree(tmp_path)
    line = one_line_error(cli(["assign", "--db", str(db), "--raters", raters, "--copies",
                               str(tmp_path / "copies")]))
    assert "control characters" in line and "\x1b" not in line
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("argv", [
    ["chat", "--system", "echo", "--tester", ESC_NAME],
    ["--tester", ESC_NAME, "chat", "--system", "echo"],
    ["run", "--system", "echo", "--tester", ESC_NAME],
    ["rate", "--rater", ESC_NAME],
    ["--tester", ESC_NAME, "rate"],
])
def test_tester_and_rater_names_refuse_control_characters(tmp_path: Path, argv: list[str]) -> None:
    db = _rated_db(tmp_path)
    extra = {"chat": ["--script", _script(tmp_path)], "run": ["--dialogues", _dialogues(tmp_path)]}
    cmd = next(a for a in argv if a in ("chat", "run", "rate"))
    before = _tree(tmp_path)
    line = one_line_error(cli([*argv, *extra.get(cmd, []), "--db", str(db)]))
    assert "control characters" in line and "\x1b" not in line
    assert _tree(tmp_path) == before


def test_plain_unicode_names_are_fine(tmp_path: Path) -> None:
    db = _rated_db(tmp_path)
    r = cli(["assign", "--db", str(db), "--raters", "Zoë,李,ann bob", "--json"])
    assert r.exit_code == 0, r.output
    assert set(json.loads(r.output)["added"]) == {"Zoë", "李", "ann bob"}


# -- 5. score --mwzeval-file with --plot/--html ------------------------------------------------------------

@pytest.mark.parametrize("extra", [["--plot", "p.png"], ["--html", "r.html"], ["--satisfaction"],
                                   ["--multiwoz"], ["--latency"]])
def test_mwzeval_file_refuses_what_it_would_ignore(tmp_path: Path, extra: list[str]) -> None:
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps({"d1": [{"response": "hello", "state": {}}]}), encoding="utf-8")
    before = _tree(tmp_path)
    argv = ["score", "--mwzeval-file", str(pred), "--dialogues", _dialogues(tmp_path),
            *[str(tmp_path / a) if a.endswith((".png", ".html")) else a for a in extra]]
    after_inputs = _tree(tmp_path)
    line = one_line_error(cli(argv))
    assert extra[0] in line and "--mwzeval-file" in line
    assert _tree(tmp_path) == after_inputs and set(before) <= set(after_inputs)



@pytest.mark.parametrize(("argv", "named"), [
    (["score", "--satisfaction", "--references", "refs.json"], "--references"),
    (["score", "--satisfaction", "--turn-file", "turns.csv"], "--turn-file"),
])
def test_score_options_that_would_be_ignored_are_refused(tmp_path: Path, argv: list[str], named: str) -> None:
    line = one_line_error(cli([*argv, "--db", str(_rated_db(tmp_path))]))
    assert named in line


# -- found while trying the commands as a hostile user ------------------------------------------------------

@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["sessions"], ["export", "--format", "jsonl", "--out", "o.jsonl"],
                                  ["chat", "--system", "echo", "--script", "script.txt"],
                                  ["run", "--resume", "X"]])
def test_an_empty_db_is_refused_not_read_as_the_default(tmp_path: Path, argv: list[str]) -> None:
    """``--db "$DB"`` with DB unset must not quietly write into the default database."""
    _script(tmp_path)
    default = tmp_path / "default.db"
    p = run([*argv, "--db", ""], cwd=tmp_path, env={"PARLEY_DB": str(default)})
    assert "--db is empty" in one_line_error(p)
    assert not default.exists()


@pytest.mark.subprocess
def test_a_db_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for argv in (["sessions"], ["chat", "--system", "echo", "--script", _script(tmp_path)]):
        p = run([*argv, "--db", str(fifo)], cwd=REPO, timeout=60)  # SQLite would block reading a FIFO
        assert "not a regular file" in one_line_error(p)
    assert "not a regular file" in one_line_error(cli(["sessions", "--db", "/dev/null"]))


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["rewrite", "-r", "disfluency"],
                                  ["chat", "--system", "echo", "--script", "-"]])
def test_standard_output_on_a_full_disk_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    """``parley rewrite > /dev/full`` ended in a traceback (ENOSPC from click.echo)."""
    import subprocess
    import sys

    extra = ["--db", str(tmp_path / "p.db")] if argv[0] == "chat" else []
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "parley", *argv, *extra], input="hello there\n", text=True,
                           stdout=full, stderr=subprocess.PIPE, cwd=REPO, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.strip().startswith("parley: error: cannot write") and p.stderr.strip().count("\n") == 0


@pytest.mark.parametrize("argv", [
    ["export", "--format", "jsonl", "--force", "--out"],
    ["score", "--satisfaction", "--force", "--plot"],
    ["score", "--satisfaction", "--force", "--html"],
    ["run", "--system", "echo", "--force", "--html"],
])
def test_an_output_is_never_the_database_itself(tmp_path: Path, argv: list[str]) -> None:
    """``parley export --format jsonl --out study.db --db study.db --force`` replaced the database with its
    own export."""
    db = _rated_db(tmp_path)
    before = db.read_bytes()
    extra = ["--dialogues", _dialogues(tmp_path)] if argv[0] == "run" else []
    line = one_line_error(cli([*argv, str(db), *extra, "--db", str(db)]))
    assert "is the database itself" in line
    assert db.read_bytes() == before
