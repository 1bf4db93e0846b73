"""``echo``: repeats the user. For tests and for trying the rewriters without a model."""

from __future__ import annotations

import time

from parley.engine.params import checked
from parley.engine.speculate import adopt_state, fork_copy
from parley.engine.types import DialogueSystem, Message, SystemTurn
from parley.params import Text


class EchoSystem(DialogueSystem):
    name = "echo"

    @checked
    def __init__(self, prefix: Text = "You said: ") -> None:
        self.prefix = prefix
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
