"""Batch runs: a run, the dialogues it has stored, and the atomic commit of one replayed dialogue.

A run (``parley run``) has an id and a key (a digest of what defines it: system, corpus, conditions, seed…).
Each replayed dialogue is committed in one transaction together with its ``run_items`` row, so after any
interruption (ctrl+c, kill -9) a dialogue is either wholly stored and recorded as done, or absent: resuming
replays exactly the missing ones.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from parley.jsontypes import JSONObject
from parley.store.db import BUSY_TIMEOUT_MS, Store, StoreError, check_file
from parley.store.records import SessionRecord, TurnRecord, new_id, now


@dataclass(frozen=True)
class RunRecord:
    key: str
    total: int
    params: JSONObject = field(default_factory=dict)
    id: str = field(default_factory=new_id)
    started_at: str = field(default_factory=now)
    finished_at: str | None = None


def _run(row: tuple[str, str, str, int, str, str | None]) -> RunRecord:
    return RunRecord(key=row[1], params=json.loads(row[2]), total=row[3], id=row[0], started_at=row[4],
                     finished_at=row[5])


_COLS = "id, key, params, total, started_at, finished_at"


def add_run(store: Store, rec: RunRecord) -> RunRecord:
    with store.write() as conn:
        conn.execute(f"INSERT INTO runs ({_COLS}) VALUES (?, ?, ?, ?, ?, ?)",
                     [rec.id, rec.key, json.dumps(rec.params, sort_keys=True, allow_nan=False), rec.total,
                      rec.started_at, rec.finished_at])
    return rec


def get_run(store: Store, run_id: str) -> RunRecord | None:
    row = store.db.execute(f"SELECT {_COLS} FROM runs WHERE id = ?", [run_id]).fetchone()
    return _run(row) if row else None


def peek_run(path: Path, run_id: str) -> RunRecord | None:
    """The run ``run_id`` in the database file at ``path`` (None: no such file, table or run), read without
    creating, migrating or leaving any file: a plain connection that writes nothing, whose close removes the
    -wal/-shm files that reading a WAL database makes (a read-only connection would leave them behind)."""
    if not path.exists():
        return None
    check_file(path)
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'").fetchone():
                return None
            row = conn.execute(f"SELECT {_COLS} FROM runs WHERE id = ?", [run_id]).fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{path}: {e}") from None
    return _run(row) if row else None


def unfinished_run(store: Store, key: str) -> RunRecord | None:
    """The latest unfinished run with this key, if any."""
    row = store.db.execute(f"SELECT {_COLS} FROM runs WHERE key = ? AND finished_at IS NULL "
                           "ORDER BY started_at DESC LIMIT 1", [key]).fetchone()
    return _run(row) if row else None


def done_items(store: Store, run_id: str) -> Iterator[tuple[int, str]]:
    """``(seq, session_id)`` of every dialogue the run has stored, in order."""
    cur = store.db.execute("SELECT seq, session_id FROM run_items WHERE run_id = ? ORDER BY seq", [run_id])
    yield from cur


def count_done(store: Store, run_id: str) -> int:
    return int(store.db.execute("SELECT count(*) FROM run_items WHERE run_id = ?", [run_id]).fetchone()[0])


def commit_dialogue(store: Store, run_id: str, seq: int, condition: str, dialogue_id: str,
                    session: SessionRecord, turns: Sequence[TurnRecord]) -> None:
    """Store a whole replayed dialogue and mark it done, in one transaction."""
    with store.write() as conn:
        store.add_session(session)
        for t in turns:
            store.add_turn(t)
        conn.execute(
            "INSERT INTO run_items (run_id, seq, condition, dialogue_id, session_id) VALUES (?, ?, ?, ?, ?)",
            [run_id, seq, condition, dialogue_id, session.id],
        )


def finish_run(store: Store, run_id: str) -> None:
    with store.write() as conn:
        conn.execute("UPDATE runs SET finished_at = coalesce(finished_at, ?) WHERE id = ?", [now(), run_id])
