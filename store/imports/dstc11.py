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

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field

from parley.formats.dstc11 import SPEAKERS as _SPEAKERS
from parley.formats.dstc11 import read_labels, read_logs
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


def read(path: Path, report: ImportReport, *, labels: Path | None = None, pred: Path | None = None,
         limit: int | None = None, targets_only: bool = False) -> Iterator[ImportedDialogue]:
    """Parse and validate the logs (and labels/predictions), then yield one dialogue per instance."""
    logs = read_logs(path, ImportFileError)
    gold = read_labels(labels, len(logs), "labels", ImportFileError) if labels else None
    guess = read_labels(pred, len(logs), "predictions", ImportFileError) if pred else None
    if targets_only and gold is None and guess is None:
        raise ImportFileError(
            f"{path}: --targets-only needs --labels or --pred (the logs alone carry no target)"
        )
    system_name = f"dstc11-pred:{pred.stem}" if pred else "dstc11-gold" if labels else "dstc11-logs"
    config = {"answer": "pred" if pred else "labels" if labels else None}
    base = datetime.now(UTC)
    n = 0
    for i, inst in enumerate(logs):
        if limit is not None and n >= limit:
            break
        g = gold[i] if gold else None
        p = guess[i] if guess else None
        shown = p if p is not None else g
        if targets_only and not ((g or {}).get("target") or (p or {}).get("target")):
            continue
        turns: list[tuple[str, str, dict[str, Any]]] = [
            (_SPEAKERS[t["speaker"]], t["text"], {}) for t in inst
        ]
        if shown is not None and shown["target"]:
            info: dict[str, Any] = {"target": True, "knowledge": shown.get("knowledge", []),
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
