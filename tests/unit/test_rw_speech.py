"""Disfluency and simulated ASR read like speech: insertions only at plausible boundaries, recogniser-like
errors."""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite.base import RewriteContext
from parley.engine.spans import find_spans
from tests.polite_requests import PoliteRequest, polite_requests, speech_units

_HEAVY = build_rewriter("disfluency:rate=1,repeat_share=0.5,restart=1,repair=0")


def _ctx(text: str, seed: int) -> RewriteContext:
    return RewriteContext(rng=random.Random(seed), seed=seed, spans=find_spans(text))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=polite_requests(), seed=st.integers(0, 2**31 - 1))
def test_disfluency_never_breaks_a_number_name_or_attribute(req: PoliteRequest, seed: int) -> None:
    text = req.text
    out = _HEAVY.rewrite(text, _ctx(text, seed)).after
    for unit in speech_units(text):
        assert unit in out, (unit, text, out)


def test_repeats_are_plain_words() -> None:
    rw = build_rewriter("disfluency:rate=1,repeat_share=1,restart=0,repair=0")
    text = "I want 3 people at the Golden Wok on Friday for two nights, phone number too."
    for seed in range(30):
        out = rw.rewrite(text, _ctx(text, seed)).after
        for m in re.finditer(r"\b([\w']+), \1\b", out):
            assert not m.group(1)[0].isdigit() and not m.group(1)[0].isupper() or m.group(1) == "I", out


def test_asr_sim_mishears_rare_words_not_common_ones() -> None:
    from parley.engine.rewrite.phonetic import confusions, liaison, rank

    rw = build_rewriter("asr-sim:wer=0.6,liaison=0")
    text = "I need three people at the Acorn Guest House on Sunday and a taxi to Broxbourne"
    changed: dict[str, int] = {}
    for seed in range(40):
        out = rw.rewrite(text, _ctx(text, seed)).after
        words = out.split()
        assert "purple" not in words and "someday" not in words, out  # the implausible confusions
        for w in ("acorn", "people", "need", "taxi"):
            changed[w] = changed.get(w, 0) + (w not in words)
    assert changed["acorn"] > changed["people"] and changed["acorn"] > changed["need"]
    assert confusions("on") and set(confusions("people")) <= {"peoples"}
    assert all(rank(c) < 2000 for c in confusions("room"))
    assert liaison("for", "three") == "free" and liaison("thank", "you") is None
