"""DSTC11 track 5 files: ``logs.json`` and ``labels.json`` (lists, one entry per instance), ``knowledge.json``
and ``entity_mapping.json`` (objects). Ids are strings in knowledge.json and integers in labels.json.

``logs.json``: each instance a list of ``{"speaker": "U"|"S", "text"}`` ending with the user turn to answer.
``labels.json`` (and predictions in the same format): ``{"target": bool, "knowledge"?: [{"domain",
"entity_id", "doc_type", "doc_id", "sent_id"?}], "response"?}``; a target entry needs a response.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from parley.errors import ParleyError
from parley.formats import FormatError, read_json, stream_json
from parley.jsontypes import JSONObject, JSONValue

SPEAKERS = {"U": "user", "S": "system"}


def read_object(path: str | Path, what: str, error: type[ParleyError] = FormatError) -> JSONObject:
    """A JSON object file (``knowledge.json``, ``entity_mapping.json``)."""
    data = read_json(path, error)
    if not isinstance(data, dict):
        raise error(f"{path}: expected a JSON object ({what}), got a {type(data).__name__}")
    return data


def read_list(path: str | Path, what: str, error: type[ParleyError] = FormatError) -> list[JSONValue]:
    """A JSON list file (``logs.json``, ``labels.json``, predictions)."""
    data = read_json(path, error)
    if not isinstance(data, list):
        raise error(f"{path}: {what} must be a list of objects, got a {type(data).__name__}")
    return data


def check_instance(path: str | Path, i: int, inst: object, error: type[ParleyError] = FormatError
                   ) -> list[JSONObject]:
    """Log instance ``i``: speakers, texts, the last turn the user's."""
    if not isinstance(inst, list) or not inst:
        raise error(f"{path}: key [{i}]: an instance must be a non-empty list of turns")
    for j, t in enumerate(inst):
        if not isinstance(t, dict) or t.get("speaker") not in SPEAKERS:
            got = t.get("speaker") if isinstance(t, dict) else t
            raise error(f"{path}: key [{i}][{j}].speaker: must be \"U\" or \"S\", got {got!r}")
        if not isinstance(t.get("text"), str):
            raise error(f"{path}: key [{i}][{j}].text: missing or not a string")
    if inst[-1]["speaker"] != "U":
        raise error(f"{path}: key [{i}]: the last turn must be the user's (speaker \"U\")")
    return inst


def check_label(path: str | Path, i: int, lab: object, error: type[ParleyError] = FormatError
                ) -> JSONObject:
    """Entry ``i`` of ``labels.json`` or of predictions in its format."""
    if not isinstance(lab, dict) or not isinstance(lab.get("target"), bool):
        raise error(f"{path}: key [{i}].target: missing or not true/false")
    if lab["target"]:
        if not isinstance(lab.get("response"), str):
            raise error(f"{path}: key [{i}].response: a target entry needs a response string")
        know = lab.get("knowledge", [])
        if not isinstance(know, list) or not all(isinstance(k, dict) for k in know):
            raise error(f"{path}: key [{i}].knowledge: expected a list of objects")
        for j, k in enumerate(know):
            for key in ("domain", "entity_id", "doc_type", "doc_id"):
                if key not in k:
                    raise error(f"{path}: key [{i}].knowledge[{j}].{key}: missing")
    return lab


def iter_logs(path: str | Path, error: type[ParleyError] = FormatError) -> Iterator[list[JSONObject]]:
    """The instances of ``logs.json`` one at a time, each checked (memory holds one instance)."""
    shape = "a list of log instances"
    for i, inst in stream_json(path, error, top="array", what="instance", shape=shape):
        yield check_instance(path, i, inst, error)


def iter_labels(path: str | Path, what: str = "labels", error: type[ParleyError] = FormatError
                ) -> Iterator[JSONObject]:
    """The entries of ``labels.json`` (or predictions in its format) one at a time, each checked."""
    for i, lab in stream_json(path, error, top="array", what="entry", shape=f"{what}: a list of objects"):
        yield check_label(path, i, lab, error)


def read_logs(path: str | Path, error: type[ParleyError] = FormatError) -> list[list[JSONObject]]:
    """``logs.json``, every instance checked (speakers, texts, the last turn the user's)."""
    logs = read_json(path, error)
    if not isinstance(logs, list):
        raise error(f"{path}: expected a list of log instances, got a {type(logs).__name__}")
    return [check_instance(path, i, inst, error) for i, inst in enumerate(logs)]


def count_mismatch(path: str | Path, what: str, entries: int, instances: int) -> str:
    return f"{path}: {what} has {entries} entries but logs.json has {instances} instances"


def read_labels(path: str | Path, n: int | None = None, what: str = "labels",
                error: type[ParleyError] = FormatError) -> list[JSONObject]:
    """``labels.json`` or predictions in its format, every entry checked; ``n``: the number of log
    instances."""
    data = read_list(path, what, error)
    if n is not None and len(data) != n:
        raise error(count_mismatch(path, what, len(data), n))
    return [check_label(path, i, lab, error) for i, lab in enumerate(data)]
