"""Contextual biasing of spoken turns, without audio: systems say which names they know, the recogniser is
prompted with the dialogue's last turns and given the names it came close to as hotwords, and near-misses
are snapped to known names only when the match is sure (sentences that name nothing are left alone)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.audio.asr import Transcript
from parley.audio.bias import Biaser, biaser_for, fix_times
from parley.audio.cleanup import trim_to
from parley.audio.voice import transcriber
from parley.engine.systems.multiwoz import MultiwozSystem
from parley.engine.systems.sktod import SKTODSystem
from parley.engine.types import Message
from parley.engine.vocabulary import KnownNames, Vocabulary, vocabulary_of


@pytest.fixture(scope="module")
def biaser() -> Biaser:
    names = vocabulary_of(MultiwozSystem())
    assert names is not None
    return Biaser(names)


def test_names_are_kept_once_lower_case_under_their_first_kind() -> None:
    names = KnownNames.of({"venue": ["Acorn  Guest House", "acorn guest house", "", "x" * 200],
                           "area": ["North", "acorn guest house"]})
    assert names.names() == ("acorn guest house", "north")
    assert names.kind_of("North") == "area" and names.kind_of("acorn guest house") == "venue"
    assert len(names.merged(KnownNames.of({"station": ["Ely", "north"]}))) == 3


def test_multiwoz_and_sktod_expose_their_databases_names() -> None:
    for system in (MultiwozSystem(), SKTODSystem()):
        assert isinstance(system, Vocabulary)
        names = vocabulary_of(system)
        assert names is not None
        assert {"cityroomz", "acorn guest house", "pizza hut cherry hinton"} <= set(names.names("venue"))
    mw = vocabulary_of(MultiwozSystem())
    assert mw is not None
    assert {"stansted airport", "kings lynn"} <= set(mw.names("station"))
    assert "north" in mw.names("area") and "chinese" in mw.names("food")


def test_a_system_without_a_vocabulary_or_with_a_broken_one_is_not_biased() -> None:
    class Broken:
        def vocabulary(self) -> KnownNames:
            raise OSError("database gone")

    assert vocabulary_of(object()) is None and biaser_for(object()) is None
    assert vocabulary_of(Broken()) is None and biaser_for(None) is None


@pytest.mark.parametrize(("heard", "said"), [
    ("a train from Stance to Airport", "a train from Stansted Airport"),
    ("to take on guest house leaving at 915", "to Acorn Guest House leaving at 915"),
    ("a table at pizza-hot cherry hinton", "a table at Pizza Hut Cherry Hinton"),
    ("a room at the acorn guest house", "a room at the acorn guest house"),  # said right: untouched
    ("a room at the acorn guesthouse", "a room at the Acorn Guest House"),  # spelt as the system spells it
])
def test_near_misses_of_known_names_are_snapped(biaser: Biaser, heard: str, said: str) -> None:
    assert biaser.snap(heard)[0] == said


@pytest.mark.parametrize("text", [
    "Yes, please book it for me.", "No, that is everything, thanks a lot.", "Is there parking at the place?",
    "We would like somewhere quiet near the station.", "My sister prefers a house with a garden.",
    "Could you say the price again slowly?", "Thank you, that sounds lovely.",
])
def test_sentences_naming_nothing_are_left_alone(biaser: Biaser, text: str) -> None:
    assert biaser.snap(text) == (text, ())
    assert biaser.snap(text, [1.0] * len(text.split())) == (text, ())


WORDS = ["please", "book", "a", "table", "for", "two", "the", "house", "near", "centre", "cheap", "thanks",
         "train", "station", "we", "want", "quiet", "hotel", "tonight", "at", "seven", "guest", "and"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9))
def test_plain_words_the_recogniser_was_sure_of_are_never_snapped(biaser: Biaser, words: list[str]) -> None:
    text = " ".join(words)
    assert biaser.snap(text, [0.95] * len(words))[0] == text


@pytest.mark.parametrize(("heard", "fixed"), [
    ("leaving at 915", "leaving at 9:15"), ("at half pass 7", "at half past 7"),
    ("a table for 4 people", "a table for 4 people"), ("for 230 pounds", "for 230 pounds"),
])
def test_spoken_times_get_their_colon(heard: str, fixed: str) -> None:
    assert fix_times(heard)[0] == fixed


def _transcript(text: str, prob: float = 0.3) -> Transcript:
    return Transcript(text=text, segments=(), avg_logprob=None, audio_seconds=1.0, latency_ms=10.0,
                      model="fake", words=tuple((w, prob) for w in text.split()))


class FakeASR:
    """Says ``first`` without hotwords and ``second`` with them; records every call's options."""

    def __init__(self, first: str, second: str) -> None:
        self.first, self.second, self.calls = first, second, []  # type: ignore[var-annotated]

    def transcribe(self, audio: Any, sample_rate: int, **options: Any) -> Transcript:
        self.calls.append(options)
        return _transcript(self.second if options.get("hotwords") else self.first)


def test_the_voice_path_prompts_with_recent_turns_and_retries_with_the_names_heard() -> None:
    asr = FakeASR("I'd like a room at Citrohers.", "I'd like a room at Cityroomz.")
    session = SimpleNamespace(system=MultiwozSystem(), history=[
        Message("user", "I need a hotel."), Message("system", "Cityroomz is a cheap hotel in the centre.")])
    tr = transcriber(asr, session=lambda: session)(np.zeros(16000, dtype=np.float32))
    assert tr.text == "I'd like a room at Cityroomz."
    first, second = asr.calls
    assert first["hotwords"] is None and "Cityroomz is a cheap hotel" in first["initial_prompt"]
    assert "Cityroomz" in second["hotwords"] and first["word_probs"] and second["word_probs"]
    assert tr.bias is not None and tr.bias["kept_second"]
    assert tr.bias["heard"] == "I'd like a room at Citrohers."
    assert tr.to_json()["bias"]["hotwords"][0] == "cityroomz"


def test_a_sentence_naming_nothing_is_recognised_once_and_kept() -> None:
    asr = FakeASR("Yes, please book it for me.", "something else entirely")
    session = SimpleNamespace(system=MultiwozSystem(), history=[])
    tr = transcriber(asr, session=lambda: session)(np.zeros(16000, dtype=np.float32))
    assert tr.text == "Yes, please book it for me." and len(asr.calls) == 1
    assert asr.calls[0]["initial_prompt"] is None


def test_without_a_session_or_a_vocabulary_the_recogniser_is_called_as_before() -> None:
    for session in (None, SimpleNamespace(system=object(), history=[])):
        asr = FakeASR("a room at Citrohers", "unused")
        tr = transcriber(asr, session=(lambda s=session: s))(np.zeros(16000, dtype=np.float32))
        assert tr.text == "a room at Citrohers" and tr.bias is None
        assert asr.calls == [{"vad": False, "deterministic": True, "short_window": True}]


def test_words_made_up_after_the_last_sentence_of_a_prompted_pass_are_dropped() -> None:
    class Tails(FakeASR):
        def transcribe(self, audio: Any, sample_rate: int, **options: Any) -> Transcript:
            self.calls.append(options)
            return Transcript(text="Italian food, please. this.", segments=(), avg_logprob=None,
                              audio_seconds=1.0, latency_ms=1.0, model="fake",
                              words=(("Italian", 0.9), ("food,", 0.95), ("please.", 0.97), ("this.", 0.09)))

    asked = [Message("system", "What food would you like?")]
    session = SimpleNamespace(system=MultiwozSystem(), history=asked)
    tr = transcriber(Tails("", ""), session=lambda: session)(np.zeros(16000, dtype=np.float32))
    assert tr.text == "Italian food, please."


def test_a_second_pass_that_runs_on_is_cut_to_the_first_ones_length() -> None:
    assert trim_to("Can you find me the phone number of Wagamama? Can you",
                   "Can you find me the phone number of Wigamama?") == \
        "Can you find me the phone number of Wagamama?"
    assert trim_to("a room at Cityroomz", "a room at Citrohers") == "a room at Cityroomz"
