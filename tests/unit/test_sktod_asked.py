"""``sktod`` answers name what the user asked about, in grammatical English, from the reviews that talk about
that thing, and decide once per venue whether any review mentions it: scripted questions through ``parley chat
--system sktod --script --json`` over a review KB written for this test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_sktod_faithful import adjectives, chat, statements, venue

pytestmark = pytest.mark.slow

#: team-written reviews: views praised at one hotel, blamed at another, never mentioned at a third; at one
#: restaurant the decor is praised while the music is blamed by most and the lighting by all; another
#: restaurant's reviews talk of its food and prices only
KB = {
    "hotel": {
        "0": venue("HEATHER GRANGE", [
            ["From our balcony the view over the meadows was stunning.", "Towels were changed daily."],
            ["We had a stunning view of the old mill.", "The kettle worked fine."],
            ["The view at dawn was stunning.", "We arrived late."],
        ]),
        "1": venue("OSIER HOUSE", [
            ["The wifi was fast in every corner.", "Breakfast had fresh bread."],
            ["Fast wifi, handy for emails.", "The bed was comfortable."],
            ["The location was central and the street felt safe at night."],
        ]),
        "2": venue("BLACKTHORN YARD", [
            ["The view was drab, only a brick wall.", "The shower was hot."],
            ["A drab view of the loading bay.", "Reception was polite."],
            ["The view from the third floor was drab.", "Quiet street."],
        ]),
    },
    "restaurant": {
        "3": venue("FERN AND FIDDLE", [
            ["The decor is elegant, all brass and green tiles.", "The music was far too loud to talk."],
            ["Elegant decor throughout.", "The music was loud all evening.", "The lighting was too dark."],
            ["The music was pleasant and soft.", "The lighting was dark, we could not read the menu."],
        ]),
        "4": venue("TALLOW AND TWINE", [
            ["The pies were delicious.", "Prices were fair for the portions."],
            ["Delicious stew and fair prices.", "We sat near the door."],
        ]),
    },
}
DECOR_WORDS = {"elegant"}
MUSIC_WORDS = {"loud", "pleasant", "soft"}
LIGHT_WORDS = {"dark"}
#: a bare singular count noun after a verb of having ("has view", "offers patio"): missing its article
BARE = re.compile(r"\b(?:has|have|offers?) (?:view|patio|terrace|garden|pool|gym|bar|lobby)\b", re.I)
NONE = re.compile(r"\b(?:none|no review\w*|nothing)\b", re.I)


def turns_of(tmp_path: Path, questions: list[str]) -> list[dict[str, Any]]:
    kb = tmp_path / "knowledge.json"
    kb.write_text(json.dumps(KB), encoding="utf-8")
    turns = chat(tmp_path, kb, questions)
    assert len(turns) == len(questions)
    for turn, question in zip(turns, questions, strict=True):
        assert turn["internals"]["branch"] == "sktod", (question, turn["system"])
    return turns


def test_what_a_venue_has_is_said_with_its_article(tmp_path: Path) -> None:
    questions = ["Do the rooms at Heather Grange have a view?", "Does Heather Grange have a view?",
                 "Does Blackthorn Yard have a view?", "Do the rooms at Heather Grange have views?"]
    for turn, question in zip(turns_of(tmp_path, questions), questions, strict=True):
        answer = turn["system"]
        assert not BARE.search(answer), (question, answer)
        assert re.search(r"\bha(?:s|ve) (?:a |an )?(?:\w+ )?views?\b", answer), (question, answer)
        if "Heather" in question:
            assert answer.startswith("Yes, "), (question, answer)


def test_nothing_mentioned_names_the_users_noun_and_the_kbs_venue(tmp_path: Path) -> None:
    questions = ["How is the music at Tallow and Twine?", "Is the lighting nice at Tallow and Twine?",
                 "Does Osier House have a nice view?"]
    nouns = ["music", "lighting", "view"]
    names = ["Tallow and Twine", "Tallow and Twine", "Osier House"]
    for turn, question, noun, name in zip(turns_of(tmp_path, questions), questions, nouns, names,
                                          strict=True):
        answer = turn["system"]
        assert NONE.search(answer), (question, answer)
        assert re.search(rf"\bthe {noun}\b", answer), (question, answer)  # not "the atmosphere"
        assert name in answer and name.title() not in answer.replace(name, ""), (question, answer)
        assert "atmosphere" not in answer, (question, answer)


def test_music_decor_and_lighting_are_answered_from_their_own_reviews(tmp_path: Path) -> None:
    questions = ["Is the music good at Fern and Fiddle?", "How is the decor at Fern and Fiddle?",
                 "Is the lighting nice at Fern and Fiddle?"]
    words = [MUSIC_WORDS, DECOR_WORDS, LIGHT_WORDS]
    turns = turns_of(tmp_path, questions)
    for turn, question, allowed in zip(turns, questions, words, strict=True):
        answer = statements(turn["system"])
        assert adjectives(answer) and adjectives(answer) <= allowed, (question, answer)
    music, decor, light = (statements(t["system"]) for t in turns)
    # two of three reviews of the music blame it (loud), one praises it: no "yes", the minority named
    assert not music.lower().startswith("yes"), music
    assert re.search(r"\b(?:though|but|however|only)\b", music.lower()), music
    assert decor.lower().startswith(("the decor", "guests", "reviewers", "most", "according", "past",
                                     "fern", "all", "people", "customers", "previous", "the majority")), decor
    assert not light.lower().startswith("yes"), light


def test_a_comparison_and_the_none_check_are_one_decision(tmp_path: Path) -> None:
    questions = ["Which hotel has the best view, Heather Grange or Osier House?",
                 "Which hotel has the best view, Osier House or Heather Grange?",
                 "Which hotel has the better view, Heather Grange or Blackthorn Yard?"]
    turns = turns_of(tmp_path, questions)
    for turn in turns[:2]:
        answer = statements(turn["system"])
        said = {e["venue"]: e["verdict"] for e in turn["internals"]["knowledge"]["evidence"]}
        # Heather Grange's reviews praise the view; none of Osier House's mention it: both said, each once
        assert said.get("HEATHER GRANGE") == "positive" and said.get("OSIER HOUSE") == "unmentioned", said
        assert "stunning" in answer, answer
        assert re.search(r"\bOsier House\b[^.]*\bview\b", answer) and NONE.search(answer), answer
        assert not re.search(r"\bHeather Grange\b[^.]*\bmention", answer), answer
    both = statements(turns[2]["system"])
    assert "stunning" in both and "drab" in both and not NONE.search(both), both


def test_venues_that_disagree_get_no_single_yes_or_no(tmp_path: Path) -> None:
    questions = ["Do Heather Grange and Blackthorn Yard have nice views?",
                 "Do Blackthorn Yard and Heather Grange have nice views?"]
    for turn, question in zip(turns_of(tmp_path, questions), questions, strict=True):
        answer = statements(turn["system"])
        assert not re.match(r"(?:yes|no|unfortunately)\b", answer.lower()), (question, answer)
        assert "stunning" in answer and "drab" in answer, (question, answer)


def test_a_safe_neighbourhood_is_about_the_location(tmp_path: Path) -> None:
    turn = turns_of(tmp_path, ["Is Osier House in a safe neighbourhood?"])[0]
    assert turn["internals"]["knowledge"]["aspects"] == ["location"], turn["internals"]["knowledge"]
    assert not NONE.search(turn["system"]) and "central" in turn["system"], turn["system"]


def test_a_fact_the_selection_missed_is_not_called_missing() -> None:
    from parley.engine.sktod.generation import TemplateGenerator
    from parley.engine.sktod.knowledge import ScoredSnippet, Snippet

    review = Snippet("hotel", 7, "review", 0, 0, "The kettle worked fine.", "REED COTTAGE")
    fact = Snippet("hotel", 7, "faq", 0, None, "Is there parking? Reed Cottage has free parking on site.",
                   "REED COTTAGE", "Reed Cottage has free parking on site.")
    gen = TemplateGenerator(0)
    gen.load()
    answer = gen.generate("Is there parking at Reed Cottage?", [ScoredSnippet(review, 0.9)], [review, fact])
    assert answer.stances and answer.stances[0].verdict != "unmentioned", answer.stances
    assert "free parking" in answer.text and not NONE.search(answer.text), answer.text
    assert "fine" not in answer.text, answer.text  # the review of the kettle says nothing of the parking
