"""Golden tests: the exact model inputs and the parse of sample outputs, as the reference implementations
define them.

Each bundled format file names the reference commit it was checked against (SimpleTOD, UBAR, PPTOD, MinTL,
AuGPT). The expected strings below are facts about those formats, written here by hand from the reference code
(the dialogue is our own, MultiWOZ style): what the model is fed on turn 1 and turn 2 of a dialogue, and what
parley makes of a sample output. The adapters run for real; only the model's text output is scripted.
"""

from __future__ import annotations

from typing import Any

import pytest

from parley.engine.systems import build_system
from parley.engine.systems.hf_common import load_format, parse_belief, parse_belief_checked
from parley.engine.types import Message

U1 = "I need a cheap restaurant in the north."
U2 = "Italian please, for 2 people at 18:30 on Friday."
# the DB: 2 cheap restaurants in the north (da vinci pizzeria, royal spice); 1 of them italian


class _Loaded:
    """Stands in for a loaded model: the adapters only need it to exist (generation is scripted)."""

    config = None


def _script(system: Any, outputs: list[str]) -> list[dict[str, str]]:
    """Replace the system's text generation: record each input (and decoder prefix), answer from ``outputs``.
    """
    calls: list[dict[str, str]] = []
    queue = list(outputs)

    def generate(text: str, stop: str | None = None, decoder_prefix: str = "") -> str:
        calls.append({"input": text, "stop": stop or "", "decoder": decoder_prefix})
        return queue.pop(0)

    system.model = _Loaded()
    system._generate = generate
    return calls


def _two_turns(spec: str, outputs: list[str]) -> tuple[list[dict[str, str]], Any, Any]:
    system = build_system(spec)
    calls = _script(system, outputs)
    t1 = system.respond((Message("user", U1),))
    t2 = system.respond((Message("user", U1), Message("system", t1.text), Message("user", U2)))
    return calls, t1, t2


def test_simpletod_inputs_and_parse() -> None:
    calls, t1, t2 = _two_turns("hf-causal:model=x,format=simpletod", [
        "<|belief|> restaurant pricerange cheap , restaurant area north <|endofbelief|>",
        "<|action|> restaurant inform choice , restaurant request food <|endofaction|> <|response|> "
        "there are [value_count] cheap places in the north . what food would you like ? <|endofresponse|>",
        "<|belief|> restaurant food italian , restaurant pricerange cheap , restaurant area north , "
        "restaurant book day friday , restaurant book people 2 , restaurant book time 18:30 <|endofbelief|>",
        "<|action|> booking book ref <|endofaction|> <|response|> booked at [restaurant_name] , reference "
        "[restaurant_reference] . <|endofresponse|>",
    ])
    # generate_dialogue.py: "<|endoftext|> <|context|> … <|endofcontext|>", lower-cased, corpus-tokenised
    assert calls[0] == {"input": "<|endoftext|> <|context|> <|user|> i need a cheap restaurant in the north "
                                 ". <|endofcontext|>", "stop": "<|endofbelief|>", "decoder": ""}
    assert calls[1]["input"] == (calls[0]["input"] + " <|belief|> restaurant pricerange cheap , restaurant "
                                 "area north <|endofbelief|>")
    assert t1.state == {"restaurant": {"pricerange": "cheap", "area": "north"}}
    assert [(a["domain"], a["act"], a["slot"]) for a in t1.acts] == [("restaurant", "inform", "choice"),
                                                                    ("restaurant", "request", "food")]
    assert t1.text == "there are 2 cheap places in the north. what food would you like?"
    # earlier system turns are the lexicalised text the user saw
    assert calls[2]["input"] == ("<|endoftext|> <|context|> <|user|> i need a cheap restaurant in the north "
                                 ". <|system|> there are 2 cheap places in the north . what food would you "
                                 "like ? <|user|> italian please , for 2 people at 18:30 on friday . "
                                 "<|endofcontext|>")
    assert t2.state["restaurant"] == {"food": "italian", "pricerange": "cheap", "area": "north",
                                      "book_day": "friday", "book_people": "2", "book_time": "18:30"}
    assert t2.text.startswith("booked at da vinci pizzeria, reference ")


def test_simpletod_db_search_segment() -> None:
    calls, t1, _ = _two_turns("hf-causal:model=x,format=simpletod-db", [
        "<|belief|> restaurant pricerange cheap , restaurant area north <|endofbelief|>",
        "<|action|> restaurant inform choice <|endofaction|> <|response|> [value_count] . <|endofresponse|>",
        "<|belief|> train day friday <|endofbelief|>",
        "<|action|> train request leave <|endofaction|> <|response|> when ? <|endofresponse|>",
    ])
    assert calls[1]["input"].endswith("<|endofcontext|> <|belief|> restaurant pricerange cheap , restaurant "
                                      "area north <|endofbelief|> <|dbsearch|> restaurant match=2 "
                                      "<|endofdbsearch|>")
    # every DB domain of the belief state; trains in the pointer's buckets (=0 <3 <6 <11 <41 >40)
    assert calls[3]["input"].endswith("<|belief|> train day friday <|endofbelief|> <|dbsearch|> train "
                                      "match>40 <|endofdbsearch|>")
    assert load_format("simpletod-db").db_segment([("restaurant", 7), ("train", 4)]) == \
        "<|dbsearch|> restaurant match>=5 , train match<6 <|endofdbsearch|>"


def test_ubar_session_inputs_and_parse() -> None:
    calls, t1, t2 = _two_turns("hf-causal:model=x,format=ubar", [
        "[restaurant] pricerange cheap area north <eos_b>",
        "[restaurant] [inform] choice [request] food <eos_a> <sos_r> there are [value_choice] cheap places "
        "in the north . what food would you like ? <eos_r>",
        "[restaurant] pricerange cheap area north food italian people 2 time 18:30 day friday <eos_b>",
        "[restaurant] [inform] reference <eos_a> <sos_r> booked , ref [value_reference] . <eos_r>",
    ])
    assert calls[0]["input"] == "<sos_u> i need a cheap restaurant in the north . <eos_u> <sos_b>"
    assert calls[1]["input"] == ("<sos_u> i need a cheap restaurant in the north . <eos_u> <sos_b> "
                                 "[restaurant] pricerange cheap area north <eos_b> <sos_db> [db_2] <eos_db> "
                                 "<sos_a>")
    assert t1.acts[0] == {"act": "inform", "domain": "restaurant", "slot": "choice", "value": None}
    # the whole session is fed back: generated belief, DB, act and delexicalised response of turn 1
    assert calls[2]["input"] == (
        "<sos_u> i need a cheap restaurant in the north . <eos_u> <sos_b> [restaurant] pricerange cheap area "
        "north <eos_b> <sos_db> [db_2] <eos_db> <sos_a> [restaurant] [inform] choice [request] food <eos_a> "
        "<sos_r> there are [value_choice] cheap places in the north . what food would you like ? <eos_r> "
        "<sos_u> italian please , for 2 people at 18:30 on friday . <eos_u> <sos_b>")
    assert t2.state["restaurant"] == {"pricerange": "cheap", "area": "north", "food": "italian",
                                      "book_people": "2", "book_time": "18:30", "book_day": "friday"}
    assert "<sos_db> [db_1] <eos_db>" in calls[3]["input"]


def test_ubar_db_indicator_without_a_query() -> None:
    ubar = load_format("ubar")
    assert ubar.db_segment([("taxi", None)]) == "<sos_db> [db_nores] <eos_db>"
    assert ubar.db_segment([]) == "<sos_db> [db_nores] <eos_db>"
    assert ubar.db_segment([("hotel", None)]) == "<sos_db> [db_nores] <eos_db>"
    expected = [f"<sos_db> [db_{k}] <eos_db>" for k in range(4)]
    assert [ubar.db_text("train", n) for n in (0, 5, 6, 11)] == expected


def test_pptod_prompted_inputs() -> None:
    calls, t1, t2 = _two_turns("hf-seq2seq:model=x,format=pptod", [
        "<sos_b> [restaurant] pricerange cheap area north <eos_b>",
        "<sos_r> there are [value_choice] cheap places in the north . <eos_r>",
        "<sos_b> [restaurant] pricerange cheap area north food italian <eos_b>",
        "<sos_r> [value_name] is italian . <eos_r>",
    ])
    assert calls[0]["input"] == ("translate dialogue to belief state: <sos_context> <sos_u> i need a cheap "
                                 "restaurant in the north . <eos_u> <eos_context>")
    assert calls[1]["input"] == ("translate dialogue to system response: <sos_context> <sos_u> i need a "
                                 "cheap restaurant in the north . <eos_u> <eos_context> <sos_db> [db_2] "
                                 "<eos_db>")
    assert t1.state == {"restaurant": {"pricerange": "cheap", "area": "north"}}
    # earlier system turns as the model wrote them (delexicalised)
    assert calls[2]["input"] == (
        "translate dialogue to belief state: <sos_context> <sos_u> i need a cheap restaurant in the north . "
        "<eos_u> <sos_r> there are [value_choice] cheap places in the north . <eos_r> <sos_u> italian "
        "please , for 2 people at 18:30 on friday . <eos_u> <eos_context>")
    assert calls[3]["input"].endswith("<eos_context> <sos_db> [db_1] <eos_db>")
    assert t2.text == "da vinci pizzeria is italian."


def test_mintl_state_updates_and_db_state_token() -> None:
    calls, t1, t2 = _two_turns("hf-seq2seq:model=x,format=mintl", [
        "[restaurant] pricerange cheap area north <eos_b>",
        "there are [value_choice] cheap places in the north . <eos_r>",
        "[restaurant] food italian people 2 time 18:30 day friday area <None> <eos_b>",
        "[value_name] is booked . <eos_r>",
    ])
    # previous state ("<eos_b>" alone at first), then the utterances, each closed by its end marker
    assert calls[0] == {"input": "<eos_b> i need a cheap restaurant in the north . <eos_u>", "stop": "",
                        "decoder": ""}
    assert calls[1] == {"input": calls[0]["input"], "stop": "", "decoder": "[db_state3]"}
    assert t1.state == {"restaurant": {"pricerange": "cheap", "area": "north"}}
    assert calls[2]["input"] == ("[restaurant] pricerange cheap area north <eos_b> i need a cheap restaurant "
                                 "in the north . <eos_u> there are 2 cheap places in the north . <eos_r> "
                                 "italian please , for 2 people at 18:30 on friday . <eos_u>")
    # the update is merged: area deleted by <None>, the rest added
    assert t2.state == {"restaurant": {"pricerange": "cheap", "food": "italian", "book_people": "2",
                                       "book_time": "18:30", "book_day": "friday"}}
    assert calls[3]["decoder"] == "[db_state4]"  # cheap italian restaurants anywhere: 5 (more than 3)


def test_augpt_glued_markers_and_db_counts() -> None:
    calls, t1, t2 = _two_turns("hf-causal:model=x,format=augpt", [
        "=>Belief state : restaurant {area = north, price range = cheap}<|eob|>",
        "there are [choice] [price range] places in the north . what food would you like ?",
        "=>Belief state : restaurant {area = north, booked = true, day = friday, food = italian, people = 2, "
        "price range = cheap, time = 18:30}<|eob|>",
        "i have booked [name] .",
    ])
    assert calls[0]["input"] == "User : I need a cheap restaurant in the north."
    assert calls[1]["input"] == ("User : I need a cheap restaurant in the north.=>Belief state : "
                                 "restaurant {area = north, price range = cheap}<|eob|>DB : restaurant 2 "
                                 "matches<|eokb|>")
    assert t1.text == "there are 2 cheap places in the north. what food would you like?"
    assert calls[2]["input"] == ("User : I need a cheap restaurant in the north. System : there are 2 "
                                 "cheap places in the north. what food would you like? User : Italian "
                                 "please, for 2 people at 18:30 on Friday.")
    assert t2.state == {"restaurant": {"area": "north", "book_day": "friday", "food": "italian",
                                       "book_people": "2", "pricerange": "cheap", "book_time": "18:30"}}
    assert calls[3]["input"].endswith("<|eob|>DB : restaurant 1 match<|eokb|>")
    assert t2.text == "i have booked da vinci pizzeria."


@pytest.mark.parametrize(("fmt", "text", "state"), [
    # utils/simpletod.py get_belief: split on ",", "domain slot value", booking slots "book <slot>"
    ("simpletod", "<|belief|> hotel name acorn guest house , hotel book stay 3 , train leaveat 09:15 "
                  "<|endofbelief|>",
     {"hotel": {"name": "acorn guest house", "book_stay": "3"}, "train": {"leaveAt": "09:15"}}),
    # UBAR bspan_to_constraint_dict: a slot word directly after a slot is a value ("type hotel")
    ("ubar", "[hotel] type hotel stars 4 [train] arrive 10:00 people 3",
     {"hotel": {"type": "hotel", "stars": "4"}, "train": {"arriveBy": "10:00", "book_people": "3"}}),
    # AuGPT BeliefParser: "domain {slot = value, ...}"
    ("augpt", "=>Belief state : hotel {area = east, leave at = 10:00, stay = 2}<|eob|>",
     {"hotel": {"area": "east", "book_stay": "2"}}),
])
def test_reference_belief_parses(fmt: str, text: str, state: dict[str, dict[str, str]]) -> None:
    parsed = parse_belief_checked(text, load_format(fmt))
    assert parsed.state == state
    if fmt == "augpt":  # "leave at" is not a hotel slot: reported, not silently kept
        assert parsed.invalid == ("hotel leave at 10:00",)


def test_mintl_delta_deletes_with_none() -> None:
    prev = {"hotel": {"area": "east", "stars": "4"}}
    assert parse_belief("[hotel] stars <None> type guesthouse <eos_b>", load_format("mintl"), prev) == {
        "hotel": {"area": "east", "type": "guesthouse"}}
    assert parse_belief("<eos_b>", load_format("mintl"), prev) == prev
