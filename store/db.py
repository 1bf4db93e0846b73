"""Opening a parley database and reading/writing records.

One ``Store`` may be shared by threads: each thread gets its own SQLite connection. Every write is one
``BEGIN IMMEDIATE`` transaction (so concurrent writers queue on the busy timeout instead of failing), WAL
mode, foreign keys on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from sqlite_utils import Database

from parley.errors import ParleyError
from parley.store.migrations import MIGRATION_SET, migrations
from parley.store.records import (
    DialogueRating,
    Rater,
    SessionRecord,
    TurnRating,
    TurnRecord,
    columns,
    from_row,
    now,
    to_json,
    to_row,
)

T = TypeVar("T")


def _registered() -> list[str]:
    """Names of every migration parley knows, in order (public API: all of them are pending on an empty
    db)."""
    return [m.name for m in migrations.pending(Database(memory=True))]


KNOWN_MIGRATIONS = tuple(_registered())
SCHEMA_VERSION = len(KNOWN_MIGRATIONS)
BUSY_TIMEOUT_MS = 30_000
# Turns are the hot path (every exchange, every replayed dialogue), so they are written with one plain
# INSERT instead of sqlite-utils' Table.insert: that one wraps each row in its own SAVEPOINT inside our
# BEGIN IMMEDIATE, checks the table and rebuilds the statement on every call (7 statements and ~0.1 ms of CPU
# a turn, see bench/results/store.md). This text is built once, so sqlite3's statement cache prepares it once
# per connection; the transaction around it stays ``Store.write``. Everything else goes through sqlite-utils.
_INSERT_TURN = "INSERT INTO turns ({}) VALUES ({})".format(
    ", ".join('"' + c + '"' for c in columns(TurnRecord)), ", ".join(":" + c for c in columns(TurnRecord)))
_SQLITE_MAGIC = b"SQLite format 3\x00"


class StoreError(ParleyError):
    """A database that parley cannot use; the message is one clear line for the user."""


def check_file(path: Path) -> None:
    """Refuse non-SQLite files and databases from a newer parley before anything writes to them."""
    if not path.exists():
        return
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a database file")
    if not path.is_file():  # /dev/null, a FIFO (which SQLite would block on), a socket
        raise StoreError(f"{path} is not a regular file, not a database file")
    size = path.stat().st_size
    if size == 0:
        return
    with path.open("rb") as fh:
        head = fh.read(16)
    if head != _SQLITE_MAGIC:
        raise StoreError(f"{path} is not a SQLite database")
    uri = f"file:{path}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            has = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='_sqlite_migrations'").fetchone()
            if not has:
                tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
                if tables:
                    raise StoreError(f"{path} is a SQLite database but not a parley database")
                return
            names = {r[0] for r in conn.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = ?", [MIGRATION_SET])}
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{path} is not a usable SQLite database ({e})") from None
    unknown = names - set(KNOWN_MIGRATIONS)
    if unknown:
        raise StoreError(
            f"{path} was written by a newer parley (schema {len(names)} > {SCHEMA_VERSION}; "
            f"unknown migrations: {', '.join(sorted(unknown))}); upgrade parley to open it")


def check_folder(folder: Path, *, make: bool, creating: bool = False) -> None:
    """The database's folder: created when ``make`` (parley's own default location), otherwise it must exist
    (a path the user typed: a mistyped folder is named, never created); when ``creating`` a database there,
    it must be writable."""
    if folder.is_dir():
        if creating and not os.access(folder, os.W_OK | os.X_OK):
            raise StoreError(f"cannot create a database in {folder}: the folder is not writable")
        return
    near = next((p for p in folder.parents if p.exists()), None)
    if folder.exists() or (near is not None and not near.is_dir()):
        raise StoreError(f"cannot create a database in {folder}: {folder if folder.exists() else near} "
                         "is not a folder")
    if not make:
        raise StoreError(f"folder {folder} does not exist; create it first or check the path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreError(f"cannot create the folder {folder}: {e.strerror or e}") from None


class Store:
    """A parley database. Use :func:`open_store`; ``path=":memory:"`` gives a private in-memory store."""

    def __init__(self, path: str | Path, *, readonly: bool = False, make_folder: bool = True) -> None:
        self.memory = str(path) == ":memory:"
        self.path = Path(path) if not self.memory else Path(":memory:")
        self.readonly = readonly
        self._local = threading.local()
        self._memory_conn: sqlite3.Connection | None = None
        if not self.memory:
            check_file(self.path)
            if readonly and not self.path.exists():
                raise StoreError(f"{self.path} does not exist")
            if not readonly:
                check_folder(self.path.parent, make=make_folder, creating=not self.path.exists())
        db = self.db
        if not readonly and migrations.pending(db):
            with self.write():  # BEGIN IMMEDIATE: two processes creating one database take turns
                migrations.apply(db)

    def require_current(self) -> None:
        """A StoreError unless every migration is applied (a read-only open never upgrades a database, so an
        older one lacks tables and columns that queries need)."""
        if migrations.pending(self.db):
            raise StoreError(f"{self.path}: an empty database or one written by an older parley; "
                             f"upgrade it first by opening it once (parley sessions --db {self.path})")

    # -- connections -------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        if self.memory:
            if self._memory_conn is None:
                self._memory_conn = sqlite3.connect(":memory:", check_same_thread=False)
            return self._memory_conn
        if self.readonly:  # read-write but query-only: closing it removes the -wal/-shm files a read made
            try:
                conn = sqlite3.connect(f"file:{self.path}?mode=rw", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
                conn.execute("PRAGMA query_only = ON")
            except sqlite3.OperationalError:  # a file the user may not write: read-only it is
                conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        else:
            conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not self.readonly:
            self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    @property
    def db(self) -> Database:
        """This thread's sqlite-utils Database (one connection per thread)."""
        db = getattr(self._local, "db", None)
        if db is None:
            conn = self._connect()
            conn.execute("PRAGMA foreign_keys = ON")
            db = Database(conn, execute_plugins=False)
            self._local.db = db
        return db

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.conn.close()
            self._local.db = None
        if self._memory_conn is not None:
            self._memory_conn.close()
            self._memory_conn = None

    @staticmethod
    def _retry(fn: Callable[[], T], attempts: int = 50) -> T | None:
        """Retry a statement SQLite refused as busy, for at most the busy timeout in all: each try can itself
        wait the whole timeout on a held lock (50 tries were 25 minutes behind a held lock)."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        for i in range(attempts):
            try:
                return fn()
            except sqlite3.OperationalError as e:
                busy = "locked" in str(e) or "busy" in str(e)
                if not busy or i == attempts - 1 or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05 * (1 + i % 5))
        return None

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT), rolled back on error."""
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        conn = self.db.conn
        if conn.in_transaction:  # nested: join the outer transaction
            yield conn
            return
        try:
            self._retry(lambda: conn.execute("BEGIN IMMEDIATE"))
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:  # SQLite may have rolled back already (disk full, I/O error)
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.OperationalError as e:  # read-only file or folder, disk full, locked past the timeout
            raise StoreError(f"cannot write {self.path}: {e}") from None

    # -- writes --------------------------------------------------------------------------------------------
    def add_session(self, rec: SessionRecord) -> SessionRecord:
        with self.write():
            self.db.table("sessions").insert(to_row(rec))
        return rec

    def add_turn(self, rec: TurnRecord) -> TurnRecord:
        """Commit one turn (its own transaction). When this returns, the turn is durable."""
        with self.write() as conn:
            conn.execute(_INSERT_TURN, to_row(rec))
        return rec

    def settle_turn(self, rec: TurnRecord, *, reply: TurnRecord | None = None) -> bool:
        """Store what became of a pending turn: its fields from ``rec`` (same id) and, with ``reply``, the
        system's turn, in one transaction. Only a turn still ``pending`` changes: once it was cancelled this
        returns False and writes nothing."""
        row = {k: v for k, v in to_row(rec).items() if k not in ("id", "session_id", "created_at")}
        sets = ", ".join(f'"{c}" = ?' for c in row)
        with self.write() as conn:
            cur = conn.execute(f"UPDATE turns SET {sets} WHERE id = ? AND status = 'pending'",
                               [*row.values(), rec.id])
            if cur.rowcount == 0:
                return False
            if reply is not None:
                conn.execute(_INSERT_TURN, to_row(reply))
        return True

    def cancel_pending(self, session_id: str, reason: str | None = None) -> int:
        """Mark the session's pending turns ``cancelled`` (kept, never sent), ``reason`` as their error;
        returns how many."""
        with self.write() as conn:
            return conn.execute("UPDATE turns SET status = 'cancelled', error = coalesce(error, ?) "
                                "WHERE session_id = ? AND status = 'pending'", [reason, session_id]).rowcount

    def set_session_system(self, session_id: str, name: str, config: Mapping[str, object]) -> bool:
        """Name another system in a session none of whose turns a system answered yet (the one it was for
        failed to load); False, and nothing written, once one did."""
        with self.write() as conn:
            return conn.execute(
                "UPDATE sessions SET system_name = ?, system_config = ? WHERE id = ? AND NOT EXISTS "
                "(SELECT 1 FROM turns WHERE session_id = ? AND role = 'system')",
                [name, to_json(config), session_id, session_id]).rowcount > 0

    def set_tester(self, session_id: str, tester: str) -> None:
        """The tester changed mid-session: the session record names the new one."""
        with self.write():
            self.db.table("sessions").update(session_id, {"tester": tester})

    def set_turn_audio(self, turn_id: str, audio_out: str | None,
                       internals: Mapping[str, object] | None = None) -> None:
        """After a turn was stored: its spoken audio (``audio_out``) and more ``internals`` keys (merged)."""
        with self.write() as conn:
            row = conn.execute("SELECT internals FROM turns WHERE id = ?", [turn_id]).fetchone()
            if row is None:
                raise StoreError(f"no turn {turn_id}")
            merged = {**(json.loads(row[0]) if row[0] else {}), **(internals or {})}
            text = to_json(merged)
            conn.execute("UPDATE turns SET audio_out = coalesce(?, audio_out), internals = ? WHERE id = ?",
                         [audio_out, text, turn_id])

    def next_turn_index(self, session_id: str) -> int:
        row = self.db.execute('SELECT max("index") FROM turns WHERE session_id = ?', [session_id]).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def end_session(self, session_id: str, *, lock: bool = False) -> None:
        with self.write() as conn:
            conn.execute("UPDATE sessions SET ended_at = coalesce(ended_at, ?), locked = max(locked, ?) "
                         "WHERE id = ?", [now(), int(lock), session_id])

    def ensure_rater(self, name: str) -> Rater:
        rec = Rater(name)
        with self.write():
            self.db.table("raters").insert(to_row(rec), ignore=True)
        return rec

    def rate_turn(self, rating: TurnRating) -> TurnRating:
        """Insert or update a turn rating; refused once the dialogue is locked."""
        with self.write() as conn:
            row = conn.execute(
                "SELECT s.locked FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?",
                [rating.turn_id]).fetchone()
            if row is None:
                raise StoreError(f"no turn {rating.turn_id}")
            if row[0] and self._has_dialogue_rating(conn, rating):
                raise StoreError("the dialogue is locked: its rating was submitted")
            self.db.table("raters").insert(to_row(Rater(rating.rater)), ignore=True)
            self.db.table("turn_ratings").upsert(to_row(rating), pk=("turn_id", "rater"))
        return rating

    @staticmethod
    def _has_dialogue_rating(conn: sqlite3.Connection, rating: TurnRating) -> bool:
        return conn.execute(
            "SELECT 1 FROM dialogue_ratings d JOIN turns t ON t.session_id = d.session_id "
            "WHERE t.id = ? AND d.rater = ?", [rating.turn_id, rating.rater]).fetchone() is not None

    def rate_dialogue(self, rating: DialogueRating, *, lock: bool = True) -> DialogueRating:
        """Store a complete dialogue rating (all scales checked by the schema) and lock the session."""
        with self.write() as conn:
            self.db.table("raters").insert(to_row(Rater(rating.rater)), ignore=True)
            self.db.table("dialogue_ratings").insert(to_row(rating), replace=True)
            if lock:
                conn.execute("UPDATE sessions SET locked = 1, ended_at = coalesce(ended_at, ?) WHERE id = ?",
                             [now(), rating.session_id])
        return rating

    # -- reads -----------------------------------------------------------------------------------------------
    def session(self, session_id: str) -> SessionRecord | None:
        rows = list(self.db.query("SELECT * FROM sessions WHERE id = ?", [session_id]))
        return from_row(SessionRecord, rows[0]) if rows else None

    # An unset filter (None) matches every row: ``(:x IS NULL OR col = :x)``.
    def sessions(self, *, mode: str | None = None, limit: int | None = None) -> list[SessionRecord]:
        rows = self.db.table("sessions").rows_where(
            "(:mode IS NULL OR mode = :mode)", {"mode": mode or None}, order_by="started_at, id",
            limit=limit or None)
        return [from_row(SessionRecord, r) for r in rows]

    def turns(self, session_id: str) -> list[TurnRecord]:
        rows = self.db.table("turns").rows_where("session_id = ?", [session_id], order_by='"index"')
        return [from_row(TurnRecord, r) for r in rows]

    def turn_ratings(self, session_id: str | None = None, rater: str | None = None) -> list[TurnRating]:
        rows = self.db.table("turn_ratings").rows_where(
            "(:rater IS NULL OR rater = :rater) AND turn_id IN "
            "(SELECT id FROM turns WHERE :session IS NULL OR session_id = :session)",
            {"session": session_id or None, "rater": rater or None},
            order_by='(SELECT session_id FROM turns WHERE id = turn_id), '
                     '(SELECT "index" FROM turns WHERE id = turn_id), rater')
        return [from_row(TurnRating, r) for r in rows]

    def dialogue_ratings(self, session_id: str | None = None,
                         rater: str | None = None) -> list[DialogueRating]:
        rows = self.db.table("dialogue_ratings").rows_where(
            "(:session IS NULL OR session_id = :session) AND (:rater IS NULL OR rater = :rater)",
            {"session": session_id or None, "rater": rater or None}, order_by="session_id, rater")
        return [from_row(DialogueRating, r) for r in rows]

    def raters(self) -> list[Rater]:
        return [from_row(Rater, r) for r in self.db.table("raters").rows_where(order_by="name")]

    def counts(self) -> dict[str, int]:
        return {t: self.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("sessions", "turns", "turn_ratings", "dialogue_ratings", "raters")}

    def schema_version(self) -> int:
        return len(migrations.applied(self.db))

    def integrity_ok(self) -> bool:
        return self.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def open_store(path: str | Path, *, readonly: bool = False, make_folder: bool = True) -> Store:
    """Open (creating and migrating if needed) the database at ``path``; raises StoreError with one clear
    line. ``make_folder=False``: a missing folder is refused instead of created (a path the user gave)."""
    try:
        return Store(path, readonly=readonly, make_folder=make_folder)
    except sqlite3.DatabaseError as e:
        raise StoreError(f"{path}: {e}") from None
