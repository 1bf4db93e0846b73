"""`parley export` never destroys a file: an existing --out needs --force; the export is written beside the
target and renamed; a failed write (disk full, /dev/full, a read-only folder) is one line, exit 2, and the old
file stays as it was."""

from __future__ import annotations

import os
import resource
import signal
import stat
from pathlib import Path

import pytest

from parley.store import open_store
from parley.store.records import SessionRecord, TurnRecord
from tests.unit.clihelpers import REPO, cli, env_in, one_line_error, run, shared_dir
from tests.unit.storehelpers import fixed_db

OLD = "precious results, not an export\n"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return fixed_db(tmp_path / "p.db")


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_existing_out_is_refused_without_force(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text(OLD, encoding="utf-8")
    line = one_line_error(cli(["export", "--db", str(db), "--format", "jsonl", "--out", str(out)]))
    assert "already exists" in line and "--force" in line
    assert out.read_text(encoding="utf-8") == OLD
    r = cli(["export", "--db", str(db), "--format", "jsonl", "--out", str(out), "--force"])
    assert r.exit_code == 0 and out.read_text(encoding="utf-8").count("\n") == 2
    assert _leftovers(tmp_path) == []


def test_csv_tables_are_refused_without_force(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "csv"
    assert cli(["export", "--db", str(db), "--format", "csv", "--out", str(folder)]).exit_code == 0
    (folder / "turns.csv").write_text(OLD, encoding="utf-8")
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    one_line_error(cli(["export", "--db", str(db), "--format", "csv", "--out", str(folder)]))
    assert (folder / "turns.csv").read_text(encoding="utf-8") == OLD
    assert cli(["export", "--db", str(db), "--format", "csv", "--out", str(folder), "--force"]).exit_code == 0
    assert (folder / "turns.csv").read_text(encoding="utf-8").startswith("id,")
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "mine" and _leftovers(folder) == []


def test_dev_full_is_refused(db: Path) -> None:
    before = os.stat("/dev/full")
    one_line_error(cli(["export", "--db", str(db), "--format", "jsonl", "--out", "/dev/full"]))
    argv = ["export", "--db", str(db), "--format", "jsonl", "--out", "/dev/full", "--force"]
    line = one_line_error(cli(argv))
    assert "not a regular file" in line
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_unwritable_folder_is_one_line(db: Path, tmp_path: Path) -> None:
    line = one_line_error(cli(["export", "--db", str(db), "--format", "jsonl", "--out", "/proc/x/y.jsonl"]))
    assert "/proc/x" in line or "does not exist" in line


@pytest.mark.subprocess
def test_read_only_folder_keeps_the_old_file(db: Path) -> None:
    with shared_dir() as d:
        (d / "p.db").write_bytes(db.read_bytes())
        folder = d / "ro"
        folder.mkdir()
        out = folder / "out.jsonl"
        out.write_text(OLD, encoding="utf-8")
        folder.chmod(0o555)
        (d / "p.db").chmod(0o666)
        d.chmod(0o777)
        p = run(["export", "--db", str(d / "p.db"), "--format", "jsonl", "--out", str(out), "--force"], cwd=d,
                env=env_in(d), unprivileged=True)
        line = one_line_error(p)
        assert "not writable" in line or "Permission denied" in line
        assert out.read_text(encoding="utf-8") == OLD and _leftovers(folder) == []


def _big_db(path: Path) -> None:
    store = open_store(path)
    with store.write():
        for _k in range(60):
            s = store.add_session(SessionRecord(tester="t", mode="batch", system_name="echo"))
            for i in range(10):
                store.add_turn(TurnRecord(session_id=s.id, index=i, role="user", text="word " * 80))
    store.close()


def _limit_file_size() -> None:
    """In the child: writes past 64 KiB fail with EFBIG (what a full disk does to a writer), no signal."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


@pytest.mark.subprocess
def test_disk_full_midway_leaves_the_old_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    _big_db(tmp_path / "big.db")
    out = tmp_path / "out.jsonl"
    out.write_text(OLD, encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "parley", "export", "--db", str(tmp_path / "big.db"),
                        "--format", "jsonl", "--out", str(out), "--force"], cwd=REPO, capture_output=True,
                       text=True, preexec_fn=_limit_file_size, timeout=180)
    line = one_line_error(p)
    assert "cannot write" in line and "nothing written" in line
    assert out.read_text(encoding="utf-8") == OLD
    assert _leftovers(tmp_path) == []


def test_stdout(db: Path) -> None:
    r = cli(["export", "--db", str(db), "--format", "jsonl", "--out", "-"])
    assert r.exit_code == 0 and r.stdout.count("\n") == 2


@pytest.mark.subprocess
def test_csv_to_stdout_is_refused(db: Path, tmp_path: Path) -> None:
    """``--out -`` means stdout; csv used to take it as a folder name and create ``./-`` with the tables."""
    p = run(["export", "--db", str(db), "--format", "csv", "--out", "-"], cwd=tmp_path)
    assert "only jsonl writes to stdout" in one_line_error(p)
    assert list(tmp_path.iterdir()) == [db]
