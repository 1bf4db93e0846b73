"""Deterministic records for store tests (fixed ids and timestamps, so exports are byte-stable)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from parley.store import Store
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord


def fill_fixed(store: Store) -> None:
    s1 = SessionRecord(id="00000000-0000-4000-8000-000000000001",
                       started_at="2026-01-01T10:00:00.000000+00:00",
                       ended_at="2026-01-01T10:05:00.000000+00:00", tester="ada", mode="live",
                       system_name="multiwoz", system_config={"seed": 7},
                       condition={"name": "original", "rewriters": []},
                       goal={"restaurant": {"info": {"area": "north"}}}, seed=7, app_version="0.1.0")
    s2 = SessionRecord(id="00000000-0000-4000-8000-000000000002",
                       started_at="2026-01-01T11:00:00.000000+00:00",
                       tester="bo", mode="batch", system_name="echo",
                       condition={"name": "asr-sim", "rewriters": [{"name": "asr-sim", "params": {}}]},
                       seed=3, app_version="0.1.0")
    for s in (s1, s2):
        store.add_session(s)
    turns = [
        TurnRecord(session_id=s1.id, index=0, role="user", text="I want a table, \"north\" please",
                   text_final="I want a table, \"north\" please", id="10000000-0000-4000-8000-000000000001",
                   created_at="2026-01-01T10:00:01.000000+00:00", latency_ms=0.5),
        TurnRecord(session_id=s1.id, index=1, role="system", text="There are 9 places, café Ünïcode?",
                   internals={"state": {"restaurant": {"area": "north"}}, "db_count": {"restaurant": 9}},
                   latency_ms=3.25, id="10000000-0000-4000-8000-000000000002",
                   created_at="2026-01-01T10:00:02.000000+00:00"),
        TurnRecord(session_id=s2.id, index=0, role="user", text="book it, now",
                   text_final="book it now",
                   rewrite_steps=[{"name": "asr-sim", "params": {}, "before": "book it, now",
                                   "after": "book it now"}],
                   id="20000000-0000-4000-8000-000000000001", created_at="2026-01-01T11:00:01.000000+00:00"),
        TurnRecord(session_id=s2.id, index=1, role="system", text="", status="failed",
                   error="TimeoutError: 5 s",
                   id="20000000-0000-4000-8000-000000000002", created_at="2026-01-01T11:00:02.000000+00:00"),
    ]
    for t in turns:
        store.add_turn(t)
    store.rate_turn(TurnRating("10000000-0000-4000-8000-000000000002", "ada", 3, 2,
                               created_at="2026-01-01T10:04:00.000000+00:00"))
    store.rate_dialogue(DialogueRating(s1.id, "ada", 3, 2, 2, 1, 4, "found one,\nquickly",
                                       created_at="2026-01-01T10:05:00.000000+00:00"))
    store.db.execute("UPDATE raters SET created_at = '2026-01-01T00:00:00.000000+00:00'")
    store.db.conn.commit()


def fixed_db(path: Path) -> Path:
    """A database file at ``path`` holding :func:`fill_fixed`'s records."""
    from parley.store import open_store

    store = open_store(path)
    fill_fixed(store)
    store.close()
    return path


def count_rows(db: Path, query: str) -> int:
    """``SELECT count(*) ...`` on a database another process is writing (0 while it is not created yet)."""
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute(query).fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0
