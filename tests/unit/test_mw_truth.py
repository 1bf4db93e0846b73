"""The embedded ``multiwoz`` system tells the truth: questions about a venue, the taxi, the train or an
earlier booking are answered from that record (never a new booking or search), and counts respect every
constraint. Each test runs a script of its own through ``parley chat --script --json``."""

from __future__ import annotations

import re
from pathlib import Path

from parley.engine.mwdb import load_db
from parley.engine.scoring.factdb import matching
from tests.unit.test_mw_scripts import acts, chat

CLOCK = "multiwoz:clock=2026-11-26"


def booked(turn: dict, domain: str) -> list[dict]:
    return [a for a in acts(turn, "book") if a["domain"] == domain]


def test_the_reference_of_an_earlier_booking_is_that_bookings(tmp_path: Path) -> None:
    t = chat("earlier_reference.txt", tmp_path, system=CLOCK)
    first, second = booked(t[1], "hotel")[0]["value"], booked(t[3], "hotel")[0]["value"]
    assert first != second and t[1]["internals"]["venue"] != t[3]["internals"]["venue"]
    for turn in t[4:6]:  # "the first one", "the guesthouse": the first stay, a guesthouse
        assert first in turn["system"] and second not in turn["system"]
        assert not acts(turn, "book") and not acts(turn, "offer")
        assert turn["state"]["hotel"] == t[3]["state"]["hotel"]  # nothing searched for
    assert load_db().find("hotel", t[1]["internals"]["venue"])["type"] == "guesthouse"


def test_questions_about_the_hotel_after_a_taxi_book_no_taxi(tmp_path: Path) -> None:
    t = chat("taxi_then_hotel.txt", tmp_path, system=CLOCK)
    hotel = load_db().find("hotel", t[1]["internals"]["venue"])
    taxi = booked(t[2], "taxi")
    assert taxi and t[2]["state"]["taxi"]["departure"] == hotel["name"]
    car, phone = taxi[0]["value"], acts(t[2], "inform", "phone")[0]["value"]
    for turn in t[3:5]:  # "could you tell me / what's the phone number of the hotel"
        assert not acts(turn, "book"), turn["system"]
        assert hotel["phone"] in turn["system"] and phone not in turn["system"]
        assert turn["state"]["taxi"] == t[2]["state"]["taxi"]
    # "whats the car": the taxi booked
    assert car in t[5]["system"] and not acts(t[5], "book")
    assert [b["domain"] for b in t[5]["internals"]["bookings"]] == ["hotel", "taxi"]


def test_a_count_of_trains_leaves_out_the_one_arriving_after_midnight(tmp_path: Path) -> None:
    t = chat("overnight_train.txt", tmp_path, system=CLOCK)
    state = t[1]["state"]["train"]
    assert state["arriveBy"] == "14:00"
    rows = matching(load_db(), "train", state)
    late = [r for r in load_db().query("train", {k: v for k, v in state.items() if k != "arriveBy"})
            if r["leaveAt"] == "23:39"]
    assert late and late[0]["arriveBy"] == "01:07"  # the train that is no answer
    assert len(rows) == 4 and t[1]["internals"]["db_count"]["train"] == 4
    assert re.search(r"\b4 trains\b", t[1]["system"])


def test_free_colleges_in_the_west_are_counted_and_offered_as_free(tmp_path: Path) -> None:
    t = chat("free_colleges.txt", tmp_path, system=CLOCK)
    db = load_db()
    west = db.query("attraction", {"type": "college", "area": "west"})
    free = [r for r in west if r["entrance fee"] == "free"]
    assert len(west) > len(free) > 1
    assert t[1]["internals"]["db_count"]["attraction"] == len(free)
    assert f"{len(free)} attractions" in t[1]["system"]
    offered = db.find("attraction", t[1]["internals"]["venue"])
    assert offered["entrance fee"] == "free" and offered["area"] == "west"
    # "is it free to get in?": the fee of the college offered, nothing searched again
    assert acts(t[2], "inform", "entrance fee")[0]["value"] == "free" and "free" in t[2]["system"]
    assert t[2]["internals"]["venue"] == offered["name"]


def test_do_they_take_reservations_is_answered_and_books_nothing(tmp_path: Path) -> None:
    t = chat("reservations.txt", tmp_path, system=CLOCK)
    venue = t[0]["internals"]["venue"]
    assert acts(t[1], "inform", "takesbookings")[0]["value"] == "yes"
    assert "reservations" in t[1]["system"] and venue.lower() in t[1]["system"].lower()
    assert not acts(t[1], "request") and not acts(t[1], "book") and t[1]["internals"]["venue"] == venue


def test_the_price_of_a_double_room_is_the_rooms_price(tmp_path: Path) -> None:
    t = chat("double_room.txt", tmp_path, system=CLOCK)
    row = load_db().find("hotel", t[1]["internals"]["venue"])
    assert acts(t[1], "inform", "price double")[0]["value"] == f"{row['price']['double']} pounds"
    assert f"double room costs {row['price']['double']} pounds" in t[1]["system"]
    assert "single" not in t[1]["system"]


def test_anything_cheaper_than_expensive_is_moderately_priced(tmp_path: Path) -> None:
    t = chat("cheaper.txt", tmp_path, system=CLOCK)
    assert t[1]["state"]["restaurant"] == {"pricerange": "moderate", "area": "centre"}
    db = load_db()
    assert db.find("restaurant", t[1]["internals"]["venue"])["pricerange"] == "moderate"
    count = t[1]["internals"]["db_count"]["restaurant"]
    assert count == len(db.query("restaurant", t[1]["state"]["restaurant"]))


def test_the_other_one_meets_the_area_asked_for(tmp_path: Path) -> None:
    t = chat("other_one.txt", tmp_path, system=CLOCK)
    assert t[1]["state"]["restaurant"]["area"] == "centre"
    offered = load_db().find("restaurant", t[2]["internals"]["venue"])
    assert offered["area"] == "centre" and offered["pricerange"] == "cheap"
    assert offered["name"] != t[1]["internals"]["venue"]


def test_an_earlier_or_later_train_is_the_one_just_before_or_after(tmp_path: Path) -> None:
    t = chat("facts_earlier_later.txt", tmp_path, system=CLOCK)
    rows = sorted(load_db().query("train", t[0]["state"]["train"]), key=lambda r: r["leaveAt"])
    first = acts(t[0], "offer", "trainID") or acts(t[0], "inform", "trainID")
    assert first[0]["value"] == rows[0]["trainID"]
    # nothing earlier fits "after 09:00": the same train, said to be the first; nothing else offered
    assert not acts(t[1], "offer") and "first train" in t[1]["system"]
    assert acts(t[2], "offer", "trainID")[0]["value"] == rows[1]["trainID"]
    assert rows[1]["leaveAt"] in t[2]["system"]
    assert rows[1]["arriveBy"] in t[3]["system"]  # "what time does that one arrive?"
    assert acts(t[4], "book") and t[4]["internals"]["venue"] == rows[1]["trainID"]
