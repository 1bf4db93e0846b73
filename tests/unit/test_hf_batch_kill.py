"""kill -9 of ``parley run --batch N`` (one process, N dialogues decoding in lockstep on one model; or W
worker processes doing that each): the database stays intact, holds only whole dialogues, no worker process
outlives the driver, and ``--resume RUN_ID`` stores exactly what an uninterrupted run stores. A real process,
a real SQLite file, a tiny GPT-2 built by the test."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.corpora import write_corpus
from tests.unit.test_batch_run import _stored, normalised_export
from tests.unit.test_sys_hf import gpt2_dir  # noqa: F401  (the tiny hf-causal checkpoint fixture)

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
N, TURNS = 16, 3  # per condition; two conditions


@pytest.mark.parametrize("workers", [[], ["--workers", "2", "--backend", "process"]],
                         ids=["one-process", "two-processes"])
def test_kill_9_of_a_batched_run_then_resume_stores_a_clean_runs_turns(tmp_path: Path, workers: list[str],
                                                                       gpt2_dir: Path) -> None:  # noqa: F811
    import psutil

    corpus = write_corpus(tmp_path / "c.json", N, turns=TURNS)
    parley = str(Path(sys.executable).with_name("parley"))
    db = tmp_path / "r.db"
    args = ["run", "--system", f"hf-causal:model={gpt2_dir},format=simpletod,max_new_tokens=40",
            "--dialogues", str(corpus), "--condition", "original", "--condition", "disfluency"]
    tail = ["--batch", "4", *workers, "--bootstrap", "0", "--json", "--db"]
    proc = subprocess.Popen([parley, *args, *tail, str(db)], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while _stored(db) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    children = psutil.Process(proc.pid).children(recursive=True)
    assert len(children) >= (2 if workers else 0)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    _, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, "worker processes outlived the killed driver"

    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        (run_id, finished), = conn.execute("SELECT id, finished_at FROM runs").fetchall()
        assert finished is None
        items = conn.execute("SELECT session_id FROM run_items WHERE run_id = ?", [run_id]).fetchall()
        sessions = conn.execute("SELECT id, ended_at FROM sessions").fetchall()
        # every stored session is a whole dialogue recorded as done: ended, all its turns settled
        assert sorted(s for s, in items) == sorted(s for s, _ in sessions)
        assert all(ended for _, ended in sessions)
        per_session = dict(conn.execute("SELECT session_id, count(*) FROM turns GROUP BY session_id"))
        assert per_session == {s: 2 * TURNS for s, _ in sessions}
        assert conn.execute("SELECT count(*) FROM turns WHERE status = 'pending'").fetchone()[0] == 0
    stored = len(items)
    assert 5 <= stored < 2 * N

    again = subprocess.run([parley, "run", "--resume", run_id, *tail, str(db)], cwd=REPO,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"resuming run {run_id}: {stored} of {2 * N}" in again.stderr
    assert f"{stored} stored before" in again.stderr
    clean = tmp_path / "clean.db"
    fresh = subprocess.run([parley, *args, *tail, str(clean)], cwd=REPO, capture_output=True, text=True,
                           timeout=600)
    assert fresh.returncode == 0, fresh.stderr
    assert json.loads(again.stdout) == json.loads(fresh.stdout)
    assert normalised_export(db, tmp_path / "r.jsonl") == normalised_export(clean, tmp_path / "c.jsonl")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM runs WHERE finished_at IS NOT NULL").fetchone()[0] == 1
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
