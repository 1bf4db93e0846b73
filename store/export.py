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


def iter_sessions_json(store: Store, session_ids: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """Sessions as export dicts, streaming (one query per table, grouped in Python)."""
    conn = store.db.conn
    conn.row_factory = None
    s_cols = _columns(store, "sessions")
    t_cols = _columns(store, "turns")
    tr_cols = ["session_id"] + _columns(store, "turn_ratings")
    dr_cols = _columns(store, "dialogue_ratings")
    where = ""
    args: list[Any] = []
    if session_ids is not None:
        where = f" WHERE session_id IN ({', '.join('?' for _ in session_ids)})"
        args = list(session_ids)

    turns = groupby(conn.execute(f'SELECT * FROM turns{where} ORDER BY session_id, "index"', args),
                    key=lambda r: r[t_cols.index("session_id")])
    t_ratings = groupby(conn.execute(
        "SELECT t.session_id, r.* FROM turn_ratings r JOIN turns t ON t.id = r.turn_id"
        + where.replace("session_id", "t.session_id") + ' ORDER BY t.session_id, t."index", r.rater', args),
        key=lambda r: r[0])
    d_ratings = groupby(conn.execute(f"SELECT * FROM dialogue_ratings{where} ORDER BY session_id, rater", args),
                        key=lambda r: r[0])
    buffers: dict[str, dict[str, list[Any]]] = {"t": {}, "tr": {}, "dr": {}}
    iters: dict[str, Any] = {"t": turns, "tr": t_ratings, "dr": d_ratings}
    s_json = JSON_FIELDS[SessionRecord]
    t_json = JSON_FIELDS[TurnRecord]

    def take(kind: str, sid: str) -> list[Any]:
        # all three iterators are ordered by session id; advance each until it passes sid
        buf = buffers[kind]
        if sid in buf:
            return buf.pop(sid)
        for key, group in iters[kind]:
            rows = list(group)
            if key == sid:
                return rows
            if key > sid:
                buf[key] = rows
                return []
            # key < sid: a row for a session not exported (e.g. filtered) — skip
        return []

    s_where = ""
    if session_ids is not None:
        s_where = f" WHERE id IN ({', '.join('?' for _ in session_ids)})"
    sessions = conn.execute(f"SELECT * FROM sessions{s_where} ORDER BY id", args).fetchall()
    records: list[dict[str, Any]] = []
    for srow in sessions:
        sid = srow[0]
        session = _decode(dict(zip(s_cols, srow, strict=True)), s_json)
        records.append({
            "session": session,
            "turns": [_decode(dict(zip(t_cols, r, strict=True)), t_json) for r in take("t", sid)],
            "turn_ratings": [{k: v for k, v in zip(tr_cols, r, strict=True) if k != "session_id"}
                             for r in take("tr", sid)],
            "dialogue_ratings": [dict(zip(dr_cols, r, strict=True)) for r in take("dr", sid)],
        })
    records.sort(key=lambda r: (r["session"]["started_at"], r["session"]["id"]))
    yield from records


def export_jsonl(store: Store, out: Path | str, progress: Progress | None = None) -> int:
    """Write one JSON object per session; returns the number of sessions written."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for rec in iter_sessions_json(store):
            fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=False))
            fh.write("\n")
            n += 1
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
