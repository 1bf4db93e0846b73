"""llm: the reply check and template fallback (stub pipeline and model), its multiwoz parameters, and the
bundled SmolLM2 GGUF on llama.cpp and on transformers (slow)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest

from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.engine.systems.llm import (
    DEFAULT_MODEL,
    LLMSystem,
    check_reply,
    missing_values,
    required_values,
    tidy,
)
from parley.engine.systems.llm_delex import check_placeholders, delexicalise, fill, placeholders
from parley.engine.systems.multiwoz import MultiwozSystem
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

    def internals_of(self, decision: StubDecision) -> dict[str, Any]:
        return {"db_count": dict(decision.db_count), "active_domain": decision.active_domain}


class StubBackend:
    """Stands in for a model: ``reword`` (delexicalised sentences) and ``plain`` (the draft with values)."""

    name = "stub"
    threads = 1
    cached_tokens = 0

    def __init__(self, reword: Any = None, plain: Any = None) -> None:
        self._reword, self._plain = reword, plain
        self.seen: list[str] = []

    def reword(self, sentence: str) -> tuple[str, int, int]:
        self.seen.append(sentence)
        self.cached_tokens += 40
        out = self._reword(sentence) if callable(self._reword) else self._reword[sentence]
        return out, 50, 12

    def plain(self, user: str, draft: str) -> tuple[str, int, int]:
        assert draft == DRAFT
        if isinstance(self._plain, Exception):
            raise self._plain
        return self._plain, 50, 12


def _stubbed(reply: str | Exception) -> LLMSystem:
    system = LLMSystem(delex=False)
    system.backend, system._pipeline = StubBackend(plain=reply), StubPipeline()
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
    assert build_system("llm").model_ref == DEFAULT_MODEL and not build_system("llm").loaded


def test_llm_accepts_every_multiwoz_parameter() -> None:
    """``clock``, ``seed``, ``db_dir``, ``read_system``: checked by multiwoz itself and handed to it."""
    assert set(MultiwozSystem.PARAMS.model_fields) <= set(LLMSystem.PARAMS.model_fields)
    system = build_system("llm:clock=2026-11-26,seed=4,read_system=true")
    assert system.clock() == date(2026, 11, 26) and system._pipeline.seed == 4
    assert system._pipeline.read_system is True
    system.clock = "off"
    assert system.clock is None and system._pipeline.clock is None
    with pytest.raises(SpecError, match="clock"):
        build_system("llm:clock=someday")


@pytest.mark.slow
def test_llm_runs_the_bundled_gguf_on_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    """No conversion step; the prompt prefix comes from llama.cpp's cache from the second request on."""
    from parley.engine import smollm

    monkeypatch.setattr(smollm, "ensure_converted", lambda *a, **k: pytest.fail("converted the GGUF"))
    messages: list[str] = []
    system = build_system("llm:model=smollm2,seed=1,clock=2026-11-26")
    system.load(progress=messages.append)
    assert "model ready" in messages and system.backend.name == "llama.cpp"
    history: tuple[Message, ...] = ()
    for text in ("I want a cheap chinese restaurant in the centre", "what is the phone number?"):
        history = (*history, Message("user", text))
        turn = system.respond(history)
        history = (*history, Message("system", turn.text))
        i = turn.internals
        assert turn.text.strip() and i["backend"] == "llama.cpp" and i["threads"] >= 1
        assert i["reworded"] == (turn.text != i["template"]) and isinstance(i["fallback"], bool)
        assert i["new_tokens"] <= 40 * max(int(i["rewritten"].split("/")[1]), 1)
        if not i["reworded"] and i["fallback"]:
            assert turn.text == i["template"] and i["reason"]
    assert turn.state["restaurant"]["food"] == "chinese"
    assert i["cached_tokens"] > 0  # the instruction and examples were not computed again


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
    backend = StubBackend(reword=(lambda sentence: reply) if isinstance(reply, str) else reply)
    system.backend, system._pipeline = backend, StubPipeline()
    return system, backend.seen


def test_the_model_sees_placeholders_one_sentence_at_a_time_and_the_values_come_back() -> None:
    system, seen = _delex({S1: "[name] serves lovely [food] food; their phone is [phone].",
                           S2: "I have booked [time] for you."})
    turn = system.respond((Message("user", "book it"),))
    # "I booked [time]." has one word: nothing to reword
    assert seen == [S1]
    assert turn.text == "Golden House serves lovely chinese food; their phone is 01842753771. I booked 18:30."
    assert turn.internals["fallback"] is False and turn.internals["delex_draft"] == f"{S1} {S2}"
    assert turn.internals["rewritten"] == "1/1" and turn.internals["new_tokens"] == 12
    assert turn.internals["reworded"] is True and turn.internals["cached_tokens"] == 40
    assert turn.internals["delex_reply"] == "[name] serves lovely [food] food; their phone is [phone]. " + S2


def test_sentences_limits_how_many_sentences_are_reworded() -> None:
    system, seen = _delex({"I have [count] restaurants that fit.": "I found [count] restaurants for you.",
                           "Would you like me to book a table?": "Shall I reserve a table for you?"})
    system._pipeline.realise = lambda d: "I have 2 restaurants that fit. Would you like me to book a table?"  # type: ignore[method-assign]
    system._pipeline.decide = lambda history: StubDecision(  # type: ignore[method-assign]
        ({"act": "inform", "domain": "restaurant", "slot": "choice", "value": "2"},), {})
    assert system.respond((Message("user", "hi"),)).text == ("I found 2 restaurants for you. "
                                                               "Shall I reserve a table for you?")
    system.sentences = 1
    turn = system.respond((Message("user", "hi"),))
    assert turn.text == "I found 2 restaurants for you. Would you like me to book a table?"
    assert turn.internals["rewritten"] == "1/2" and turn.internals["fallback"] is False and len(seen) == 3
    assert build_system("llm:sentences=2").sentences == 2


def test_a_copy_is_no_rewording_and_no_fallback() -> None:
    system, _ = _delex({S1: S1})
    turn = system.respond((Message("user", "book it"),))
    assert turn.text == DRAFT and turn.internals["rewritten"] == "0/1"
    assert turn.internals["reworded"] is False and turn.internals["fallback"] is False


def test_a_spoiled_sentence_keeps_the_template_and_counts_as_a_fallback() -> None:
    """The reword check (act and grammar) runs on each sentence: the good one is shown, the bad one is not."""
    system, _ = _delex({S1: "[name] serves [food] food, phone [phone].", S2: ""})
    acts = ({"act": "inform", "domain": "restaurant", "slot": "choice", "value": "2"},
            {"act": "offer", "domain": "restaurant", "slot": "name", "value": "golden house"},
            {"act": "book", "domain": "restaurant", "slot": "reference", "value": "QX7Y2Z"})
    system._pipeline.decide = lambda history: StubDecision(acts, {})  # type: ignore[method-assign]
    template = ("I have 2 restaurants that fit. Golden House is booked for your party. "
                "The reference number is QX7Y2Z.")
    system._pipeline.realise = lambda d: template  # type: ignore[method-assign]
    system.backend._reword = {
        "I have [count] restaurants that fit.": "I'd be happy to help you find a [count] restaurants.",
        "[name] is booked for your party.": "I found [name] for your party, shall I book it?",
        "The reference number is [reference].": "Your booking reference is [reference].",
    }
    turn = system.respond((Message("user", "book it"),))
    i = turn.internals
    assert turn.text == ("I have 2 restaurants that fit. Golden House is booked for your party. "
                         "Your booking reference is QX7Y2Z.")
    assert i["reworded"] is True and i["fallback"] is True and i["rewritten"] == "1/3"
    assert "an article before a count" in i["reason"] or "article before a plural noun" in i["reason"]
    assert "turned a confirmation into" in i["reason"] or "offered a booking" in i["reason"]


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
    ("[name] serves [food] food and [name] serves good food, phone [phone].", "repeated a placeholder"),
    ("If you would like, [name] serves [food], if you would like, phone [phone].", "repeated itself"),
    ("At [name], [food] food, phone [phone].", "lost its verb"),
])
def test_delex_check_reasons(reply: str, reason: str) -> None:
    """The one sentence to reword spoiled: the turn falls back to the template, naming why."""
    system, _ = _delex({S1: reply, S2: "The weather is fine."})
    turn = system.respond((Message("user", "book it"),))
    assert turn.internals["fallback"] is True and reason in turn.internals["reason"], turn.internals["reason"]
    assert turn.text == DRAFT


def test_delexicalise_gives_each_number_its_own_placeholder() -> None:
    """The same value in two roles: "4 places ... a 4-star hotel", "leaving after 10:00 arriving by 10:00"."""
    acts = ({"act": "inform", "slot": "choice", "value": "4"},
            {"act": "inform", "slot": "stars", "value": "4"},
            {"act": "inform", "slot": "leaveAt", "value": "10:00"},
            {"act": "inform", "slot": "arriveBy", "value": "10:00"})
    text = "I have 4 places. It is a 4-star hotel. Leaving after 10:00, arriving by 10:00."
    delex, mapping = delexicalise(text, acts)
    assert delex == ("I have [count] places. It is a [stars]-star hotel. Leaving after [leaves], "
                     "arriving by [arrives].")
    assert mapping == {"count": "4", "stars": "4", "leaves": "10:00", "arrives": "10:00"}


def test_e_g_does_not_end_a_sentence() -> None:
    from parley.engine.systems.llm_delex import sentences

    assert sentences("There are [count], e.g. [food]. Would that work?") == [
        "There are [count], e.g. [food].", "Would that work?"]


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


def _rewrite(draft: str) -> tuple[Any, str, int]:
    """The bundled SmolLM2's constrained rewrite on transformers: ``(backend, raw text, new tokens)``."""
    from parley.engine.systems.llm_torch import TorchBackend

    backend = TorchBackend("smollm2", threads=1)
    raw, _, new = backend.reword(draft)
    return backend, raw, new


@pytest.mark.slow
def test_constrained_decoding_keeps_every_placeholder() -> None:
    draft = "[name] is a [pricerange] [food] restaurant in the [area]. Shall I book a table?"
    _, raw, new = _rewrite(draft)
    assert sorted(placeholders(raw)) == sorted(placeholders(draft))
    assert not any(c.isdigit() for c in raw) and "?" in raw and new > 0


@pytest.mark.slow
def test_the_rewrite_is_one_sentence_about_as_long_as_the_draft() -> None:
    backend, raw, new = _rewrite("I have [count] places to stay that fit.")
    words = len(backend.tokenizer.encode("I have   places to stay that fit.", add_special_tokens=False))
    assert placeholders(raw) == ["count"] and new <= int(1.5 * words) + 6 + len(placeholders(raw)) * 4
    assert len(re.findall(r"[.!?]", raw)) == 1 and raw.rstrip()[-1] in ".!"


def test_llm_internals_carry_what_the_fact_audit_reads_from_multiwoz() -> None:
    """The venue, the filters and the bookings of the MultiWOZ pipeline are in the llm turn's internals, as in
    multiwoz's own (the fact audit reads them), whatever the model wrote."""
    system = LLMSystem(clock="2026-11-26")
    system.backend = StubBackend(reword=lambda sentence: sentence)
    system._pipeline.load()
    mw = MultiwozSystem(clock="2026-11-26")
    history: tuple[Message, ...] = ()
    for text in ("I want a free museum in the centre", "what's the phone number?"):
        history = (*history, Message("user", text))
        turn, expected = system.respond(history), mw.respond(history)
        for key in ("venue", "filters", "booked", "bookings", "nlu", "active_domain", "db_count"):
            assert turn.internals[key] == expected.internals[key], key
        history = (*history, Message("system", expected.text))
    assert expected.internals["venue"] and expected.internals["filters"]
