"""parley's own JSONL export (``parley export --format jsonl``, see store.export): one session per line.

Sessions keep their ids, modes and timestamps, so exporting a database and importing it elsewhere reproduces
it, and ratings made on the copy merge back into the original (``parley merge``). Every line is validated
against the export schema (:class:`parley.store.schema.ExportLine`, strict types): a wrong type or a missing
key is an error naming the line and the key; keys this parley does not know (a newer export) are ignored with
a warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from parley.jsonfile import decode, loads
from parley.limits import INPUT, RECORD, Bounded, check_size
from parley.params import one_line
from parley.store.imports.base import ImportedDialogue, ImportFileError, ImportReport
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord
from parley.store.schema import PARTS, ExportLine, record_model, to_record

FORMAT = "jsonl"


def _unknown_keys(obj: dict[str, object], where: str, path: Path, report: ImportReport) -> None:
    for key, cls in PARTS.items():
        items = obj.get(key)
        items = [items] if isinstance(items, dict) else items if isinstance(items, list) else []
        known = set(record_model(cls).model_fields)
        for i, item in enumerate(items):
            unknown = sorted(set(item) - known) if isinstance(item, dict) else []
            if unknown:
                report.skipped[f"unknown keys in {cls.__name__}"] += 1
                if len(report.warnings) < 20:
                    at = key if key == "session" else f"{key}[{i}]"
                    report.warn(f"{path.name}: {where}, key {at}: unknown keys ignored: {', '.join(unknown)}")


def _dialogue(obj: object, where: str, path: Path, report: ImportReport) -> ImportedDialogue:
    if not isinstance(obj, dict) or "session" not in obj:
        raise ImportFileError(f"{path}: {where}: missing key 'session' (is this a parley JSONL export?)")
    try:
        line = ExportLine.model_validate(obj)
    except ValidationError as e:
        raise ImportFileError(f"{path}: {where}, key {one_line(e)}") from None
    _unknown_keys(obj, where, path, report)
    session = to_record(SessionRecord, line.session)
    turns = tuple(to_record(TurnRecord, m) for m in line.turns)
    turn_ratings = tuple(to_record(TurnRating, m) for m in line.turn_ratings)
    dialogue_ratings = tuple(to_record(DialogueRating, m) for m in line.dialogue_ratings)
    owners = [("turns", i, r.session_id) for i, r in enumerate(turns)]
    owners += [("dialogue_ratings", i, r.session_id) for i, r in enumerate(dialogue_ratings)]
    for key, i, owner in owners:
        if owner != session.id:
            raise ImportFileError(f"{path}: {where}, key {key}[{i}].session_id: not this line's session")
    return ImportedDialogue(session, turns, turn_ratings, dialogue_ratings, where=where)


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of the file, read one line at a time: the file within the input budget, each
    line (one session) within the record budget."""
    check_size(path, str(path), ImportFileError, INPUT)
    longest = RECORD.get()
    try:
        with path.open("rb") as fh:
            stream = Bounded(fh, str(path), ImportFileError)
            lineno = 0
            while raw := stream.readline(longest + 2):
                lineno += 1
                if len(raw.rstrip(b"\r\n")) > longest:
                    raise ImportFileError(RECORD.message(str(path), f"line {lineno} too long"))
                yield lineno, raw
    except OSError as e:
        raise ImportFileError(f"{path}: {e.strerror}") from None


def read(path: Path, report: ImportReport, *, limit: int | None = None) -> Iterator[ImportedDialogue]:
    """Yield one dialogue per line, read one line at a time; a bad line stops the import (nothing is
    written)."""
    n = 0
    for lineno, raw in _lines(path):
        line = decode(raw, f"{path}: line {lineno}", ImportFileError)
        if not line.strip():
            continue
        if limit is not None and n >= limit:
            break
        where = f"line {lineno}"
        obj = loads(line, str(path), ImportFileError, line=lineno)
        n += 1
        yield _dialogue(obj, where, path, report)
