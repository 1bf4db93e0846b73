"""Importers: dialogues from other sources become annotation-mode sessions (``parley import``).

One module per format, registered below by name — the only place a new importer is added. A format module has
``read(path, report, **options)`` yielding :class:`ImportedDialogue` s and may declare ``Options``, a subclass
of :class:`ImportOptions` whose fields are its extra options (``parley import`` derives its ``--format``
choices and options from this registry). :func:`import_file` validates the options, then writes the dialogues
in one transaction, so a malformed file imports nothing and raises :class:`ImportFileError` with one line
naming the line or key. Ids are derived from the dialogue (uuid5), so importing a file twice adds nothing.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from parley.params import one_line
from parley.store.db import Store
from parley.store.imports.base import (
    ImportedDialogue,
    ImportFileError,
    ImportOptions,
    ImportReport,
    stable_id,
    write_dialogues,
)


@dataclass(frozen=True)
class Importer:
    """One registered format: ``module`` is imported only when the format is used or its options listed."""

    name: str
    module: str
    summary: str

    def load(self) -> ModuleType:
        return importlib.import_module(self.module)

    @property
    def options(self) -> type[ImportOptions]:
        opts = getattr(self.load(), "Options", ImportOptions)
        return opts if isinstance(opts, type) and issubclass(opts, ImportOptions) else ImportOptions


IMPORTERS: dict[str, Importer] = {}


def register(name: str, module: str, summary: str) -> None:
    IMPORTERS[name] = Importer(name, module, summary)


register("multiwoz", "parley.store.imports.multiwoz", "ConvLab-3/MultiWOZ JSON or zip")
register("dstc11", "parley.store.imports.dstc11", "DSTC11 track-5 logs.json")
register("abredial", "parley.store.imports.abredial", "the AB-ReDial dialogue CSV")
register("jsonl", "parley.store.imports.jsonl", "parley's own export")


def import_file(store: Store, path: Path | str, fmt: str, **options: Any) -> ImportReport:
    """Import ``path`` in format ``fmt`` into ``store``; returns counts, skipped values and warnings.

    ``options`` are the format's ``Options`` fields (``limit`` for every format; dstc11: ``labels``, ``pred``,
    ``targets_only``; abredial: ``turn_file``, ``relevance_coding``). Unset (None/False) options are ignored.
    """
    importer = IMPORTERS.get(fmt)
    if importer is None:
        raise ImportFileError(f"unknown format {fmt!r} (choose from {', '.join(IMPORTERS)})")
    given = {k: v for k, v in options.items() if v is not None and v is not False}
    model = importer.options
    wrong = sorted(set(given) - set(model.model_fields))
    if wrong:
        raise ImportFileError(f"format {fmt} does not take {', '.join(wrong)}")
    try:
        opts = model.model_validate(given)
    except ValidationError as e:
        raise ImportFileError(one_line(e)) from None
    path = Path(path)
    if not path.is_file():
        raise ImportFileError(f"{path}: " + ("not a regular file" if path.exists() else "no such file"))
    report = ImportReport(fmt, path)
    return write_dialogues(store, importer.load().read(path, report, **opts.model_dump(exclude_unset=True)),
                           report)


__all__ = ["IMPORTERS", "ImportFileError", "ImportOptions", "ImportReport", "ImportedDialogue", "Importer",
           "import_file", "register", "stable_id"]
