"""MultiWOZ-format dialogue files: the ConvLab-3 copy and MultiWOZ 2.x ``data.json``, as JSON or a zip holding
one.

``{dialogue_id: {"goal": {...}, "log": [{"text", "metadata", "dialog_act", "span_info"}, ...]}}``: even turns
are the user's, odd turns the system's (a wizard) with the belief state in ``metadata``
(``{domain: {"book": {"booked": [...], slot: value}, "semi": {slot: value}}}``). Some copies write
``metadata``, ``dialog_act`` and ``span_info`` as Python literals in strings: :func:`literal` reads both.

:func:`flatten_state` is the one belief-state flattener: parley's ``{domain: {slot: value}}`` with ``semi``
slots by name and booking slots as ``book_<slot>``, values lower-cased and stripped, empty / "not mentioned" /
"none" dropped, ``leaveAt``/``arriveBy``/``book_time`` written ``HH:MM``.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from parley.errors import ParleyError
from parley.formats import FormatError, stream_json

DOMAINS: tuple[str, ...] = ("restaurant", "hotel", "attraction", "train", "taxi", "hospital", "police")
EMPTY = frozenset({"", "not mentioned", "none"})
TIME_SLOTS = frozenset({"leaveAt", "arriveBy", "book_time"})


def iter_dialogues(path: str | Path, error: type[ParleyError] = FormatError, *, single_in_zip: bool = False
                   ) -> Iterator[tuple[str, Any]]:
    """``(dialogue_id, dialogue)`` of a MultiWOZ-format ``.json`` or ``.zip``, read one dialogue at a time
    (:func:`parley.formats.stream_json`: within the input budget, each dialogue within the record budget).
    Failures raise ``error`` (the caller's :class:`ParleyError` class)."""
    yield from stream_json(path, error, what="dialogue", shape="an object of dialogues keyed by id",
                           single_in_zip=single_in_zip)


def read_dialogues(path: str | Path, error: type[ParleyError] = FormatError, *, single_in_zip: bool = False
                   ) -> dict[str, Any]:
    """``{dialogue_id: dialogue}`` from a MultiWOZ-format ``.json`` or ``.zip`` (:func:`iter_dialogues`)."""
    return dict(iter_dialogues(path, error, single_in_zip=single_in_zip))


def literal(value: object, where: str = "") -> object:
    """A field that may be a JSON object or a Python literal in a string (ConvLab-3); blank → ``{}``."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return {}
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            raise FormatError(f"key {where}: not a JSON object or Python literal") from None


def normalise_time(value: str) -> str:
    """``"5:15"`` → ``"05:15"``; other strings unchanged."""
    v = value.strip()
    if ":" in v:
        h, _, m = v.partition(":")
        if h.isdigit() and m[:2].isdigit():
            return f"{int(h):02d}:{m[:2]}"
    return v


def _value(slot: str, raw: object) -> str | None:
    if not isinstance(raw, str | int | float) or isinstance(raw, bool):
        return None
    v = str(raw).strip().lower()
    if v in EMPTY:
        return None
    return normalise_time(v) if slot in TIME_SLOTS else v


def flatten_state(metadata: object) -> dict[str, dict[str, str]]:
    """The corpus belief state of one system turn as parley's ``{domain: {slot: value}}`` (module
    docstring)."""
    state: dict[str, dict[str, str]] = {}
    if not isinstance(metadata, Mapping):
        return state
    for domain, frame in metadata.items():
        if domain not in DOMAINS or not isinstance(frame, Mapping):
            continue
        slots: dict[str, str] = {}
        for slot, raw in (frame.get("semi") or {}).items():
            v = _value(slot, raw)
            if v is not None:
                slots[slot] = v
        for slot, raw in (frame.get("book") or {}).items():
            v = None if slot == "booked" else _value(f"book_{slot}", raw)
            if v is not None:
                slots[f"book_{slot}"] = v
        if slots:
            state[domain] = slots
    return state


def booked_domains(metadata: object) -> tuple[str, ...]:
    """Domains with a booking made by this point of the corpus dialogue (mwzeval's booked domains)."""
    if not isinstance(metadata, Mapping):
        return ()
    return tuple(d for d in DOMAINS if isinstance(metadata.get(d), Mapping)
                 and (metadata[d].get("book") or {}).get("booked"))


def user_turns(dialogue: Mapping[str, object]) -> list[object]:
    """The user turns (even positions) of a dialogue's log."""
    log = dialogue.get("log", [])
    return list(log[0::2]) if isinstance(log, list) else []
