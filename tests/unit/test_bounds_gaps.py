"""Smaller gaps, each refused or fixed as the README's Guarantees promise for the neighbouring cases: a
PARLEY_DB in a missing folder, an empty file or a read-only folder given as a database, -wal/-shm files left
by a read, NaN carried on by a merge, an audio list whose second file is bad, control characters written raw
to a terminal, a tester name with control characters in the settings file, a closed pipe,
``import /dev/null`` and ``assign --copies`` in a missing folder. Each runs the real command in a child
process under an address-space limit (``tests.unit.limited``), as a user's shell with ``ulimit -v`` would."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from parley.store import open_store
from parley.store.records import SessionRecord, TurnRecord
from tests.corpora import write_corpus
from tests.unit.clihelpers import REPO, cli, env_in, shared_dir
from tests.unit.limited import one_error, run_limited

#: each test runs the real command in a child process under a memory limit
pytestmark = pytest.mark.subprocess

#: address space for every command below (MB): far above what each needs, far below the machine
MEM = 1500
#: the audio path loads the speech recogniser's libraries, which reserve more address space
AUDIO_MEM = 4000


def _script(tmp_path: Path) -> Path:
    script = tmp_path / "turns.txt"
    script.write_text("hello\n", encoding="utf-8")
    return script


def test_parley_db_in_a_missing_folder_is_refused_not_created(tmp_path: Path) -> None:
    db = tmp_path / "typo" / "study.db"
    r = run_limited(["chat", "--system", "echo", "--script", str(_script(tmp_path))], mem_mb=MEM,
                    env={"PARLEY_DB": str(db)})
    assert f"folder {db.parent} does not exist" in one_error(r)
    assert not db.parent.exists()


def test_a_new_database_in_a_folder_that_is_not_writable_is_one_line(tmp_path: Path) -> None:
    with shared_dir() as d:
        folder = d / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        r = run_limited(["chat", "--system", "echo", "--script", "-", "--db", str(folder / "p.db")], cwd=d,
                        mem_mb=MEM, env=env_in(d), input=b"hello\n", unprivileged=True)
        assert f"cannot create a database in {folder}: the folder is not writable" in one_error(r)


@pytest.mark.parametrize("argv", [["sessions"], ["export", "--format", "jsonl", "--out", "-"],
                                  ["score", "--multiwoz"], ["score", "--latency"]])
def test_an_empty_file_given_to_a_reading_command_stays_empty(argv: list[str], tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    line = one_error(run_limited([*argv, "--db", str(db)], mem_mb=MEM))
    assert f"{db} is an empty file, not a parley database" in line
    assert db.stat().st_size == 0 and not Path(f"{db}-wal").exists()


def test_a_read_leaves_no_wal_files_behind(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    assert run_limited(["chat", "--system", "echo", "--script", str(_script(tmp_path)), "--db", str(db)],
                       mem_mb=MEM).returncode == 0
    r = run_limited(["score", "--latency", "--db", str(db)], mem_mb=MEM)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.glob("p.db*")) == ["p.db"]


def test_merge_writes_no_nan_from_an_old_database(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    for path in (a, b):
        open_store(path).close()
    store = open_store(a)
    session = store.add_session(SessionRecord(tester="ann", mode="batch", system_name="echo"))
    turn = store.add_turn(TurnRecord(session_id=session.id, index=0, role="system", text="hi"))
    store.close()
    with sqlite3.connect(a) as conn:  # what an older parley could store
        conn.execute("UPDATE turns SET internals = ? WHERE id = ?", ['{"p": NaN, "q": [Infinity]}', turn.id])
    out = tmp_path / "c.db"
    r = run_limited(["merge", str(a), str(b), "--out", str(out)], mem_mb=MEM)
    assert r.returncode == 0, r.stderr
    text = sqlite3.connect(out).execute("SELECT internals FROM turns").fetchone()[0]
    assert json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} merged")) == {"p": None, "q": [None]}


def test_an_audio_list_is_checked_whole_before_a_turn_is_stored(tmp_path: Path) -> None:
    from tests.spoken import restaurant_wavs

    first = restaurant_wavs(tmp_path / "wavs")[0]
    bad = tmp_path / "wavs" / "broken.wav"
    bad.write_text("not audio at all\n", encoding="utf-8")
    listing = tmp_path / "turns.list"
    listing.write_text(f"{first}\n{bad}\n", encoding="utf-8")
    db = tmp_path / "p.db"
    r = run_limited(["chat", "--system", "echo", "--audio-script", str(listing), "--db", str(db)],
                    mem_mb=AUDIO_MEM, timeout=600)
    line = one_error(r)
    assert f"{listing}:2: cannot read audio file {bad}" in line, line
    assert not db.exists() or sqlite3.connect(db).execute("SELECT count(*) FROM turns").fetchone()[0] == 0


def test_export_to_standard_output_escapes_what_a_terminal_would_obey(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = open_store(db)
    hostile = "left \u202e right \x9b[2J end \x7f"
    session = store.add_session(SessionRecord(tester="ann", mode="batch", system_name="echo"))
    store.add_turn(TurnRecord(session_id=session.id, index=0, role="user", text=hostile))
    store.close()
    r = run_limited(["export", "--format", "jsonl", "--out", "-", "--db", str(db)], mem_mb=MEM, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert not any(c in out for c in "\u202e\x9b\x7f"), out
    assert json.loads(out.splitlines()[0])["turns"][0]["text"] == hostile


def test_a_tester_name_with_control_characters_in_the_settings_file_is_refused(tmp_path: Path) -> None:
    """Opening the TUI reads the settings first: the bad name is one line and exit 2 before any screen."""
    config = tmp_path / "config.toml"
    config.write_text('tester = "ana\\u001b[2J"\n', encoding="utf-8")
    r = run_limited(["--system", "echo"], mem_mb=MEM, env={"PARLEY_CONFIG": str(config)})
    assert "tester: a name cannot hold control characters" in one_error(r)
    assert "\x1b" not in r.stdout + r.stderr


def test_a_closed_pipe_ends_quietly_with_141(tmp_path: Path) -> None:
    """``parley rewrite … | head -n 1``: the reader leaves; parley ends with 128 + SIGPIPE, saying nothing."""
    lines = tmp_path / "lines.txt"
    lines.write_bytes(b"i need a cheap hotel in the north\n" * 3000)
    p = subprocess.run(f"ulimit -v {MEM * 1024}; {sys.executable} -m parley rewrite -r wp < {lines} "
                       "| head -n 1 > /dev/null; echo ${PIPESTATUS[0]}", shell=True, cwd=REPO,
                       capture_output=True, timeout=300, executable="/bin/bash")
    assert p.stdout.decode().strip() == "141", p.stderr
    assert p.stderr == b"", p.stderr


def test_import_of_something_that_is_not_a_file_says_so(tmp_path: Path) -> None:
    line = one_error(run_limited(["import", "/dev/null", "--format", "jsonl", "--db", str(tmp_path / "p.db")],
                                 mem_mb=MEM))
    assert line.endswith("/dev/null: not a regular file")


def test_assign_copies_into_a_missing_folder_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    corpus = write_corpus(tmp_path / "c.json", 2)
    assert cli(["import", str(corpus), "--format", "multiwoz", "--db", str(db)]).exit_code == 0
    copies = tmp_path / "typo" / "copies"
    line = one_error(run_limited(["assign", "--raters", "a,b", "--copies", str(copies), "--db", str(db)],
                                 mem_mb=MEM))
    assert f"folder {copies.parent} does not exist" in line
    assert not copies.parent.exists()
