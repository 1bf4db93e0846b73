"""Store: schema, constraints, round trips, locking, bad files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from parley.store import SCHEMA_VERSION, StoreError, open_store
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord


@pytest.fixture
def fresh_db():
    store = open_store(":memory:")
    yield store
    store.close()


def test_schema_v1_tables_and_version(fresh_db):
    names = set(fresh_db.db.table_names())
    assert {"sessions", "turns", "turn_ratings", "dialogue_ratings", "raters", "_sqlite_migrations"} <= names
    assert fresh_db.schema_version() == SCHEMA_VERSION >= 1


def test_round_trip_records(fresh_db):
    s = fresh_db.add_session(SessionRecord(tester="ada", system_name="echo", condition={"name": "original"},
                                           goal={"hotel": {"info": {"parking": "yes"}}}, seed=5))
    t = fresh_db.add_turn(TurnRecord(session_id=s.id, index=0, role="user", text="hi", text_final="hi",
                                     rewrite_steps=[{"name": "wp"}], internals={"x": [1, 2]}))
    assert fresh_db.session(s.id) == s
    assert fresh_db.turns(s.id) == [t]
    assert fresh_db.next_turn_index(s.id) == 1


@pytest.mark.parametrize("field,value", [("relevance", 0), ("relevance", 4), ("interestingness", 9)])
def test_turn_rating_scales_checked(fresh_db, field, value):
    s = fresh_db.add_session(SessionRecord())
    t = fresh_db.add_turn(TurnRecord(session_id=s.id, index=0, role="system", text="ok"))
    kwargs = {"relevance": 2, "interestingness": 2, field: value}
    with pytest.raises(sqlite3.IntegrityError):
        fresh_db.rate_turn(TurnRating(t.id, "ada", **kwargs))
    assert fresh_db.turn_ratings() == []


@pytest.mark.parametrize(
    "field,value",
    [
        ("understanding", 4),
        ("task_completion", 0),
        ("interest_arousal", 0),
        ("efficiency", 2),
        ("overall", 6),
        ("overall", 0),
    ],
)
def test_dialogue_rating_scales_checked_and_nothing_half_written(fresh_db, field, value):
    s = fresh_db.add_session(SessionRecord())
    kwargs = {"understanding": 2, "task_completion": 2, "interest_arousal": 2, "efficiency": 1, "overall": 3,
              field: value}
    with pytest.raises(sqlite3.IntegrityError):
        fresh_db.rate_dialogue(DialogueRating(s.id, "ada", **kwargs))
    assert fresh_db.dialogue_ratings() == []
    assert fresh_db.session(s.id).locked is False  # the lock rolled back with the failed insert


def test_turn_ratings_editable_until_dialogue_rated(fresh_db):
    s = fresh_db.add_session(SessionRecord())
    t = fresh_db.add_turn(TurnRecord(session_id=s.id, index=0, role="system", text="ok"))
    fresh_db.rate_turn(TurnRating(t.id, "ada", 1, 1))
    fresh_db.rate_turn(TurnRating(t.id, "ada", 3, 2))
    assert [(r.relevance, r.interestingness) for r in fresh_db.turn_ratings()] == [(3, 2)]
    fresh_db.rate_dialogue(DialogueRating(s.id, "ada", 3, 3, 3, 1, 5))
    assert fresh_db.session(s.id).locked
    with pytest.raises(StoreError, match="locked"):
        fresh_db.rate_turn(TurnRating(t.id, "ada", 1, 1))
    # another rater may still rate (annotation mode: several raters per dialogue)
    fresh_db.rate_turn(TurnRating(t.id, "bo", 2, 2))
    assert len(fresh_db.turn_ratings()) == 2


def test_foreign_keys_enforced(fresh_db):
    with pytest.raises(sqlite3.IntegrityError):
        fresh_db.add_turn(TurnRecord(session_id="nope", index=0, role="user", text="x"))


def test_wal_mode_and_busy_timeout(tmp_path):
    store = open_store(tmp_path / "p.db")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert store.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_not_sqlite_refused_and_untouched(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_bytes(b"these are my notes, not a database\n" * 10)
    before = bad.read_bytes()
    with pytest.raises(StoreError, match="not a SQLite database"):
        open_store(bad)
    assert bad.read_bytes() == before


def _newer_db(path: Path) -> None:
    store = open_store(path)
    store.db.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                     "VALUES ('parley', 'm999_from_the_future', '2030-01-01')")
    store.db.conn.commit()
    store.close()


def test_newer_schema_refused_and_untouched(tmp_path):
    path = tmp_path / "future.db"
    _newer_db(path)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer parley"):
        open_store(path)
    assert path.read_bytes() == before


def test_foreign_sqlite_refused(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a parley database"):
        open_store(path)


def test_threads_get_their_own_connections(tmp_path):
    import threading

    store = open_store(tmp_path / "t.db")
    s = store.add_session(SessionRecord())
    errors: list[Exception] = []

    def work(k: int) -> None:
        try:
            for i in range(20):
                store.add_turn(TurnRecord(session_id=s.id, index=k * 100 + i, role="user", text=str(i)))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(store.turns(s.id)) == 80


def test_a_turn_is_one_insert_in_one_transaction(tmp_path):
    store = open_store(tmp_path / "p.db")
    s = store.add_session(SessionRecord())
    t = TurnRecord(session_id=s.id, index=3, role="system", text="a", text_final="b",
                   rewrite_steps=[{"name": "wp", "after": "b"}], internals={"k": [1.5, None]}, latency_ms=2.5,
                   audio_in="in.wav", audio_out="out.wav", status="failed", error="boom")
    sql: list[str] = []
    store.db.conn.set_trace_callback(sql.append)
    store.add_turn(t)
    store.db.conn.set_trace_callback(None)
    assert [q.split(" (")[0] for q in sql] == ["BEGIN IMMEDIATE", "INSERT INTO turns", "COMMIT"]
    assert store.turns(s.id) == [t]  # every field, as given
    with pytest.raises(sqlite3.IntegrityError):  # the foreign key still holds on the hand-written INSERT
        store.add_turn(TurnRecord(session_id="nobody", index=0, role="user", text="x"))
    assert not store.db.conn.in_transaction
    with store.write():  # inside a caller's transaction, the turn joins it (one dialogue, one commit)
        store.add_turn(TurnRecord(session_id=s.id, index=4, role="user", text="c"))
        assert store.db.conn.in_transaction
    assert [x.index for x in store.turns(s.id)] == [3, 4]


def test_a_held_lock_costs_one_busy_timeout_not_fifty(tmp_path, monkeypatch):
    """Another program holding the write lock: the write gives up after about the busy timeout in all (each of
    the 50 retries used to wait the whole timeout again: 25 minutes at the default 30 s)."""
    import time

    from parley.store import db as store_db

    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "p.db"
    store = open_store(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(StoreError, match="locked"):
            store.add_session(SessionRecord(tester="t", system_name="echo"))
        # before the fix: 50 × (0.2 s + a pause) ≥ 12 s; now one timeout and a retry or two
        assert time.monotonic() - started < 5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert store.add_session(SessionRecord(tester="t", system_name="echo")).id  # free again: it writes
