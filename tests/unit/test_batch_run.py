"""parley run at scale: N workers store what a serial run stores; interrupted runs resume exactly;
the corpus is streamed. Real components: the CLI, SQLite files, a loopback HTTP bot, spawned processes."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parley.cli import main
from tests.bots import BotServer, serving
from tests.corpora import write_corpus
from tests.unit.storehelpers import count_rows

GOLDEN_CORPUS = Path(__file__).parent / "golden" / "score_corpus.json"
REPO = Path(__file__).resolve().parents[2]
VOLATILE = {"started_at", "ended_at", "created_at", "latency_ms", "elapsed_ms"}
IDS = {"id", "session_id", "turn_id"}


@pytest.fixture(scope="module")
def bot() -> Iterator[BotServer]:
    with serving(latency=0.01) as server:
        yield server


def normalised_export(db: Path, out: Path) -> list[Any]:
    """The JSONL export with ids replaced by their order of appearance and times/latencies dropped."""
    res = CliRunner().invoke(main, ["export", "--db", str(db), "--format", "jsonl", "--out", str(out)])
    assert res.exit_code == 0, res.output
    ids: dict[str, str] = {}

    def norm(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: (ids.setdefault(v, f"#{len(ids)}") if k in IDS and isinstance(v, str) else norm(v))
                    for k, v in x.items() if k not in VOLATILE}
        if isinstance(x, list):
            return [norm(v) for v in x]
        return x

    return [norm(json.loads(line)) for line in out.read_text(encoding="utf-8").splitlines()]


def run_cli(*args: str) -> Any:
    res = CliRunner().invoke(main, ["run", *args])
    assert res.exit_code == 0, res.output
    return res


def test_workers_store_what_a_serial_run_stores(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.json", 12)
    common = ["--system", "multiwoz", "--dialogues", str(corpus), "--condition", "original", "--condition",
              "disfluency+wp", "--seed", "4", "--json", "--bootstrap", "100"]
    one = run_cli(*common, "--db", str(tmp_path / "1.db"), "--workers", "1")
    eight = run_cli(*common, "--db", str(tmp_path / "8.db"), "--workers", "8", "--backend", "thread")
    assert json.loads(one.stdout) == json.loads(eight.stdout)
    a = normalised_export(tmp_path / "1.db", tmp_path / "1.jsonl")
    b = normalised_export(tmp_path / "8.db", tmp_path / "8.jsonl")
    assert len(a) == 24 and a == b


@pytest.mark.subprocess
def test_remote_threads_and_processes_match_serial(tmp_path: Path, bot: BotServer) -> None:
    corpus = write_corpus(tmp_path / "c.json", 6)
    common = ["--dialogues", str(corpus), "--condition", "original", "--condition", "asr-sim", "--json"]
    spec = f"remote:url={bot.url}/ok"
    s = run_cli("--system", spec, *common, "--db", str(tmp_path / "s.db"))
    t = run_cli("--system", spec, *common, "--db", str(tmp_path / "t.db"), "--workers", "8")
    assert "8 worker(s) on thread" in t.stderr
    p = run_cli("--system", "multiwoz", *common, "--db", str(tmp_path / "p.db"), "--workers", "2")
    q = run_cli("--system", "multiwoz", *common, "--db", str(tmp_path / "q.db"))
    assert "2 worker(s) on process" in p.stderr
    assert json.loads(s.stdout) == json.loads(t.stdout) and json.loads(p.stdout) == json.loads(q.stdout)
    assert normalised_export(tmp_path / "s.db", tmp_path / "s.jsonl") == \
        normalised_export(tmp_path / "t.db", tmp_path / "t.jsonl")
    assert normalised_export(tmp_path / "p.db", tmp_path / "p.jsonl") == \
        normalised_export(tmp_path / "q.db", tmp_path / "q.jsonl")


def _stored(db: Path) -> int:
    return count_rows(db, "SELECT count(*) FROM run_items")


def ctrl_c_after(args: list[str], db: Path, stored: int) -> tuple[int, str, float]:
    """Start ``parley run`` (``args``), press ctrl+c once ``stored`` dialogues are stored: its exit code,
    stderr and the seconds it took to stop."""
    # ctrl+c as a terminal delivers it: SIGINT at its default in the child, even when this suite runs as a
    # background job (whose shell set SIGINT to "ignore", which every child would inherit)
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while _stored(db) < stored and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err, time.monotonic() - t0


@pytest.mark.subprocess
@pytest.mark.parametrize(("workers", "backend"), [(1, "thread"), (4, "thread"), (2, "process")])
def test_kill_9_then_the_same_command_resumes_exactly(tmp_path: Path, bot: BotServer, workers: int,
                                                      backend: str) -> None:
    import psutil

    corpus = write_corpus(tmp_path / "c.json", 30)
    db = tmp_path / "r.db"
    args = [
        "run",
        "--system",
        f"remote:url={bot.url}/ok",
        "--dialogues",
        str(corpus),
        "--condition",
        "original",
        "--condition",
        "disfluency",
        "--workers",
        str(workers),
        "--backend",
        backend,
        "--json",
        "--bootstrap",
        "50",
        "--db",
        str(db),
    ]
    cmd = [str(Path(sys.executable).with_name("parley")), *args]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    target = random.Random(workers).randint(3, 50)
    deadline = time.monotonic() + 120
    while _stored(db) < target and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    children = psutil.Process(proc.pid).children(recursive=True)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, "worker processes outlived the killed driver"
    first = _stored(db)
    assert 0 < first < 60
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "resuming run" in again.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 60
        assert conn.execute("SELECT count(DISTINCT condition || source) FROM sessions").fetchone()[0] == 60
        assert conn.execute("SELECT count(*) FROM run_items").fetchone()[0] == 60
        assert conn.execute("SELECT count(*) FROM runs WHERE finished_at IS NOT NULL").fetchone()[0] == 1
    clean = tmp_path / "clean.db"
    fresh = run_cli(*args[1:-1], str(clean))
    assert json.loads(again.stdout) == json.loads(fresh.stdout)
    assert normalised_export(db, tmp_path / "r.jsonl") == normalised_export(clean, tmp_path / "c.jsonl")


def test_resume_by_id_new_and_refusals(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.json", 4)
    db = str(tmp_path / "r.db")
    first = run_cli("--system", "echo", "--dialogues", str(corpus), "--db", db, "--seed", "2", "--json")
    run_id = first.stderr.split("run ", 1)[1].split(":", 1)[0]
    again = run_cli("--resume", run_id, "--db", db, "--json")  # a finished run: nothing replayed, same scores
    assert "0 dialogue(s) played now, 4 stored before" in again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    fresh = run_cli("--system", "echo", "--dialogues", str(corpus), "--db", db, "--seed", "2", "--new")
    assert "4 dialogue(s) played now" in fresh.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 8
    r = CliRunner().invoke(main, ["run", "--resume", run_id, "--seed", "3", "--db", db])
    assert r.exit_code == 2 and "seed" in r.output
    r = CliRunner().invoke(main, ["run", "--resume", "nope", "--db", db])
    assert r.exit_code == 2 and "no run nope" in r.output
    r = CliRunner().invoke(main, ["run", "--db", db])
    assert r.exit_code == 2 and "--dialogues" in r.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "expected an object"),
        ('{"a": {"log": [', "line 1, column 16: invalid JSON"),
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "JSON nested too deeply"),
        ('{"a": {"log": [1, 2]}}', "malformed"),
        ('{"a": 1}', "no 'log' list"),
        ("{}", "no dialogues"),
    ],
    ids=["array", "truncated", "deep", "log-of-numbers", "scalar", "empty"],
)
def test_bad_corpus_is_one_line(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    r = CliRunner().invoke(
        main, ["run", "--system", "echo", "--dialogues", str(bad), "--db", str(tmp_path / "x.db")]
    )
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


@pytest.mark.subprocess
def test_ctrl_c_stops_fast_and_the_run_resumes(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.json", 40)
    db = tmp_path / "r.db"
    with serving(latency=0.3) as slow:
        args = [str(Path(sys.executable).with_name("parley")), "run", "--system", f"remote:url={slow.url}/ok",
                "--dialogues", str(corpus), "--workers", "4", "--bootstrap", "0", "--json", "--db", str(db)]
        code, err, seconds = ctrl_c_after(args, db, 2)
        assert seconds < 5 and code == 130, err
        assert "interrupted" in err and "--resume" in err and "Traceback" not in err
        stored = _stored(db)
        assert 2 <= stored < 40
        done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and f"{stored} stored before" in done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 40
