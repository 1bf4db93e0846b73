"""Times and days of the embedded MultiWOZ system that a tester says in passing: another event's time ("I have
dinner at 8"), relative days ("tomorrow") and corrected times."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from parley.engine.mwdb import load_db
from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.engine.systems.multiwoz import MultiwozSystem
from parley.engine.systems.mw import patterns as P
from parley.engine.systems.mw.lexicon import lexicon_for
from parley.engine.systems.mw.nlu import NluContext, parse
from parley.engine.systems.mw.values import relative_days
from tests.unit.test_mw_dialogues import talk


@pytest.fixture(scope="module")
def lex():  # type: ignore[no-untyped-def]
    return lexicon_for(load_db())


TRAIN = "I need a train from ely to cambridge on saturday"


@pytest.mark.parametrize(("said", "want"), [
    # the time of another event is not the train's ...
    (f"{TRAIN}. I have dinner at 8 in the evening", {}),
    (f"{TRAIN}, my meeting starts at 10", {}),
    ("a train from cambridge to ely on sunday leaving after 9. I have a meeting at 11", {"leaveAt": "09:00"}),
    # ... unless the trip is tied to it: to reach it ...
    (f"{TRAIN}, I want to arrive before my dinner at 8", {"arriveBy": "20:00"}),
    (f"{TRAIN} to get there in time for a show at 7:30 pm", {"arriveBy": "19:30"}),
    (f"{TRAIN} for a meeting at 10", {"arriveBy": "10:00"}),
    (f"{TRAIN}, I have a meeting at 10 so I need to get there before that", {"arriveBy": "10:00"}),
    # ... or to leave after it
    (f"{TRAIN}, after my lunch at 1", {"leaveAt": "13:00"}),
    (f"{TRAIN}. My meeting ends at 3 so I can leave after that", {"leaveAt": "15:00"}),
    # times with no event are read as before
    (f"{TRAIN}, leaving after 8 in the evening", {"leaveAt": "20:00"}),
])
def test_a_time_of_another_event_is_no_departure(lex, said: str, want: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    r = parse(said, NluContext(), lex)
    got = {s: v for d, s, v in r.inform if s in ("leaveAt", "arriveBy", "book_time")}
    assert got == want and all(d == "train" for d, s, _ in r.inform), r.inform


def test_dinner_at_8_is_still_a_tables_time(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("book a table for 2 for dinner at 8", NluContext(active_domain="restaurant"), lex)
    assert ("restaurant", "book_time", "20:00") in r.inform


def test_a_taxi_for_an_event_arrives_by_its_time(lex) -> None:  # type: ignore[no-untyped-def]
    r = parse("I need a taxi to the museum for my appointment at 3", NluContext(), lex)
    assert ("taxi", "arriveBy", "15:00") in r.inform


THURSDAY = date(2026, 11, 26)


@pytest.mark.parametrize(("said", "word", "want"), [
    ("a train to ely tomorrow", "tomorrow", "friday"),
    ("a train the day after tomorrow", "the day after", "saturday"),
    ("a table for tonight", "tonight", "thursday"),
    ("i'd like to be picked up today", "today", "thursday"),
    ("tomorrow morning please", "tomorrow", "friday"),
    ("that's all i need today", "", ""), ("thanks for your help today", "", ""),
    ("that will be all for today", "", ""),
])
def test_relative_days_are_weekdays_from_the_date(said: str, word: str, want: str) -> None:
    assert relative_days(said, THURSDAY) == ([(want, said.index(word))] if want else [])
    assert relative_days(said, None) == []  # no date (a corpus dialogue): not mapped


@pytest.mark.parametrize("today", [date(2026, 11, 23) + timedelta(days=n) for n in range(7)])
def test_tomorrow_is_the_next_weekday_every_day_of_the_week(lex, today: date) -> None:  # type: ignore[no-untyped-def]
    r = parse("I need a train from cambridge to ely tomorrow", NluContext(today=today), lex)
    assert ("train", "day", P.DAYS[(today.weekday() + 1) % 7]) in r.inform
    r = parse("I need a train from cambridge to ely tomorrow", NluContext(), lex)
    assert not any(s == "day" for _, s, _ in r.inform)


def test_the_clock_parameter() -> None:
    assert build_system("multiwoz:clock=2026-11-26").clock() == THURSDAY  # type: ignore[attr-defined]
    assert build_system("multiwoz:clock=off").clock is None  # type: ignore[attr-defined]
    assert build_system("multiwoz").clock() == date.today()  # type: ignore[attr-defined]
    assert MultiwozSystem(clock=lambda: THURSDAY).clock() == THURSDAY  # type: ignore[misc]
    with pytest.raises(SpecError, match="multiwoz: clock: must be today, off or a date YYYY-MM-DD"):
        build_system("multiwoz:clock=yesterday")


def test_a_replay_without_a_clock_asks_for_the_day() -> None:
    t = talk(MultiwozSystem(seed=1, clock=None), "I need a train from cambridge to ely tomorrow")
    assert "day" not in t[0].state["train"]
    t = talk(MultiwozSystem(seed=1, clock="2026-11-26"), "I need a train from cambridge to ely tomorrow")
    assert t[0].state["train"]["day"] == "friday"


def test_a_corpus_replay_worker_counts_no_day_from_today() -> None:
    from parley.engine.batch.play import Worker

    bot = MultiwozSystem(seed=1)
    assert bot.clock is not None
    Worker(bot, ("original",), system_spec="multiwoz")
    assert bot.clock is None


def test_a_replay_of_llm_or_sktod_counts_no_day_from_today_either() -> None:
    """Both wrap a ``multiwoz`` pipeline; a replay worker turns its clock off before or after loading."""
    from parley.engine.batch.play import Worker
    from parley.engine.systems.llm import LLMSystem
    from parley.engine.systems.sktod import SKTODSystem

    llm = LLMSystem()
    assert llm.clock is not None
    Worker(llm, ("original",), system_spec="llm")
    assert llm.clock is None
    sk = SKTODSystem(seed=1)
    assert sk.clock is not None
    Worker(sk, ("original",), system_spec="sktod")
    assert sk.clock is None and sk.base.clock is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(("said", "want"), [
    ("book a table for 4 at 7 on friday", "19:00"),
    ("a table for 4 at half seven on friday", "19:30"),
    ("a table for 4 at quarter to eight on friday", "19:45"),
    ("a table for 4 at seven thirty on friday", "19:30"),
    ("table for two at 7ish on friday", "19:00"),
    ("table for two at 7:30-ish on friday", "07:30"),
    # the morning said, or a clock in digits (as the corpus annotates it), stays as it is
    ("a table at 9 in the morning on friday", "09:00"),
    ("a table for breakfast at 8 on friday", "08:00"),
    ("a table for 4 at 8.30 on friday", "08:30"),
    ("a table at 11:30 on friday", "11:30"),
])
def test_a_tables_time_said_loosely_is_the_evening(lex, said: str, want: str) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="restaurant", state={"restaurant": {"food": "italian"}})
    assert ("restaurant", "book_time", want) in parse(said, ctx, lex).inform


@pytest.mark.parametrize(("said", "word", "want"), [
    ("book it for tonight", "tonight", "thursday"), ("that's it for today", "", ""),
    ("that will do for today thanks", "", ""),
])
def test_today_after_it_or_that(said: str, word: str, want: str) -> None:
    assert relative_days(said, THURSDAY) == ([(want, said.index(word))] if want else [])


@pytest.mark.parametrize(("said", "want"), [
    ("leaving at 17h30", ("leaveAt", "17:30")),
    ("arriving by midnight", ("arriveBy", "24:00")),  # the end of the day, not its start
    ("arrive by 12 midnight", ("arriveBy", "24:00")),
    ("leaving after midnight", ("leaveAt", "00:00")),
])
def test_odd_clock_spellings(lex, said: str, want: tuple[str, str]) -> None:  # type: ignore[no-untyped-def]
    r = parse(f"I need a train from cambridge to ely on monday {said}", NluContext(), lex)
    assert ("train", *want) in r.inform


def test_a_train_arriving_by_midnight_is_found() -> None:
    t = talk(MultiwozSystem(seed=1), "I need a train from cambridge to ely on monday, arriving by midnight")
    assert t[0].internals["db_count"]["train"] > 0 and "nothing matches" not in t[0].text


@pytest.mark.parametrize(("booked", "said", "want"), [
    ("19:15", "a taxi to get there by 7", "19:00"), ("12:30", "a taxi to get there by 11", "11:00"),
    ("20:00", "a taxi to get there by 7:00", "07:00"),  # a clock in digits is as written
    ("20:00", "a taxi to get there by 7 am", "07:00"),
])
def test_a_bare_hour_for_a_taxi_is_read_beside_the_table(lex, booked: str, said: str, want: str) -> None:  # type: ignore[no-untyped-def]
    ctx = NluContext(active_domain="taxi", state={"restaurant": {"book_time": booked}})
    assert ("taxi", "arriveBy", want) in parse(said, ctx, lex).inform


def test_a_clock_set_later_is_checked_and_converted_like_one_given_at_start() -> None:
    bot = MultiwozSystem(seed=1)
    bot.clock = "2026-11-26"
    assert bot.clock() == THURSDAY  # type: ignore[misc]
    bot.clock = None
    assert bot.clock is None
    with pytest.raises(SpecError, match="multiwoz: clock"):
        bot.clock = "someday"
