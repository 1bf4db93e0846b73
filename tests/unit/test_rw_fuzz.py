"""Every rewriter survives arbitrary input: unicode, empty, very long."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite.base import RewriteContext
from parley.engine.spans import find_spans
from parley.engine.types import Message

SPECS = ("impolite", "impolite:scenario=6,intensity=3,profanity=true", "impolite:scenario=1,intensity=1",
         "disfluency:rate=0.5,restart=0.5,repair=0.5", "wp", "wp:op=insert,slot=1", "asr-sim:wer=0.5")
_REWRITERS = {s: build_rewriter(s) for s in SPECS}
_HIST = (Message("user", "I need a hotel ."), Message("system", "Which area ?"))

# mixes of real dialogue words, slot values, digits and punctuation with arbitrary unicode
_words = st.sampled_from(["please", "thank", "you", "could", "I", "would", "like", "a", "cheap", "hotel",
                          "in", "the", "centre", "13:45", "3", "people", "Cambridge", "for", "?", ".", "!",
                          ",", "'s", "\U000f0001", "٣", "²", "1e5", "£5", "2nd", "00:00", "24:99", "\n",
                          "\t", "half past", "quarter to", "seven", "six thirty", "o'clock", "p.m.", "noon",
                          "in the morning", "twenty-five"])
_text = st.one_of(st.text(max_size=200),
                  st.lists(st.one_of(_words, st.text(max_size=6)), max_size=40).map(" ".join))


def _run(spec: str, text: str, seed: int) -> None:
    rw = _REWRITERS[spec]
    spans = find_spans(text)
    out = rw.rewrite(text, RewriteContext(rng=random.Random(seed), seed=seed, spans=spans, history=_HIST))
    assert isinstance(out.after, str)
    assert out.before == text
    for s in out.spans:
        assert out.after[s.start:s.end] == s.value


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_text, seed=st.integers(0, 2**31 - 1))
def test_fuzz_no_crash(spec: str, text: str, seed: int) -> None:
    _run(spec, text, seed)


@pytest.mark.parametrize("spec", SPECS)
def test_empty_and_whitespace(spec: str) -> None:
    for t in ("", " ", "\n", ".", "?!", "\U000f0000"):
        _run(spec, t, 1)


@pytest.mark.parametrize("spec", SPECS)
def test_ten_thousand_characters(spec: str) -> None:
    rng = random.Random(5)
    base = "I would like a cheap hotel in the north for 3 nights from Friday , thank you . "
    text = (base * (10_000 // len(base) + 1))[:10_000]
    _run(spec, text, 3)
    junk = "".join(chr(rng.randrange(32, 0x2FFFF)) for _ in range(10_000))
    _run(spec, junk, 4)
