"""``sktod``: the MultiWOZ pipeline for ordinary turns, plus answers from customer reviews (DSTC11 track 5).

When knowledge-seeking turn detection fires on the user's turn, the SK-TOD branch answers: tracked entities →
selected review sentences/FAQs → an answer saying what most reviewers say and what the others say. Otherwise
the turn goes to ``engine.systems.multiwoz.MultiwozSystem``. ``SystemTurn.internals["knowledge"]`` shows the
KTD score, the tracked entities and the selected snippets with their scores and sentiment.

Spec parameters: ``model=DIR`` (a folder from ``parley sktod train``; by default the model shipped in assets,
``model=untrained`` for none), ``knowledge=FILE`` (a DSTC11 knowledge.json; the embedded KB by default),
``entity_mapping=FILE``, ``generator=PATH|HUB_ID`` (seq2seq/causal checkpoint), ``cross_encoder=PATH``,
``ktd=PATH`` (fine-tuned KTD classifier), ``seed=N``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from parley.engine.params import Field, Params, SystemParams
from parley.engine.sktod.pipeline import Pipeline
from parley.engine.types import BeliefState, DialogueSystem, Message, SystemInternals, SystemTurn, TurnError
from parley.engine.vocabulary import KnownNames, vocabulary_of
from parley.params import Text
from parley.progress import Progress


def _default_base(seed: int | None) -> DialogueSystem:
    from parley.engine.systems.multiwoz import MultiwozSystem  # lazy: another package, loaded only when used

    return MultiwozSystem(seed=seed)


class SKTODParams(SystemParams):
    model: Text | None = Field(None, description="folder written by `parley sktod train` (default: bundled)")
    knowledge: Text | None = Field(None, description="the reviews and FAQs (DSTC11 knowledge.json)")
    entity_mapping: Text | None = Field(None, description="entity names and their variants (a JSON file)")
    generator: Text | None = Field(None, description="the answer generator checkpoint")
    cross_encoder: Text | None = Field(None, description="the knowledge selection cross-encoder")
    ktd: Text | None = Field(None, description="the knowledge-seeking turn classifier")
    seed: int | None = Field(None, description="the task pipeline's seed (none: the session's)")
    base: Callable[[int | None], DialogueSystem] | None = Field(
        None, description="the system answering the task turns (code only; default multiwoz)")


class SKTODSystem:
    """See module docstring. ``base`` builds the system for ordinary turns (tests pass a stub)."""

    name = "sktod"

    PARAMS: ClassVar[type[Params]] = SKTODParams

    def __init__(self, **given: object) -> None:
        p = SKTODParams.from_spec(self.name, given)
        model, knowledge, entity_mapping, generator = p.model, p.knowledge, p.entity_mapping, p.generator
        cross_encoder, ktd, seed, base = p.cross_encoder, p.ktd, p.seed, p.base
        self.seed = int(seed) if seed is not None else None
        self.pipeline = Pipeline(model_dir=model, knowledge=knowledge, entity_mapping=entity_mapping,
                                 generator=generator, cross_encoder=cross_encoder, ktd_classifier=ktd,
                                 seed=self.seed or 0)
        self._base_factory = base or _default_base
        self._base: DialogueSystem | None = None
        self._state: BeliefState = {}

    @property
    def base(self) -> DialogueSystem:
        if self._base is None:
            self._base = self._base_factory(self.seed)
        return self._base

    @property
    def clock(self) -> object:
        """The base system's clock ("tomorrow" counts from it), if it has one; None in corpus replays."""
        return getattr(self.base, "clock", None)

    @clock.setter
    def clock(self, value: object) -> None:
        if hasattr(self.base, "clock"):
            self.base.clock = value

    def load(self, progress: Progress = None) -> None:
        """Load the review knowledge, the sentence encoder, VADER and the MultiWOZ pipeline."""
        self.pipeline.load(progress)
        self.base.load(progress)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = int(seed)
        self._state = {}
        self.base.reset(seed)

    def vocabulary(self) -> KnownNames:
        """The entity names of the review knowledge base, then the base system's names (if it has any)."""
        from parley.engine.sktod.knowledge import load_knowledge

        kb = self.pipeline.kb or load_knowledge(self.pipeline.knowledge_path)
        own = KnownNames.of({"venue": [e.name for e in kb.entities()]})
        base = vocabulary_of(self.base)
        return own.merged(base) if base is not None else own

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        t0 = time.perf_counter()
        try:
            pred = self.pipeline.predict([m.text for m in history])
        except Exception as e:  # a failing model must fail the turn, not the session
            raise TurnError(f"SK-TOD pipeline failed: {type(e).__name__}: {e}") from e
        if pred.target:
            text = pred.response
            if not pred.entities:  # the venue under discussion may simply have no reviews in this KB
                names = [str(self._state.get(d, {}).get("name", "")) for d in ("restaurant", "hotel")]
                names = [n for n in names if n and n not in ("dontcare", "not mentioned")]
                if names:
                    from parley.engine.sktod.english import display_name

                    text = f"Sorry, I don't have any guest reviews of {display_name(names[0])}."
            return SystemTurn(text=text, state=self._state,
                              internals={"branch": "sktod", "knowledge": pred.internals()},
                              latency_ms=(time.perf_counter() - t0) * 1000)
        turn = self.base.respond(history)
        self._state = {d: dict(s) for d, s in turn.state.items()}
        internals: SystemInternals = {**turn.internals, "branch": "multiwoz",
                     "knowledge": {"ktd": {"fired": False, "score": round(pred.ktd_score, 4)}}}
        return SystemTurn(text=turn.text, state=turn.state, acts=turn.acts, internals=internals,
                          latency_ms=(time.perf_counter() - t0) * 1000)

