"""Exports of a whole database. One implementation serves the CLI (``parley export``) and the TUI.

- JSONL: one session per line, ``{"session": {...}, "turns": [...], "turn_ratings": [...],
  "dialogue_ratings": [...]}``; JSON columns are decoded; sessions by start time, turns by index.
- CSV: one file per table (``sessions.csv``, ``turns.csv``, ``turn_ratings.csv``, ``dialogue_ratings.csv``,
  ``raters.csv``) in a folder; JSON columns stay JSON text. Header rows are written even for empty tables.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from store.db import Store
from store.records import JSON_FIELDS, SessionRecord, TurnRecord

TABLES = ("sessions", "turns", "turn_ratings", "dialogue_ratings", "raters")
_ORDER = {
    "sessions": "started_at, id",
    "turns": 'session_id, "index"',
    "turn_ratings": "turn_id, rater",
    "dialogue_ratings": "session_id, rater",
    "raters": "name",
}
Progress = Callable[[int], None]


def _columns(store: Store, table: str) -> list[str]:
    return [r[1] for r in store.db.execute(f"PRAGMA table_info({table})").fetchall()]


def _decode(row: dict[str, Any], json_cols: tuple[str, ...]) -> dict[str, Any]:
    for c in json_cols:
        if row.get(c) is not None:
            row[c] = json.loads(row[c])
    if "locked" in row:
        row["locked"] = bool(row["locked"])
    return row


@dataclass(frozen=True)
class _Group:
    session: tuple[Any, ...]
    turns: list[tuple[Any, ...]]
    turn_ratings: list[tuple[Any, ...]]
    dialogue_ratings: list[tuple[Any, ...]]


@dataclass(frozen=True)
class _Cols:
    sessions: list[str]
    turns: list[str]
    turn_ratings: list[str]
    dialogue_ratings: list[str]


def _cols(store: Store) -> _Cols:
    return _Cols(_columns(store, "sessions"), _columns(store, "turns"), _columns(store, "turn_ratings"),
                 _columns(store, "dialogue_ratings"))


def _grouped(store: Store, session_ids: list[str] | None = None) -> list[_Group]:
    """Raw rows grouped by session (a merge join over four ordered queries), sessions by start time."""
    conn = store.db.conn
    conn.row_factory = None
    where, args = "", []
    if session_ids is not None:
        where = f" WHERE session_id IN ({', '.join('?' for _ in session_ids)})"
        args = list(session_ids)
    by_session: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
    queries = {
        "t": f'SELECT * FROM turns{where} ORDER BY session_id, "index"',
        "tr": "SELECT t.session_id, r.* FROM turn_ratings r JOIN turns t ON t.id = r.turn_id"
              + where.replace("session_id", "t.session_id") + ' ORDER BY t.session_id, t."index", r.rater',
        "dr": f"SELECT * FROM dialogue_ratings{where} ORDER BY session_id, rater",
    }
    t_sid = _columns(store, "turns").index("session_id")
    for kind, sql in queries.items():
        key = t_sid if kind == "t" else 0
        for sid, rows in groupby(conn.execute(sql, args), key=lambda r, k=key: r[k]):  # type: ignore[misc]
            by_session.setdefault(sid, {})[kind] = list(rows)
    s_where = f" WHERE id IN ({', '.join('?' for _ in session_ids)})" if session_ids is not None else ""
    out = []
    for srow in conn.execute(f"SELECT * FROM sessions{s_where} ORDER BY started_at, id", args):
        parts = by_session.get(srow[0], {})
        out.append(_Group(srow, parts.get("t", []), [r[1:] for r in parts.get("tr", [])], parts.get("dr", [])))
    return out


def iter_sessions_json(store: Store, session_ids: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """Sessions as export dicts (JSON columns decoded), in start order."""
    c = _cols(store)
    s_json, t_json = JSON_FIELDS[SessionRecord], JSON_FIELDS[TurnRecord]
    for g in _grouped(store, session_ids):
        yield {
            "session": _decode(dict(zip(c.sessions, g.session, strict=True)), s_json),
            "turns": [_decode(dict(zip(c.turns, r, strict=True)), t_json) for r in g.turns],
            "turn_ratings": [dict(zip(c.turn_ratings, r, strict=True)) for r in g.turn_ratings],
            "dialogue_ratings": [dict(zip(c.dialogue_ratings, r, strict=True)) for r in g.dialogue_ratings],
        }


def _json_object_sql(cols: list[str], json_cols: tuple[str, ...], alias: str) -> str:
    """SQL building a row's JSON object in SQLite (JSON columns embedded as JSON, ``locked`` as a boolean)."""
    parts = []
    for c in cols:
        ref = f'{alias}."{c}"'
        if c in json_cols:
            val = f"json({ref})"
        elif c == "locked":
            val = f"json(CASE WHEN {ref} THEN 'true' ELSE 'false' END)"
        else:
            val = ref
        parts.append(f"'{c}', {val}")
    return "json_object(" + ", ".join(parts) + ")"


def export_jsonl(store: Store, out: Path | str, progress: Progress | None = None) -> int:
    """Write one JSON object per session; returns the number of sessions written.

    The lines are built by SQLite's JSON functions (one query), which keeps 100,000 turns well under 3 s.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    c = _cols(store)
    s_json, t_json = JSON_FIELDS[SessionRecord], JSON_FIELDS[TurnRecord]
    sql = f"""
        SELECT '{{"session": ' || {_json_object_sql(c.sessions, s_json, "s")}
          || ', "turns": ' || (SELECT json_group_array(json(o)) FROM (
                 SELECT {_json_object_sql(c.turns, t_json, "t")} AS o FROM turns t
                 WHERE t.session_id = s.id ORDER BY t."index"))
          || ', "turn_ratings": ' || (SELECT json_group_array(json(o)) FROM (
                 SELECT {_json_object_sql(c.turn_ratings, (), "r")} AS o FROM turn_ratings r
                 JOIN turns t ON t.id = r.turn_id WHERE t.session_id = s.id ORDER BY t."index", r.rater))
          || ', "dialogue_ratings": ' || (SELECT json_group_array(json(o)) FROM (
                 SELECT {_json_object_sql(c.dialogue_ratings, (), "d")} AS o FROM dialogue_ratings d
                 WHERE d.session_id = s.id ORDER BY d.rater))
          || '}}'
        FROM sessions s ORDER BY s.started_at, s.id"""
    conn = store.db.conn
    conn.row_factory = None
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        cur = conn.execute(sql)
        while True:
            rows = cur.fetchmany(500)
            if not rows:
                break
            fh.write("\n".join(r[0] for r in rows))
            fh.write("\n")
            n += len(rows)
            if progress:
                progress(n)
    return n


def export_csv(store: Store, out_dir: Path | str, progress: Progress | None = None) -> dict[str, int]:
    """Write one CSV per table into ``out_dir``; returns rows written per table."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    conn = store.db.conn
    conn.row_factory = None
    for table in TABLES:
        cols = _columns(store, table)
        n = 0
        with (out_dir / f"{table}.csv").open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            cur = conn.execute(f"SELECT * FROM {table} ORDER BY {_ORDER[table]}")
            while True:
                rows = cur.fetchmany(5000)
                if not rows:
                    break
                w.writerows(rows)
                n += len(rows)
                if progress:
                    progress(n)
        counts[table] = n
    return counts


def export(store: Store, fmt: str, out: Path | str, progress: Progress | None = None) -> Any:
    if fmt == "jsonl":
        return export_jsonl(store, out, progress)
    if fmt == "csv":
        return export_csv(store, out, progress)
    raise ValueError(f"unknown export format {fmt!r} (jsonl, csv)")
