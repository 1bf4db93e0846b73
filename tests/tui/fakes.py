"""Deterministic systems for the TUI tests (fixed replies, internals, knowledge and latency)."""

from __future__ import annotations

import threading

from parley.engine.params import SystemParams
from parley.engine.systems import SYSTEMS
from parley.engine.types import DialogueSystem, Message, SystemTurn, TurnError
from parley.progress import Progress

REPLIES = (
    "There are 3 cheap restaurants in the centre. Do you have a food type in mind?",
    "Ask Restaurant serves italian food in the centre. Shall I book a table?",
    "Booked for 2 people on friday at 18:00. Your reference is 00000003.",
    "Guests mostly like the atmosphere there: 4 of 5 reviews praise it, one found it noisy.",
)


class FakeSystem(DialogueSystem):
    """Answers from REPLIES in turn, with a belief state that grows, fixed acts and (turn 4) SK-TOD
    knowledge."""

    name = "tui-fake"

    def __init__(self, fail_on: str = "") -> None:
        self.fail_on = fail_on
        self.n = 0

    def reset(self, seed: int | None = None) -> None:
        self.n = 0

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if self.fail_on and self.fail_on in history[-1].text:
            raise TurnError(f"the fake system was told to fail: {history[-1].text}")
        i = self.n % len(REPLIES)
        self.n += 1
        state = {"restaurant": {"pricerange": "cheap", "area": "centre"}}
        if i >= 1:
            state["restaurant"]["food"] = "italian"
        internals: dict = {"db_count": 3 if i == 0 else 1}
        if i == 3:
            internals["knowledge"] = {
                "entities": [{"name": "ask restaurant", "domain": "restaurant"}],
                "snippets": [
                    {
                        "text": "Lovely warm atmosphere on a rainy evening.",
                        "score": 0.81,
                        "sentiment": "positive",
                    },
                    {"text": "Far too loud when it is busy.", "score": 0.64, "sentiment": "negative"},
                ],
            }
        acts = ({"act": "inform", "domain": "restaurant", "slot": "choice", "value": "3"},) if i == 0 else (
            {"act": "offer", "domain": "restaurant", "slot": "name", "value": "ask restaurant"},)
        return SystemTurn(text=REPLIES[i], state=state, acts=acts, internals=internals, latency_ms=12.0)


class SlowLoadSystem(FakeSystem):
    """A system with a load() that reports progress."""

    name = "tui-slow"

    def load(self, progress: Progress = None) -> None:
        if progress:
            progress("warming up")


#: the gate every GateSystem waits on: a test closes it (clear) to hold answers, opens it (set) to let go
GATE = threading.Event()
GATE.set()


class GateSystem(FakeSystem):
    """FakeSystem that answers only while ``GATE`` is open: a slow bot, deterministically (30 s at most)."""

    name = "tui-gate"

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        GATE.wait(30)
        return super().respond(history)


class TrustingParams(SystemParams):
    model: str = ""
    trust_remote_code: bool = False


class TrustingSystem(FakeSystem):
    """A checkpoint system stand-in: records whether it was allowed to run its checkpoint's code."""

    name = "tui-trust"
    PARAMS = TrustingParams

    def __init__(self, **given: object) -> None:
        super().__init__()
        p = TrustingParams.from_spec(self.name, given)
        self.model = p.model
        self.trust_remote_code = p.trust_remote_code


def register() -> None:
    if "tui-fake" not in SYSTEMS:
        SYSTEMS.register("tui-fake", "tests.tui.fakes:FakeSystem", "deterministic fake (TUI tests)")
        SYSTEMS.register("tui-slow", "tests.tui.fakes:SlowLoadSystem", "fake with a load step (TUI tests)")
        SYSTEMS.register("tui-missing", "tests.tui.no_such_module:Nope", "a system whose module is missing")
        SYSTEMS.register("tui-gate", "tests.tui.fakes:GateSystem", "fake that answers when the test says")
        SYSTEMS.register("tui-trust", "tests.tui.fakes:TrustingSystem", "fake checkpoint system (trust)")
