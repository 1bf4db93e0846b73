"""Every file, stream and archive parley reads has a budget, checked while reading: a zip bomb, /dev/zero or a
script of too many lines ends the command with one line naming the limit and how to raise it, exit 2 — run
as a user would, in a child process under a memory limit (on a machine without one, these inputs took the
memory until a MemoryError traceback or the kernel ended them). Importing a corpus streams it: memory does
not grow with the file."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import pytest

from tests.corpora import write_corpus
from tests.unit.limited import one_error, run_limited

#: each test runs the real command in a child process under a memory limit
pytestmark = pytest.mark.subprocess

GIB = 1 << 30


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4.7 MB zip whose one member is 1 GiB of JSON (a dialogue with one endless turn)."""
    path = tmp_path_factory.mktemp("bomb") / "data.json.zip"
    chunk = b"a" * (1 << 24)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z, \
            z.open("data.json", "w", force_zip64=True) as fh:
        fh.write(b'{"SNG0001.json": {"goal": {}, "log": [{"text": "')
        for _ in range(GIB // len(chunk)):
            fh.write(chunk)
        fh.write(b'", "metadata": {}}]}}')
    return path


def _bomb_commands(tmp_path: Path, bomb: Path) -> dict[str, tuple[list[str], int]]:
    """command → (argv, address-space limit in MB: commands that import torch need more to start)."""
    db, preds = str(tmp_path / "p.db"), tmp_path / "p.json"
    preds.write_text(json.dumps({"sng0001": [{"response": "hello", "state": {}}]}), encoding="utf-8")
    return {
        "import": (["import", str(bomb), "--format", "multiwoz", "--db", db], 1500),
        "run": (["run", "--system", "echo", "--dialogues", str(bomb), "--db", db], 1500),
        "score": (["score", "--mwzeval-file", str(preds), "--dialogues", str(bomb)], 1500),
        "train": (["train", "tod", "--data", str(bomb), "--out", str(tmp_path / "m"), "--steps", "1"], 3000),
    }


@pytest.mark.parametrize("name", ["import", "run", "score", "train"])
def test_a_zip_bomb_is_refused_by_its_declared_size(name: str, bomb: Path, tmp_path: Path) -> None:
    argv, mem = _bomb_commands(tmp_path, bomb)[name]
    r = run_limited(argv, mem_mb=mem)
    line = one_error(r)
    assert "data.json" in line and "1,073,741,8" in line and "uncompressed" in line, line
    assert "input limit of 512 MB" in line and "PARLEY_MAX_INPUT_MB=" in line, line
    db = tmp_path / "p.db"
    if db.exists():
        assert sqlite3.connect(db).execute("SELECT count(*) FROM sessions").fetchone()[0] == 0


def test_raising_the_input_limit_lets_a_big_member_through_to_the_record_limit(bomb: Path,
                                                                               tmp_path: Path) -> None:
    """With PARLEY_MAX_INPUT_MB raised the member is read as a stream, and its one endless dialogue is then
    stopped by the record limit, at about 64 MB of memory rather than a gigabyte."""
    r = run_limited(["import", str(bomb), "--format", "multiwoz", "--db", str(tmp_path / "p.db")],
                    mem_mb=1500, env={"PARLEY_MAX_INPUT_MB": "2000"})
    line = one_error(r)
    assert "dialogue 'SNG0001.json' too large" in line and "PARLEY_MAX_RECORD_MB=" in line, line
    assert r.peak_rss_mb < 600, r.peak_rss_mb


def _zero_commands(tmp_path: Path) -> dict[str, list[str]]:
    db = str(tmp_path / "p.db")
    return {
        "chat --script": ["chat", "--system", "echo", "--script", "/dev/zero", "--db", db],
        "score --abredial": ["score", "--satisfaction", "--abredial", "/dev/zero"],
        "sktod score --labels": ["sktod", "score", "--labels", "/dev/zero", "--pred", "/dev/zero"],
        "sktod run --knowledge": ["sktod", "run", "--logs", "/dev/zero", "--knowledge", "/dev/zero",
                                  "--out", str(tmp_path / "pred.json")],
    }


@pytest.mark.parametrize("name", ["chat --script", "score --abredial",
                                  "sktod score --labels", "sktod run --knowledge"])
def test_an_endless_file_stops_at_its_budget(name: str, tmp_path: Path) -> None:
    r = run_limited(_zero_commands(tmp_path)[name], mem_mb=1500, timeout=240)
    line = one_error(r)
    assert "/dev/zero" in line and "limit of" in line and "(raise it with PARLEY_MAX_" in line, line
    assert r.peak_rss_mb < 600, r.peak_rss_mb


@pytest.mark.parametrize("fmt", ["multiwoz", "jsonl", "abredial", "dstc11"])
def test_a_file_over_the_input_limit_is_refused_before_it_is_read(fmt: str, tmp_path: Path) -> None:
    """A 600 MB file (sparse: no disk used) is refused by its size at once, before a byte is read."""
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(600_000_000)
    r = run_limited(["import", str(big), "--format", fmt, "--db", str(tmp_path / "p.db")], mem_mb=1000)
    line = one_error(r)
    assert "600,000,000 bytes (600.0 MB), over the input limit of 512 MB" in line, line
    assert r.peak_rss_mb < 300, r.peak_rss_mb


def test_endless_standard_input_stops_at_the_line_limit() -> None:
    with open("/dev/zero", "rb") as zero:
        r = run_limited(["rewrite", "-r", "wp"], stdin=zero, mem_mb=1500)
    line = one_error(r)
    assert line.endswith("standard input: line 1 too long, over the line-length limit of 64 KB (raise it "
                         "with PARLEY_MAX_LINE_KB=128)"), line


def test_a_script_over_the_line_count_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    script = tmp_path / "turns.txt"
    script.write_text("".join(f"i need a hotel number {i}\n" for i in range(12)), encoding="utf-8")
    db = tmp_path / "p.db"
    r = run_limited(["chat", "--system", "echo", "--script", str(script), "--db", str(db)],
                    env={"PARLEY_MAX_LINES": "10"})
    line = one_error(r)
    assert "too many lines, over the line-count limit of 10 lines (raise it with PARLEY_MAX_LINES=20)" in line
    assert not db.exists() or sqlite3.connect(db).execute("SELECT count(*) FROM turns").fetchone()[0] == 0


def test_a_budget_variable_that_is_not_a_number_is_one_line(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.json", 2)
    r = run_limited(["import", str(corpus), "--format", "multiwoz", "--db", str(tmp_path / "p.db")],
                    env={"PARLEY_MAX_INPUT_MB": "lots"})
    assert "PARLEY_MAX_INPUT_MB='lots': must be a positive number of MB" in one_error(r)


def test_importing_a_corpus_streams_it(tmp_path: Path) -> None:
    """Peak memory while importing grows by less than the file's size (the file held whole took 8x it)."""
    small = write_corpus(tmp_path / "small.json", 20)
    big = write_corpus(tmp_path / "big.json", 20_000)
    size_mb = big.stat().st_size / 1e6
    assert size_mb > 15
    base = run_limited(["import", str(small), "--format", "multiwoz", "--db", str(tmp_path / "a.db")],
                       mem_mb=None)
    full = run_limited(["import", str(big), "--format", "multiwoz", "--db", str(tmp_path / "b.db")],
                       mem_mb=None, timeout=600)
    assert base.returncode == 0 and full.returncode == 0, full.stderr[-2000:]
    assert "20000 new session(s)" in full.stdout
    assert full.peak_rss_mb - base.peak_rss_mb < size_mb, (base.peak_rss_mb, full.peak_rss_mb, size_mb)


def test_a_jsonl_line_over_the_record_limit_is_refused(tmp_path: Path) -> None:
    line = json.dumps({"session": {"id": "x" * 3_000_000}})
    path = tmp_path / "big.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    r = run_limited(["import", str(path), "--format", "jsonl", "--db", str(tmp_path / "p.db")],
                    env={"PARLEY_MAX_RECORD_MB": "1"})
    assert "line 1 too long, over the record limit of 1 MB (raise it with PARLEY_MAX_RECORD_MB=2)" in \
        one_error(r)


def test_a_marked_record_is_never_read_far_past_the_record_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """read() inside a record asks the stream for one byte past the record budget at most, not for the whole
    input budget (a zip member of a few hundred MB held whole was read entirely before it was refused)."""
    import io

    from parley.errors import ParleyError
    from parley.limits import Bounded

    asked: list[int] = []

    class Stream(io.BytesIO):
        def read(self, n: int | None = -1) -> bytes:
            asked.append(-1 if n is None else n)
            return super().read(n)

    monkeypatch.setenv("PARLEY_MAX_RECORD_MB", "0.00001")  # 10 bytes
    fh = Bounded(Stream(b"x" * 1000), "member", ParleyError)
    fh.mark("member")
    with pytest.raises(ParleyError, match="record limit"):
        fh.read()
    assert asked == [11]
