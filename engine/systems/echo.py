"""``echo``: repeats the user. For tests and for trying the rewriters without a model."""

from __future__ import annotations

import time
from typing import ClassVar

from parley.engine.params import Field, Params, SystemParams
from parley.engine.speculate import adopt_state, fork_copy
from parley.engine.types import DialogueSystem, Message, SystemTurn
from parley.params import Text


class EchoParams(SystemParams):
    prefix: Text = Field("You said: ", description="put before the user's words")


class EchoSystem(DialogueSystem):
    name = "echo"

    PARAMS: ClassVar[type[Params]] = EchoParams

    def __init__(self, **given: object) -> None:
        p = EchoParams.from_spec(self.name, given)
        self.prefix = p.prefix
        self.turns = 0

    def reset(self, seed: int | None = None) -> None:
        self.turns = 0

    def fork(self) -> EchoSystem:
        return fork_copy(self, ())

    def adopt(self, fork: DialogueSystem) -> None:
        adopt_state(self, fork)

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        t0 = time.perf_counter()
        self.turns += 1
        last = history[-1].text if history else ""
        return SystemTurn(
            text=f"{self.prefix}{last}",
            internals={"turns": self.turns},
            latency_ms=(time.perf_counter() - t0) * 1000,
        )
