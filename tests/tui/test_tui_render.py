"""Pure pieces behind the screens: typed→final diffs, internals text, aspects, picker specs, help rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parley.engine.types import SystemTurn
from parley.scales import ASPECTS, DIALOGUE_ASPECTS, TURN_ASPECTS, missing_dialogue_aspects
from parley.tui.screens.help import binding_rows
from parley.tui.screens.picker import spec_from_text
from parley.tui.widgets.render import changed_words, diff_text, format_internals


def test_diff_highlights_only_changed_words() -> None:
    assert changed_words("book a table for two", "uh book a table for for two") == ["uh", "for"]
    assert changed_words("same text", "same text") == []
    assert diff_text("a b", "a  c").plain == "a  c"  # spacing of the final text is kept


def test_internals_show_state_db_acts_knowledge_and_latency() -> None:
    reply = SystemTurn(
        text="x", state={"hotel": {"parking": "yes", "area": "north"}, "taxi": {}},
        acts=({"act": "inform", "domain": "hotel", "slot": "choice", "value": "2"},),
        internals={"db_count": 2, "knowledge": {"entities": [{"name": "acorn guest house"}],
                                                "snippets": [{"text": "Parking is easy.", "score": 0.9,
                                                              "sentiment": "positive"}]},
                   "offered": ["h1"]},
        latency_ms=7.4)
    text = format_internals(reply)
    assert "hotel: parking=yes, area=north" in text and "taxi" not in text
    assert "db         2" in text and "hotel-inform" in text
    assert "entities   acorn guest house" in text and "Parking is easy." in text and "score 0.90" in text
    assert "offered" in text and "latency    7 ms" in text


def test_aspects_match_the_study_scales() -> None:
    assert [a.key for a in TURN_ASPECTS] == ["relevance", "interestingness"]
    assert [(a.key, a.lo, a.hi) for a in DIALOGUE_ASPECTS] == [
        ("understanding", 1, 3), ("task_completion", 1, 3), ("interest_arousal", 1, 3), ("efficiency", 0, 1),
        ("overall", 1, 5)]
    assert all(a.definition and len(a.options) == a.hi - a.lo + 1 for a in ASPECTS.values())
    assert ASPECTS["efficiency"].valid(0) and not ASPECTS["efficiency"].valid(2)
    assert not ASPECTS["overall"].valid(True)
    assert missing_dialogue_aspects({"understanding": 2, "efficiency": 0}) == [
        "Task completion", "Interest arousal", "Overall impression"]
    with pytest.raises(ValueError):
        ASPECTS["relevance"].option(4)


def test_picker_turns_text_into_specs(tmp_path: Path) -> None:
    known = ["multiwoz", "hf-seq2seq", "hf-causal"]
    assert spec_from_text(" multiwoz ", known) == "multiwoz"
    assert spec_from_text("hf-causal:model=x/y", known) == "hf-causal:model=x/y"
    t5 = tmp_path / "t5"
    t5.mkdir()
    (t5 / "config.json").write_text(json.dumps({"is_encoder_decoder": True}))
    assert spec_from_text(str(t5), known) == f"hf-seq2seq:model={t5}"
    gpt = tmp_path / "gpt"
    gpt.mkdir()
    (gpt / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    assert spec_from_text(str(gpt), known) == f"hf-causal:model={gpt}"
    with pytest.raises(ValueError, match="hub id"):
        spec_from_text("someone/pptod-small", known)
    with pytest.raises(ValueError):
        spec_from_text("", known)


def test_help_rows_apply_the_keymap() -> None:
    from parley.tui.screens.chat import ChatScreen

    rows = binding_rows([("chat", ChatScreen.BINDINGS)], {"end_dialogue": "f9"})
    by_id = {r[3]: r for r in rows}
    assert by_id["end_dialogue"][1] == "f9" and by_id["new_session"][1] == "ctrl+n"
    assert all(r[3] for r in rows)  # every chat binding carries an id
