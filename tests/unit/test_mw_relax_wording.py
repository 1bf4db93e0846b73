"""The one venue (or the few) left when the ``multiwoz`` pipeline drops a constraint: worded by the dropped
slot so that every slot reads as English, delexicalised for ``llm`` with no rule-check problem, and read back
by the fact audit (slot and value) — the three read the same template wording."""

from __future__ import annotations

import random

import pytest

from parley.engine.scoring.factcheck import relaxed
from parley.engine.systems.llm_delex import delexicalise
from parley.engine.systems.llm_reword import for_grammar, grammar_problems, reword_reason, role_problems
from parley.engine.systems.mw.nlg import realise

CASES = [
    # (slot, value in the act, what the reply says, the value the audit reads back)
    ("area", "east", "one in the east instead", "east"),
    ("pricerange", "expensive", "one in the expensive price range instead", "expensive"),
    ("food", "italian", "one serving italian food instead", "italian"),
    ("stars", "4", "a 4-star one instead", "4"),
    ("type", "guesthouse", "a guesthouse instead", "guesthouse"),
    ("type", "entertainment", "an entertainment venue instead", "entertainment venue"),
    ("parking", "no", "one without free parking instead", ""),
    ("parking", "yes", "one with free parking instead", ""),
    ("internet", "no", "one without free wifi instead", ""),
]


def act(name: str, slot: str | None = None, value: str | None = None) -> dict[str, str | None]:
    return {"act": name, "domain": "hotel", "slot": slot, "value": value}


def replies(slot: str, value: str | None, n: str) -> set[str]:
    acts = [act("nooffer"), act("select", slot, value), act("inform", "choice", n)]
    return {realise(acts, None, random.Random(seed)) for seed in range(12)}


@pytest.mark.parametrize(("slot", "value", "said", "read"), CASES, ids=[f"{c[0]}={c[1]}" for c in CASES])
def test_one_left_reads_as_english_for_every_slot(slot: str, value: str, said: str, read: str) -> None:
    texts = replies(slot, value, "1")
    assert any(f"I do have {said}. Shall I go with that?" in t for t in texts), texts
    acts = (act("select", slot, value), act("inform", "choice", "1"))
    for text in texts:
        relax = next(s for s in text.split(". ") if "instead" in s or "change" in s) + "."
        assert relaxed(relax) == (slot, read), relax
        assert f" {slot} {value}" not in text and "to no" not in text and "to yes" not in text
        delex, values = delexicalise(text, acts)
        assert role_problems(delex, values) == [], delex
        assert grammar_problems(for_grammar(delex, values)) == [], delex
        assert reword_reason(delex, delex, values) is None


def test_the_older_wording_is_ungrammatical_to_the_rule_check() -> None:
    """What the template said before: the slot's name in the value's place."""
    values = {"area": "east"}
    assert role_problems("I do have one with area [area] instead.", values)


@pytest.mark.parametrize("slot", ["parking", "internet"])
def test_yes_no_slots_are_not_given_as_examples(slot: str) -> None:
    for text in replies(slot, "no, yes", "3"):
        assert "for example" not in text and "such as" not in text and "e.g." not in text
        assert f"There are 3 if we change the {slot}." in text


def test_a_single_match_is_one_not_a_plural() -> None:
    for text in replies("name", None, "1"):
        assert "There is one if we change the name." in text and "are 1" not in text


def test_no_match_names_the_attraction_type_in_the_plural() -> None:
    acts = [{"act": "nooffer", "domain": "attraction", "slot": None, "value": None},
            {"act": "inform", "domain": "attraction", "slot": "type", "value": "mutliple sports"},
            {"act": "inform", "domain": "attraction", "slot": "area", "value": "centre"}]
    texts = {realise(acts, None, random.Random(seed)) for seed in range(6)}
    assert all("multiple sports venues in the centre" in t for t in texts), texts
