"""Frozen dataclasses that cross package borders.

Everything a rewriter, a system or a session hands to another package is one of these. Mapping fields hold
plain JSON-able data (str/int/float/bool/None, lists, dicts) so they can be stored as JSON without engine
code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable

from parley.errors import ParleyError
from parley.jsontypes import JSONObject, JSONScalar, as_json_object
from parley.progress import Progress

Role = Literal["user", "system"]


@dataclass(frozen=True)
class Message:
    """One utterance of the dialogue history as the system sees it."""

    role: Role
    text: str


@dataclass(frozen=True)
class Span:
    """A protected slot value found in a text: ``text[start:end] == value`` (character offsets)."""

    start: int
    end: int
    slot: str
    value: str
    domain: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "end": self.end,
            "slot": self.slot,
            "value": self.value,
            "domain": self.domain,
        }


class Change(TypedDict):
    """A slot value a rewriter changed on purpose: ``kind`` "repair" (disfluency: ``reparandum`` said first,
    then ``edit_term``), "replace" (wp's slot replacement) or "asr" (recognition noise: ``after`` is what was
    heard, "" when the value is gone)."""

    slot: str
    before: str
    after: str
    kind: Literal["repair", "replace", "asr"]
    reparandum: NotRequired[str]
    edit_term: NotRequired[str]


class RewriteInfo(TypedDict, total=False):
    """What a rewriter records about one step besides the text (each rewriter fills its own keys).

    impolite: ``scenario``, ``scenario_name``, ``engine`` ("rules", "model", "llm", "rules+llm", "openai"),
    ``moves``, ``fallback`` (why the rules took over), ``llm_remark``/``llm_remark_failed``; with
    ``backend=openai`` also ``backend``, ``openai`` (the request and reply) and ``fallback_kind``.
    disfluency and asr-sim: ``counts``. wp: ``op``, ``n``, ``replaced``. asr-real: the transcript, its
    segments, timings and the settings used.
    """

    scenario: int
    scenario_name: str
    engine: str
    moves: list[str]
    fallback: str
    fallback_kind: str
    llm_remark: str
    llm_remark_failed: str
    backend: str
    openai: JSONObject
    counts: dict[str, int]
    op: str
    n: int
    replaced: int
    transcript: str
    segments: list[JSONObject]
    avg_logprob: float
    audio_seconds: float
    tts_ms: float
    asr_ms: float
    total_ms: float
    tts: str
    model: str
    snr: float | None
    speed: float
    fast: bool
    tts_note: str
    audio_path: str


@dataclass(frozen=True)
class Rewrite:
    """One step of the user channel: what a rewriter did to a text.

    ``params`` are the rewriter's effective parameters; ``spans`` the protected spans of ``after``;
    ``changes`` the slot values it changed on purpose (disfluency repair, slot replacement, ASR noise).
    """

    name: str
    params: Mapping[str, JSONScalar]
    seed: int
    before: str
    after: str
    spans: tuple[Span, ...] = ()
    changes: tuple[Change, ...] = ()
    info: RewriteInfo = field(default_factory=lambda: RewriteInfo())

    def to_json(self) -> JSONObject:
        return {
            "name": self.name,
            "params": dict(self.params),
            "seed": self.seed,
            "before": self.before,
            "after": self.after,
            "spans": [s.to_json() for s in self.spans],
            "changes": [as_json_object(c) for c in self.changes],
            "info": as_json_object(self.info),
        }


@dataclass(frozen=True)
class SystemTurn:
    """A system's answer plus what it did to get there.

    ``state`` is the belief state ``{domain: {slot: value}}``; ``internals`` holds anything else worth showing
    or storing (DB match count, offered venue ids, dialogue acts, selected knowledge, raw model output, ...).
    """

    text: str
    state: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    acts: tuple[Mapping[str, Any], ...] = ()
    internals: Mapping[str, Any] = field(default_factory=dict)
    latency_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "state": {d: dict(s) for d, s in self.state.items()},
            "acts": [dict(a) for a in self.acts],
            "internals": dict(self.internals),
            "latency_ms": self.latency_ms,
        }


@runtime_checkable
class DialogueSystem(Protocol):
    """The system under test. ``respond`` receives the whole history, whose last message is the user's.

    ``load`` does the slow part (weights, knowledge bases) once, before the first turn, in a worker; a system
    with nothing to load subclasses this protocol and inherits the no-op below."""

    name: str

    def load(self, progress: Progress = None) -> None:
        """Load what the system needs, reporting short status strings to ``progress``; nothing by default."""
        return None  # a real body: subclasses that load nothing may leave it out (mypy: not abstract)

    def reset(self, seed: int | None = None) -> None: ...

    def respond(self, history: tuple[Message, ...]) -> SystemTurn: ...


@runtime_checkable
class Loadable(Protocol):
    """Something with a slow part to load once (a system's weights, a rewriter's models), checked with
    ``isinstance`` where it is optional."""

    def load(self, progress: Progress = None) -> None: ...


@runtime_checkable
class Closable(Protocol):
    """Something holding a resource to release once it is no longer used (a remote bot's open request)."""

    def close(self) -> None: ...


class TurnError(RuntimeError):
    """A system failed to answer one turn (the session stores a failed turn and goes on)."""


class LoadError(ParleyError, RuntimeError):
    """A system, rewriter or model could not be loaded; the message is meant for the user as it is."""
