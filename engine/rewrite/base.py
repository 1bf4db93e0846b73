"""The rewriter contract shared by every user-side rewriter (one rewriter per module, see ``__init__``)."""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from parley.engine.types import Message, Rewrite, Span


@dataclass(frozen=True)
class RewriteContext:
    """What a rewriter may look at besides the text.

    ``rng`` is seeded per (session seed, turn, rewriter) by the chain: same seed + same input + same params
    gives the same output. ``spans`` are the protected slot values of the text as it reaches this rewriter.
    """

    rng: random.Random
    seed: int
    history: tuple[Message, ...] = ()
    spans: tuple[Span, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Rewriter(Protocol):
    """``Cls(**params)`` builds a rewriter (raising ``engine.spec.SpecError`` for bad params)."""

    name: str
    params: Mapping[str, Any]

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite: ...


def step_seed(session_seed: int, turn_index: int, name: str) -> int:
    """Deterministic per-step seed, stable across Python runs (no ``hash()`` randomisation)."""
    return zlib.crc32(f"{session_seed}:{turn_index}:{name}".encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class Param:
    """A rewriter parameter as the TUI panel and ``--help`` show it.

    ``kind`` is "int", "float", "bool" or "choice"; ``choices`` lists allowed values for "choice" (and may
    list allowed ints); ``lo``/``hi`` bound numbers.
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    lo: float | None = None
    hi: float | None = None
