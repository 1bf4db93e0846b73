"""store/ uses only public APIs of sqlite-utils: migrations listed through Migrations.pending, rows through
insert/upsert/rows_where, and the exporters leave the shared connection as they found it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from parley.store import SCHEMA_VERSION, open_store
from parley.store import migrations as mig
from parley.store.db import KNOWN_MIGRATIONS
from parley.store.export import export_csv, export_jsonl
from parley.store.records import DialogueRating, TurnRating
from tests.unit.storehelpers import fill_fixed


def test_known_migrations_are_the_registered_functions() -> None:
    names = [n for n in vars(mig) if n.startswith("m0")]
    assert list(KNOWN_MIGRATIONS) == sorted(names) and len(names) == SCHEMA_VERSION


def test_exporters_leave_the_connection_alone(tmp_path: Path) -> None:
    store = open_store(tmp_path / "p.db")
    fill_fixed(store)
    store.db.conn.row_factory = sqlite3.Row  # whatever a caller set
    export_jsonl(store, tmp_path / "a.jsonl")
    export_csv(store, tmp_path / "csv")
    assert store.db.conn.row_factory is sqlite3.Row
    assert (tmp_path / "a.jsonl").read_text(encoding="utf-8").count("\n") == 2


def test_ratings_insert_then_update(tmp_path: Path) -> None:
    store = open_store(tmp_path / "p.db")
    fill_fixed(store)
    turn = "10000000-0000-4000-8000-000000000002"
    store.rate_turn(TurnRating(turn, "cy", 1, None))
    store.rate_turn(TurnRating(turn, "cy", 2, 3))  # upsert: one row, updated
    ratings = store.turn_ratings(rater="cy")
    assert [(r.rater, r.relevance, r.interestingness) for r in ratings] == [("cy", 2, 3)]
    session = "00000000-0000-4000-8000-000000000002"
    store.rate_dialogue(DialogueRating(session, "cy", 1, 1, 1, 0, 2))
    store.rate_dialogue(DialogueRating(session, "cy", 2, 2, 2, 1, 3), lock=False)
    assert [r.overall for r in store.dialogue_ratings(session_id=session)] == [3]
    assert {r.name for r in store.raters()} == {"ada", "cy"}
    assert [s.mode for s in store.sessions(mode="batch")] == ["batch"] and len(store.sessions(limit=1)) == 1
    first = "00000000-0000-4000-8000-000000000001"
    assert [r.rater for r in store.turn_ratings(session_id=first)] == ["ada", "cy"]
    assert store.turn_ratings(session_id="00000000-0000-4000-8000-000000000002") == []
