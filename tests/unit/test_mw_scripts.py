"""Scripted dialogues through ``parley chat --script --json``: what the embedded
``multiwoz`` system understood (state, acts, internals) checked against the MultiWOZ database, turn by
turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from parley.cli import main
from parley.engine.mwdb import load_db

SCRIPTS = Path(__file__).parent / "scripts"


def chat(script: str, tmp_path: Path, system: str = "multiwoz") -> list[dict[str, Any]]:
    r = CliRunner().invoke(main, ["chat", "--system", system, "--script", str(SCRIPTS / script), "--json",
                                  "--db", str(tmp_path / "s.db"), "--seed", "1"])
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def acts(turn: dict[str, Any], act: str, slot: str | None = None) -> list[dict[str, Any]]:
    return [a for a in turn["acts"] if a["act"] == act and (slot is None or a["slot"] == slot)]


def test_questions_about_the_booked_venue_are_answered_from_its_row(tmp_path: Path) -> None:
    t = chat("venue_questions.txt", tmp_path)
    venue = t[2]["internals"]["venue"]
    row = load_db().find("restaurant", venue)
    assert acts(t[2], "book") and row["pricerange"] == "cheap" and row["area"] == "north"
    before = t[2]["state"]["restaurant"]
    # "do they serve italian food and is it pricey?": yes to the food, no to the price, nothing searched again
    assert t[3]["state"]["restaurant"] == before
    assert acts(t[3], "affirm", "food")[0]["value"] == row["food"]
    assert acts(t[3], "negate", "pricerange")[0]["value"] == "cheap"
    assert t[3]["system"].startswith("Yes") and "cheap" in t[3]["system"]
    assert not acts(t[3], "nooffer") and t[3]["internals"]["venue"] == venue
    # the next question is about the same venue
    assert acts(t[4], "inform", "postcode")[0]["value"] == row["postcode"]
    assert row["postcode"].upper() in t[4]["system"]
    # "is it in the city centre?": no, it is in the north; the area constraint stays north
    assert acts(t[5], "negate", "area")[0]["value"] == "north"
    assert t[5]["system"].startswith("No,") and "north" in t[5]["system"]
    assert t[5]["state"]["restaurant"]["area"] == "north"


def test_a_new_search_after_a_booking_starts_from_what_the_user_says_now(tmp_path: Path) -> None:
    t = chat("new_search.txt", tmp_path)
    assert acts(t[1], "book")
    first = t[1]["internals"]["venue"]
    assert t[1]["state"]["hotel"]["book_stay"] == "3"
    # the new search keeps nothing of the booked one: no type, no parking, no nights, no day ...
    assert t[2]["state"]["hotel"] == {"pricerange": "cheap", "area": "north", "book_people": "2"}
    assert not acts(t[2], "book")  # ... and books nothing before the details are confirmed
    assert {a["slot"] for a in acts(t[2], "request")} == {"book_stay", "book_day"}
    second = t[2]["internals"]["venue"]
    assert second != first and load_db().find("hotel", second)["pricerange"] == "cheap"
    assert acts(t[3], "affirm", "internet") or acts(t[3], "negate", "internet")
    assert "internet" not in t[3]["state"]["hotel"]
    booked = acts(t[4], "book")
    assert booked and t[4]["internals"]["venue"] == second
    assert {a["slot"]: a["value"] for a in acts(t[4], "inform")} == {
        "book_stay": "2", "book_day": "friday", "book_people": "2"}


def test_a_question_about_one_hotel_is_no_filter_for_the_next(tmp_path: Path) -> None:
    t = chat("parking_question.txt", tmp_path)
    assert acts(t[1], "affirm", "parking") or acts(t[1], "negate", "parking")
    assert "parking" not in t[1]["state"]["hotel"]
    # "book it": that one
    assert acts(t[2], "book") and t[2]["internals"]["venue"] == t[0]["internals"]["venue"]
    assert t[3]["state"]["hotel"] == {"pricerange": "expensive", "area": "centre"}
    offered = load_db().find("hotel", t[3]["internals"]["venue"])
    assert offered["pricerange"] == "expensive" and offered["area"] == "centre"


def test_json_lines_carry_the_internals(tmp_path: Path) -> None:
    t = chat("venue_questions.txt", tmp_path)
    assert all({"state", "acts", "internals"} <= set(x) for x in t)
    assert t[0]["internals"]["db_count"]["restaurant"] > 0
    assert t[3]["internals"]["nlu"]["checks"]  # the NLU read the questions as checks


def test_cuisines_the_database_lacks_stay_the_users_constraint(tmp_path: Path) -> None:
    t = chat("cuisines.txt", tmp_path)
    db = load_db()
    assert not any(r["food"] in ("northern european", "north african") for r in db.rows("restaurant"))
    # "northern european": one cuisine, neither the area north nor plain european
    assert t[0]["state"]["restaurant"] == {"pricerange": "expensive", "food": "northern european"}
    assert acts(t[0], "nooffer") and "northern european" in t[0]["system"]
    assert t[1]["state"]["restaurant"]["food"] == "north african"
    assert t[1]["state"]["restaurant"]["area"] == "south" and acts(t[1], "nooffer")


def test_the_same_section_of_town_is_the_area_of_the_venue_talked_about(tmp_path: Path) -> None:
    t = chat("same_section.txt", tmp_path)
    assert t[0]["state"]["restaurant"]["area"] == "east" and acts(t[1], "book")
    assert t[2]["state"]["attraction"] == {"type": "museum", "area": "east"}
    offer = acts(t[2], "offer", "name")[0]["value"]
    assert load_db().find("attraction", offer)["area"] == "east"


def test_a_tired_hungry_users_remarks_do_not_switch_the_domain(tmp_path: Path) -> None:
    t = chat("tired_user.txt", tmp_path)
    assert t[0]["state"] == {"train": {"departure": "cambridge", "destination": "ely", "day": "friday",
                                       "leaveAt": "10:00"}}
    assert t[1]["state"] == {"train": {**t[0]["state"]["train"], "book_people": "3"}}
    assert acts(t[1], "book") and "restaurant" not in t[2]["state"]
    assert acts(t[2], "inform", "trainID")


def test_the_party_counted_in_words_includes_the_speaker(tmp_path: Path) -> None:
    t = chat("party_size.txt", tmp_path)
    assert t[1]["state"]["train"]["book_people"] == "3" and acts(t[1], "book")
    assert t[2]["state"]["restaurant"]["book_people"] == "2"
    assert "book_people" not in t[2]["state"].get("hotel", {})


def test_a_yes_that_steers_the_search_keeps_the_users_constraints(tmp_path: Path) -> None:
    t = chat("steer_after_no_match.txt", tmp_path)
    assert acts(t[0], "nooffer") and acts(t[0], "select")[0]["slot"] == "pricerange"
    assert t[1]["state"]["restaurant"] == {"food": "british", "pricerange": "cheap", "area": "north"}


def test_a_taxi_in_time_for_the_reservation_arrives_by_the_booked_time(tmp_path: Path) -> None:
    t = chat("taxi_for_reservation.txt", tmp_path)
    assert acts(t[1], "book") and t[1]["state"]["restaurant"]["book_time"] == "19:45"
    taxi = t[2]["state"]["taxi"]
    assert taxi["arriveBy"] == "19:45" and taxi["destination"] == t[1]["internals"]["venue"]
    assert taxi["departure"] == "the fitzwilliam museum"
    assert any(a["domain"] == "taxi" for a in acts(t[2], "book"))


def test_a_user_who_corrects_themselves(tmp_path: Path) -> None:
    t = chat("changed_mind.txt", tmp_path)
    assert t[0]["state"]["train"]["arriveBy"] == "10:00"
    assert t[1]["state"]["train"]["leaveAt"] == "10:00" and "arriveBy" not in t[1]["state"]["train"]
    offer = acts(t[1], "offer", "trainID") or acts(t[1], "inform", "trainID")
    assert offer and load_db().find("train", offer[0]["value"])["leaveAt"] >= "10:00"
    assert t[2]["state"]["hotel"]["type"] == "guesthouse"
    assert t[3]["state"]["hotel"] == {"stars": "4", "type": "hotel", "parking": "yes"}
    venue = t[3]["internals"]["venue"]
    assert load_db().find("hotel", venue)["type"] == "hotel"
    assert t[4]["state"]["restaurant"]["book_time"] == "19:00" and acts(t[4], "book")


def test_a_time_corrected_while_hotels_are_discussed_is_the_trains(tmp_path: Path) -> None:
    t = chat("time_correction.txt", tmp_path)
    assert t[0]["state"]["train"]["leaveAt"] == "10:00" and acts(t[1], "book")
    assert t[2]["state"]["hotel"] == {"pricerange": "cheap", "area": "north"}
    # "no, I meant leaving after quarter past 5": no closing, the train's departure is 17:15 now
    assert not acts(t[3], "welcome") and "welcome" not in t[3]["system"].lower()
    assert t[3]["state"]["train"]["leaveAt"] == "17:15"
    assert t[3]["state"]["hotel"] == t[2]["state"]["hotel"]
    offer = acts(t[3], "offer", "trainID") or acts(t[3], "inform", "trainID")
    assert offer and load_db().find("train", offer[0]["value"])["leaveAt"] >= "17:15"


def test_a_corrected_time_with_no_train_or_taxi_is_asked_about(tmp_path: Path) -> None:
    t = chat("stray_time.txt", tmp_path)
    assert not acts(t[1], "welcome") and t[1]["state"] == t[0]["state"]
    assert acts(t[1], "request") and "train or taxi" in t[1]["system"]


def test_the_users_dinner_time_is_no_departure_but_can_be_the_arrival(tmp_path: Path) -> None:
    t = chat("dinner_time.txt", tmp_path)
    assert t[0]["state"] == {"train": {"departure": "ely", "destination": "cambridge", "day": "saturday"}}
    assert {a["slot"] for a in acts(t[0], "request")} >= {"leaveAt"}  # asked when, not guessed
    # "I want to arrive before my dinner at 8": the train's arrival, and no restaurant search
    assert t[1]["state"] == {"train": {**t[0]["state"]["train"], "arriveBy": "20:00"}}
    offer = acts(t[1], "offer", "trainID") or acts(t[1], "inform", "trainID")
    assert offer and load_db().find("train", offer[0]["value"])["arriveBy"] <= "20:00"


def test_tomorrow_and_tonight_are_counted_from_the_systems_clock(tmp_path: Path) -> None:
    t = chat("relative_days.txt", tmp_path, system="multiwoz:clock=2026-11-26")  # a Thursday
    assert t[0]["state"]["train"]["day"] == "friday"
    assert not any(a["slot"] == "day" for a in acts(t[0], "request"))  # not asked again
    assert t[1]["state"]["train"]["day"] == "saturday"  # "the day after tomorrow"
    assert t[2]["state"]["restaurant"]["book_day"] == "thursday" and acts(t[2], "book")
    assert t[3]["state"] == t[2]["state"] and acts(t[3], "bye")  # "all I need today" is no day


def test_a_careless_tester(tmp_path: Path) -> None:
    t = chat("careless_tester.txt", tmp_path, system="multiwoz:clock=2026-11-26")
    # "frm cambrdge": the departure, misspelt twice
    assert t[0]["state"]["train"] == {"departure": "cambridge", "destination": "stansted airport",
                                      "day": "sunday"}
    assert t[2]["state"]["train"]["arriveBy"] == "14:00" and "leaveAt" not in t[2]["state"]["train"]
    assert acts(t[3], "book")
    # "wat time does it leave": the booked train's departure
    train = load_db().find("train", t[3]["internals"]["venue"])
    assert acts(t[4], "inform", "leaveAt")[0]["value"] == train["leaveAt"]
    # "thx. also need a taxi ...": a new request, not a closing
    assert not acts(t[5], "welcome") and t[5]["internals"]["active_domain"] == "taxi"
    # "a place to stay tmrw, 4 stars": stars, no 4-night stay; tomorrow is Friday
    assert t[6]["state"]["hotel"] == {"book_day": "friday", "stars": "4", "pricerange": "cheap",
                                      "parking": "yes"}


def test_a_taxi_between_the_two_places_to_the_restaurant_in_time(tmp_path: Path) -> None:
    t = chat("two_places.txt", tmp_path)
    assert t[1]["state"]["hotel"]["book_stay"] == "3" and acts(t[1], "book")
    table = t[2]["state"]["restaurant"]
    assert table["book_day"] == "friday" and table["book_people"] == "2" and table["book_time"] == "20:00"
    venue = t[2]["internals"]["venue"]
    taxi = t[3]["state"]["taxi"]
    assert taxi == {"departure": "acorn guest house", "destination": venue, "arriveBy": "20:00"}


def test_questions_about_a_guesthouse_and_a_day_said_with_not(tmp_path: Path) -> None:
    t = chat("hotel_slips.txt", tmp_path)
    assert t[0]["state"]["hotel"] == {"type": "guesthouse", "area": "north", "internet": "yes"}
    row = load_db().find("hotel", t[0]["internals"]["venue"])
    # "and is there parking": a question about the guesthouse offered, not a filter
    assert t[2]["state"] == t[0]["state"]
    assert (acts(t[2], "affirm", "parking") if row["parking"] == "yes" else acts(t[2], "negate", "parking"))
    assert acts(t[3], "book") and t[3]["state"]["hotel"]["book_day"] == "saturday"
    # "oops sorry sunday not saturday"
    assert t[4]["state"]["hotel"]["book_day"] == "sunday" and acts(t[4], "book")


def test_a_bare_hour_for_the_taxi_is_on_the_tables_side_of_the_clock(tmp_path: Path) -> None:
    t = chat("taxi_bare_hour.txt", tmp_path)
    assert t[0]["state"]["restaurant"]["book_time"] == "19:15" and acts(t[0], "book")
    assert t[2]["state"]["taxi"] == {"departure": "the cambridge belfry", "destination": "nandos",
                                     "arriveBy": "19:15"}
    assert t[3]["state"]["taxi"]["arriveBy"] == "19:00"  # not 07:00


def test_back_to_a_place_offered_earlier(tmp_path: Path) -> None:
    """"and another?" offers a third place; "the first one you said" names the first offer, not the last."""
    t = chat("first_one.txt", tmp_path)
    offers = [t[i]["internals"]["venue"] for i in range(3)]
    assert len(set(offers)) == 3 and all(acts(t[i], "offer") for i in range(3))
    assert t[3]["state"]["restaurant"]["name"] == offers[0].lower()
    row = load_db().find("restaurant", offers[0])
    assert row["address"].lower() in t[4]["system"].lower()
    # "the previous one": the offer before the place now chosen, the latest of the others
    assert t[5]["state"]["restaurant"]["name"] == offers[2].lower()
