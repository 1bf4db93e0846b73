"""Format files, belief-state parsing/serialising, DB segments and lexicalisation (no model needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.engine.mwdb import load_db
from parley.engine.spec import SpecError
from parley.engine.systems.hf_common import (
    Format,
    active_domain,
    format_belief,
    list_formats,
    load_format,
    parse_belief,
)
from parley.engine.systems.hf_lex import DBResult, lexicalise, lookup


def test_bundled_formats_load_and_have_kinds() -> None:
    names = list_formats()
    assert {"pptod", "mintl", "ubar", "simpletod", "augpt"} <= set(names)
    kinds = {n: load_format(n).kind for n in names}
    assert kinds["pptod"] == kinds["mintl"] == "seq2seq"
    assert kinds["ubar"] == kinds["simpletod"] == kinds["augpt"] == "causal"


@pytest.mark.parametrize(("fmt", "text"), [
    ("pptod", "<sos_b> [restaurant] food modern european area centre day monday people 4 time 6:30 "
              "[train] leave 9:15 destination cambridge day friday <eos_b>"),
    ("simpletod", "restaurant food modern european, restaurant area centre, restaurant book day monday, "
                  "restaurant book people 4, restaurant book time 06:30, train leaveat 09:15, "
                  "train destination cambridge, train day friday"),
    ("augpt", "restaurant { food = modern european , area = centre , book day = monday , book people = 4 , "
              "book time = 6:30 } train { leave at = 9:15 , destination = cambridge , day = friday }"),
])
def test_belief_styles_parse_to_parley_names(fmt: str, text: str) -> None:
    state = parse_belief(text, load_format(fmt))
    assert state == {
        "restaurant": {"food": "modern european", "area": "centre", "book_day": "monday", "book_people": "4",
                       "book_time": "06:30"},
        "train": {"leaveAt": "09:15", "destination": "cambridge", "day": "friday"},
    }
    # serialising and parsing again gives the same state
    assert parse_belief(format_belief(state, load_format(fmt)), load_format(fmt)) == state


def test_values_that_look_like_slot_names_and_nulls() -> None:
    fmt = load_format("ubar")
    state = parse_belief("[hotel] type hotel parking yes stars not mentioned [police] [nowhere] x y", fmt)
    assert state == {"hotel": {"type": "hotel", "parking": "yes"}}
    assert parse_belief("[attraction] area dont care", fmt) == {"attraction": {"area": "dontcare"}}


def test_delta_mode_merges_and_deletes() -> None:
    fmt = load_format("mintl")
    prev = {"restaurant": {"area": "north", "food": "chinese"}}
    assert parse_belief("[restaurant] area <null> food thai", fmt, prev) == {"restaurant": {"food": "thai"}}
    assert parse_belief("[hotel] stars 4", fmt, prev) == {"restaurant": prev["restaurant"],
                                                          "hotel": {"stars": "4"}}


def test_db_segments() -> None:
    ubar = load_format("ubar")
    assert ubar.db_text("restaurant", 0) == "<sos_db> [db_0] <eos_db>"
    assert ubar.db_text("restaurant", 3) == "<sos_db> [db_2] <eos_db>"
    assert ubar.db_text("restaurant", 4) == "<sos_db> [db_3] <eos_db>"
    assert ubar.db_text("train", 8) == "<sos_db> [db_2] <eos_db>"  # per-domain thresholds
    assert load_format("augpt").db_text("hotel", 7) == "DB : hotel 7 matches<|eokb|>"
    assert load_format("simpletod").db_text("hotel", 7) == ""


def test_active_domain_prefers_what_changed() -> None:
    prev = {"restaurant": {"food": "thai"}}
    assert active_domain({"restaurant": {"food": "thai"}, "hotel": {"stars": "4"}}, prev) == "hotel"
    assert active_domain({"restaurant": {"food": "thai"}}, prev) == "restaurant"
    assert active_domain({}, None) is None


def test_format_file_errors(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="unknown format"):
        load_format("nope")
    bad = tmp_path / "bad.toml"
    bad.write_text('kind = "seq2seq"\ncolour = "red"\n')
    with pytest.raises(SpecError, match="unknown keys colour"):
        load_format(bad)
    bad.write_text('kind = "seq2seq"\n[belief]\nstyle = "yaml"\n')
    with pytest.raises(SpecError, match="belief style"):
        load_format(bad)
    bad.write_text("kind = [")
    with pytest.raises(SpecError, match="bad.toml"):
        load_format(bad)
    good = tmp_path / "mine.toml"
    good.write_text('kind = "causal"\n[context]\nuser = "U: {text}"\nsystem = "S: {text}"\n')
    fmt = load_format(good, kind="causal")
    assert isinstance(fmt, Format) and fmt.name == "mine" and fmt.user == "U: {text}"


def test_format_file_in_model_folder_is_picked_up(tmp_path: Path) -> None:
    from parley.engine.systems import build_system

    (tmp_path / "parley-format.toml").write_text((Path(load_format.__code__.co_filename).parents[2] / "assets"
                                                  / "formats" / "simpletod.toml").read_text())
    assert build_system(f"hf-causal:model={tmp_path}").format.name == "simpletod"


def test_lexicalise_from_rows_state_and_references() -> None:
    db = load_db()
    state = {"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap", "book_people": "2",
                            "book_day": "monday", "book_time": "18:30"}}
    result = lookup(db, state, "restaurant")
    assert result.count == len(db.query("restaurant", state["restaurant"])) >= 2
    first, second = result.rows[0], result.rows[1]
    out = lexicalise("[value_name] and [value_name] serve [value_food] food. [value_choice] in all. "
                     "booked for [value_people] on [value_day] at [value_time], ref [value_reference] .",
                     db, "restaurant", result, state, seed=3, turn=1)
    assert out.text.startswith(f"{first['name']} and {second['name']} serve chinese food. {result.count} in "
                               "all.")
    assert "booked for 2 on monday at 18:30, ref " in out.text and out.text.endswith(".")
    ref = out.filled["[value_reference]"]
    assert len(ref) == 8 and ref == lexicalise("[value_reference]", db, "restaurant", result, state, 3,
                                               1).text
    assert out.unfilled == ()


def test_lexicalise_domain_placeholders_taxi_and_unfilled() -> None:
    db = load_db()
    state = {"hotel": {"name": "acorn guest house"}, "taxi": {"destination": "acorn guest house"}}
    hotel = lookup(db, state, "hotel")
    out = lexicalise("[hotel_name] , phone [hotel_phone] . a [taxi_car] will come, call [taxi_phone] . "
                     "[value_wifi]", db, "taxi", DBResult("taxi", 1), state, seed=1)
    assert out.text.startswith(f"acorn guest house, phone {hotel.rows[0]['phone']}. a ")
    car = out.filled["[taxi_car]"]
    assert car.split()[0] in db.taxi["taxi_colors"] and car.split()[1] in db.taxi["taxi_types"]
    assert out.unfilled == ("[value_wifi]",) and "[" not in out.text  # listed, never shown


def test_train_id_and_times_come_from_the_row() -> None:
    db = load_db()
    state = {"train": {"departure": "cambridge", "destination": "london kings cross", "day": "monday",
                       "leaveAt": "10:00"}}
    result = lookup(db, state, "train")
    row = result.rows[0]
    out = lexicalise("[value_id] leaves at [value_leave] and arrives by [value_arrive] , [value_price] .",
                     db, "train", result, state)
    assert out.text == f"{row['trainID']} leaves at {row['leaveAt']} and arrives by {row['arriveBy']}, " \
                       f"{row['price']}."
