"""What every importer shares: the parsed dialogue, stable ids, one-line errors and the one-transaction
writer."""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field

from parley.errors import ParleyError
from parley.params import CONFIG
from parley.store.db import Store
from parley.store.merge import MergeConflict, put_row
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord, now, to_row

#: namespace of every id an importer derives (uuid5), so the same dialogue gets the same id on every machine
NAMESPACE = uuid.UUID("5b0f3c9e-6a4d-5e21-9c1e-7d2f0a8b4c61")
ORIGINAL = {"name": "original", "rewriters": []}


class ImportFileError(ParleyError, ValueError):
    """A file that cannot be imported; the message names the file and the line or key, on one line."""


def _existing_file(value: Any) -> Path:
    path = Path(value) if isinstance(value, str) else value
    if isinstance(path, Path) and not path.is_file():
        raise ValueError(f"{path}: no such file")
    return path


#: a file the importer reads besides the main one (must exist)
InputFile = Annotated[Path, BeforeValidator(_existing_file)]


class ImportOptions(BaseModel):
    """The options every format takes; a format module subclasses it as ``Options`` to add its own (each field
    becomes a ``parley import`` option; its description is the option's help)."""

    model_config = CONFIG

    limit: Annotated[int, Field(ge=1)] | None = Field(None, description="Import only the first N dialogues.")


def stable_id(*parts: object) -> str:
    """A UUID derived from ``parts`` (uuid5): importing the same dialogue again yields the same id."""
    return str(uuid.uuid5(NAMESPACE, "\x1f".join(str(p) for p in parts)))


def digest(texts: Iterable[str]) -> str:
    """A short content hash of a dialogue's texts (two dialogues sharing an id in a corpus stay apart)."""
    h = hashlib.sha1()
    for t in texts:
        h.update(t.encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class ImportedDialogue:
    """One dialogue as records, ready to store. ``where`` locates it in the file for error messages."""

    session: SessionRecord
    turns: tuple[TurnRecord, ...]
    turn_ratings: tuple[TurnRating, ...] = ()
    dialogue_ratings: tuple[DialogueRating, ...] = ()
    where: str = ""


@dataclass
class ImportReport:
    """The outcome of one import: counts, skipped values and warnings (shown to the user)."""

    fmt: str
    path: Path
    dialogues: int = 0
    added: Counter[str] = field(default_factory=Counter)
    present: Counter[str] = field(default_factory=Counter)
    #: values not imported, by reason (e.g. "relevance=4 outside 1-3")
    skipped: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def summary(self) -> str:
        new, old = self.added["sessions"], self.present["sessions"]
        s = f"{self.dialogues} dialogue(s) read from {self.path.name}: {new} new session(s)"
        if old:
            s += f", {old} already in the database"
        s += (f"; {self.added['turns']} turn(s), {self.added['turn_ratings']} turn rating(s), "
              f"{self.added['dialogue_ratings']} dialogue rating(s) added")
        return s


def session_record(*, fmt: str, path: Path, dialogue_id: str, content: str, index: int, base_time: datetime,
                   system_name: str, goal: dict[str, object] | None = None,
                   extra_config: Mapping[str, object] | None = None) -> SessionRecord:
    """An annotation-mode session for an imported dialogue; ``index`` keeps the file's order in start times.

    The id depends on the format, the dialogue id and its content, not on the file's name or place, so raters
    who import the same dialogues from their own copies can merge their databases; ``source`` (file name and
    dialogue id) is provenance and does not take part in that comparison.
    """
    return SessionRecord(
        id=stable_id(fmt, dialogue_id, content),
        started_at=(base_time + timedelta(microseconds=index)).isoformat(timespec="microseconds"),
        mode="annotation",
        system_name=system_name,
        system_config={"format": fmt, **(extra_config or {})},
        condition=dict(ORIGINAL),
        goal=goal,
        source=f"{path.name}#{dialogue_id}",
    )


def turn_records(session_id: str, turns: Sequence[tuple[str, str, dict[str, object]]]
                 ) -> tuple[TurnRecord, ...]:
    """Turn records from ``(role, text, internals)``; ids derive from the session id and index."""
    stamp = now()
    out = []
    for i, (role, text, internals) in enumerate(turns):
        out.append(TurnRecord(session_id=session_id, index=i, role=role,  # type: ignore[arg-type]
                              text=text, text_final=text if role == "user" else None, internals=internals,
                              id=stable_id(session_id, i), created_at=stamp))
    return tuple(out)


def write_dialogues(
    store: Store, dialogues: Iterable[ImportedDialogue], report: ImportReport
) -> ImportReport:
    """Store every dialogue in one transaction: all or nothing. Rows already present are counted, not
    doubled."""
    try:
        with store.write() as conn:
            cols = {t: [r[1] for r in conn.execute(f"PRAGMA table_info({t})")] for t in
                    ("raters", "sessions", "turns", "turn_ratings", "dialogue_ratings")}
            stamp = now()
            for d in dialogues:
                report.dialogues += 1
                origin = f"{report.path.name}: {d.where}" if d.where else report.path.name
                try:
                    _write_one(conn, d, cols, stamp, origin, report)
                except sqlite3.Error as e:
                    raise ImportFileError(f"nothing imported: {origin}: {e}") from None
    except MergeConflict as e:
        raise ImportFileError(f"nothing imported: {e}") from None
    return report


def _write_one(conn: sqlite3.Connection, d: ImportedDialogue, cols: dict[str, list[str]], stamp: str,
               origin: str, report: ImportReport) -> None:
    rows: list[tuple[str, SessionRecord | TurnRecord | TurnRating | DialogueRating]]
    rows = [("sessions", d.session)]
    rows += [("turns", t) for t in d.turns]
    for rater in {r.rater for r in d.turn_ratings} | {r.rater for r in d.dialogue_ratings}:
        conn.execute("INSERT OR IGNORE INTO raters (name, created_at) VALUES (?, ?)", [rater, stamp])
    rows += [("turn_ratings", r) for r in d.turn_ratings]
    rows += [("dialogue_ratings", r) for r in d.dialogue_ratings]
    for table, rec in rows:
        if put_row(conn, table, to_row(rec), origin=origin, columns=cols[table]):
            report.added[table] += 1
        else:
            report.present[table] += 1
