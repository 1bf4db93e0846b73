"""llm: the reply check and template fallback (stub pipeline and model), and the bundled SmolLM2 (slow)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.engine.systems.llm import LLMSystem, check_reply, missing_values, required_values, tidy
from parley.engine.systems.llm_delex import check_placeholders, delexicalise, fill, placeholders
from parley.engine.types import Message

ACTS = (
    {"act": "offer", "domain": "restaurant", "slot": "name", "value": "golden house"},
    {"act": "inform", "domain": "restaurant", "slot": "phone", "value": "01842753771"},
    {"act": "book", "domain": "restaurant", "slot": "time", "value": "18:30"},
    {"act": "inform", "domain": "restaurant", "slot": "food", "value": "chinese"},
    {"act": "request", "domain": "restaurant", "slot": "name", "value": None},
)
DRAFT = "Golden House serves chinese food, phone 01842753771. I booked 18:30."


@dataclass(frozen=True)
class StubDecision:
    acts: tuple[dict[str, Any], ...]
    state: dict[str, dict[str, str]]
    requested: dict[str, list[str]] = field(default_factory=dict)
    db_count: dict[str, int] = field(default_factory=dict)
    offered: dict[str, str] = field(default_factory=dict)
    venue: dict[str, Any] | None = None
    active_domain: str | None = "restaurant"


class StubPipeline:
    def __init__(self) -> None:
        self.resets = 0

    def decide(self, history: tuple[Message, ...]) -> StubDecision:
        return StubDecision(ACTS, {"restaurant": {"food": "chinese"}}, db_count={"restaurant": 3})

    def realise(self, decision: StubDecision) -> str:
        return DRAFT

    def reset(self, seed: int | None = None) -> None:
        self.resets += 1


def _stubbed(reply: str | Exception) -> LLMSystem:
    system = LLMSystem(delex=False)
    system.model, system.tokenizer, system._pipeline = object(), object(), StubPipeline()

    def generate(messages: list[dict[str, str]]) -> tuple[str, int, int]:
        assert messages[-1]["content"].endswith(f"Draft: {DRAFT}")
        if isinstance(reply, Exception):
            raise reply
        return reply, 50, 12

    system._generate = generate  # type: ignore[method-assign]
    return system


def test_required_values_and_missing() -> None:
    req = required_values(ACTS)
    assert req == [("name", "golden house"), ("phone", "01842753771"), ("time", "18:30")]
    assert missing_values("The Golden House, tel 01842 753771, at 6:30 in the evening", req) == []
    assert missing_values("Golden House at 18:30", req) == ["01842753771"]


@pytest.mark.parametrize(("reply", "reason"), [
    ("", "empty output"),
    ("I'm sorry for the confusion, but as an AI I cannot book.", "refused"),
    ("Golden House is lovely, call 01842753771.", "dropped required values: 18:30"),
    ("Golden House, 01842753771, 18:30, table 12.", "invented numbers: 12"),
    ("Golden House, 01842753771, 18:30. Anything else?", "asked a question"),
    ("Golden House? 01842753771? 18:30?", "asked a question"),
    ("I'm not sure. Golden House, 01842753771, 18:30.", "refused"),
    ("Golden House (like the Acorn), 01842753771, 18:30.", "copied the prompt example"),
])
def test_check_reply_reasons(reply: str, reason: str) -> None:
    got = check_reply(reply, DRAFT, required_values(ACTS))
    assert got is not None and reason in got


def test_tidy() -> None:
    assert tidy('"Golden House is open.\nUser: more"') == "Golden House is open."
    assert tidy("Assistant: Fine. And then the") == "Fine."


def test_good_reply_is_shown() -> None:
    reply = "Golden House serves Chinese food; call 01842753771. Your table is booked for 18:30."
    turn = _stubbed(reply).respond((Message("user", "book it"),))
    assert turn.text == reply
    assert turn.internals["fallback"] is False and turn.internals["reason"] is None
    assert turn.internals["template"] == DRAFT and turn.internals["new_tokens"] == 12
    assert turn.state == {"restaurant": {"food": "chinese"}} and turn.acts[0]["slot"] == "name"
    json.dumps(turn.to_json())


def test_dropped_value_falls_back_to_the_template() -> None:
    turn = _stubbed("Golden House is a fine place for Chinese food.").respond((Message("user", "book it"),))
    assert turn.text == DRAFT
    assert turn.internals["fallback"] is True
    assert turn.internals["reason"] == "dropped required values: 01842753771, 18:30"


def test_generation_error_falls_back_too() -> None:
    turn = _stubbed(RuntimeError("boom")).respond((Message("user", "hi"),))
    assert turn.text == DRAFT and turn.internals["reason"] == "generation failed: RuntimeError: boom"


def test_unchecked_mode_and_params() -> None:
    system = _stubbed("Whatever you like.")
    system.check = False
    assert system.respond((Message("user", "hi"),)).text == "Whatever you like."
    with pytest.raises(SpecError, match="max_new_tokens"):
        build_system("llm:max_new_tokens=0")
    with pytest.raises(SpecError, match="check: must be"):
        build_system("llm:check=maybe")
    assert build_system("llm").model_ref == "smollm2" and not build_system("llm").loaded


@pytest.mark.slow
def test_bundled_smollm2_loads_offline_and_replies() -> None:
    from parley.engine.locations import cache_dir
    from parley.engine.smollm import MANIFEST, load_default_llm

    messages: list[str] = []
    system = build_system("llm:seed=1")
    system.load(progress=messages.append)
    assert messages  # progress was reported (the model itself may already be cached by an earlier test)
    assert system.model is not None and system.tokenizer is not None
    assert list((cache_dir() / "models").glob(f"*/{MANIFEST}"))  # converted once, with a manifest
    assert load_default_llm() == (system.model, system.tokenizer)  # cached in memory
    turn = system.respond((Message("user", "I want a cheap chinese restaurant in the centre"),))
    assert turn.text.strip()
    assert turn.state["restaurant"]["food"] == "chinese"
    assert isinstance(turn.internals["fallback"], bool)
    sentences = int(str(turn.internals.get("rewritten", "0/1")).split("/")[1])
    assert turn.internals["new_tokens"] <= 40 * max(sentences, 1)  # max_new_tokens per reworded sentence
    assert turn.internals["llm_raw"] is not None
    if turn.internals["fallback"]:
        assert turn.text == turn.internals["template"] and turn.internals["reason"]


def test_strict_mode_requires_every_informed_value() -> None:
    assert ("food", "chinese") not in required_values(ACTS)
    assert ("food", "chinese") in required_values(ACTS, strict=True)
    system = _stubbed("Golden House, phone 01842753771, booked for 18:30.")
    assert system.respond((Message("user", "hi"),)).internals["fallback"] is False
    system.strict = True
    turn = system.respond((Message("user", "hi"),))
    assert turn.internals["fallback"] is True and (
        turn.internals["reason"] == "dropped required values: chinese")


def test_a_dropped_question_falls_back() -> None:
    assert check_reply("The north is nice.", "Which area would you like?", []) == "dropped the question"
    assert check_reply("What part of town do you prefer?", "Which area would you like?", []) is None


# -- delexicalised drafts (the default) ----------------------------------------------------------------------
S1, S2 = "[name] serves [food] food, phone [phone].", "I booked [time]."  # DRAFT delexicalised, by sentence


def _delex(reply: str | dict[str, str]) -> tuple[LLMSystem, list[str]]:
    """The llm system on the stub pipeline; the model's rewrite of each draft sentence comes from
    ``reply``."""
    system = LLMSystem()
    system.model, system.tokenizer, system._pipeline = object(), object(), StubPipeline()
    seen: list[str] = []

    def generate(messages: list[dict[str, str]], slots: list[str]) -> tuple[str, int, int]:
        seen.append(messages[-1]["content"])
        sentence = messages[-1]["content"].split("Draft: ", 1)[1]
        assert slots == placeholders(sentence)
        return (reply if isinstance(reply, str) else reply[sentence]), 50, 12

    system._generate_delex = generate  # type: ignore[method-assign]
    return system, seen


def test_the_model_sees_placeholders_one_sentence_at_a_time_and_the_values_come_back() -> None:
    system, seen = _delex({S1: "[name] serves lovely [food] food; their phone is [phone].",
                           S2: "I have booked [time] for you."})
    turn = system.respond((Message("user", "book it"),))
    # "I booked [time]." has one word: nothing to reword
    assert [m.split("Draft: ", 1)[1] for m in seen] == [S1]
    assert not any("Golden House" in m or "01842753771" in m for m in seen)
    assert turn.text == "Golden House serves lovely chinese food; their phone is 01842753771. I booked 18:30."
    assert turn.internals["fallback"] is False and turn.internals["delex_draft"] == f"{S1} {S2}"
    assert turn.internals["rewritten"] == "1/1" and turn.internals["new_tokens"] == 12


@pytest.mark.parametrize(("reply", "reason"), [
    ("", "empty output"),
    ("[name] is nice.", "dropped placeholders: food, phone"),
    ("[name], [food], [phone] and [reference].", "made-up placeholders: reference"),
    ("[name] [name] [food] [phone].", "repeated a placeholder"),
    ("[name] serves [food] for 2, call [phone].", "wrote a value itself"),
    ("As an AI, [name] [food] [phone].", "refused"),
    ("[name] serves [food]? Call [phone]?", "asked a question"),
    ("[name] does not serve [food] food, phone [phone].", "added a negation"),
    ("[name] serves [food] food food food, phone [phone].", "repeated itself"),
])
def test_delex_check_reasons(reply: str, reason: str) -> None:
    """The one sentence to reword spoiled: the turn falls back to the template, naming why."""
    system, _ = _delex({S1: reply, S2: "The weather is fine."})
    turn = system.respond((Message("user", "book it"),))
    assert turn.internals["fallback"] is True and reason in turn.internals["reason"], turn.internals["reason"]
    assert turn.text == DRAFT


def test_delexicalise_and_fill_round_trip() -> None:
    acts = ({"act": "offer", "domain": "restaurant", "slot": "name", "value": "da vinci pizzeria"},
            {"act": "inform", "domain": "restaurant", "slot": "choice", "value": "2"},
            {"act": "book", "domain": "restaurant", "slot": "reference", "value": "JKZQ63H5"})
    venue = {"name": "da vinci pizzeria", "food": "italian", "area": "north", "pricerange": "cheap"}
    text = "I found 2. How about Da Vinci Pizzeria, a cheap italian place in the north? Reference: JKZQ63H5."
    delex, mapping = delexicalise(text, acts, venue)
    assert delex == ("I found [count]. How about [name], a [pricerange] [food] place in the [area]? "
                     "Reference: [reference].")
    assert fill(delex, mapping) == text
    assert check_placeholders("Sure! [name] is a [pricerange] [food] spot in the [area]; [count] found, "
                              "reference [reference]?", delex) is None


def _rewrite(user: str, draft: str) -> tuple[LLMSystem, str, int]:
    """The bundled model's constrained rewrite of a delexicalised draft: ``(system, raw text, new
    tokens)``."""
    system = build_system("llm:seed=1")
    system.load()
    raw, _, new = system._generate_delex(system.prompt(user, draft), placeholders(draft))
    return system, raw, new


@pytest.mark.slow
def test_constrained_decoding_keeps_every_placeholder() -> None:
    draft = "[name] is a [pricerange] [food] restaurant in the [area]. Shall I book a table?"
    _, raw, new = _rewrite("a cheap place in the north", draft)
    assert sorted(placeholders(raw)) == sorted(placeholders(draft))
    assert not any(c.isdigit() for c in raw) and "?" in raw and new > 0


@pytest.mark.slow
def test_the_rewrite_is_one_sentence_about_as_long_as_the_draft() -> None:
    system, raw, new = _rewrite("", "I have [count] places to stay that fit.")
    words = len(system.tokenizer.encode("I have   places to stay that fit.", add_special_tokens=False))
    assert placeholders(raw) == ["count"] and new <= int(1.5 * words) + 6 + len(placeholders(raw)) * 4
    assert len(re.findall(r"[.!?]", raw)) == 1 and raw.rstrip()[-1] in ".!"
