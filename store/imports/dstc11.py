"""DSTC11 track 5 logs (``logs.json``), optional ``labels.json`` and optional predictions in the labels
format.

Each log instance (a list of ``{"speaker": "U"|"S", "text"}`` ending with the user turn to answer) becomes a
session. The answer becomes the last system turn: the prediction's ``response`` when ``pred`` is given (the
system under rating), else the gold ``response`` from ``labels``; an instance without one (not
knowledge-seeking) ends with the user turn and only its earlier system turns can be rated. The final system
turn keeps ``target`` and the selected ``knowledge`` (and the gold reference when a prediction is shown) under
``internals``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field

from parley.formats.dstc11 import SPEAKERS as _SPEAKERS
from parley.formats.dstc11 import count_mismatch, iter_labels, iter_logs
from parley.store.imports.base import (
    ImportedDialogue,
    ImportFileError,
    ImportOptions,
    ImportReport,
    InputFile,
    digest,
    session_record,
    turn_records,
)

FORMAT = "dstc11"


class Options(ImportOptions):
    labels: InputFile | None = Field(None, description="labels.json (gold answer, target, knowledge).")
    pred: InputFile | None = Field(
        None, description="Predictions in the labels format; their responses become the rated system turn.")
    targets_only: bool = Field(False, description="Import only knowledge-seeking instances.")


def _aligned(path: Path, labels: Path | None, pred: Path | None
             ) -> Iterator[tuple[int, list[dict[str, Any]], dict[str, Any] | None, dict[str, Any] | None]]:
    """``(index, instance, gold label, prediction)``, the three files read side by side one entry at a time
    (memory holds one instance), every entry checked and the counts compared at the end."""
    logs = iter_logs(path, ImportFileError)
    gold = iter_labels(labels, "labels", ImportFileError) if labels else None
    guess = iter_labels(pred, "predictions", ImportFileError) if pred else None
    n = 0
    for n, inst in enumerate(logs, start=1):
        g = _next(gold, labels, "labels", n - 1, logs)
        p = _next(guess, pred, "predictions", n - 1, logs)
        yield n - 1, inst, g, p
    for it, file, what in ((gold, labels, "labels"), (guess, pred, "predictions")):
        extra = sum(1 for _ in it) if it is not None else 0
        if extra:
            raise ImportFileError(count_mismatch(file or "", what, n + extra, n))


def _next(it: Iterator[dict[str, Any]] | None, file: Path | None, what: str, seen: int,
          logs: Iterable[Any]) -> dict[str, Any] | None:
    if it is None:
        return None
    entry = next(it, None)
    if entry is None:  # the labels ended first: count the instances left to say by how much
        raise ImportFileError(count_mismatch(file or "", what, seen, seen + 1 + sum(1 for _ in logs)))
    return entry


def read(path: Path, report: ImportReport, *, labels: Path | None = None, pred: Path | None = None,
         limit: int | None = None, targets_only: bool = False) -> Iterator[ImportedDialogue]:
    """Read the logs (and labels/predictions) side by side and yield one dialogue per instance; every entry
    is checked, past ``limit`` too (a malformed file imports nothing)."""
    if targets_only and labels is None and pred is None:
        raise ImportFileError(
            f"{path}: --targets-only needs --labels or --pred (the logs alone carry no target)"
        )
    system_name = f"dstc11-pred:{pred.stem}" if pred else "dstc11-gold" if labels else "dstc11-logs"
    config = {"answer": "pred" if pred else "labels" if labels else None}
    base = datetime.now(UTC)
    n = 0
    for i, inst, g, p in _aligned(path, labels, pred):
        if limit is not None and n >= limit:
            continue
        shown = p if p is not None else g
        if targets_only and not ((g or {}).get("target") or (p or {}).get("target")):
            continue
        turns: list[tuple[str, str, dict[str, object]]] = [
            (_SPEAKERS[t["speaker"]], t["text"], {}) for t in inst
        ]
        if shown is not None and shown["target"]:
            info: dict[str, object] = {"target": True, "knowledge": shown.get("knowledge", []),
                                    "answer_from": "pred" if p is not None else "labels"}
            if p is not None and g is not None:
                info["gold"] = {"target": g["target"], "knowledge": g.get("knowledge", []),
                                "response": g.get("response")}
            turns.append(("system", shown["response"], {"state": {}, "acts": [], "internals": info}))
        elif shown is not None:
            report.skipped["no answer (target false)"] += 1
        texts = [t[1] for t in turns] + [system_name]
        session = session_record(fmt=FORMAT, path=path, dialogue_id=str(i), content=digest(texts), index=n,
                                 base_time=base, system_name=system_name, extra_config=config)
        n += 1
        yield ImportedDialogue(session, turn_records(session.id, turns), where=f"instance {i}")
