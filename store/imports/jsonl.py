"""parley's own JSONL export (``parley export --format jsonl``, see store.export): one session per line.

Sessions keep their ids, modes and timestamps, so exporting a database and importing it elsewhere reproduces it,
and ratings made on the copy merge back into the original (``parley merge``). Keys this parley does not know
(a newer export) are ignored with a warning; a missing required key is an error naming the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from parley.store.imports.base import ImportedDialogue, ImportFileError, ImportReport
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord

FORMAT = "jsonl"


def _record(cls: type, data: Any, where: str, path: Path, report: ImportReport) -> Any:
    if not isinstance(data, dict):
        raise ImportFileError(f"{path}: {where}: expected an object")
    names = {f.name for f in fields(cls)}
    for f in fields(cls):
        if f.default is MISSING and f.default_factory is MISSING and f.name not in data:
            raise ImportFileError(f"{path}: {where}: missing key {f.name!r}")
    unknown = sorted(set(data) - names)
    if unknown:
        report.skipped[f"unknown keys in {cls.__name__}"] += 1
        if len(report.warnings) < 20:
            report.warn(f"{path.name}: {where}: unknown keys ignored: {', '.join(unknown)}")
    kwargs = {k: v for k, v in data.items() if k in names}
    if cls is SessionRecord and "locked" in kwargs:
        kwargs["locked"] = bool(kwargs["locked"])
    return cls(**kwargs)


def read(path: Path, report: ImportReport, *, limit: int | None = None) -> Iterator[ImportedDialogue]:
    """Yield one dialogue per line; a bad line stops the import (nothing is written)."""
    try:
        fh = path.open(encoding="utf-8")
    except OSError as e:
        raise ImportFileError(f"{path}: {e.strerror}") from None
    n = 0
    with fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if limit is not None and n >= limit:
                break
            where = f"line {lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ImportFileError(f"{path}: {where}, column {e.colno}: invalid JSON ({e.msg})") from None
            except UnicodeDecodeError as e:
                raise ImportFileError(f"{path}: {where}: not UTF-8 text ({e.reason})") from None
            if not isinstance(obj, dict) or "session" not in obj:
                raise ImportFileError(f"{path}: {where}: missing key 'session' (is this a parley JSONL export?)")
            session = _record(SessionRecord, obj["session"], f"{where}, key session", path, report)
            parts: dict[str, list[Any]] = {}
            for key, cls in (("turns", TurnRecord), ("turn_ratings", TurnRating),
                             ("dialogue_ratings", DialogueRating)):
                items = obj.get(key, [])
                if not isinstance(items, list):
                    raise ImportFileError(f"{path}: {where}, key {key}: expected a list")
                parts[key] = [_record(cls, it, f"{where}, key {key}[{i}]", path, report)
                              for i, it in enumerate(items)]
            for i, t in enumerate(parts["turns"]):
                if t.session_id != session.id:
                    raise ImportFileError(f"{path}: {where}, key turns[{i}].session_id: not this line's session")
            for i, r in enumerate(parts["dialogue_ratings"]):
                if r.session_id != session.id:
                    raise ImportFileError(
                        f"{path}: {where}, key dialogue_ratings[{i}].session_id: not this line's session")
            n += 1
            yield ImportedDialogue(session, tuple(parts["turns"]), tuple(parts["turn_ratings"]),
                                   tuple(parts["dialogue_ratings"]), where=where)
