"""Merging parley databases (several raters' copies) without duplicates, refusing conflicting rows.

Every row has a stable key (UUIDs for sessions and turns, ``(turn, rater)`` / ``(session, rater)`` for
ratings, assignments and skips), so the same dialogue rated in two databases merges into one session with both
raters' ratings. A row whose key exists already with different content is a conflict: nothing is written and
:class:`MergeConflict` names the row, the column and both values. Timestamps of when a row was written are not
content (an imported corpus has a different ``started_at`` in every rater's copy): the earliest is kept.
Neither is a session's ``source`` (the file an import came from, which each rater may have named differently):
the first is kept.

The same row writer (:func:`put_row`) is used by the importers, so importing a file twice adds nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from parley.store.db import Store, StoreError, open_store
from parley.store.records import to_json


class MergeConflict(StoreError):
    """Two databases (or a file and a database) disagree about the same row; one clear line."""


@dataclass(frozen=True)
class TableSpec:
    """How rows of one table are identified and compared."""

    name: str
    key: tuple[str, ...]
    #: columns that record when/where a row was written, not what it says: never a conflict
    volatile: frozenset[str] = frozenset()
    #: JSON text columns, compared as decoded values
    json: frozenset[str] = frozenset()
    #: how to describe a row in messages
    label: str = "row"


#: tables in dependency order (parents first)
TABLES: tuple[TableSpec, ...] = (
    TableSpec("raters", ("name",), frozenset({"created_at"}), label="rater"),
    TableSpec("sessions", ("id",), frozenset({"started_at", "ended_at", "locked", "app_version", "source"}),
              frozenset({"system_config", "condition", "goal"}), label="session"),
    TableSpec("turns", ("id",), frozenset({"created_at"}), frozenset({"rewrite_steps", "internals"}),
              label="turn"),
    TableSpec("turn_ratings", ("turn_id", "rater"), frozenset({"created_at"}), label="turn rating"),
    TableSpec("dialogue_ratings", ("session_id", "rater"), frozenset({"created_at"}),
              label="dialogue rating"),
    TableSpec("annotation_raters", ("name",), frozenset({"instructions_seen_at"}), label="annotator"),
    TableSpec("annotation_progress", ("session_id", "rater"), frozenset({"created_at", "turns_locked_at"}),
              label="annotation progress"),
    TableSpec("assignments", ("rater", "session_id"), frozenset({"created_at"}), label="assignment"),
    TableSpec("annotation_skips", ("session_id", "rater"), frozenset({"created_at"}), label="skip"),
)
SPECS = {t.name: t for t in TABLES}


def _same(a: object, b: object, is_json: bool) -> bool:
    if is_json and isinstance(a, str) and isinstance(b, str):
        try:
            return bool(json.loads(a) == json.loads(b))
        except ValueError:
            return a == b
    if isinstance(a, float) or isinstance(b, float):
        return (isinstance(a, int | float | str) and isinstance(b, int | float | str)
                and abs(float(a) - float(b)) < 1e-9) or a == b
    return bool(a == b)


def _short(v: object) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def _describe(spec: TableSpec, row: Mapping[str, object]) -> str:
    parts = []
    for k in spec.key:
        v = str(row.get(k))
        parts.append(v[:8] if k in ("id", "session_id", "turn_id") and len(v) == 36 else repr(v))
    return f"{spec.label} {' / '.join(parts)}"


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})").fetchall()]


def put_row(conn: sqlite3.Connection, table: str, row: Mapping[str, object], *, origin: str = "",
            columns: Sequence[str] | None = None) -> bool:
    """Insert ``row`` unless an identical one exists; True when inserted. Must run inside a write transaction.

    Raises MergeConflict (naming ``origin``, the row and the differing column) when the key exists with other
    content, or when the row breaks a constraint (e.g. a rating for a turn that is not there).
    """
    spec = SPECS[table]
    cols = list(columns) if columns is not None else _columns(conn, table)
    row = {k: v for k, v in row.items() if k in cols}
    where = " AND ".join(f'"{k}" = ?' for k in spec.key)
    cur = conn.execute(f"SELECT * FROM {table} WHERE {where}", [row.get(k) for k in spec.key])
    found = cur.fetchone()
    prefix = f"{origin}: " if origin else ""
    if found is None:
        names = ", ".join(f'"{c}"' for c in row)
        try:
            conn.execute(f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' for _ in row)})",
                         list(row.values()))
        except sqlite3.IntegrityError as e:
            raise MergeConflict(
                f"{prefix}{_describe(spec, row)} cannot be added: {_explain(e, table)}") from None
        return True
    existing = dict(zip([d[0] for d in cur.description], found, strict=True))
    for col, value in row.items():
        if col in spec.volatile or col in spec.key or col not in existing:
            continue
        if not _same(existing[col], value, col in spec.json):
            raise MergeConflict(
                f"{prefix}{_describe(spec, row)} differs in {col}: {_short(existing[col])} already stored, "
                f"{_short(value)} incoming; resolve it in one of the databases and merge again")
    _reconcile(conn, spec, existing, row)
    return False


def _count(v: object) -> int:
    """A stored integer (a lock flag) as an int; None and anything else: 0."""
    return int(v) if isinstance(v, int | float | str) else 0


def _reconcile(conn: sqlite3.Connection, spec: TableSpec, old: Mapping[str, object],
               new: Mapping[str, object]) -> None:
    """Keep the earliest timestamps and the stronger lock of two copies of the same row."""
    changes: dict[str, object] = {}
    for col in spec.volatile:
        a, b = old.get(col), new.get(col)
        if col == "locked":
            if b is not None and _count(b) > _count(a):
                changes[col] = _count(b)
        elif col.endswith("_at") and b is not None and (a is None or str(b) < str(a)):
            changes[col] = b
    if changes:
        sets = ", ".join(f'"{c}" = ?' for c in changes)
        where = " AND ".join(f'"{k}" = ?' for k in spec.key)
        conn.execute(f"UPDATE {spec.name} SET {sets} WHERE {where}",
                     [*changes.values(), *(old[k] for k in spec.key)])


def _explain(e: sqlite3.IntegrityError, table: str) -> str:
    msg = str(e)
    if "FOREIGN KEY" in msg:
        return "it refers to a session, turn or rater that is not in the database"
    if "UNIQUE" in msg and table == "turns":
        return "another turn with a different id has the same session and index"
    if "CHECK" in msg:
        return f"a value is outside its scale ({msg})"
    return msg


@dataclass
class MergeReport:
    """What a merge wrote: rows added and rows already present, per table."""

    out: Path
    added: dict[str, int] = field(default_factory=dict)
    present: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{t}: +{n}" + (f" ({self.present[t]} already present)" if self.present.get(t) else "")
                 for t, n in self.added.items() if n or self.present.get(t)]
        return ", ".join(parts) or "nothing to merge"


def _read_rows(store: Store, table: str) -> Iterable[dict[str, object]]:
    conn = store.db.conn
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", [table]).fetchone()
    if not exists:
        return
    spec = SPECS[table]
    order = ', '.join(f'"{k}"' for k in spec.key)
    cur = conn.execute(f"SELECT * FROM {table} ORDER BY {order}")
    names = [d[0] for d in cur.description]
    for r in cur:
        yield dict(zip(names, r, strict=True))


def strict_json(spec: TableSpec, row: dict[str, object]) -> dict[str, object]:
    """``row`` with its JSON columns as the store writes them today: a database from an older parley may hold
    ``NaN`` or ``Infinity`` there (not JSON), which become null instead of being copied on."""
    out = row
    for col in spec.json:
        text = row.get(col)
        if isinstance(text, str) and ("NaN" in text or "Infinity" in text):
            try:
                value = json.loads(text)
            except ValueError:
                continue
            strict = to_json(value)
            if strict != json.dumps(value, ensure_ascii=False, sort_keys=True, default=str):
                out = {**out, col: strict}
    return out


def merge_into(store: Store, inputs: Sequence[Path | str], report: MergeReport | None = None) -> MergeReport:
    """Merge every input database into ``store`` in one transaction (all or nothing)."""
    report = report or MergeReport(store.path)
    sources = []
    for p in inputs:
        path = Path(p)
        if not path.is_file():
            raise StoreError(f"{path}: no such database file")
        sources.append((path, open_store(path, readonly=True)))
    try:
        with store.write() as conn:
            for spec in TABLES:
                cols = _columns(conn, spec.name)
                for path, src in sources:
                    for row in _read_rows(src, spec.name):
                        if put_row(conn, spec.name, strict_json(spec, row), origin=path.name, columns=cols):
                            report.added[spec.name] = report.added.get(spec.name, 0) + 1
                        else:
                            report.present[spec.name] = report.present.get(spec.name, 0) + 1
                report.added.setdefault(spec.name, 0)
    finally:
        for _, src in sources:
            src.close()
    return report


def merge(a: Path | str, b: Path | str, out: Path | str, *more: Path | str) -> MergeReport:
    """Merge databases ``a``, ``b`` (and ``more``) into a new database ``out``.

    ``out`` must not exist. On a conflict nothing is left behind: the new file is removed and MergeConflict
    raised with one line naming the row, the column and both values.
    """
    out = Path(out)
    inputs = [Path(a), Path(b), *(Path(m) for m in more)]
    if out.exists():
        raise StoreError(f"{out} exists already; merge writes a new database (choose another --out)")
    resolved = {p.resolve() for p in inputs}
    if len(resolved) < len(inputs):
        raise StoreError("the same database is given twice")
    for p in inputs:
        if not p.is_file():
            raise StoreError(f"{p}: no such database file")
    store = open_store(out)
    try:
        report = merge_into(store, inputs, MergeReport(out))
    except BaseException:
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(out) + suffix).unlink(missing_ok=True)
        raise
    store.close()
    return report
