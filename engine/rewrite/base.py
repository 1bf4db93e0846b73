"""The rewriter contract shared by every user-side rewriter (one rewriter per module, see ``__init__``)."""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

from parley.engine.params import Params
from parley.engine.types import Message, Rewrite, Span
from parley.jsontypes import JSONScalar


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
    extra: Mapping[str, object] = field(default_factory=dict)


@runtime_checkable
class Rewriter(Protocol):
    """``Cls(**params)`` builds a rewriter (raising ``engine.spec.SpecError`` for bad params). The class
    declares ``PARAMS`` (an ``engine.params.Params`` model); ``params`` are the effective values a step
    records."""

    name: str

    @property
    def params(self) -> Mapping[str, JSONScalar]: ...

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite: ...


def step_seed(session_seed: int, turn_index: int, name: str) -> int:
    """Deterministic per-step seed, stable across Python runs (no ``hash()`` randomisation)."""
    return zlib.crc32(f"{session_seed}:{turn_index}:{name}".encode()) & 0x7FFFFFFF


P = TypeVar("P", bound=Params)


class WithParams(Generic[P]):
    """A rewriter holding its typed parameters ``p`` (checked by its ``PARAMS`` model in ``__init__``);
    ``params`` are their values as a step records them."""

    p: P

    @property
    def params(self) -> dict[str, JSONScalar]:
        return self.p.to_json()
