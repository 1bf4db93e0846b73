"""Belief updates (``[belief] mode = "delta"``), the previous state in the context (``previous_belief``) and
snapping generated values to DB values (``snap=true``), through the ``hf-causal`` adapter with scripted model
output (the dialogue is our own)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parley.engine.mwdb import load_db
from parley.engine.systems.hf_belief import belief_target, parse_belief
from parley.engine.systems.hf_common import TurnRecord, load_format, render_context
from parley.engine.systems.hf_snap import snap_state
from tests.unit.test_formats_reference import _two_turns

DELTA = "hf-causal:model=x,format=simpletod-delta"
TURN1 = ["<|belief|> restaurant pricerange cheap , restaurant area north <|endofbelief|>",
         "<|action|> restaurant request food <|endofaction|> <|response|> what food ? <|endofresponse|>"]


def test_the_context_holds_the_state_before_the_turn() -> None:
    fmt = load_format("simpletod-delta")
    records = [TurnRecord("first", response="one", shown="one"),
               TurnRecord("second", response="two", shown="two")]
    prev = {"hotel": {"area": "east", "book_people": "2"}}
    assert render_context(fmt, records, "third", previous=prev) == (
        "<|endoftext|> <|context|> <|user|> first <|system|> one <|user|> second <|system|> two <|belief|> "
        "hotel area east , hotel book people 2 <|endofbelief|> <|user|> third <|endofcontext|>")
    # slots given before the context's window stay in view
    assert "hotel area east" in render_context(fmt.__class__(**{**fmt.__dict__, "max_turns": 1}), records,
                                               "third", previous=prev)
    # formats without previous_belief are unchanged
    assert "<|belief|>" not in render_context(load_format("simpletod-db"), records, "third", previous=prev)


def test_delta_turns_merge_into_the_state_and_feed_it_back() -> None:
    calls, t1, t2 = _two_turns(DELTA, [
        *TURN1,
        "<|belief|> restaurant food italian , restaurant book people 2 <|endofbelief|>",
        "<|action|> booking book ref <|endofaction|> <|response|> booked . <|endofresponse|>",
    ])
    assert calls[0]["input"] == ("<|endoftext|> <|context|> <|belief|> <|endofbelief|> <|user|> i need a "
                                 "cheap restaurant in the north . <|endofcontext|>")
    assert t1.state == {"restaurant": {"pricerange": "cheap", "area": "north"}}
    assert calls[2]["input"].endswith("<|belief|> restaurant pricerange cheap , restaurant area north "
                                      "<|endofbelief|> <|user|> italian please , for 2 people at 18:30 on "
                                      "friday . <|endofcontext|>")
    assert t2.state == {"restaurant": {"pricerange": "cheap", "area": "north", "food": "italian",
                                       "book_people": "2"}}
    # the DB segment is computed from the merged state (cheap italian in the north: 1)
    assert calls[3]["input"].endswith("<|dbsearch|> restaurant match=1 <|endofdbsearch|>")


def test_an_empty_update_keeps_the_state() -> None:
    _, _, t2 = _two_turns(DELTA, [*TURN1, "<|belief|> <|endofbelief|>",
                                  "<|action|> general reqmore none <|endofaction|> <|response|> anything "
                                  "else ? <|endofresponse|>"])
    assert t2.state == {"restaurant": {"pricerange": "cheap", "area": "north"}}
    assert not t2.internals["fallback"]


SLOTS = st.fixed_dictionaries({}, optional={
    "food": st.sampled_from(["italian", "chinese", "thai"]), "area": st.sampled_from(["north", "centre"]),
    "book_people": st.sampled_from(["1", "2", "5"]), "pricerange": st.sampled_from(["cheap", "dontcare"])})


@settings(max_examples=60, deadline=None)
@given(prev=SLOTS, now=SLOTS)
def test_an_update_written_as_the_target_parses_back_to_the_state(prev: dict[str, str],
                                                                  now: dict[str, str]) -> None:
    fmt = load_format("simpletod-delta")
    before = {"restaurant": prev} if prev else {}
    state = {"restaurant": {**prev, **now}} if prev or now else {}
    assert parse_belief(belief_target(state, before, fmt), fmt, before) == state
    assert belief_target(before, before, fmt) == ""


def test_snap_replaces_near_misses_with_db_values_only() -> None:
    db = load_db()
    state = {"hotel": {"name": "gonvile hotel", "area": "centre", "book_people": "3"},
             "restaurant": {"food": "italain", "pricerange": "expensiv", "name": "a place of my own"},
             "train": {"leaveAt": "17:15", "departure": "cambrige", "day": "fridy"}}
    snapped, notes = snap_state(state, {"restaurant": {"food": "italain"}}, db)
    assert snapped["hotel"] == {"name": "gonville hotel", "area": "centre", "book_people": "3"}
    # a value kept from an earlier turn is left alone; a value with no close DB value is not invented
    assert snapped["restaurant"] == {"food": "italain", "pricerange": "expensive",
                                     "name": "a place of my own"}
    assert snapped["train"] == {"leaveAt": "17:15", "departure": "cambridge", "day": "friday"}
    assert notes == {"hotel-name": "gonvile hotel → gonville hotel",
                     "restaurant-pricerange": "expensiv → expensive",
                     "train-departure": "cambrige → cambridge",
                     "train-day": "fridy → friday"}


def test_snap_is_off_by_default_and_counted_in_internals() -> None:
    out = ["<|belief|> restaurant pricerange chep , restaurant area north <|endofbelief|>", TURN1[1]]
    _, plain, _ = _two_turns(DELTA, [*out, *TURN1])
    assert plain.state["restaurant"]["pricerange"] == "chep" and "snapped" not in plain.internals
    calls, t1, _ = _two_turns(DELTA + ",snap=true", [*out, *TURN1])
    assert t1.state["restaurant"] == {"pricerange": "cheap", "area": "north"}
    assert t1.internals["snapped"] == {"restaurant-pricerange": "chep → cheap"}
    assert calls[1]["input"].endswith("<|dbsearch|> restaurant match=2 <|endofdbsearch|>")


def test_snap_takes_the_db_value_the_user_just_named() -> None:
    db = load_db()
    user = ("No , it 's an attraction called Nusha . Then a taxi from Nusha to the Gonville Hotel , "
            "Indian food .")
    state = {"attraction": {"name": "cambridge artworks"},
             "taxi": {"departure": "nusha", "destination": "the restaurant", "leaveAt": "17:15"},
             "restaurant": {"food": "italian", "area": "north"}}
    snapped, notes = snap_state(state, {}, db, user)
    assert snapped["attraction"] == {"name": "nusha"}
    # a value the user said is kept; a named value another slot holds is not taken twice
    assert snapped["taxi"] == {"departure": "nusha", "destination": "gonville hotel", "leaveAt": "17:15"}
    # the area was not named this turn: left as written
    assert snapped["restaurant"] == {"food": "indian", "area": "north"}
    assert notes == {"attraction-name": "cambridge artworks → nusha",
                     "taxi-destination": "the restaurant → gonville hotel",
                     "restaurant-food": "italian → indian"}
