"""The impolite rewriter on polite requests: the issue's examples, generated requests (hypothesis), golden
examples.

Invariants checked everywhere: no courtesy marker survives, every slot value and requested attribute survives,
no output sentence is a lone fragment, the same seed gives the same rewrite.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.courtesy import is_fragment, markers, scrub, sentences
from parley.engine.spans import find_requests, find_spans
from parley.engine.types import Message
from tests.polite_requests import PoliteRequest, polite_requests

GOLDEN = Path(__file__).parent / "golden" / "impolite_examples.json"
SPECS = tuple(f"impolite:scenario={s},intensity={i}" for s in range(1, 7) for i in (1, 2, 3))
_REWRITERS = {s: build_rewriter(s) for s in SPECS}
_HIST = (Message("user", "I need a hotel."), Message("system", "Which area would you like?"))

# the task's examples and what each must keep
ISSUE = (
    ("Please could you recommend a museum in the west? Many thanks.", ("recommend a museum in the west",)),
    ("Sorry to bother you, but is there a guesthouse in the north with wifi?",
     ("is there a guesthouse in the north with wifi",)),
    ("Many thanks, and could you also find me a college to visit in the centre?",
     ("find me a college to visit in the centre",)),
    ("Thanks a lot for your help, could you give me the reference number?", ("reference number",)),
    ("Hello, I would love some help finding a hotel with free parking, thank you.",
     ("a hotel with free parking",)),
    ("I'd be grateful if you could book a table for 4 people at 19:30 on Friday.",
     ("book a table for 4 people at 19:30 on friday",)),
    ("I'd appreciate it if you could tell me the postcode of the Cambridge Belfry.",
     ("tell me the postcode of the cambridge belfry",)),
    ("Pardon me, what is the address of the Gonville Hotel?", ("the address of the gonville hotel",)),
    ("Book it for 2 nights from Saturday, if that's okay.", ("book it for 2 nights from saturday",)),
    ("Would you mind checking the trains to Ely on Sunday, if it's not too much trouble?",
     ("check the trains to ely on sunday",)),
    ("Kindly send me the phone number. Have a nice day!", ("send me the phone number",)),
    ("Excuse me, I need a taxi to the Junction at 17:30, please.", ("a taxi to the junction at 17:30",)),
)


def _rewrite(spec: str, text: str, seed: int, history: tuple[Message, ...] = ()) -> str:
    c = RewriteContext(rng=random.Random(seed), seed=seed, spans=find_spans(text), history=history)
    return str(_REWRITERS[spec].rewrite(text, c).after)


def _check(text: str, out: str, values: tuple[str, ...], attrs: tuple[str, ...]) -> None:
    assert not markers(out), (text, out)
    frags = [s for s in sentences(out) if is_fragment(s)]
    assert not frags, (text, out, frags)
    for v in values:
        assert v in out, (v, text, out)
    for a in attrs:
        assert a.lower() in out.lower(), (a, text, out)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(("text", "keep"), ISSUE)
def test_issue_examples_come_out_whole(spec: str, text: str, keep: tuple[str, ...]) -> None:
    values = tuple(s.value for s in find_spans(text))
    attrs = tuple(s.value for s in find_requests(text))
    for seed in range(6):
        out = _rewrite(spec, text, seed, _HIST)
        _check(text, out, values, attrs)
        for phrase in keep:
            assert phrase in out.lower(), (phrase, out)


@pytest.mark.parametrize("spec", ("impolite:scenario=1,intensity=2", "impolite:scenario=2,intensity=3",
                                  "impolite:scenario=3,intensity=1", "impolite:scenario=4,intensity=2",
                                  "impolite:scenario=5,intensity=3", "impolite:scenario=6,intensity=2"))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=polite_requests(), seed=st.integers(0, 2**31 - 1))
def test_generated_polite_requests(spec: str, req: PoliteRequest, seed: int) -> None:
    out = _rewrite(spec, req.text, seed)
    _check(req.text, out, req.values, req.attrs)
    assert out == _rewrite(spec, req.text, seed)  # deterministic per seed


def test_golden_examples_per_scenario() -> None:
    cases = json.loads(GOLDEN.read_text(encoding="utf-8"))  # a missing file fails: it is never written here
    assert {c["spec"].split(",")[0] for c in cases} == {f"impolite:scenario={s}" for s in range(1, 7)}
    for c in cases:
        hist = tuple(Message(m["role"], m["text"]) for m in c.get("history", ()))
        assert _rewrite(c["spec"], c["before"], c["seed"], hist) == c["after"], c


def test_inserted_phrases_add_no_courtesy_and_are_whole() -> None:
    phrases = [*L.TAGS, *L.AGREE, *L.CURT_GREETINGS]
    phrases += [p for d in L.DISMISSALS.values() for p in d]
    phrases += [p for m in L.MOVES.values() for by in m.values() for opts in by.values() for p in opts]
    fill = {"vp": "book a table", "np": "a table", "q": "is there a table", "s": "it is for two",
            "ask": "Get me", "n": "three", "nth": "third", "quote": "What area"}
    for kinds in L.FRAMES.values():
        for by in kinds.values():
            for opts in by.values():
                for p in opts:
                    for k, v in fill.items():
                        p = p.replace("{" + k + "}", v)
                    phrases.append(p[0].upper() + p[1:])
    for p in phrases:
        p = p.format(n="three", nth="third", quote="What area")
        assert not markers(p), p
        assert find_spans(p) == () or "table" in p, p
        for s in sentences(p):
            assert not is_fragment(s), (p, s)


def test_courtesy_goes_as_whole_expressions() -> None:
    assert scrub("Many thanks, and could you also find me a college?") == "could you also find me a college?"
    assert scrub("Sorry to bother you, but is there a guesthouse?") == "is there a guesthouse?"
    assert scrub("Book it for Friday, if that's okay.") == "Book it for Friday."
    assert scrub("No thank you that will be all") == "No, that will be all"
    assert markers("Please, I'd be grateful. Pardon me, kindly do it. Have a nice day!") == [
        "please", "grateful", "pardon", "kindly", "have a nice day"]


@pytest.mark.parametrize(("sentence", "fragment"), [
    ("Many.", True), ("To bother you, but is there a hotel?", True), ("And.", True), ("Find me the.", True),
    ("Now.", False), ("That is it.", False), ("Cambridge.", False), ("Is there one in the north?", False),
    ("Of course, 4 stars.", False), ("Come on.", False), ("Where is it going to?", False),
])
def test_fragments(sentence: str, fragment: bool) -> None:
    assert is_fragment(sentence) is fragment


def test_requested_attributes_are_found() -> None:
    got = {(s.slot, s.value) for s in find_requests("What's the phone number, postcode and entrance fee? "
                                                    "And the reference number and travel time.")}
    assert got == {("phone", "phone number"), ("postcode", "postcode"), ("price", "entrance fee"),
                   ("reference", "reference number"), ("time", "travel time")}


@pytest.mark.parametrize("spec", SPECS)
def test_a_time_with_am_keeps_its_request(spec: str) -> None:
    # "a.m." is no sentence end: the request before it was cut off and dropped as a fragment
    text = "Could I have a cab outside the hotel at half past ten a.m. so that I reach the station by noon?"
    for seed in range(3):
        out = _rewrite(spec, text, seed).lower()
        assert "cab outside the hotel at half past ten a.m." in out, out
        assert "reach the station by noon" in out, out
    assert sentences("a cab at 9 a.m. so that I can go. Then a train at 5 p.m. Thanks!") == [
        "a cab at 9 a.m. so that I can go.", "Then a train at 5 p.m.", "Thanks!"]


@pytest.mark.parametrize("spec", ("impolite:scenario=1,intensity=3", "impolite:scenario=2,intensity=2",
                                  "impolite:scenario=3,intensity=1", "impolite:scenario=4,intensity=3",
                                  "impolite:scenario=5,intensity=2", "impolite:scenario=6,intensity=3"))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=polite_requests(spoken=True), seed=st.integers(0, 2**31 - 1))
def test_spoken_times_survive(spec: str, req: PoliteRequest, seed: int) -> None:
    """"half past six", "quarter to 7", "ten in the morning" come out whole, like "18:30"."""
    out = _rewrite(spec, req.text, seed, _HIST)
    _check(req.text, out, req.values, req.attrs)
