"""Whole dialogues through the embedded ``multiwoz`` system: DST accumulation and policy decisions."""

from __future__ import annotations

from typing import Any

from parley.engine.systems import build_system
from parley.engine.systems.multiwoz import Decision, MultiwozSystem
from parley.engine.types import DialogueSystem, Message, SystemTurn


def talk(bot: MultiwozSystem, *users: str) -> list[SystemTurn]:
    history: tuple[Message, ...] = ()
    turns = []
    for u in users:
        history += (Message("user", u),)
        turn = bot.respond(history)
        turns.append(turn)
        history += (Message("system", turn.text),)
    return turns


def acts(turn: SystemTurn, act: str, domain: str | None = None) -> list[dict[str, Any]]:
    return [a for a in turn.acts if a["act"] == act and (domain is None or a["domain"] == domain)]


def test_registered_and_protocol() -> None:
    bot = build_system("multiwoz:seed=3")
    assert isinstance(bot, MultiwozSystem) and isinstance(bot, DialogueSystem)
    assert bot.seed == 3


def test_restaurant_search_and_booking() -> None:
    bot = MultiwozSystem(seed=1)
    t = talk(bot, "hi, I'm looking for a cheap restaurant in the centre", "chinese food please",
             "yes book it for 3 people on friday at 18:30", "what's the phone number?", "thanks, bye")
    assert t[0].state == {"restaurant": {"pricerange": "cheap", "area": "centre"}}
    assert t[0].internals["db_count"]["restaurant"] > 1
    assert acts(t[1], "offer", "restaurant")
    offered = t[1].internals["offered"]["restaurant"]
    row = bot.db.find("restaurant", offered)
    assert row and row["food"] == "chinese" and row["area"] == "centre" and row["pricerange"] == "cheap"
    # the state holds what the user said; the venue booked is the one offered (internals)
    assert t[2].state["restaurant"] == {"pricerange": "cheap", "area": "centre", "food": "chinese",
                                        "book_people": "3", "book_day": "friday", "book_time": "18:30"}
    assert t[2].internals["venue"] == offered
    booked = acts(t[2], "book", "restaurant")
    assert booked and len(booked[0]["value"]) == 8
    assert booked[0]["value"] in t[2].text
    assert acts(t[3], "inform", "restaurant")[0]["value"] == row["phone"]
    assert row["phone"] in t[3].text
    assert acts(t[4], "bye")


def test_booking_asks_for_missing_details() -> None:
    bot = MultiwozSystem(seed=1)
    t = talk(bot, "book me a table at the curry garden", "on sunday", "4 people at 7pm")
    assert {a["slot"] for a in acts(t[0], "request", "restaurant")} == {
        "book_day", "book_time", "book_people"}
    assert {a["slot"] for a in acts(t[1], "request", "restaurant")} == {"book_time", "book_people"}
    assert acts(t[2], "book", "restaurant")
    assert t[2].state["restaurant"]["book_time"] == "19:00"


def test_train_by_arrival_time() -> None:
    bot = MultiwozSystem(seed=2)
    t = talk(bot, "I need a train to cambridge", "from stevenage on tuesday", "I have to arrive by 10:30",
             "yes, two tickets please", "how long is the journey?")
    assert {a["slot"] for a in acts(t[0], "request", "train")} >= {"departure"}
    assert t[2].state["train"] == {"destination": "cambridge", "departure": "stevenage", "day": "tuesday",
                                   "arriveBy": "10:30"}
    offer = acts(t[2], "offer", "train")[0]["value"]
    row = bot.db.find("train", offer)
    assert row and row["arriveBy"] <= "10:30" and row["departure"] == "stevenage" and row["day"] == "tuesday"
    # the latest train that still arrives in time
    same = bot.db.query("train", t[2].state["train"])
    assert row["arriveBy"] == max(r["arriveBy"] for r in same)
    assert acts(t[3], "book", "train") and t[3].state["train"]["book_people"] == "2"
    assert acts(t[4], "inform", "train")[0]["value"] == row["duration"]


def test_hotel_with_parking() -> None:
    bot = MultiwozSystem(seed=4)
    t = talk(bot, "I need a place to stay in the north with free parking", "a guesthouse with 4 stars please",
             "what's the address", "book it for 2 people for 3 nights from monday")
    assert t[0].state["hotel"] == {"area": "north", "parking": "yes"}
    assert t[1].state["hotel"] == {"area": "north", "parking": "yes", "type": "guesthouse", "stars": "4"}
    name = t[1].internals["offered"]["hotel"]
    row = bot.db.find("hotel", name)
    assert row and row["parking"] == "yes" and row["area"] == "north" and row["stars"] == "4"
    assert acts(t[2], "inform", "hotel")[0]["value"] == row["address"]
    assert acts(t[3], "book", "hotel")
    assert t[3].internals["venue"] == name and t[3].state["hotel"]["book_stay"] == "3"
    assert "name" not in t[3].state["hotel"]  # offered by the system, never named by the user


def test_correction() -> None:
    bot = MultiwozSystem(seed=5)
    t = talk(bot, "find me an italian restaurant in the north", "no, I meant the centre")
    assert t[0].state["restaurant"]["area"] == "north"
    assert t[1].state["restaurant"] == {"food": "italian", "area": "centre"}
    offered = t[1].internals["offered"]["restaurant"]
    assert bot.db.find("restaurant", offered)["area"] == "centre"  # type: ignore[index]


def test_no_match_relaxes_a_constraint() -> None:
    bot = MultiwozSystem(seed=6)
    t = talk(bot, "I want an expensive korean restaurant in the north", "ok, any area then")
    assert t[0].internals["db_count"]["restaurant"] == 0
    assert acts(t[0], "nooffer", "restaurant")
    assert acts(t[0], "select", "restaurant")  # proposes dropping one constraint
    assert t[1].state["restaurant"]["area"] == "dontcare"
    assert acts(t[1], "offer", "restaurant")
    assert bot.db.find("restaurant", t[1].internals["offered"]["restaurant"])["food"] == "korean"  # type: ignore[index]


def test_taxi_booking_is_deterministic_per_seed() -> None:
    def car(seed: int) -> tuple[str, str]:
        t = talk(MultiwozSystem(seed=seed), "I need a taxi from the lensfield hotel to curry garden at 17:15")
        booked = acts(t[0], "book", "taxi")[0]["value"]
        phone = acts(t[0], "inform", "taxi")[0]["value"]
        return booked, phone

    assert car(1) == car(1)
    assert {car(s) for s in range(6)} != {car(1)}
    assert len(car(1)[1]) == 11


def test_booking_reference_deterministic_per_seed() -> None:
    def ref(seed: int) -> str:
        t = talk(MultiwozSystem(seed=seed), "book a table at curry garden for 2 people on monday at 18:00")
        return acts(t[0], "book", "restaurant")[0]["value"]

    assert ref(7) == ref(7)
    assert ref(7) != ref(8)
    bot = MultiwozSystem(seed=7)
    first = acts(talk(bot, "book a table at curry garden for 2 people on monday at 18:00")[0],
                 "book")[0]["value"]
    bot.reset()
    again = acts(talk(bot, "book a table at curry garden for 2 people on monday at 18:00")[0],
                 "book")[0]["value"]
    assert first == again == ref(7)


def test_hospital_and_police() -> None:
    t = talk(MultiwozSystem(), "I was robbed, where is the police station?")
    assert t[0].internals["active_domain"] == "police"
    assert "01223358966" in t[0].text
    t = talk(MultiwozSystem(), "I need the phone number of the hospital")
    assert any(a["slot"] == "phone" for a in acts(t[0], "inform", "hospital"))


def test_new_history_resets_tracker_but_keeps_seed() -> None:
    bot = MultiwozSystem(seed=9)
    talk(bot, "a cheap hotel in the east please")
    turn = bot.respond((Message("user", "I need a train to ely"),))
    assert "hotel" not in turn.state
    assert bot.seed == 9


def test_decide_and_realise_split() -> None:
    bot = MultiwozSystem(seed=1)
    d = bot.decide((Message("user", "an expensive hotel in the south"),))
    assert isinstance(d, Decision)
    assert d.active_domain == "hotel" and d.state["hotel"]["pricerange"] == "expensive"
    assert d.db_count["hotel"] >= 1
    text = bot.realise(d)
    assert isinstance(text, str) and text


def test_same_seed_same_words() -> None:
    users = ("I need a cheap restaurant", "in the south", "what's the address?")
    a = [t.text for t in talk(MultiwozSystem(seed=11), *users)]
    b = [t.text for t in talk(MultiwozSystem(seed=11), *users)]
    assert a == b


def test_never_raises_on_odd_input() -> None:
    bot = MultiwozSystem()
    for text in ["", "   ", "?!?", "☃☃ 😀", "x" * 10_000, "\x00", "book", "yes", "no", "1", "from to by at"]:
        turn = bot.respond((Message("user", text),))
        assert turn.text and "error" not in turn.internals
    assert bot.respond(()).text
    assert bot.respond((Message("system", "hello"),)).text
    for key in ("db_count", "offered", "requested", "active_domain", "nlu"):
        assert key in bot.respond((Message("user", "a hotel"),)).internals


def test_indexed_search_matches_db_query() -> None:
    from parley.engine.mwdb import load_db
    from parley.engine.systems.mw.search import Search

    db = load_db()
    search = Search(db)
    for cons in ({"departure": "cambridge", "destination": "ely", "day": "monday"},
                 {"departure": "cambridge", "destination": "ely", "day": "monday", "leaveAt": "12:15"},
                 {"departure": "london kings cross", "destination": "cambridge", "day": "friday",
                  "arriveBy": "9:30"},
                 {"departure": "cambridge", "destination": "norwich", "day": "dontcare",
                  "leaveAt": "dontcare"},
                 {"destination": "cambridge", "arriveBy": "10:00"}):
        assert search.query("train", cons) == db.query("train", cons)
    assert search.query("restaurant", {"food": "chinese"}) == db.query("restaurant", {"food": "chinese"})


def test_accepting_the_relaxed_alternative() -> None:
    bot = MultiwozSystem(seed=3)
    t = talk(bot, "any mexican restaurants in the centre?",
             "ok book me there for 6 people at 12:30 on sunday")
    # the food is what was just asked
    assert acts(t[0], "nooffer") and acts(t[0], "select")[0]["slot"] == "area"
    assert t[1].state["restaurant"]["area"] != "centre"
    assert acts(t[1], "book", "restaurant")


def test_taxi_from_there_and_yes_no_questions() -> None:
    bot = MultiwozSystem(seed=3)
    t = talk(bot, "a cheap hotel in the north", "does it have free wifi?",
             "I need a taxi from there to curry garden at 6pm")
    name = t[0].internals["offered"]["hotel"]
    assert t[1].text.lower().startswith((f"yes, {name} has free wifi", f"no, {name} doesn't have free wifi"))
    assert t[2].state["taxi"]["departure"] == t[0].internals["offered"]["hotel"]
    assert acts(t[2], "book", "taxi")


def test_hospital_department() -> None:
    t = talk(MultiwozSystem(), "the phone number for the paediatric clinic please")
    assert t[0].state == {"hospital": {"department": "paediatric clinic"}}
    assert "01223348313" in t[0].text


def test_seed_from_a_spec_string() -> None:
    assert build_system("multiwoz:seed=abc").seed == build_system("multiwoz:seed=abc").seed
    assert MultiwozSystem(seed="12").seed == 12  # type: ignore[arg-type]
    assert build_system("multiwoz:read_system=true").read_system is True
