"""DSTC11 track 5 logs (``logs.json``), optional ``labels.json`` and optional predictions in the labels format.

Each log instance (a list of ``{"speaker": "U"|"S", "text"}`` ending with the user turn to answer) becomes a
session. The answer becomes the last system turn: the prediction's ``response`` when ``pred`` is given (the system
under rating), else the gold ``response`` from ``labels``; an instance without one (not knowledge-seeking) ends
with the user turn and only its earlier system turns can be rated. The final system turn keeps ``target`` and the
selected ``knowledge`` (and the gold reference when a prediction is shown) under ``internals``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field

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
from parley.store.imports.multiwoz import load_json

FORMAT = "dstc11"


class Options(ImportOptions):
    labels: InputFile | None = Field(None, description="labels.json (gold answer, target, knowledge).")
    pred: InputFile | None = Field(
        None, description="Predictions in the labels format; their responses become the rated system turn.")
    targets_only: bool = Field(False, description="Import only knowledge-seeking instances.")
_SPEAKERS = {"U": "user", "S": "system"}


def _check_labels(data: Any, path: Path, n: int, what: str) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        raise ImportFileError(f"{path}: {what} must be a list of objects, got a {type(data).__name__}")
    if len(data) != n:
        raise ImportFileError(f"{path}: {what} has {len(data)} entries but logs.json has {n} instances")
    for i, lab in enumerate(data):
        if not isinstance(lab, dict) or not isinstance(lab.get("target"), bool):
            raise ImportFileError(f"{path}: key [{i}].target: missing or not true/false")
        if lab["target"]:
            if not isinstance(lab.get("response"), str):
                raise ImportFileError(f"{path}: key [{i}].response: a target entry needs a response string")
            know = lab.get("knowledge", [])
            if not isinstance(know, list) or not all(isinstance(k, dict) for k in know):
                raise ImportFileError(f"{path}: key [{i}].knowledge: expected a list of objects")
            for j, k in enumerate(know):
                for key in ("domain", "entity_id", "doc_type", "doc_id"):
                    if key not in k:
                        raise ImportFileError(f"{path}: key [{i}].knowledge[{j}].{key}: missing")
    return data


def read(path: Path, report: ImportReport, *, labels: Path | None = None, pred: Path | None = None,
         limit: int | None = None, targets_only: bool = False) -> Iterator[ImportedDialogue]:
    """Parse and validate the logs (and labels/predictions), then yield one dialogue per instance."""
    logs = load_json(path)
    if not isinstance(logs, list):
        raise ImportFileError(f"{path}: expected a list of log instances, got a {type(logs).__name__}")
    for i, inst in enumerate(logs):
        if not isinstance(inst, list) or not inst:
            raise ImportFileError(f"{path}: key [{i}]: an instance must be a non-empty list of turns")
        for j, t in enumerate(inst):
            if not isinstance(t, dict) or t.get("speaker") not in _SPEAKERS:
                got = t.get("speaker") if isinstance(t, dict) else t
                raise ImportFileError(f"{path}: key [{i}][{j}].speaker: must be \"U\" or \"S\", got {got!r}")
            if not isinstance(t.get("text"), str):
                raise ImportFileError(f"{path}: key [{i}][{j}].text: missing or not a string")
        if inst[-1]["speaker"] != "U":
            raise ImportFileError(f"{path}: key [{i}]: the last turn must be the user's (speaker \"U\")")
    gold = _check_labels(load_json(labels), labels, len(logs), "labels") if labels else None
    guess = _check_labels(load_json(pred), pred, len(logs), "predictions") if pred else None
    if targets_only and gold is None and guess is None:
        raise ImportFileError(f"{path}: --targets-only needs --labels or --pred (the logs alone carry no target)")
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
        turns: list[tuple[str, str, dict[str, Any]]] = [(_SPEAKERS[t["speaker"]], t["text"], {}) for t in inst]
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
