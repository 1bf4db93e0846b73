"""Frozen dataclasses that cross package borders.

Everything a rewriter, a system or a session hands to another package is one of these. Mapping fields hold
plain JSON-able data (str/int/float/bool/None, lists, dicts) so they can be stored as JSON without engine
code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, NotRequired, Protocol, TypeAlias, TypedDict, TypeGuard, runtime_checkable

from parley.errors import ParleyError
from parley.jsontypes import JSONObject, JSONScalar, JSONValue, as_json_object
from parley.progress import Progress

Role = Literal["user", "system"]

#: A belief state ``{domain: {slot: value}}`` (the rule systems' values are strings; a remote bot's are any
#: JSON value).
BeliefState: TypeAlias = Mapping[str, Mapping[str, JSONValue]]


class DialogueAct(TypedDict, total=False):
    """One dialogue act, e.g. ``{"act": "inform", "domain": "hotel", "slot": "name", "value": "acorn"}``.

    The rule systems give all four keys (``slot`` and ``value`` None when the act has none, values as
    strings); an act read from a model's act text has no value; a remote bot's acts are kept as it sent
    them.
    """

    act: str
    domain: str | None
    slot: str | None
    value: JSONValue


class SystemInternals(TypedDict, total=False):
    """What a system shows of a turn besides its text, state and acts (stored as JSON as it is).

    The keys the rule, neural, ``llm``, ``sktod``, ``echo`` and ``remote`` systems give; each gives its own
    subset."""

    # the rule pipeline (``multiwoz``; ``llm`` and ``sktod`` include it)
    db_count: dict[str, int]
    offered: dict[str, str]
    requested: dict[str, list[str]]
    active_domain: str | None
    nlu: JSONObject
    venue: str | None
    booked: dict[str, str]
    bookings: list[dict[str, str]]
    filters: dict[str, dict[str, str]]
    error: str
    # neural systems (``hf_base``)
    model: str
    format: str
    belief_raw: str
    db: JSONObject
    db_segment: str
    act_raw: str
    delexicalised: str
    filled: dict[str, str]
    unfilled: list[str]
    replaced: dict[str, str]
    raw_output: dict[str, str]
    fallback: bool
    reason: str | None
    invalid_belief: list[str]
    snapped: dict[str, str]
    missing_special_tokens: list[str]
    # ``llm`` (a template reworded by a small language model)
    backend: str
    template: str
    required: list[str]
    llm_raw: str
    prompt_tokens: int
    new_tokens: int
    cached_tokens: int
    rewritten: str
    delex_draft: str
    delex_reply: str
    values: dict[str, str]
    threads: int
    generation_ms: float
    reworded: bool
    # ``sktod``: which branch answered, the knowledge it selected
    branch: str
    knowledge: JSONObject
    # ``echo``
    turns: int
    # ``remote``: the final URL, the API, the request's attempts and status, what the bot sent as internals
    url: str
    api: str
    session_id: str
    attempts: int
    http_status: int
    remote: JSONObject


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

    def to_json(self) -> JSONObject:
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
    state: BeliefState = field(default_factory=dict)
    acts: tuple[DialogueAct, ...] = ()
    internals: SystemInternals = field(default_factory=lambda: SystemInternals())
    latency_ms: float = 0.0

    def to_json(self) -> JSONObject:
        return {
            "text": self.text,
            "state": {d: dict(s) for d, s in self.state.items()},
            "acts": [as_json_object(a, other="text") for a in self.acts],
            "internals": as_json_object(self.internals, other="text"),
            "latency_ms": self.latency_ms,
        }


def is_dialogue_act(value: object) -> TypeGuard[DialogueAct]:
    """Whether ``value`` is an act as :class:`DialogueAct` types it: an object whose ``act`` (if given) is
    text and whose ``domain`` and ``slot`` (if given) are text or null; other keys are kept as they are."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return False
    return isinstance(value.get("act", ""), str) and all(
        isinstance(value.get(k), str | None) for k in ("domain", "slot"))


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
