"""Behaviour of the four rule rewriters: determinism, protected values, reported changes, params."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.chain import Chain
from parley.engine.rewrite.impolite_lexicon import OFFENSIVE_WORDS
from parley.engine.spans import find_spans
from parley.engine.spec import SpecError
from parley.engine.types import Message
from tests.polite_requests import PoliteRequest, polite_requests, spoken_times

SAMPLES = (
    "Could you please find me a cheap restaurant in the centre ? Thank you !",
    "I would like to book a table for 4 people at 19:30 on Friday .",
    "I am looking for a train from Cambridge to Stansted Airport leaving after 13:45 .",
    "Is there a guesthouse with free parking in the north ? I need it for 3 nights .",
    "Hello , can you tell me the address of the Pizza Hut Fen Ditton please ?",
    "Thank you so much for your help , goodbye .",
    "yes please",
)
SPECS = ("impolite", "impolite:scenario=1,intensity=3", "impolite:scenario=6,intensity=3,profanity=true",
         "disfluency", "wp", "asr-sim")


def ctx(text: str, seed: int = 7, history: tuple[Message, ...] = ()) -> RewriteContext:
    return RewriteContext(rng=random.Random(seed), seed=seed, spans=find_spans(text), history=history)


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_output(spec: str) -> None:
    rw = build_rewriter(spec)
    for t in SAMPLES:
        a, b = rw.rewrite(t, ctx(t)), rw.rewrite(t, ctx(t))
        assert a == b
        assert a.before == t and a.seed == 7 and a.name == rw.name
        assert dict(a.params) == dict(rw.params)


@pytest.mark.parametrize("spec", SPECS)
def test_different_seeds_vary(spec: str) -> None:
    rw = build_rewriter(spec)
    outs = {rw.rewrite(t, ctx(t, seed)).after for t in SAMPLES[:4] for seed in range(12)}
    assert len(outs) > 8


@pytest.mark.parametrize("spec", ("impolite", "impolite:scenario=3,intensity=3",
                                  "impolite:scenario=5,intensity=1", "disfluency:repair=0", "wp:slot=0"))
def test_protected_values_survive(spec: str) -> None:
    rw = build_rewriter(spec)
    for seed in range(15):
        for t in SAMPLES:
            c = ctx(t, seed)
            out = rw.rewrite(t, c)
            for s in c.spans:
                assert s.value in out.after, (spec, t, out.after)
            for s in out.spans:
                assert out.after[s.start:s.end] == s.value
            assert out.changes == ()


def test_disfluency_repairs_are_reported_and_keep_the_value() -> None:
    rw = build_rewriter("disfluency:repair=1,rate=0,restart=0")
    t = SAMPLES[2]
    out = rw.rewrite(t, ctx(t))
    assert out.changes
    for ch in out.changes:
        assert ch["kind"] == "repair" and ch["reparandum"] != ch["before"]
        assert f"{ch['reparandum']}, {ch['edit_term']} {ch['before']}" in out.after
    assert out.info["counts"]["repair"] == len(out.changes)


def test_disfluency_rates() -> None:
    plain = build_rewriter("disfluency:rate=0,restart=0,repair=0")
    t = SAMPLES[1]
    assert plain.rewrite(t, ctx(t)).after == t
    heavy = build_rewriter("disfluency:rate=1,restart=1")
    out = heavy.rewrite(t, ctx(t))
    assert len(out.after.split()) > len(t.split()) + 4
    assert out.info["counts"]["restart"] == 1


def test_wp_slot_replacement_changes_label_and_reports() -> None:
    rw = build_rewriter("wp:slot=1,alpha=0")
    t = SAMPLES[2]
    c = ctx(t)
    out = rw.rewrite(t, c)
    assert len(out.changes) >= 2
    for ch in out.changes:
        assert ch["before"] != ch["after"]
        assert ch["after"] in out.after
    assert {s.value for s in out.spans} >= {ch["after"] for ch in out.changes}


@pytest.mark.parametrize("op", ("synonym", "insert", "swap", "delete"))
def test_wp_operations_touch_only_words_outside_slots(op: str) -> None:
    rw = build_rewriter(f"wp:op={op},slot=0,alpha=0.3")
    changed = 0
    for seed in range(10):
        for t in SAMPLES[:5]:
            c = ctx(t, seed)
            out = rw.rewrite(t, c)
            changed += out.after != t
            for s in c.spans:
                assert s.value in out.after
            assert out.info["op"] == op
    assert changed >= 30


def test_asr_lowercase_spoken_numbers_and_reported_changes() -> None:
    rw = build_rewriter("asr-sim:wer=0,liaison=0")
    t = "I need a train at 13:45 for 3 people, please!"
    out = rw.rewrite(t, ctx(t))
    assert out.after == "i need a train at thirteen forty five for three people please"
    got = {(c["before"], c["after"]) for c in out.changes}
    assert ("13:45", "thirteen forty five") in got and ("3", "three") in got
    for s in out.spans:
        assert out.after[s.start:s.end] == s.value


def test_asr_wer_knob_and_sound_alikes() -> None:
    t = "I am leaving from Leicester and should arrive in Cambridge by 13:45 ."
    noisy = build_rewriter("asr-sim:wer=0.9")
    outs = [noisy.rewrite(t, ctx(t, s)).after for s in range(10)]
    base = "i am leaving from leicester and should arrive in cambridge by thirteen forty five"
    assert all(o != base for o in outs)
    assert any("lester" in o for o in outs)
    from parley.engine.rewrite.phonetic import liaison, sound_alikes

    assert "lester" in sound_alikes("leicester")
    assert liaison("for", "three") == "free"


def test_impolite_drops_courtesy_and_commands() -> None:
    rw = build_rewriter("impolite:scenario=2,intensity=1")
    t = SAMPLES[0]
    outs = [rw.rewrite(t, ctx(t, s)).after for s in range(10)]
    for o in outs:
        low = o.lower()
        assert "please" not in low and "thank" not in low and "could you" not in low
        assert "cheap" in o and "centre" in o
        assert o.startswith("Find me a cheap restaurant")


def test_impolite_profanity_only_at_intensity_3_with_flag() -> None:
    def offensive(spec: str) -> int:
        rw = build_rewriter(spec)
        n = 0
        for s in range(20):
            for t in SAMPLES:
                words = set(rw.rewrite(t, ctx(t, s)).after.lower()
                            .replace(",", " ").replace(".", " ").split())
                n += bool(words & OFFENSIVE_WORDS)
        return n

    for sc in range(1, 7):
        assert offensive(f"impolite:scenario={sc},intensity=3") == 0
        assert offensive(f"impolite:scenario={sc},intensity=2,profanity=true") == 0
    assert offensive("impolite:scenario=2,intensity=3,profanity=true") > 20


def test_impolite_scenario6_uses_history() -> None:
    rw = build_rewriter("impolite:scenario=6,intensity=3")
    hist = (Message("user", "I need a hotel ."),
            Message("system", "There are many guest houses to choose from ."),
            Message("user", "I want one with wifi ."),
            Message("system", "What part of town would you like ?"),
            Message("user", "Any part ."),
            Message("system", "What part of town would you like ?"))
    t = "I would like a cheap hotel ."
    outs = " ".join(rw.rewrite(t, ctx(t, s, hist)).after for s in range(30))
    assert "fourth time" in outs or "four times" in outs
    assert '"What part of town would..."' in outs


def test_impolite_model_fallback_reason() -> None:
    rw = build_rewriter("impolite:model=/nonexistent/checkpoint")
    t = SAMPLES[0]
    out = rw.rewrite(t, ctx(t))
    assert out.info["engine"] == "rules"
    assert "does not exist" in out.info["fallback"]
    assert "please" not in out.after.lower()


@pytest.mark.parametrize(("spec", "msg"), [
    ("impolite:scenario=7", "scenario"), ("impolite:intensity=0", "intensity"),
    ("impolite:colour=red", "colour"), ("impolite:profanity=3", "profanity"), ("disfluency:rate=2", "rate"),
    ("wp:op=shuffle", "op"),
    ("asr-sim:wer=-0.1", "wer"), ("asr-sim:numbers=maybe", "numbers"),
])
def test_bad_params_raise_spec_error(spec: str, msg: str) -> None:
    with pytest.raises(SpecError, match=msg):
        build_rewriter(spec)


@pytest.mark.parametrize("name", ("impolite", "disfluency", "wp", "asr-sim"))
def test_params_metadata_matches_defaults(name: str) -> None:
    from parley.engine.params import params_of
    from parley.engine.rewrite.impolite_openai import KEYS

    rw = build_rewriter(name)
    listing = params_of(type(rw)).listing()
    listed = [p.name for p in listing]
    # impolite lists its backend=openai keys too; with the default rules backend they are not in effect
    assert [n for n in listed if n in rw.params] == list(rw.params)
    assert set(listed) - set(rw.params) <= set(KEYS)
    for p in listing:
        assert rw.params.get(p.name, p.default) == p.default
        assert p.help


def test_chain_trace_is_complete() -> None:
    chain = Chain(["asr-sim", "impolite:scenario=4", "wp", "disfluency"])
    t = SAMPLES[1]
    res = chain.apply(t, seed=3, turn_index=2)
    assert [s.name for s in res.steps] == ["impolite", "disfluency", "wp", "asr-sim"]
    assert res.steps[0].before == t
    for a, b in zip(res.steps, res.steps[1:], strict=False):
        assert b.before == a.after
    assert res.after == res.steps[-1].after
    assert res == chain.apply(t, seed=3, turn_index=2)
    assert res != chain.apply(t, seed=4, turn_index=2)


def test_disfluency_never_interrupts_inside_a_slot_value() -> None:
    rw = build_rewriter("disfluency:rate=1,repeat_share=0.5,restart=1,repair=0")
    for seed in range(20):
        for t in SAMPLES:
            c = ctx(t, seed)
            out = rw.rewrite(t, c)
            for s in c.spans:
                assert s.value in out.after
            assert [s.value for s in out.spans] == [s.value for s in c.spans]


def test_other_value_same_slot_different_value() -> None:
    from parley.engine.rewrite.values import other_value
    from parley.engine.types import Span

    rng = random.Random(0)
    for sp in (Span(0, 7, "area", "centre"), Span(0, 5, "leaveAt", "13:45"), Span(0, 1, "book_people", "3"),
               Span(0, 6, "day", "Friday"), Span(0, 9, "departure", "Cambridge"),
               Span(0, 5, "name", "nusha", "attraction")):
        for _ in range(10):
            v = other_value(sp, rng)
            assert v and v.lower() != sp.value.lower()
            assert (v[:1].isupper()) == (sp.value[:1].isupper())


@pytest.mark.parametrize("spec", ("wp", "wp:op=synonym,alpha=0.5", "wp:op=insert,alpha=0.5",
                                  "wp:op=swap,alpha=0.5", "wp:op=delete,alpha=0.5"))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=polite_requests(spoken=True), seed=st.integers(0, 2**31 - 1))
def test_wp_keeps_spoken_times(spec: str, req: PoliteRequest, seed: int) -> None:
    """EDA never touches a spoken time ("half past six" loses no word, swaps none); a slot swap would be
    reported (wp has no other value for a spoken time, so it keeps it)."""
    c = ctx(req.text, seed)
    times = [s for s in c.spans if s.slot in ("leaveAt", "arriveBy", "book_time")]
    assert [s.value for s in times] == [v for v in req.values if v in spoken_times()]
    out = build_rewriter(spec).rewrite(req.text, c)
    for s in times:
        assert s.value in out.after or any(ch["before"] == s.value for ch in out.changes), out.after


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=polite_requests(spoken=True), seed=st.integers(0, 2**31 - 1))
def test_chain_keeps_spoken_times(req: PoliteRequest, seed: int) -> None:
    chain = Chain(["impolite:scenario=3,intensity=3", "disfluency:rate=0.5,restart=0.5", "wp:slot=0"])
    out = chain.apply(req.text, seed=seed)
    for v in req.values:
        assert v in out.after, (req.text, out.after)
