"""The fact audit (``engine.scoring.facts``) finds wrong facts in a reply's text: every case below is a reply
written by hand with one wrong fact (and its true twin, which must pass), whatever made it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parley.engine.scoring.facts import Auditor, AuditTurn, Report, turns_from_json
from tests.unit.test_mw_scripts import SCRIPTS, chat

AUDIT = Auditor()
LLS = {"departure": "london liverpool street", "destination": "cambridge", "day": "monday"}


def turn(user: str, system: str, state: dict[str, Any] | None = None, acts: tuple[dict[str, Any], ...] = (),
         **internals: Any) -> AuditTurn:
    return AuditTurn(user, system, state or {}, acts, internals)


def act(name: str, domain: str, slot: str | None = None, value: str | None = None) -> dict[str, Any]:
    return {"act": name, "domain": domain, "slot": slot, "value": value}


def kinds(report: Report) -> list[str]:
    return [f.kind for f in report.findings]


ONE_REPLY = [
    # (kind, user, wrong reply, true reply, state)
    ("phone", "phone number of pizza hut city centre?",
     "The phone number of Pizza Hut City Centre is 01223000000.",
     "The phone number of Pizza Hut City Centre is 01223323737.", {}),
    ("postcode", "postcode please", "Pizza Hut City Centre's postcode is CB41JY.",
     "Pizza Hut City Centre's postcode is CB21AB.", {}),
    ("address", "where is it?", "The address of Gonville Hotel is 154 chesterton road.",
     "The address of Gonville Hotel is Gonville Place.", {}),
    ("area", "is it in the north?", "No, Da Vinci Pizzeria is in the east.",
     "Yes, Da Vinci Pizzeria is in the north.", {}),
    ("pricerange", "tell me about it", "Acorn Guest House is a cheap guesthouse in the north.",
     "Acorn Guest House is a moderate guesthouse in the north.", {}),
    ("stars", "a hotel in the centre", "How about Gonville Hotel? It's a 4-star hotel in the centre.",
     "How about Gonville Hotel? It's a 3-star hotel in the centre.", {}),
    ("food", "what food?", "Da Vinci Pizzeria is a cheap indian restaurant in the north.",
     "Da Vinci Pizzeria is a cheap italian restaurant in the north.", {}),
    ("type", "what is it?", "Acorn Guest House is a moderate hotel in the north.",
     "Acorn Guest House is a moderate guesthouse in the north.", {}),
    ("entrance fee", "entrance fee?", "The entrance fee of Churchill College is 5 pounds.",
     "The entrance fee of Churchill College is free.", {}),
    ("room price", "how much is a double room?", "A double room at Gonville Hotel costs 79 pounds a night.",
     "A double room at Gonville Hotel costs 95 pounds a night.", {}),
    ("leaveAt", "when does it leave?", "TR3673 leaves at 07:49 and arrives at 09:07.",
     "TR3673 leaves at 07:39 and arrives at 09:07.", {"train": LLS}),
    ("duration", "how long?", "TR3673's journey time is 58 minutes.", "TR3673's journey time is 88 minutes.",
     {"train": LLS}),
    ("price", "price?", "The price of TR3673 is 23.60 pounds.", "The price of TR3673 is 16.60 pounds.",
     {"train": LLS}),
    ("name", "a train please", "TR0000 leaves at 07:39 and arrives at 09:07.",
     "TR3673 leaves at 07:39 and arrives at 09:07.", {"train": LLS}),
    ("count", "I need to arrive by 14:00", "I have 5 trains that fit.", "I have 4 trains that fit.",
     {"train": {**LLS, "arriveBy": "14:00"}}),
    ("count", "any in the west that are free?", "I found 5 attractions for you.",
     "I found 3 attractions for you.", {"attraction": {"type": "college", "area": "west"}}),
    ("count", "a cheap restaurant in the centre",
     "Sorry, I couldn't find any cheap restaurants in the centre.",
     "Sorry, I couldn't find any cheap lebanese restaurants in the north.",
     {"restaurant": {"pricerange": "cheap", "area": "centre"}}),
    ("count", "a cheap singaporean restaurant", "Sorry, I couldn't find any restaurants.",
     "Sorry, I couldn't find any cheap singaporean restaurants.",
     {"restaurant": {"pricerange": "cheap", "food": "singaporean"}}),
    ("count", "cheap lebanese in the north", "Sorry, there are no cheap lebanese restaurants in the north. "
     "If you drop the area, there are 9 (for example centre).",
     "Sorry, there are no cheap lebanese restaurants in the north. If you drop the area, there are 0.",
     {"restaurant": {"pricerange": "cheap", "area": "north", "food": "lebanese"}}),
]


@pytest.mark.parametrize(("kind", "user", "wrong", "true", "state"), ONE_REPLY,
                         ids=[c[2][:40] for c in ONE_REPLY])
def test_a_wrong_fact_is_found_and_its_true_twin_passes(kind: str, user: str, wrong: str, true: str,
                                                        state: dict[str, Any]) -> None:
    bad = AUDIT.dialogue([turn(user, wrong, state)])
    assert kind in kinds(bad), bad.findings
    good = AUDIT.dialogue([turn(user, true, state)])
    assert good.findings == [] and good.facts >= 1


def two_stays(ask: str, answer: str) -> Report:
    return AUDIT.dialogue([
        turn("a cheap guesthouse in the north, 2 people 3 nights from friday",
             "Your room at City Centre North B And B is reserved from friday for 3 nights, 2 guests. "
             "Reference: 7FLPSJ4Y.", {"hotel": {"book_people": "2", "book_stay": "3", "book_day": "friday"}},
             (act("book", "hotel", "reference", "7FLPSJ4Y"),), venue="city centre north b and b"),
        turn("an expensive hotel in the centre, 2 people 2 nights from monday",
             "Done! Gonville Hotel is booked for 2 people, 2 nights from monday. The reference number is "
             "ZSPLWQWT.", {"hotel": {"book_people": "2", "book_stay": "2", "book_day": "monday"}},
             (act("book", "hotel", "reference", "ZSPLWQWT"),), venue="gonville hotel"),
        turn(ask, answer),
    ])


def test_a_reference_must_be_the_one_of_the_booking_asked_about() -> None:
    assert kinds(two_stays("what was the reference for the first one again?",
                           "The reference number is ZSPLWQWT.")) == ["reference"]
    assert kinds(two_stays("and the one for the guesthouse?", "The reference number is ZSPLWQWT.")) \
        == ["reference"]
    assert kinds(two_stays("what's the reference for the guesthouse?",
                           "For Gonville Hotel, the reference number is ZSPLWQWT.")) == ["reference"]
    assert not two_stays("what's the reference for the guesthouse?",
                         "For City Centre North B And B, the reference number is 7FLPSJ4Y.").findings
    assert not two_stays("what was the reference for the first one?",
                         "The reference number is 7FLPSJ4Y.").findings


def test_a_booking_must_be_made_and_its_details_said_right() -> None:
    made = (act("book", "restaurant", "reference", "QX7YH2PB"),)
    state = {"restaurant": {"book_people": "2", "book_day": "friday", "book_time": "19:30"}}
    reply = "I've reserved a table for {n} at Pizza Hut City Centre on friday at 19:30. Reference: QX7YH2PB."
    ok = AUDIT.dialogue([turn("book it for 2 at 19:30 friday", reply.format(n=2), state, made)])
    assert not ok.findings
    assert kinds(AUDIT.dialogue([turn("book it for 2 at 19:30 friday", reply.format(n=3), state, made)])) \
        == ["book_people"]
    nothing = AUDIT.dialogue([turn("book it for 2 at 19:30 friday", reply.format(n=2), state, ())])
    assert kinds(nothing) == [], "without acts the audit cannot know; with acts it must find them"
    other = (act("book", "restaurant", "reference", "AAAAAAA2"),)
    assert kinds(AUDIT.dialogue([turn("book it", reply.format(n=2), state, other)])) == ["reference"]


TAXI_BOOKED = turn("a taxi from the guesthouse to the museum at 10:00",
                   "Your taxi is booked: look out for a black tesla. The driver's number is 07832571886.",
                   {"taxi": {"departure": "acorn guest house", "destination": "churchill college"}},
                   (act("book", "taxi", "car type", "black tesla"),))
HOTEL = turn("the acorn guest house please", "Acorn Guest House is a moderate guesthouse in the north.")


def test_a_question_about_the_hotel_after_a_taxi_is_answered_about_the_hotel() -> None:
    rebooked = turn("could you tell me the phone number of the hotel?",
                    "Booked! A grey volvo will pick you up; you can reach the driver on 07800927059.",
                    {"taxi": {"departure": "acorn guest house", "destination": "acorn guest house"}},
                    (act("book", "taxi", "car type", "grey volvo"),))
    assert "booking" in kinds(AUDIT.dialogue([HOTEL, TAXI_BOOKED, rebooked]))
    taxi_phone = turn("what's the phone number of the hotel", "Phone number: 07832571886.")
    assert kinds(AUDIT.dialogue([HOTEL, TAXI_BOOKED, taxi_phone])) == ["phone"]
    hotel_phone = turn("what's the phone number of the hotel", "Phone number: 01223353888.")
    assert not AUDIT.dialogue([HOTEL, TAXI_BOOKED, hotel_phone]).findings
    assert kinds(AUDIT.dialogue([HOTEL, TAXI_BOOKED, turn("whats the car", "Your taxi is a red bmw.")])) \
        == ["car"]
    car = turn("whats the car", "Your taxi is a black tesla.")
    assert not AUDIT.dialogue([HOTEL, TAXI_BOOKED, car]).findings
    number = turn("and the driver's number?", "The driver's number is 07832571886.")
    assert not AUDIT.dialogue([HOTEL, TAXI_BOOKED, number]).findings


def test_an_offer_must_meet_the_constraints_in_force() -> None:
    state = {"restaurant": {"pricerange": "cheap", "area": "centre"}}
    north = turn("the other one", "How about Da Vinci Pizzeria? It serves italian food in the north.", state,
                 (act("offer", "restaurant", "name", "da vinci pizzeria"),))
    assert kinds(AUDIT.dialogue([north])) == ["offer"]
    centre = turn("the other one", "How about Pizza Hut City Centre? It serves italian food in the centre.",
                  state, (act("offer", "restaurant", "name", "pizza hut city centre"),))
    assert not AUDIT.dialogue([centre]).findings
    named = turn("what about da vinci pizzeria?", north.system, state, north.acts)
    assert not AUDIT.dialogue([named]).findings  # the user named it


def test_facts_are_counted_and_reported_per_thousand_replies() -> None:
    report = AUDIT.dialogue([HOTEL, TAXI_BOOKED, turn("whats the car", "Your taxi is a red bmw.")])
    assert report.replies == 3 and report.facts >= 4 and len(report.findings) == 1
    assert report.per_1000 == pytest.approx(1000 / 3)
    row = report.to_json()
    assert row["wrong"] == 1 and row["by_kind"] == {"car": 1} and row["findings"][0]["truth"] == "black tesla"


def test_parleys_own_scripted_dialogues_state_no_wrong_fact(tmp_path: Path) -> None:
    """Every multiwoz script of the suite — the cross-domain ``facts_*.txt`` with corrections and questions
    about earlier bookings among them — audited reply by reply: no wrong fact."""
    scripts = sorted(p.name for p in SCRIPTS.glob("*.txt") if not p.name.startswith("sktod"))
    assert sum(name.startswith("facts_") for name in scripts) >= 5
    total = Report()
    for name in scripts:
        total.add(AUDIT.dialogue(turns_from_json(chat(name, tmp_path, system="multiwoz:clock=2026-11-26")),
                                 name=name))
    assert total.replies >= 150 and total.facts >= 2 * total.replies
    assert [(f.dialogue, f.turn, f.kind, f.said, f.truth) for f in total.findings] == []


KOREAN_NORTH = {"restaurant": {"food": "korean", "area": "north"}}
CHEAP_SOUTH_HOTEL = {"hotel": {"area": "south", "pricerange": "cheap", "type": "hotel"}}
RELAXED = [
    # (kind, wrong reply, true reply, state): the one venue left when a constraint is dropped, worded by
    # the dropped slot
    ("area", "Sorry, there are no korean restaurants in the north. I do have one in the south instead.",
     "Sorry, there are no korean restaurants in the north. I do have one in the centre instead.",
     KOREAN_NORTH),
    ("area", "There are no korean restaurants in the north. I have one in the west if you like.",
     "There are no korean restaurants in the north. I have one in the centre if you like.", KOREAN_NORTH),
    ("pricerange", "I'm afraid there are no cheap hotels in the south. I do have one in the moderate price "
     "range instead.", "I'm afraid there are no cheap hotels in the south. I do have one in the expensive "
     "price range instead.", CHEAP_SOUTH_HOTEL),
    ("type", "I'm afraid there are no cheap hotels in the south. I do have a hotel instead.",
     "I'm afraid there are no cheap hotels in the south. I do have a guesthouse instead.", CHEAP_SOUTH_HOTEL),
    ("count", "Sorry, there are no korean restaurants in the north. I do have one serving korean food "
     "instead.", "Sorry, there are no korean restaurants in the north. I do have one in the centre instead.",
     KOREAN_NORTH),
]


@pytest.mark.parametrize(("kind", "wrong", "true", "state"), RELAXED, ids=[c[1][-45:] for c in RELAXED])
def test_the_one_venue_left_by_a_dropped_constraint_is_checked(kind: str, wrong: str, true: str,
                                                               state: dict[str, Any]) -> None:
    bad = AUDIT.dialogue([turn("anything?", wrong, state)])
    assert kind in kinds(bad), bad.findings
    good = AUDIT.dialogue([turn("anything?", true, state)])
    assert good.findings == [] and good.facts >= 2, (good.findings, good.facts)
