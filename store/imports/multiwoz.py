"""MultiWOZ-format dialogues (the ConvLab-3 copy, MultiWOZ 2.x ``data.json``), as JSON or a zip holding one.

``{dialogue_id: {"goal": {...}, "log": [{"text", "metadata", "dialog_act", "span_info"}, ...]}}``: even turns
are the user's, odd turns the system's (a wizard) with the belief state in ``metadata``. In the ConvLab-3 copy
``metadata``/``dialog_act``/``span_info`` are Python literals in strings; in MultiWOZ 2.x they are JSON
objects: both are read. System turns store the belief state flattened to parley's slot names (``semi`` slots
by name, booking slots as ``book_<slot>``) under ``state`` and the corpus fields under ``internals``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from parley.formats import FormatError
from parley.formats.multiwoz import flatten_state, iter_dialogues, literal
from parley.store.imports.base import (
    ImportedDialogue,
    ImportFileError,
    ImportReport,
    digest,
    session_record,
    turn_records,
)

FORMAT = "multiwoz"
__all__ = ["flatten_state", "read"]


def _literal(value: object, where: str, path: Path) -> object:
    try:
        return literal(value, where)
    except FormatError as e:
        raise ImportFileError(f"{path}: {e.message}") from None


def read(path: Path, report: ImportReport, *, limit: int | None = None) -> Iterator[ImportedDialogue]:
    """Parse each dialogue (validating all of it) and yield it as records, one dialogue at a time: memory
    holds one dialogue, not the file (a malformed dialogue later in the file still imports nothing, since
    the import is one transaction)."""
    base = datetime.now(UTC)
    n = 0
    for seen, (did, dlg) in enumerate(iter_dialogues(path, ImportFileError, single_in_zip=True)):
        if limit is not None and seen >= limit:
            break
        if not isinstance(dlg, dict) or not isinstance(dlg.get("log"), list):
            raise ImportFileError(f"{path}: key {did}: a dialogue needs a \"log\" list")
        turns: list[tuple[str, str, dict[str, object]]] = []
        for i, t in enumerate(dlg["log"]):
            where = f"{did}.log[{i}]"
            if not isinstance(t, dict) or not isinstance(t.get("text"), str):
                raise ImportFileError(f"{path}: key {where}.text: missing or not a string")
            info = {k: _literal(t[k], f"{where}.{k}", path) for k in ("dialog_act", "span_info") if k in t}
            if i % 2 == 0:
                turns.append(("user", t["text"], info))
            else:
                meta = _literal(t.get("metadata", {}), f"{where}.metadata", path)
                turns.append(("system", t["text"], {"state": flatten_state(meta), "acts": [],
                                                    "internals": {**info, "metadata": meta}}))
        if not turns:
            report.skipped["dialogues without turns"] += 1
            report.warn(f"{path.name}: key {did}: the log is empty; dialogue skipped")
            continue
        goal = dlg.get("goal")
        if goal is not None and not isinstance(goal, dict):
            raise ImportFileError(f"{path}: key {did}.goal: expected an object")
        session = session_record(fmt=FORMAT, path=path, dialogue_id=str(did),
                                 content=digest(t[1] for t in turns), index=n, base_time=base,
                                 system_name="multiwoz-corpus", goal=goal)
        n += 1
        yield ImportedDialogue(session, turn_records(session.id, turns), where=f"key {did}")
