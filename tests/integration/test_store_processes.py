"""Crash safety and multi-process concurrency of the store, with real processes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from parley.store import open_store

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]

WRITER = textwrap.dedent("""
    import sys
    from parley.store import open_store
    from parley.store.records import SessionRecord, TurnRecord
    store = open_store(sys.argv[1])
    n = int(sys.argv[2])
    s = store.add_session(SessionRecord(tester=sys.argv[3], mode="batch"))
    print("session", s.id, flush=True)
    for i in range(n):
        store.add_turn(TurnRecord(session_id=s.id, index=i, role="user" if i % 2 == 0 else "system",
                                  text="turn %d " % i + "x" * (i % 200), internals={"i": i}))
        print(i, flush=True)
""")


def _spawn(db: Path, n: int, tag: str, stderr: int = subprocess.PIPE) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(n), tag], stdout=subprocess.PIPE,
                            stderr=stderr, text=True, env=env)


def test_sigkill_loses_nothing_that_returned(tmp_path):
    rng = random.Random(os.getpid())
    for attempt in range(3):
        db = tmp_path / f"crash{attempt}.db"
        proc = _spawn(db, 1_000_000, "crash", stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        header = proc.stdout.readline().split()
        assert header and header[0] == "session"
        session_id = header[1]
        time.sleep(rng.uniform(0.2, 0.8))
        proc.send_signal(signal.SIGKILL)
        out = proc.stdout.read()  # the rest, including what readline() already buffered
        proc.wait()
        acknowledged = [int(x) for x in out.split()]
        assert proc.returncode == -signal.SIGKILL
        store = open_store(db)
        assert store.integrity_ok()
        stored = {t.index for t in store.turns(session_id)}
        assert set(acknowledged) <= stored
        # at most the turn in flight is extra
        assert len(stored - set(acknowledged)) <= 1
        assert len(acknowledged) > 10
        store.close()


def test_two_processes_append_500_each(tmp_path):
    db = tmp_path / "shared.db"
    open_store(db).close()  # created and migrated once, as the app would
    procs = [_spawn(db, 500, f"p{k}") for k in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert "locked" not in err
    store = open_store(db)
    assert store.db.execute("SELECT count(*) FROM turns").fetchone()[0] == 1000
    assert store.db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 2
    assert store.integrity_ok()


def test_two_processes_create_schema_concurrently(tmp_path):
    db = tmp_path / "race.db"
    procs = [_spawn(db, 50, f"p{k}") for k in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert open_store(db).db.execute("SELECT count(*) FROM turns").fetchone()[0] == 100
