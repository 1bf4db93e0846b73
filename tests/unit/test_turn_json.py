"""SystemTurn.to_json: typed acts and internals become plain JSON, keys and values as the store wrote them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.engine.types import DialogueAct, SystemInternals, SystemTurn, is_dialogue_act
from parley.jsontypes import as_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(json_values)
def test_json_data_keeps_json_as_it_is(value: object) -> None:
    for other in ("raise", "text"):
        assert json.dumps(as_json(value, other=other)) == json.dumps(value)


def test_what_is_not_json_is_refused_or_made_text_as_asked() -> None:
    odd: dict[object, object] = {"file": Path("/tmp/db.json"), 3: ("a", {4: None})}
    with pytest.raises(TypeError, match="not JSON data: PosixPath"):
        as_json(odd)
    with pytest.raises(TypeError, match="a JSON key must be text, got int"):
        as_json({3: ("a", {4: None})})
    assert as_json(odd, other="text") == {"file": "/tmp/db.json", "3": ["a", {"4": None}]}


def test_to_json_writes_what_the_store_wrote() -> None:
    act: DialogueAct = {"act": "inform", "domain": "hotel", "slot": "choice", "value": "2"}
    internals: SystemInternals = {"db_count": {"hotel": 2}, "filled": {"name": "x"}, "fallback": False,
                                  "unfilled": ["phone"]}
    turn = SystemTurn("Two.", {"hotel": {"area": "north"}}, (act,), internals, 1.5)
    out = turn.to_json()
    assert list(out) == ["text", "state", "acts", "internals", "latency_ms"]
    assert out["acts"] == [act] and out["internals"] == dict(internals)
    # a value that is not JSON (a path, a tuple) is written as the store's json.dumps(default=str) wrote it
    db: dict[str, object] = {"file": Path("/tmp/db.json"), "pair": (1, 2)}
    odd = SystemTurn("x", internals={"db": {"shown": db}})
    assert json.dumps(odd.to_json()["internals"]) == json.dumps(dict(odd.internals), default=str)


def test_is_dialogue_act() -> None:
    assert is_dialogue_act({"act": "inform", "domain": None, "value": [1], "extra": {"a": 1}})
    assert is_dialogue_act({})
    assert not is_dialogue_act({"act": 5})
    assert not is_dialogue_act({"act": "inform", "slot": 3})
    assert not is_dialogue_act(["inform"])
    assert not is_dialogue_act({1: "inform"})
