"""Records: the frozen dataclasses that cross the storage boundary. Rows never leave store/."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from parley.display import visible
from parley.scales import NotApplicable

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")

Mode = Literal["live", "batch", "annotation"]
#: a user turn is ``pending`` from the moment it is accepted until its outcome is stored (``ok``: sent to the
#: system; ``failed``: a rewriter failed), or ``cancelled`` when the tester quit before it was sent
Status = Literal["ok", "failed", "pending", "cancelled"]


def new_id() -> str:
    return str(uuid.uuid4())


def now() -> str:
    """UTC timestamp, ISO 8601 with microseconds (sorts as text)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class SessionRecord:
    id: str = field(default_factory=new_id)
    started_at: str = field(default_factory=now)
    ended_at: str | None = None
    tester: str = ""
    mode: Mode = "live"
    system_name: str = ""
    system_config: dict[str, Any] = field(default_factory=dict)
    condition: dict[str, Any] = field(default_factory=dict)
    goal: dict[str, Any] | None = None
    seed: int | None = None
    app_version: str = ""
    source: str | None = None  # where an imported/replayed dialogue came from (file + dialogue id)
    locked: bool = False       # true once the dialogue rating is submitted


@dataclass(frozen=True)
class TurnRecord:
    session_id: str
    index: int
    role: Literal["user", "system"]
    text: str                  # as typed/spoken (user) or as generated (system)
    text_final: str | None = None  # after the rewriter chain (user turns)
    rewrite_steps: list[dict[str, Any]] = field(default_factory=list)
    internals: dict[str, Any] = field(default_factory=dict)
    latency_ms: float | None = None
    audio_in: str | None = None
    audio_out: str | None = None
    status: Status = "ok"
    error: str | None = None
    id: str = field(default_factory=new_id)
    created_at: str = field(default_factory=now)


@dataclass(frozen=True)
class TurnRating:
    turn_id: str
    rater: str
    relevance: int | NotApplicable | None = None  # 1-3, or "n/a" (not applicable); None: not rated (yet)
    interestingness: int | None = None            # 1-3; None: not rated (yet)
    created_at: str = field(default_factory=now)


@dataclass(frozen=True)
class DialogueRating:
    session_id: str
    rater: str
    understanding: int
    task_completion: int
    interest_arousal: int
    efficiency: int
    overall: int
    justification: str = ""
    created_at: str = field(default_factory=now)


@dataclass(frozen=True)
class Rater:
    name: str
    created_at: str = field(default_factory=now)


#: fields stored as JSON text, per record type
JSON_FIELDS: dict[type, tuple[str, ...]] = {
    SessionRecord: ("system_config", "condition", "goal"),
    TurnRecord: ("rewrite_steps", "internals"),
}


def finite(value: object) -> object:
    """``value`` with every NaN/±infinity (not JSON) replaced by None, inside lists and dicts too."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def to_json(value: object) -> str:
    """The JSON text the store writes: valid JSON always (``allow_nan=False``; NaN/±inf become null).

    The encoder itself finds a NaN/±inf (``allow_nan=False`` raises ValueError), in C: only a value holding
    one pays for the walk of :func:`finite` in Python, which was most of the cost of storing a turn."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str, allow_nan=False)
    except ValueError:
        return json.dumps(finite(value), ensure_ascii=False, sort_keys=True, default=str, allow_nan=False)


_COLUMNS: dict[type, tuple[tuple[str, bool], ...]] = {}


def _columns(cls: type) -> tuple[tuple[str, bool], ...]:
    """``(field name, stored as JSON)`` of a record type, in field order (looked up once per type)."""
    cols = _COLUMNS.get(cls)
    if cols is None:
        jf = JSON_FIELDS.get(cls, ())
        cols = _COLUMNS[cls] = tuple((f.name, f.name in jf) for f in fields(cls))
    return cols


def columns(cls: type) -> tuple[str, ...]:
    """The column names of a record type's table, in field order."""
    return tuple(name for name, _ in _columns(cls))


def to_row(rec: DataclassInstance) -> dict[str, object]:
    row: dict[str, object] = {}
    for name, is_json in _columns(type(rec)):
        v = getattr(rec, name)
        if is_json:
            v = None if v is None else to_json(v)
        elif isinstance(v, bool):
            v = int(v)
        elif isinstance(v, float) and not math.isfinite(v):
            v = None
        row[name] = v
    return row


def from_row(cls: type[R], row: Mapping[str, object]) -> R:
    jf = JSON_FIELDS.get(cls, ())
    kwargs: dict[str, object] = {}
    for f in fields(cls):
        if f.name not in row:
            continue
        v = row[f.name]
        if f.name in jf and v is not None:
            assert isinstance(v, str | bytes), f"{f.name}: JSON text expected"
            v = json.loads(v)
        elif f.name == "locked":
            v = bool(v)
        kwargs[f.name] = v
    return cls(**kwargs)


#: why a tester or rater name is refused (the TUI's name prompt and --tester/--rater/--raters alike)
NAME_RULE = "a name cannot hold control characters"


def clean_name(name: str) -> bool:
    """A tester or rater name shows as itself: no control character (C0 with tab and newline, DEL, C1) and
    no bidirectional override, which would rewrite a terminal or a table it is shown in."""
    return visible(name, one_line=True) == name
