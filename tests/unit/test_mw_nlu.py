"""Rule NLU of the embedded MultiWOZ system: slots, domains, requests and intents, robust to sloppy text."""

from __future__ import annotations

import pytest

from parley.engine.mwdb import load_db
from parley.engine.systems.mw.lexicon import lexicon_for
from parley.engine.systems.mw.nlu import NluContext, NluResult, parse


@pytest.fixture(scope="module")
def lex():  # type: ignore[no-untyped-def]
    return lexicon_for(load_db())


def informs(r: NluResult) -> dict[tuple[str, str], str]:
    return {(d, s): v for d, s, v in r.inform}


def test_restaurant_constraints_lower_case_unpunctuated(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("im looking for a cheap chinese restaurant in the center", NluContext(), lex)
    assert r.domain == "restaurant"
    assert informs(r) == {("restaurant", "pricerange"): "cheap", ("restaurant", "food"): "chinese",
                          ("restaurant", "area"): "centre"}


def test_misspelt_venue_name(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("can you tell me about the pizza hut citty centre", NluContext(), lex)
    assert informs(r)[("restaurant", "name")] == "pizza hut city centre"
    r = parse("I'm staying at the gonvile hotel", NluContext(), lex)
    assert informs(r)[("hotel", "name")] == "gonville hotel"


def test_common_words_are_not_names(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I want indian food in a nice place, can I ask about prices", NluContext(), lex)
    assert ("restaurant", "name") not in informs(r)
    assert informs(r)[("restaurant", "food")] == "indian"


def test_train_by_arrival_time(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("i need a train from kings cross to cambridge on saturday arriving by quarter past five pm",
              NluContext(), lex)
    assert r.domain == "train"
    assert informs(r) == {("train", "departure"): "london kings cross", ("train", "destination"): "cambridge",
                          ("train", "day"): "saturday", ("train", "arriveBy"): "17:15"}


def test_train_leave_after(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I want to leave Cambridge some time after 12:15 going to ely", NluContext(), lex)
    assert informs(r) == {("train", "departure"): "cambridge", ("train", "leaveAt"): "12:15",
                          ("train", "destination"): "ely"}


def test_hotel_with_parking_and_stars(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("a 4 star guesthouse with free parking but i don't need internet", NluContext(), lex)
    got = informs(r)
    assert got[("hotel", "stars")] == "4"
    assert got[("hotel", "type")] == "guesthouse"
    assert got[("hotel", "parking")] == "yes"
    assert got[("hotel", "internet")] == "dontcare"  # not needed is not "must not have"


def test_booking_counts_and_times(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="restaurant")
    r = parse("yes please book a table for three people at quarter past five on friday", ctx, lex)
    assert {"affirm", "book"} <= set(r.intents)
    assert informs(r) == {("restaurant", "book_people"): "3", ("restaurant", "book_time"): "17:15",
                          ("restaurant", "book_day"): "friday"}
    hotel = parse("we'll stay 3 nights from tuesday, 2 people", NluContext(active_domain="hotel"), lex)
    assert informs(hotel) == {("hotel", "book_stay"): "3", ("hotel", "book_day"): "tuesday",
                              ("hotel", "book_people"): "2"}


def test_answer_to_a_system_question(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="hotel", sys_requested=("book_people",))
    assert informs(parse("5", ctx, lex)) == {("hotel", "book_people"): "5"}
    ctx = NluContext(active_domain="restaurant", sys_requested=("area",))
    assert informs(parse("i don't care", ctx, lex)) == {("restaurant", "area"): "dontcare"}


def test_requests(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="restaurant", offered={"restaurant": "curry garden"})
    r = parse("whats the phone number and postcode", ctx, lex)
    assert set(r.requests) == {("restaurant", "phone"), ("restaurant", "postcode")}
    r = parse("how long is the trip and what's the price?", NluContext(active_domain="train"), lex)
    assert set(r.requests) == {("train", "duration"), ("train", "price")}
    r = parse("what is the entrance fee", NluContext(active_domain="attraction"), lex)
    assert r.requests == (("attraction", "entrance fee"),)


def test_correction_takes_the_later_value(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("no, I meant the north", NluContext(active_domain="restaurant"), lex)
    assert "correct" in r.intents
    assert informs(r) == {("restaurant", "area"): "north"}
    r = parse("somewhere in the south, sorry, I mean the east", NluContext(active_domain="hotel"), lex)
    assert informs(r) == {("hotel", "area"): "east"}


def test_taxi_places_and_references(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="hotel", state={"hotel": {"name": "acorn guest house"},
                                                  "restaurant": {"name": "curry garden"}})
    r = parse("I need a taxi from the hotel to the restaurant, leaving at 5pm", ctx, lex)
    assert r.domain == "taxi"
    assert informs(r) == {("taxi", "departure"): "acorn guest house", ("taxi", "destination"): "curry garden",
                          ("taxi", "leaveAt"): "17:00"}


def test_same_day_copies_from_other_domain(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="restaurant", state={"train": {"day": "sunday"}})
    assert informs(parse("book it for the same day", ctx, lex))[("restaurant", "book_day")] == "sunday"


@pytest.mark.parametrize(("text", "intent"), [
    ("thanks a lot", "thanks"), ("no that's all, goodbye", "bye"), ("hello there", "greet"),
    ("yes please", "affirm"), ("can you find another one", "reqalts"), ("no need to book, thanks", "nobook"),
])
def test_intents(lex, text: str, intent: str) -> None:  # type: ignore[no-untyped-def]
    assert intent in parse(text, NluContext(active_domain="restaurant"), lex).intents


@pytest.mark.parametrize("text", ["", "   ", "???", "😀😀", "x" * 10_000, "\x00\x01", "1 2 3 4 5 6 7 8 9"])
def test_odd_input(lex, text: str) -> None:  # type: ignore[no-untyped-def]
    r = parse(text, NluContext(), lex)
    assert isinstance(r, NluResult)


def test_taxi_between_the_two_places(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="attraction", state={"hotel": {"name": "acorn guest house"},
                                                       "attraction": {"name": "castle galleries"}})
    got = informs(parse("I also need a taxi to commute between the two places", ctx, lex))
    assert got == {("taxi", "departure"): "castle galleries", ("taxi", "destination"): "acorn guest house"}


def test_stay_as_a_day_range_and_references(lex) -> None:  # type: ignore[no-untyped-def]
    got = informs(parse("book for 6 people from tuesday through thursday", NluContext(active_domain="hotel"),
                        lex))
    assert got == {("hotel", "book_people"): "6", ("hotel", "book_day"): "tuesday",
                   ("hotel", "book_stay"): "2"}
    ctx = NluContext(active_domain="train", state={"hotel": {"book_day": "tuesday"}})
    r = parse("I want the train the same day as the hotel, leaving broxbourne", ctx, lex)
    assert r.domain == "train"
    assert informs(r) == {("train", "day"): "tuesday", ("train", "departure"): "broxbourne"}
    assert informs(parse("just for me", NluContext(active_domain="restaurant"), lex)) == {
        ("restaurant", "book_people"): "1"}


@pytest.mark.parametrize(("text", "domain", "expected"), [
    ("I do not have a specific area or price", "hotel",
     {("hotel", "area"): "dontcare", ("hotel", "pricerange"): "dontcare"}),
    ("it will be me and a friend", "hotel", {("hotel", "book_people"): "2"}),
    ("I will be departing from Cambridge and arriving in Ely", "train",
     {("train", "departure"): "cambridge", ("train", "destination"): "ely"}),
    ("are there any steakhouses in the centre", "restaurant",
     {("restaurant", "food"): "steakhouse", ("restaurant", "area"): "centre"}),
    ("somewhere with a modest price range", "restaurant", {("restaurant", "pricerange"): "moderate"}),
])
def test_more_phrasings(lex, text: str, domain: str, expected: dict) -> None:  # type: ignore[no-untyped-def]
    assert informs(parse(text, NluContext(active_domain=domain), lex)) == expected


def test_amenity_negation(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="hotel")
    assert informs(parse("a guesthouse that doesn't have free parking", ctx,
                         lex))[("hotel", "parking")] == "no"
    assert informs(parse("no, I just need free parking", ctx, lex))[("hotel", "parking")] == "yes"
    assert informs(parse("it does nt matter", NluContext(active_domain="hotel", sys_requested=("area",)),
                         lex)) == {
        ("hotel", "area"): "dontcare"}


def test_remarks_about_hunger_or_tiredness_ask_for_nothing(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="train", state={"train": {"destination": "ely", "day": "friday"}})
    r = parse("Right, 4 seats. I need to eat something soon, I'm so hungry.", ctx, lex)
    assert r.domain == "train" and informs(r) == {("train", "book_people"): "4"}
    r = parse("My legs are jelly, long haul from Boston. We leave on Sunday. Honestly I'm famished.", ctx,
              lex)
    assert informs(r) == {("train", "day"): "sunday"}
    hotel = NluContext(active_domain="hotel")
    r = parse("I haven't slept properly in a day, so put us down for 2 people and 3 nights", hotel, lex)
    assert informs(r) == {("hotel", "book_people"): "2", ("hotel", "book_stay"): "3"}
    # hunger with a request is a request; alone at the start, the only one there is
    r = parse("I'm starving, is there a cheap place to eat in the north?", NluContext(), lex)
    assert r.domain == "restaurant" and informs(r)[("restaurant", "area")] == "north"
    assert parse("I'm starving and need some food", NluContext(), lex).domain == "restaurant"


def test_grudging_whatever_before_yes_is_a_yes(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="hotel", sys_requested=("area",))
    r = parse("Whatever, yes.", ctx, lex)
    assert "affirm" in r.intents and not r.inform
    assert informs(parse("whatever", ctx, lex)) == {("hotel", "area"): "dontcare"}


def test_station_after_train_to_and_stay_for_people(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I need a train to London King Cross.", NluContext(), lex)
    assert informs(r) == {("train", "destination"): "london kings cross"}
    r = parse("Please book a stay for 6 people from Monday", NluContext(active_domain="hotel"), lex)
    assert informs(r) == {("hotel", "book_people"): "6", ("hotel", "book_day"): "monday"}


def test_a_new_request_while_the_taxi_asks_for_its_trip(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="taxi", sys_requested=("departure", "destination"))
    assert parse("we also want a place to stay in the west", ctx, lex).domain == "hotel"
    r = parse("from the hotel to a restaurant in town", ctx, lex)  # still the trip's ends
    assert r.domain == "taxi"


@pytest.mark.parametrize(("text", "people"), [
    ("I'll be coming with four of my friends", "5"), ("three other people will be with me", "4"),
    ("me and 2 mates", "3"), ("my wife and I", "2"), ("it will only be me", "1"),
    ("we're a group of 6", "6"),
])
def test_party_size_phrasings(lex, text: str, people: str) -> None:  # type: ignore[no-untyped-def]
    r = parse(f"book a table, {text}", NluContext(active_domain="restaurant"), lex)
    assert informs(r)[("restaurant", "book_people")] == people


def test_area_words_and_landmarks(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("somewhere pricey to eat on the westside", NluContext(), lex)
    assert informs(r)[("restaurant", "area")] == "west"
    row = load_db().find("attraction", "kettle's yard")
    r = parse("I'd like a guesthouse within walking distance of Kettle's Yard", NluContext(), lex)
    assert r.domain == "hotel" and informs(r)[("hotel", "area")] == row["area"]
    ctx = NluContext(active_domain="restaurant")
    assert informs(parse("any chinese places close to the Fitzwilliam Museum?", ctx, lex))[
        ("restaurant", "area")] == load_db().find("attraction", "the fitzwilliam museum")["area"]


@pytest.mark.parametrize("text", ["honestly I don't have an area preference", "no real area preference",
                                  "I'm not too worried about the area", "I don't much care where it is"])
def test_no_preference_phrasings(lex, text: str) -> None:  # type: ignore[no-untyped-def]
    assert informs(parse(text, NluContext(active_domain="hotel"), lex)) == {("hotel", "area"): "dontcare"}


def test_somewhere_to_park_for_free_is_parking(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("a cheap guesthouse, somewhere I can park for free", NluContext(), lex)
    assert informs(r)[("hotel", "parking")] == "yes"


def test_booking_for_n_before_a_new_request(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="train", offer_domain="train")
    r = parse("ok reserve it for 3, and I'm also after a museum in the centre", ctx, lex)
    assert r.domain == "attraction"
    assert informs(r) == {("train", "book_people"): "3", ("attraction", "type"): "museum",
                          ("attraction", "area"): "centre"}


def test_dont_care_what_kind_of_food_is_no_question(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I don't really care what type of food they do, just somewhere cheap", NluContext(), lex)
    assert informs(r) == {("restaurant", "food"): "dontcare", ("restaurant", "pricerange"): "cheap"}
    assert not r.requests


def test_spots_are_no_sports_and_whatever_the_case_no_dont_care(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("any fun entertainment spots in the south?", NluContext(), lex)
    assert informs(r) == {("attraction", "type"): "entertainment", ("attraction", "area"): "south"}
    ctx = NluContext(active_domain="attraction", sys_requested=("type",))
    assert not parse("whatever the case, I need their postcode", ctx, lex).inform


def test_train_ends_phrasings(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("we need to be at stevenage by 10:15 on monday", NluContext(active_domain="train"), lex)
    assert informs(r)[("train", "destination")] == "stevenage"
    r = parse("I'll be at stevenage and want to leave after 10:15", NluContext(active_domain="train"), lex)
    assert ("train", "destination") not in informs(r)
    r = parse("is there a train departing ely on friday?", NluContext(), lex)
    assert informs(r)[("train", "departure")] == "ely"


def test_not_too_cheap_and_park_as_a_verb(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("a restaurant in the east, but not too cheap please", NluContext(), lex)
    assert informs(r)[("restaurant", "pricerange")] == "moderate"
    r = parse("we're driving, so a guesthouse where we can park for free", NluContext(), lex)
    assert informs(r) == {("hotel", "type"): "guesthouse", ("hotel", "parking"): "yes"}


def test_stay_phrasings(lex) -> None:  # type: ignore[no-untyped-def]
    hotel = NluContext(active_domain="hotel")
    r = parse("book us in friday night thru sunday", hotel, lex)
    assert informs(r) == {("hotel", "book_day"): "friday", ("hotel", "book_stay"): "2"}
    assert informs(parse("only a single night please", hotel, lex)) == {("hotel", "book_stay"): "1"}
    r = parse("we're in town for a night out, anything fun in the centre?", NluContext(), lex)
    assert ("hotel", "book_stay") not in informs(r)


def test_more_price_area_and_dont_care_phrasings(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("a gallery in the heart of the city", NluContext(), lex)
    assert informs(r) == {("attraction", "type"): "museum", ("attraction", "area"): "centre"}
    r = parse("any guesthouses around the middle of the city that aren't expensive?", NluContext(), lex)
    assert informs(r) == {("hotel", "type"): "guesthouse", ("hotel", "area"): "centre",
                          ("hotel", "pricerange"): "cheap"}
    hotel = NluContext(active_domain="hotel")
    assert informs(parse("the price isn't really important", hotel, lex)) == {
        ("hotel", "pricerange"): "dontcare"}
    assert informs(parse("either part of town is fine", hotel, lex)) == {("hotel", "area"): "dontcare"}
    assert not parse("are there any of those in the west part too?", hotel, lex).inform.count(
        ("hotel", "area", "dontcare"))
    assert not parse("I'm open to suggestions", hotel, lex).inform


def test_a_negation_stays_in_its_clause(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("one that doesn't have free parking but has wifi", NluContext(active_domain="hotel"), lex)
    assert informs(r) == {("hotel", "parking"): "no", ("hotel", "internet"): "yes"}
    r = parse("the area doesn't matter, I'd prefer free parking though", NluContext(active_domain="hotel"),
              lex)
    assert informs(r) == {("hotel", "area"): "dontcare", ("hotel", "parking"): "yes"}


def test_a_weekday_night_is_no_hotel_and_a_stays_day_is_the_hotels(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("can I get a table for 3 on friday night?", NluContext(active_domain="restaurant"), lex)
    assert r.domain == "restaurant" and informs(r)[("restaurant", "book_day")] == "friday"
    r = parse("we're staying 2 nights starting tuesday, and I need a train to ely", NluContext(
        active_domain="hotel"), lex)
    assert informs(r)[("hotel", "book_day")] == "tuesday" and ("train", "day") not in informs(r)


def test_taxi_pick_up_times(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="taxi", state={"hotel": {"name": "acorn guest house"},
                                                  "restaurant": {"name": "curry garden"}})
    r = parse("I want to leave the hotel for the restaurant by 13:00", ctx, lex)
    assert r.domain == "taxi" and informs(r) == {("taxi", "departure"): "acorn guest house",
                                                 ("taxi", "destination"): "curry garden",
                                                 ("taxi", "leaveAt"): "13:00"}
    r = parse("could the cab be outside the hotel by 10:15?", ctx, lex)
    assert informs(r)[("taxi", "leaveAt")] == "10:15"
    assert informs(parse("I need it by 11:45 please", ctx, lex)) == {("taxi", "leaveAt"): "11:45"}
    r = parse("pick me up at the restaurant no later than 19:00", ctx, lex)
    assert informs(r)[("taxi", "leaveAt")] == "19:00"
    r = parse("it must arrive at the restaurant by 18:00", ctx, lex)
    assert informs(r)[("taxi", "arriveBy")] == "18:00"


def test_the_place_is_a_phrase_and_picked_up_a_taxi(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I need the place to be a guesthouse with free wifi", NluContext(active_domain="hotel"), lex)
    assert ("attraction", "name") not in informs(r) and r.domain == "hotel"
    r = parse("I'm looking for a nightclub called the place", NluContext(), lex)
    assert informs(r)[("attraction", "name")] == "the place"
    r = parse("I'd like to be picked up from the gonville hotel", NluContext(), lex)
    assert r.domain == "taxi" and informs(r) == {("taxi", "departure"): "gonville hotel"}


def test_the_restaurant_already_booked_is_a_reference(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="train", state={"restaurant": {"book_day": "friday"}})
    r = parse("a train on the same day that I booked the restaurant, arriving by 11:00", ctx, lex)
    assert r.domain == "train" and informs(r) == {("train", "day"): "friday", ("train", "arriveBy"): "11:00"}
    assert parse("what is the phone number of the restaurant?", ctx, lex).domain == "restaurant"


def test_a_regular_hotel_is_type_hotel(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("guesthouses aren't my thing, a regular hotel in the west please", NluContext(), lex)
    assert informs(r)[("hotel", "type")] == "hotel"
    r = parse("it should be a hotel type, 3 stars", NluContext(active_domain="hotel"), lex)
    assert informs(r)[("hotel", "type")] == "hotel"
    r = parse("what type of hotel is it?", NluContext(active_domain="hotel"), lex)
    assert ("hotel", "type") not in informs(r)


def test_booking_details_before_a_new_domain_stay_with_the_old(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="hotel", offered={"hotel": "acorn guest house"}, offer_domain="hotel")
    r = parse("book it for 3 people, 2 nights from friday. I'll also need a train to ely", ctx, lex)
    assert r.domain == "train"
    assert informs(r) == {("hotel", "book_people"): "3", ("hotel", "book_stay"): "2",
                          ("hotel", "book_day"): "friday", ("train", "destination"): "ely"}
    ctx = NluContext(active_domain="restaurant")
    r = parse("on sunday, a table for 2. Then a train to ely after 21:00", ctx, lex)
    assert informs(r) == {("restaurant", "book_day"): "sunday", ("restaurant", "book_people"): "2",
                          ("train", "destination"): "ely", ("train", "leaveAt"): "21:00"}


def test_the_same_day_my_train_arrives_is_a_reference(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="restaurant", state={"train": {"day": "tuesday"}})
    r = parse("book a table on the same day my train arrives, 3 people at 19:00", ctx, lex)
    assert r.domain == "restaurant" and informs(r) == {
        ("restaurant", "book_day"): "tuesday", ("restaurant", "book_people"): "3",
        ("restaurant", "book_time"): "19:00"}


def test_a_value_ruled_out_gives_way_to_the_one_named(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("sorry, I meant the west, not the south, for the hotel", NluContext(), lex)
    assert informs(r)[("hotel", "area")] == "west"
    r = parse("a moderate restaurant rather than an expensive one, north instead of centre", NluContext(),
              lex)
    assert informs(r)[("restaurant", "pricerange")] == "moderate"
    assert informs(r)[("restaurant", "area")] == "north"
    r = parse("not in the south please, a cheap hotel", NluContext(), lex)  # nothing else named: kept
    assert informs(r)[("hotel", "area")] == "south"


def test_asking_for_an_actual_hotel_sets_the_type(lex) -> None:  # type: ignore[no-untyped-def]
    for text in ("somewhere to sleep, and I'd like it to be a hotel with 3 stars",
                 "a place to stay that is a hotel, please", "I need a hotel, not a guestroom",
                 "we will book one of the hotels for 2 nights"):
        assert informs(parse(text, NluContext(), lex)).get(("hotel", "type")) == "hotel", text


def test_a_phrase_is_not_a_fuzzy_venue_name(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("my kids want a ride on a boat this afternoon", NluContext(), lex)
    assert ("restaurant", "name") not in informs(r)
    r = parse("book the warkwoth house for me", NluContext(), lex)  # a real misspelling still found
    assert informs(r)[("hotel", "name")] == "warkworth house"


def test_hours_written_as_a_four_digit_clock(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("a train from ely to cambridge leaving at 1415hrs on sunday", NluContext(), lex)
    assert informs(r)[("train", "leaveAt")] == "14:15"


def test_a_train_ticket_for_the_speaker_alone(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="train", state={"train": {"departure": "ely", "destination": "cambridge"}})
    assert informs(parse("great, please book it for me", ctx, lex))[("train", "book_people")] == "1"
    assert informs(parse("book it for me and my 2 sons", ctx, lex))[("train", "book_people")] == "3"
    assert ("train", "book_people") not in informs(parse("book me a table for later", ctx, lex))


def test_a_taxi_from_the_train_station(lex) -> None:  # type: ignore[no-untyped-def]
    asked = NluContext(active_domain="taxi", sys_requested=("departure", "destination"))
    r = parse("from the train station to trinity college", asked, lex)
    assert r.domain == "taxi"
    assert informs(r) == {("taxi", "departure"): "cambridge", ("taxi", "destination"): "trinity college"}
    r = parse("a taxi from trinity college to ely train station", NluContext(), lex)
    assert informs(r)[("taxi", "destination")] == "ely"


def test_near_it_takes_the_area_of_the_venue_talked_about(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="attraction", state={"attraction": {"area": "west", "type": "college"}})
    r = parse("lovely, I also want a cheap restaurant near it", ctx, lex)
    assert informs(r)[("restaurant", "area")] == "west"


def test_short_day_names(lex) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="restaurant", state={"restaurant": {"food": "thai"}})
    wed = parse("a table for 6 at 20:15 on wed", ctx, lex)
    assert informs(wed)[("restaurant", "book_day")] == "wednesday"
    assert informs(parse("for 2 this sat", ctx, lex))[("restaurant", "book_day")] == "saturday"
    assert ("restaurant", "book_day") not in informs(parse("we sat outside last time, 2 people", ctx, lex))
