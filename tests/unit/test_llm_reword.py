"""The rule check of ``llm``'s rewordings: the draft's dialogue act kept, articles and number agreement,
placeholders in their roles, no new facts; on drafts and rewordings written for these tests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.engine.systems.llm_act import act_reason, read
from parley.engine.systems.llm_reword import (
    for_grammar,
    grammar_problems,
    is_question,
    reword_reason,
    role_problems,
)

VALUES = {"count": "2", "name": "Blue Finch", "food": "italian", "area": "west", "pricerange": "expensive",
          "people": "4", "nights": "2", "day": "sunday", "time": "19:15", "reference": "QX7Y2Z",
          "phone": "01234567890", "stars": "3", "type": "hotel", "leaves": "08:10", "arrives": "09:02",
          "trainid": "TR4242"}

CONFIRM = "All done: your table at [name] is booked for [people] people on [day]. Reference: [reference]."
OFFER = "I found [count] restaurants. How about [name]? Shall I book a table?"
ASK = "Which day would you like, and how many nights?"


@pytest.mark.parametrize(("reply", "draft", "why"), [
    # a confirmation stays a confirmation
    ("I'd be happy to help you book a table at [name] for [people] people on [day]. Reference: [reference].",
     CONFIRM, "turned a confirmation into"),
    ("Would you like me to book [name] for [people] people on [day]? Reference: [reference].",
     CONFIRM, "turned a confirmation into an offer"),
    # an offer stays an offer
    ("I found [count] restaurants. [name] is one of them.", OFFER, "dropped the offer to book"),
    ("I found [count] restaurants and booked [name] for you.", OFFER, "confirmed a booking"),
    # a request keeps asking for the same slots
    ("Which day would you like?", ASK, "asked for other slots: -nights"),
    ("How many nights, which day, and how many people?", ASK, "asked for other slots: +people"),
    ("The day and the number of nights, please.", ASK, "dropped the question"),
    # yes/no answers and negations
    ("[name] is not in the west.", "No, [name] is in the west.", "answered nothing where the draft answers"),
    ("Yes, [name] has no parking.", "Yes, [name] has parking.", "changed a negation"),
    # the clerk does not become the customer
    ("I'd like to book [name] on [day].", "Shall I book [name] on [day]?", "spoke as the customer"),
    ("Your phone number is [phone].", "Its phone number is [phone].", "spoke as the customer"),
    ("Have a nice evening!", "Is there anything else I can help with?", "dropped the offer of more help"),
])
def test_the_act_must_be_kept(reply: str, draft: str, why: str) -> None:
    got = reword_reason(reply, draft, VALUES)
    assert got is not None and why in got, got


@pytest.mark.parametrize(("reply", "draft"), [
    ("Your table at [name] is reserved for [people] people on [day]. Your reference is [reference].",
     CONFIRM),
    ("There are [count] matching restaurants. What about [name]? Would you like me to reserve a table?",
     OFFER),
    ("For how many nights, and on which day?", ASK),
    ("Unfortunately no, [name] is in the west.", "No, [name] is in the west."),
    ("You can call [name] on [phone].", "The phone number of [name] is [phone]."),
    ("[trainid] departs at [leaves] and gets in at [arrives].",
     "[trainid] leaves at [leaves] and arrives at [arrives]."),
    ("Can I help you with anything else?", "Is there anything else I can help with?"),
])
def test_faithful_rewordings_pass(reply: str, draft: str) -> None:
    assert reword_reason(reply, draft, VALUES) is None


def test_reading_of_acts_and_slots() -> None:
    assert read(CONFIRM).acts == {"booked", "reference"}
    assert read(OFFER).acts == {"offer_booking", "recommend"}
    assert read(ASK).asks == {"day", "nights"}
    assert read("Where are you leaving from, and when do you want to arrive?").asks == {"departure", "arrive"}
    assert read("Could you tell me where you're going?").asks == {"destination"}


@pytest.mark.parametrize(("text", "problem"), [
    ("I'd be happy to help you find a 2 restaurants for you.", "an article before a count"),
    ("I found a great restaurants in the west.", "a singular article before a plural noun"),
    ("It is booked for 1 nights.", "one of a plural noun"),
    ("I found 3 restaurant in the west.", "a plural count with a singular noun"),
    ("There is 3 hotels in the west.", "'there is' before a plural count"),
    ("It is a italian place.", "'an' before a vowel sound"),
    ("It is an cheap place.", "'a' before a consonant sound"),
    ("It is in the the west.", "a doubled word"),
    ("Sure, I can look for an expensive one instead?", "a statement with a question mark"),
    ("Where are you leaving from and where you're going?", "a direct question joined to an indirect one"),
    ("Without the area there are 3, e g north.", "'e g' for 'e.g.'"),
    ("I found 4 museums. Sure, which one would you like?", "an opener in the middle of the reply"),
])
def test_grammar_patterns(text: str, problem: str) -> None:
    assert any(problem in p for p in grammar_problems(text)), grammar_problems(text)


@pytest.mark.parametrize("text", [
    "It is a 3-star hotel with 2 rooms left.", "An expensive place, a university college and an hour away.",
    "There are 2 restaurants and there is 1 hotel.", "A table for 4 people, 1 night, 2 nights.",
    "Would you like a hotel or a guesthouse?", "How about it?", "I found 3 options, would you like one?",
    "Could you tell me where you're leaving from and where you're going?",
    "There are 3, e.g. north. Would that work?", "Sure, I found 4 museums.",
])
def test_grammatical_sentences_pass(text: str) -> None:
    assert grammar_problems(text) == []


@pytest.mark.parametrize(("delex", "problem"), [
    ("Booked for [nights] nights, guests from [people].", "[people] out of its role"),
    ("Your stay is [nights] people.", "[nights] out of its role"),
    ("Your booking reference is [name].", "[name] where a reference belongs"),
    ("You can reach [name] on [reference].", "[reference] where a phone belongs"),
    ("Relax with your friends at [count].", "[count] counts nothing"),
    ("It is [pricerange] price range.", "price range without 'the'"),
    ("The train from [trainid] leaves at [leaves].", "[trainid] out of its role"),
])
def test_placeholders_keep_their_roles(delex: str, problem: str) -> None:
    assert any(problem in p for p in role_problems(delex, VALUES)), role_problems(delex, VALUES)


def test_counts_agree_with_their_value() -> None:
    assert role_problems("I found [count] museum.", {"count": "2"}) == [
        "'[count] museum': a count of 2 with a singular noun"]
    assert role_problems("I found [count] museum.", {"count": "1"}) == []
    assert reword_reason("I found [count] museums.", "There is [count] museum.", {"count": "1"}) is not None


def test_names_and_references_do_not_enter_the_grammar() -> None:
    """"A And B Guest House" and "X2AM" are no articles and counts."""
    values = {"name": "A And B Guest House", "reference": "X2AM", "food": "italian"}
    text = for_grammar("[name] serves [food] food. Reference: [reference].", values)
    assert text == "[name] serves italian food. Reference: [reference]."
    assert grammar_problems(text) == []


def test_new_facts_are_refused() -> None:
    assert reword_reason("[name] has free parking and a table for you.", "[name] is in the [area].",
                         VALUES) == "added facts: free, parking, restaurant"
    assert reword_reason("[name] is in the [area] of town.", "[name] is in the [area].", VALUES) is None


def test_questions_are_worded_as_questions() -> None:
    assert is_question("Would that work?") and is_question("I found [count], shall I book one?")
    assert not is_question("I will book it?")


@given(st.integers(min_value=0, max_value=40), st.sampled_from(["restaurant", "hotel", "night", "train"]))
def test_agreement_of_any_count(n: int, noun: str) -> None:
    """"n nouns" is refused exactly when the noun's number does not fit n."""
    plural = {"restaurant": "restaurants", "hotel": "hotels", "night": "nights", "train": "trains"}[noun]
    assert (grammar_problems(f"I have {n} {noun}.") == []) == (n == 1)
    assert (grammar_problems(f"I have {n} {plural}.") == []) == (n != 1)


def test_every_act_of_a_draft_reads_the_same_as_itself() -> None:
    for draft in (CONFIRM, OFFER, ASK, "Goodbye, and enjoy Cambridge!", "No, it's cheap. Shall I look?"):
        assert act_reason(draft, draft) is None


def test_room_prices_are_placeholders_and_the_room_kind_is_kept() -> None:
    from parley.engine.systems.llm_delex import delexicalise

    acts = ({"act": "inform", "domain": "hotel", "slot": "price double", "value": "95"},
            {"act": "inform", "domain": "hotel", "slot": "price single", "value": "79"})
    draft, values = delexicalise("A double room costs 95 a night. A single room costs 79 a night.", acts)
    assert draft == "A double room costs [price] a night. A single room costs [price2] a night."
    assert values == {"price": "95", "price2": "79"}
    one = "A double room costs [price] a night."
    assert reword_reason("A double room is [price] per night.", one, values) is None
    assert reword_reason("A single room is [price] per night.", one, values) == "added facts: single room"


@pytest.mark.parametrize(("reply", "draft", "ok"), [
    ("I have one in the [area] instead.", "I do have one in the [area] instead.", True),
    ("I do have one with area [area] instead.", "I do have one in the [area] instead.", False),
    ("There is one that serves [food] food instead.", "I do have one serving [food] food instead.", True),
    ("I do have one serving [food] instead.", "I do have one serving [food] food instead.", True),
    ("I do have a [type] instead.", "I do have an [type] instead.", False),
])
def test_rewordings_of_the_one_left(reply: str, draft: str, ok: bool) -> None:
    values = {"area": "east", "food": "italian", "type": "entertainment venue"}
    assert (reword_reason(reply, draft, values) is None) == ok, reword_reason(reply, draft, values)


def test_words_are_not_doubled_across_sentences() -> None:
    assert grammar_problems("I found 5 attractions for you. You could visit the museum.") == []
    assert grammar_problems("Is that all? All right.") == []
    assert grammar_problems("I found 5 attractions for you you could visit.") == ["'you you': a doubled word"]
