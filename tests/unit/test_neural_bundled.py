"""The bundled `neural` model: its files match its manifest, and it answers the README tour turn by turn."""

from __future__ import annotations

import json
import tomllib

import pytest

from parley.assets import asset_path
from parley.engine.systems import build_system
from parley.engine.train.manifest import verify
from parley.engine.types import Message

#: the user turns of README "A 60-second tour", step 1
TOUR = ["I need a cheap restaurant in the north", "italian please", "what's the phone number?",
        "book a table for 3 at 17:30 on friday"]


def test_shipped_checkpoint_matches_its_manifest() -> None:
    folder = asset_path("neural")
    assert verify(folder) == []
    m = json.loads((folder / "manifest.json").read_text())
    assert m["data"]["file"] == "val.json.zip" and len(m["data"]["sha256"]) == 64  # never the test split
    assert m["format"] == "simpletod-db" and isinstance(m["seed"], int) and m["steps"] > 0
    assert m["figures"]["tokens_per_s"] > 0 and m["figures"]["train_seconds"] > 0
    assert set(m["files"]) >= {"model.safetensors", "tokenizer.json", "config.json", "parley-format.toml"}
    fmt = tomllib.loads((folder / "parley-format.toml").read_text())
    assert fmt["name"] == "simpletod-db" and fmt["context"]["max_turns"] == m["config"]["context_turns"]


@pytest.mark.slow
def test_neural_answers_the_readme_tour() -> None:
    system = build_system("neural")
    assert system.format.name == "simpletod-db"
    history: tuple[Message, ...] = ()
    for text in TOUR:
        history = (*history, Message("user", text))
        turn = system.respond(history)
        assert isinstance(turn.text, str) and turn.text.strip()
        assert "[" not in turn.text or turn.internals["unfilled"]  # placeholders left only when unfillable
        assert {"belief_raw", "raw_output", "fallback", "active_domain"} <= set(turn.internals)
        history = (*history, Message("system", turn.text))
    assert len(history) == 2 * len(TOUR)
