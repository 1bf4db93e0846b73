"""Importers: dialogues from other sources become annotation-mode sessions (``parley import``).

One module per format: ``multiwoz`` (ConvLab-3 / MultiWOZ 2.x JSON or zip), ``dstc11`` (track 5 logs, labels,
predictions), ``abredial`` (AB-ReDial rating CSVs) and ``jsonl`` (parley's own export). Each reads and validates
its file into records; :func:`import_file` writes them in one transaction, so a malformed file imports nothing
and raises :class:`ImportFileError` with one line naming the line or key. Ids are derived from the dialogue
(uuid5), so importing a file twice adds nothing.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from parley.store.db import Store
from parley.store.imports.base import (
    ImportedDialogue,
    ImportFileError,
    ImportReport,
    stable_id,
    write_dialogues,
)

#: format name → module under store.imports with ``read(path, report, **options)``
FORMATS: dict[str, str] = {
    "multiwoz": "parley.store.imports.multiwoz",
    "dstc11": "parley.store.imports.dstc11",
    "abredial": "parley.store.imports.abredial",
    "jsonl": "parley.store.imports.jsonl",
}
#: options each format accepts besides ``limit`` (paths)
OPTIONS: dict[str, tuple[str, ...]] = {
    "multiwoz": (),
    "dstc11": ("labels", "pred", "targets_only"),
    "abredial": ("turn_file", "relevance_coding"),
    "jsonl": (),
}


def import_file(store: Store, path: Path | str, fmt: str, **options: Any) -> ImportReport:
    """Import ``path`` in format ``fmt`` into ``store``; returns counts, skipped values and warnings.

    Options: ``limit`` (first N dialogues) for every format; dstc11: ``labels``, ``pred`` (paths),
    ``targets_only``; abredial: ``turn_file`` (path). Unset (None/False) options are ignored.
    """
    if fmt not in FORMATS:
        raise ImportFileError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    path = Path(path)
    given = {k: v for k, v in options.items() if v not in (None, False)}
    wrong = sorted(set(given) - set(OPTIONS[fmt]) - {"limit"})
    if wrong:
        raise ImportFileError(f"format {fmt} does not take {', '.join(wrong)}")
    for k, v in list(given.items()):
        if k in ("labels", "pred", "turn_file"):
            given[k] = Path(v)
            if not given[k].is_file():
                raise ImportFileError(f"{v}: no such file")
    if not path.is_file():
        raise ImportFileError(f"{path}: no such file")
    module = importlib.import_module(FORMATS[fmt])
    report = ImportReport(fmt, path)
    return write_dialogues(store, module.read(path, report, **given), report)


__all__ = ["FORMATS", "ImportFileError", "ImportReport", "ImportedDialogue", "import_file", "stable_id"]
