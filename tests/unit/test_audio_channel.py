"""The ``asr-real`` rewriter: parameters, noise, slot-value survival, and (slow) the real round trip through
``engine.rewrite.chain.Chain``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from parley.audio.channel import RealASRChannel, add_noise, survival
from parley.engine.rewrite import REWRITERS, build_rewriter
from parley.engine.rewrite.chain import Chain
from parley.engine.spec import SpecError
from parley.engine.types import Span


def test_registered_and_built_from_a_spec() -> None:
    assert "asr-real" in REWRITERS
    rw = build_rewriter("asr-real:tts=espeak,model=base,snr=20,speed=1.2")
    assert isinstance(rw, RealASRChannel)
    assert dict(rw.params) == {
        "tts": "espeak",
        "model": "base",
        "snr": 20.0,
        "speed": 1.2,
        "keep_audio": False,
        "fast": True,
    }
    assert list(RealASRChannel.PARAMS.model_fields) == ["tts", "model", "snr", "speed", "keep_audio", "fast"]
    assert build_rewriter("asr-real:snr=none").params["snr"] is None
    assert rw._asr is None and rw._tts is None  # nothing loads until the first rewrite


@pytest.mark.parametrize("spec,match", [
    ("asr-real:tts=festival", "tts: must be one of"),
    ("asr-real:snr=99", "snr: must be ≤ 60"),
    ("asr-real:snr=loud", "snr: must be a number"),
    ("asr-real:speed=3", "speed: must be"),
    ("asr-real:keep_audio=maybe", "keep_audio"),
    ("asr-real:fast=2", "fast: must be true or false"),
    ("asr-real:volume=2", "volume: unknown parameter"),
])
def test_bad_params_are_spec_errors(spec: str, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        build_rewriter(spec)


def test_noise_hits_the_requested_snr() -> None:
    t = np.arange(16000) / 16000
    clean = (0.5 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)
    noisy = add_noise(clean, 10.0, np.random.default_rng(1))
    snr = 10 * np.log10(
        np.mean(clean.astype(np.float64) ** 2) / np.mean((noisy - clean).astype(np.float64) ** 2)
    )
    assert snr == pytest.approx(10.0, abs=0.3)
    assert np.array_equal(noisy, add_noise(clean, 10.0, np.random.default_rng(1)))


def _span(text: str, value: str, slot: str) -> Span:
    i = text.index(value)
    return Span(i, i + len(value), slot, value)


def test_survival_compares_normalised_values() -> None:
    src = "Book Pizza Hut Fen Ditton at 17:15 for 4 people"
    spans = (_span(src, "Pizza Hut Fen Ditton", "name"), _span(src, "17:15", "book_time"),
             _span(src, "4", "book_people"))
    lost, kept = survival(spans, "Book Pizza Hut Finn didn't at five fifteen pm for four people.")
    assert [c["slot"] for c in lost] == ["name", "book_time"]
    assert lost[0] == {"slot": "name", "before": "Pizza Hut Fen Ditton", "after": "Pizza Hut Finn didn't",
                       "kind": "asr"}
    assert kept == ()  # "four" keeps the value but not verbatim, so no span offsets
    lost, kept = survival(spans, "Book pizza hut fen ditton at 17.15 for 4 people.")
    assert lost == ()
    assert [(s.slot, s.value) for s in kept] == [("name", "pizza hut fen ditton"), ("book_people", "4")]
    lost, _ = survival(spans, "")
    assert all(c["after"] == "" for c in lost) and len(lost) == 3


def test_empty_text_is_untouched() -> None:
    from parley.engine.rewrite.base import RewriteContext

    rw = RealASRChannel()
    out = rw.rewrite("  ", RewriteContext(rng=random.Random(0), seed=0))
    assert out.after == "  " and rw._asr is None


@pytest.mark.slow
def test_real_channel_through_the_chain(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = "I need a taxi to the Lucky Star at 18:30 for 3 people."
    chain = Chain(["asr-real"])
    res = chain.apply(text, seed=7, turn_index=2)
    assert [s.name for s in res.steps] == ["asr-real"] and chain.name == "asr-real"
    step = res.steps[0]
    assert step.before == text and step.after == res.after and res.after.strip()
    info = step.info
    assert info["transcript"] == res.after and info["tts"] == "piper" and info["model"] == "tiny.en"
    assert info["segments"] and info["avg_logprob"] is not None and info["audio_seconds"] > 1.0
    assert info["tts_ms"] > 0 and info["asr_ms"] > 0
    json.dumps(step.to_json())  # stored like every other step
    again = Chain(["asr-real"]).apply(text, seed=7, turn_index=2)
    assert again.after == res.after  # deterministic
    assert info["fast"] is True
    full = Chain(["asr-real:fast=false"]).apply(text, seed=7, turn_index=2).steps[0]
    assert full.info["fast"] is False and full.after.strip()


@pytest.mark.slow
def test_real_channel_noise_is_seeded(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = "Book a table at the Golden Curry on Friday at 19:45, please."
    noisy = Chain(["asr-real:snr=0,keep_audio=true"])
    a = noisy.apply(text, seed=1)
    b = noisy.apply(text, seed=1)
    assert a.after == b.after
    step = a.steps[0]
    assert step.info["snr"] == 0.0 and step.info["audio_path"].endswith(".wav")
    for c in step.changes:
        assert c["kind"] == "asr" and c["before"] in text
    seeds = {noisy.apply(text, seed=s).after for s in range(2, 6)}
    assert len(seeds | {a.after}) > 1  # different noise, different mistakes


@pytest.mark.parametrize(("value", "transcript", "closest"), [
    ("Pizza Hut Fen Ditton", "Book Pizza Hut Finn didn't at five fifteen pm for four people.",
     "Pizza Hut Finn didn't"),
    ("cambridge", "I want a train to cambrige on friday.", "cambrige"),
    ("golden wok", "Is the golden walk open late?", "golden walk"),
    ("leicester", "A train from lester please.", "lester"),
    ("north", "somewhere in the nought", "nought"),
    ("the good luck chinese food takeaway", "the good look chinese food take away in the south",
     "the good look chinese food take away"),
    ("wednesday", "on wensday", "wensday"),
    ("cheap", "I need something cheap and cheerful", "cheap"),
    ("17:15", "Book Pizza Hut Finn didn't at five fifteen pm for four people.", ""),
    ("x", "", ""),
])
def test_closest_words_heard_for_a_lost_value(value: str, transcript: str, closest: str) -> None:
    """The words reported for a lost slot value: rapidfuzz's partial-ratio alignment widened to whole words;
    the expected values are what the earlier sliding-window search returned on the same inputs."""
    from parley.audio.channel import _closest

    assert _closest(value, transcript) == closest
