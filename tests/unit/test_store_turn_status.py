"""Migration m004: turn status gains pending/cancelled; a database from before keeps every turn and rating."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from parley.store import open_store
from parley.store.migrations import migrations
from parley.store.records import SessionRecord, TurnRecord, to_row


def _insert(conn: sqlite3.Connection, table: str, rec: object) -> None:
    row = to_row(rec)
    cols = ", ".join(f'"{c}"' for c in row)
    conn.execute(f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' for _ in row)})", list(row.values()))


def test_old_database_is_migrated_without_losing_ratings(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    db = Database(path)
    migrations.apply(db, stop_before="m004_turn_status")
    db.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    ses = SessionRecord(tester="ada")
    user = TurnRecord(session_id=ses.id, index=0, role="user", text="hi")
    reply = TurnRecord(session_id=ses.id, index=1, role="system", text="hello")
    _insert(conn, "sessions", ses)
    _insert(conn, "turns", user)
    _insert(conn, "turns", reply)
    conn.execute("INSERT INTO raters VALUES ('ada', 'x')")
    conn.execute("INSERT INTO turn_ratings VALUES (?, 'ada', 3, 2, 'x')", [reply.id])
    with pytest.raises(sqlite3.IntegrityError):  # the old schema refuses the new statuses
        conn.execute("UPDATE turns SET status = 'pending' WHERE id = ?", [user.id])
    conn.commit()
    conn.close()

    store = open_store(path)
    assert [t.id for t in store.turns(ses.id)] == [user.id, reply.id]
    (rating,) = store.turn_ratings()
    assert (rating.turn_id, rating.relevance, rating.interestingness) == (reply.id, 3, 2)
    assert store.integrity_ok() and not store.db.execute("PRAGMA foreign_key_check").fetchall()
    assert store.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'idx_turns_session'").fetchone()
    store.add_turn(TurnRecord(session_id=ses.id, index=2, role="user", text="more", status="pending"))
    assert store.cancel_pending(ses.id) == 1
    assert store.turns(ses.id)[-1].status == "cancelled"
    with pytest.raises(sqlite3.IntegrityError):
        store.db.execute("UPDATE turns SET status = 'lost' WHERE id = ?", [user.id])
    # deleting a turn still cascades to its ratings (the rebuilt table kept its foreign keys)
    with store.write() as c:
        c.execute("DELETE FROM turns WHERE id = ?", [reply.id])
    assert store.turn_ratings() == []
