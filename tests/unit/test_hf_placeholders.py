"""No raw placeholder reaches the user: what the DB or the belief state cannot fill is replaced by words that
give nothing away, and counted in the turn's internals (``unfilled``, ``replaced``)."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from parley.engine.mwdb import load_db
from parley.engine.systems import build_system
from parley.engine.systems.hf_lex import DBResult, lexicalise, lookup
from parley.engine.types import Message
from tests.unit.test_sys_hf import USER, _script_generate, gpt2_dir  # noqa: F401 (the fixture)

RAW = re.compile(r"[\[\]]")


def test_unfillable_placeholders_are_replaced_and_listed() -> None:
    db = load_db()
    state = {"restaurant": {"food": "french", "area": "east"}}
    none = lookup(db, state, "restaurant")
    assert none.count == 0
    out = lexicalise("there are [value_count] , but [restaurant_name] has phone [restaurant_phone] . "
                     "the [train_id] leaves at [value_leave] . [value_wifi] [value_", db, "restaurant", none,
                     state)
    assert out.text == ("there are no, but a restaurant has phone not available. the train leaves at the "
                        "time you asked for.")
    assert out.unfilled == ("[restaurant_name]", "[restaurant_phone]", "[train_id]", "[value_leave]",
                            "[value_wifi]")
    assert out.replaced == {"[restaurant_name]": "a restaurant", "[restaurant_phone]": "not available",
                            "[train_id]": "a train", "[value_leave]": "the time you asked for",
                            "[value_wifi]": "", "[value_": ""}
    assert "[value_count]" not in out.unfilled  # no match: "no" is the count


def test_a_stand_in_repeated_by_the_model_is_shown_once() -> None:
    db = load_db()
    none = DBResult(None, 0)
    out = lexicalise("[attraction_name] is in the [value_area] [value_area] , [value_area] . there are "
                     "[value_count] [value_count] [value_type] , [value_type] .", db, "attraction", none, {})
    assert out.text == "an attraction is in the area you asked for. there are several places."
    assert out.unfilled.count("[value_area]") == 3  # every one is still counted
    # a stand-in opens with its article unless the model wrote one: "the [value_area]" is no "the the …"
    assert lexicalise("[value_area] , or the [value_area] ?", db, None, none, {}).text == \
        "the area you asked for, or the area you asked for?"


def test_fillable_placeholders_are_still_filled_from_the_db() -> None:
    db = load_db()
    state = {"train": {"departure": "cambridge", "destination": "ely", "day": "friday"}}
    trains = lookup(db, state, "train")
    out = lexicalise("[value_count] trains , [train_id] leaves at [value_leave] .", db, "train", trains,
                     state)
    row = trains.rows[0]
    assert out.text == f"{trains.count} trains, {row['trainID']} leaves at {row['leaveAt']}."
    assert out.unfilled == () and out.replaced == {}
    # with no DB result at all, a count is no number: "several"
    assert lexicalise("[value_count] options", db, None, DBResult(None, 0), {}).text == "several options"


_PIECES = ["[value_count]", "[train_id]", "[hotel_name]", "[value_price]", "[value_", "]", "[",
           "[value_food]", "[attraction_postcode]", "[x_y_z]", "[[value_day]]", "ok", "the", "a", ","]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=10),
       st.sampled_from([{}, {"hotel": {"area": "north"}}, {"train": {"day": "monday"}}]),
       st.sampled_from([None, "hotel", "train", "restaurant"]))
def test_no_bracket_survives_lexicalisation(words: list[str], state: dict, domain: str | None) -> None:
    db = load_db()
    out = lexicalise(" ".join(words), db, domain, lookup(db, state, domain), state, seed=1)
    assert not RAW.search(out.text)
    assert set(out.unfilled) <= set(out.replaced)


def test_the_turn_counts_replacements_in_its_internals(gpt2_dir: Path) -> None:  # noqa: F811
    system = build_system(f"hf-causal:model={gpt2_dir},format=simpletod")
    system.load()
    _script_generate(system, [
        "<|belief|> restaurant food french , restaurant area east "
        "<|endofbelief|>",
        "<|action|> restaurant inform name <|endofaction|> <|response|> there are [value_choice] . "
        "[restaurant_name] , phone [restaurant_phone] . <|endofresponse|>",
    ], causal=True)
    turn = system.respond((Message("user", USER),))
    assert turn.text == "there are no. a restaurant, phone not available."
    assert turn.internals["unfilled"] == ["[restaurant_name]", "[restaurant_phone]"]
    assert turn.internals["replaced"] == {"[restaurant_name]": "a restaurant",
                                          "[restaurant_phone]": "not available"}
    assert not turn.internals["fallback"]
