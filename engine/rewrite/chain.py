"""The user channel: enabled rewriters applied in the fixed order impoliteness → disfluency → wp → ASR."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from parley.engine.rewrite import ORDER, build_rewriter
from parley.engine.rewrite.base import RewriteContext, Rewriter, step_seed
from parley.engine.spec import Spec, SpecError, condition_name, parse_spec
from parley.engine.types import Loadable, Message, Rewrite
from parley.jsontypes import JSONObject
from parley.progress import Progress


@dataclass(frozen=True)
class ChainResult:
    before: str
    after: str
    steps: tuple[Rewrite, ...]


class Chain:
    """An immutable, ordered set of rewriters. Build a new chain to change the configuration."""

    def __init__(self, specs: Iterable[str | Spec] = ()) -> None:
        parsed = [parse_spec(s) if isinstance(s, str) else s for s in specs]
        names = [s.name for s in parsed]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SpecError(f"rewriter given twice: {', '.join(sorted(dup))}")
        for s in parsed:
            if s.name not in ORDER:
                raise SpecError(f"unknown rewriter {s.name!r} (known: {', '.join(ORDER)})")
        parsed.sort(key=lambda s: ORDER.index(s.name))
        self.specs: tuple[Spec, ...] = tuple(parsed)
        self._rewriters: list[Rewriter] = [build_rewriter(s) for s in self.specs]

    @property
    def name(self) -> str:
        return condition_name(self.specs)

    def config(self) -> list[JSONObject]:
        return [s.to_json() for s in self.specs]

    def __bool__(self) -> bool:
        return bool(self.specs)

    @property
    def pure(self) -> bool:
        """No rewriter calls out (a server): running the chain ahead and discarding the result is harmless."""
        return all(getattr(rw, "pure", True) for rw in self._rewriters)

    def load(self, progress: Progress = None) -> None:
        """Load the models of the rewriters that have any (``asr-real``) now, e.g. in a worker as soon as the
        chain is switched on, rather than on the first turn."""
        for rw in self._rewriters:
            if isinstance(rw, Loadable):
                rw.load(progress)

    def apply(self, text: str, *, seed: int = 0, turn_index: int = 0,
              history: Sequence[Message] = ()) -> ChainResult:
        if not self.specs:
            return ChainResult(before=text, after=text, steps=())
        from parley.engine.spans import find_spans

        current = text
        steps: list[Rewrite] = []
        for spec, rw in zip(self.specs, self._rewriters, strict=True):
            s = step_seed(seed, turn_index, spec.name)
            ctx = RewriteContext(rng=random.Random(s), seed=s, history=tuple(history),
                                 spans=find_spans(current))
            step = rw.rewrite(current, ctx)
            steps.append(step)
            current = step.after
        return ChainResult(before=text, after=current, steps=tuple(steps))
