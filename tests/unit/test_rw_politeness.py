"""The politeness scorer and the impoliteness templates."""

from __future__ import annotations

import random

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.politeness import score
from parley.engine.spans import find_spans

POLITE = (
    "Hello, could you please help me find a hotel in the north? Thank you so much!",
    "Would you mind booking a table for two? I'd really appreciate it.",
    "Hi there, I was wondering if you could recommend a museum, please.",
    "Sorry to bother you, but could you tell me the address? Thanks!",
    "I would like a train to Cambridge, if possible. Thank you.",
    "Thanks a lot, that was very helpful. Have a lovely day!",
)
IMPOLITE = (
    "Find me a hotel in the north. Now.",
    "Give me the address. Hurry up, I don't have all day!",
    "Oh great, another useless bot. Book the table, if that's not too much for you.",
    "This is the third time I'm asking, so get it right. Get me a train.",
    "Are you stupid? Just tell me the phone number.",
    "Ugh, whatever. I'm exhausted, just book it.",
)


def test_polite_examples_score_above_impolite() -> None:
    p = [score(t).score for t in POLITE]
    i = [score(t).score for t in IMPOLITE]
    assert min(p) > max(i)
    assert all(score(t).label == "polite" for t in POLITE)
    assert all(score(t).label == "impolite" for t in IMPOLITE)


def test_strategies_fire() -> None:
    f = score("Hi, could you please help? Thanks, I think maybe that works.").features
    for name in ("greeting", "counterfactual_modal", "please", "gratitude", "hedges", "positive"):
        assert name in f
    f = score("You never listen. Why is this so hard?").features
    assert "second_person_start" in f
    assert "direct_question" in f
    assert score("").label == "polite"
    assert 0.0 <= score("Find it NOW!!!").score <= 1.0


def test_rewrites_are_less_polite_than_originals() -> None:
    for sc in range(1, 7):
        rw = build_rewriter(f"impolite:scenario={sc},intensity=2")
        for k, t in enumerate(POLITE):
            c = RewriteContext(rng=random.Random(k), seed=k, spans=find_spans(t))
            assert score(rw.rewrite(t, c).after).score < score(t).score


def test_template_phrases_contain_no_slot_values() -> None:
    phrases = [*L.TAGS, *L.AGREE, *L.CURT_GREETINGS, *L.PROFANITY_INTERJECTIONS, *L.PROFANITY_TAILS]
    for d in L.DISMISSALS.values():
        phrases += d
    for moves in L.MOVES.values():
        for by_strength in moves.values():
            for options in by_strength.values():
                phrases += [o.format(n="three", nth="third", quote="what") for o in options]
    for p in phrases:
        assert find_spans(p) == (), p
