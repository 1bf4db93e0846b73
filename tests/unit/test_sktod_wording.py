"""Every wording choice of ``sktod``'s template answers keeps the answer faithful: over venues whose reviews
are unanimous, mostly positive, mostly negative, split or silent (stances written for this test), each frame,
minority clause, reviewer word and follow-up says "yes" only over a positive majority, names the minority,
never calls a divided venue's reviews unanimous and never offers a booking after complaints. Fitted choices
apply per kind of answer and, when fitted apart, per kind and aspect."""

from __future__ import annotations

import random
import re

import pytest

from parley.engine.sktod.closing import FOLLOW, follow_up
from parley.engine.sktod.evidence import Stance
from parley.engine.sktod.generation import TemplateGenerator
from parley.engine.sktod.question import Ask, ask
from parley.engine.sktod.style import STYLE
from parley.engine.sktod.wording import sentence

SLOTS = {
    "frame": ("plain", "say", "according", "described", "has", "reviews_say", "past", "stayed", "possessive",
              "describe", "offers", "majority", "reviews_of"),
    "who": ("guests", "previous guests", "past guests", "customers", "reviewers", "people"),
    "minor": ("though", "but", "however", "person", "only"),
}

#: (stance, what the answer to "is it good?" must open with, must it name a minority?)
STANCES = [
    (Stance("JUNIPER HOUSE", "hotel", positive=4, praise=("fast", "reliable")), "Yes", False),
    (Stance("JUNIPER HOUSE", "hotel", positive=3, negative=1, praise=("fast",), complaints=("slow",)), "Yes",
     True),
    (Stance("LARCH LODGE", "hotel", positive=1, negative=3, praise=("fast",), complaints=("slow", "patchy")),
     "No", True),
    (Stance("LARCH LODGE", "hotel", negative=2, complaints=("slow",)), "No", False),
    (Stance("LARCH LODGE", "hotel", positive=2, negative=1), "Yes", True),  # no adjectives at all
]
MINORITY = re.compile(r"\b(?:one|two|three) (?:guest|person|people)s?\b|\bmixed\b")


def question(text: str) -> Ask:
    return ask(text, frozenset({"wifi"}))


@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_every_choice_follows_the_evidence(slot: str) -> None:
    q = question("Is the wifi good at Juniper House?")
    for st, opening, minority in STANCES:
        for choice in SLOTS[slot]:
            style = {**STYLE, slot: {choice: 1.0}}
            for seed in range(8):
                text = sentence(q, st, random.Random(seed), style)
                assert text.startswith(opening + ", "), (choice, text)
                assert bool(MINORITY.search(text)) == minority, (choice, text)
                if not st.unanimous:
                    assert not re.search(r"\ball of the\b", text), (choice, text)
                if st.verdict == "negative":
                    praised = r"\b(?:fast|reliable|good things)\b.*\b(?:though|but|however|only)\b"
                    assert not re.search(praised, text.lower()), (choice, text)


def test_a_fault_question_is_never_answered_yes_over_complaints() -> None:
    q = question("Is the wifi slow at Larch Lodge?")
    st = Stance("LARCH LODGE", "hotel", positive=1, negative=3, praise=("fast",), complaints=("slow",))
    for frame in SLOTS["frame"]:
        for minor in SLOTS["minor"]:
            style = {**STYLE, "frame": {frame: 1.0}, "minor": {minor: 1.0}}
            text = sentence(q, st, random.Random(0), style)
            assert text.startswith("Unfortunately, "), (frame, minor, text)
            assert MINORITY.search(text), text


def test_no_booking_offer_after_complaints() -> None:
    bad = [Stance("LARCH LODGE", "hotel", negative=3, complaints=("slow",))]
    good = [Stance("JUNIPER HOUSE", "restaurant", positive=3, praise=("tasty",))]
    for key in FOLLOW:
        style = {**STYLE, "follow": {key: 1.0}}
        after_bad = follow_up(bad, random.Random(0), style)
        assert not re.search(r"\b(?:book|reservation)\b", after_bad), (key, after_bad)
    assert follow_up(good, random.Random(0), {**STYLE, "follow": {"book_it": 1.0}}) == \
        "Would you like to book a table?"
    two = good + [Stance("QUINCE KITCHEN", "restaurant", positive=2, praise=("fresh",))]
    assert follow_up(two, random.Random(0), {**STYLE, "follow": {"them": 1.0}}) == \
        "Would you like to know more about them?"


def test_choices_fitted_per_kind_and_aspect() -> None:
    st = [Stance("JUNIPER HOUSE", "hotel", positive=4, praise=("fast",))]
    style = {"frame": {"plain": 1.0}, "follow_up": 0.0,
             "kinds": {"yn-all": {"frame": {"say": 1.0}}, "yn-all|view": {"frame": {"possessive": 1.0}}}}
    gen = TemplateGenerator(style=style)
    wifi = gen.render(ask("Is the wifi good at Juniper House?", frozenset({"wifi"})), st, random.Random(0))
    view = gen.render(ask("Is the view good at Juniper House?", frozenset({"view"})), st, random.Random(0))
    assert "said" in wifi or "say" in wifi, wifi  # the kind's frame
    assert view.startswith("Yes, the Juniper House's view is "), view  # the kind-and-aspect frame wins


def test_no_booking_offer_right_after_a_booking() -> None:
    from parley.engine.sktod.knowledge import ScoredSnippet, Snippet

    snips = [ScoredSnippet(Snippet("hotel", 1, "review", i, 0, t, "JUNIPER HOUSE"), 0.9)
             for i, t in enumerate(["The wifi was fast.", "Reliable wifi in every room."])]
    gen = TemplateGenerator(style={"follow_up": 1.0, "follow": {"reserve": 1.0}, "kinds": {}})
    question = "Is the wifi good at Juniper House?"
    plain = gen.generate(question, snips,
                         context=["I need a hotel.", "Juniper House is nice.", question]).text
    assert plain.endswith("Would you like to make a reservation?"), plain
    after = gen.generate(question, snips, context=[
        "Book it for two nights please.",
        "Done, I have booked Juniper House. Your reference number is X1Y2Z3.", question]).text
    assert not re.search(r"\b(?:book|reservation)\b", after), after
    assert after.endswith("Would you like to know more about the Juniper House?"), after


@pytest.mark.parametrize(("text", "aspects"), [
    ("Is the nice indoor decor worth it?", {"atmosphere"}),
    ("Is the breakfast worthwhile?", {"breakfast"}),
    ("Is it worth it?", {"price"}),  # nothing else named: a value question
    ("Is the breakfast worth the money?", {"breakfast", "price"}),  # the money is named
    ("Is the food good value?", {"food", "price"}),
])
def test_a_value_cue_yields_to_the_aspect_a_question_names(text: str, aspects: set[str]) -> None:
    from parley.engine.sktod.aspects import named_aspects

    assert named_aspects(text) == frozenset(aspects)


def test_adjectives_come_from_the_reviews_and_say_different_things() -> None:
    q = ask("Is the view nice at Juniper House?", frozenset({"view"}))
    pair = {**STYLE, "adjectives": 2, "frame": {"plain": 1.0}, "tense": {"present": 1.0}}
    generic = Stance("JUNIPER HOUSE", "hotel", positive=3, praise=("great", "good", "very good"))
    text = sentence(q, generic, random.Random(0), pair)
    assert text == "Yes, the view at the Juniper House is great.", text
    # the user's word leads when the reviews use it too
    varied = Stance("JUNIPER HOUSE", "hotel", positive=3, praise=("stunning", "great", "nice"))
    text = sentence(q, varied, random.Random(0), pair)
    assert text == "Yes, the view at the Juniper House is nice and stunning.", text
