"""Names and times confirmed by ear, spoken times tidied, and names said inside longer names: the text side
of biasing a spoken turn, with a recogniser that scores texts as the turn's audio would (no audio here; one
slow test scores with the real tiny.en)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.audio.asr import Transcript
from parley.audio.bias import Biaser
from parley.audio.confirm import DELTA, confirm
from parley.audio.times import fix_times, teen_or_ty
from parley.audio.voice import transcriber
from parley.engine.systems.multiwoz import MultiwozSystem
from parley.engine.vocabulary import vocabulary_of


@pytest.fixture(scope="module")
def biaser() -> Biaser:
    names = vocabulary_of(MultiwozSystem())
    assert names is not None
    return Biaser(names)


class EarASR:
    """Says ``text`` (words below ``unsure`` probability as listed, the rest 0.95) and scores texts as
    ``ear`` says: the text heard 0, another the value of the first of ``ear``'s keys it contains, else -20."""

    def __init__(self, text: str, unsure: tuple[str, ...] = (), ear: dict[str, float] | None = None) -> None:
        self.text, self.unsure, self.ear = text, unsure, ear or {}
        self.scored: list[list[str]] = []

    def transcribe(self, audio: object, sample_rate: int, **options: object) -> Transcript:
        words = tuple((w, 0.2 if w.strip(".,?") in self.unsure else 0.95) for w in self.text.split())
        return Transcript(text=self.text, segments=(), avg_logprob=None, audio_seconds=1.0, latency_ms=1.0,
                          model="fake", words=words)

    def score(self, audio: object, texts: list[str], *, short_window: bool | None = None) -> list[float]:
        self.scored.append(texts)
        return [0.0] + [next((v for k, v in self.ear.items() if k in t), -20.0) for t in texts[1:]]


def _heard(asr: EarASR) -> Transcript:
    session = SimpleNamespace(system=MultiwozSystem(), history=[])
    return transcriber(asr, session=lambda: session)(np.zeros(16000, dtype=np.float32))


@pytest.mark.parametrize(("said", "unsure", "ear", "named"), [
    ("Please reserve Magnif for four people.", ("Magnif",), {"Meghna": -3.0},
     "Please reserve Meghna for four people."),
    ("I'd like a taxi from Ealy station.", ("Ealy",), {"Ely": -1.0}, "I'd like a taxi from Ely station."),
    ("Is our way house cheap?", ("our", "way"), {"Archway": -4.5}, "Is Archway House cheap?"),
])
def test_unsure_words_become_the_name_the_audio_confirms(said: str, unsure: tuple[str, ...],
                                                         ear: dict[str, float], named: str) -> None:
    tr = _heard(EarASR(said, unsure, ear))
    assert tr.text == named
    assert tr.bias is not None and [s["by"] for s in tr.bias["snaps"]] == ["ear"]


@pytest.mark.parametrize("ear", [
    {},  # every name far less likely than what was heard
    {"Meghna": -DELTA - 1},  # the name itself too unlikely
    {"Meghna": -3.0, "Gandhi": -4.0},  # another name about as likely: not sure which
])
def test_a_name_the_audio_does_not_clearly_confirm_is_not_taken(ear: dict[str, float]) -> None:
    said = "Please reserve Magnif for four people."
    assert _heard(EarASR(said, ("Magnif",), ear)).text == said


def test_foods_and_areas_are_never_taken_by_ear() -> None:
    said = "Is the O'Lenboa cheap place to stay?"
    asr = EarASR(said, ("O'Lenboa", "cheap"), {"Lebanese": 0.5})
    assert _heard(asr).text == said


WORDS = ["please", "book", "a", "table", "for", "two", "the", "house", "near", "centre", "cheap", "thanks",
         "train", "station", "we", "want", "quiet", "hotel", "tonight", "at", "seven", "guest", "and",
         "march", "arena", "evelyn", "valor", "that", "conserve", "lot", "fine"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=9))
def test_words_the_recogniser_was_sure_of_are_never_changed_by_ear(biaser: Biaser, words: list[str]) -> None:
    text = " ".join(words)
    asked: list[list[str]] = []

    def ear(texts: list[str]) -> list[float]:  # any name far likelier than what was heard
        asked.append(texts)
        return [0.0] + [100.0] * (len(texts) - 1)

    assert confirm(biaser, text, [0.95] * len(words), ear) == (text, ())
    assert not asked


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.floats(0.0, 1.0)), min_size=1, max_size=9))
def test_a_sentence_no_name_fits_by_ear_is_left_alone(biaser: Biaser, heard: list[tuple[str, float]]) -> None:
    text = " ".join(w for w, _ in heard)
    ear = lambda texts: [0.0] + [-DELTA - 0.5] * (len(texts) - 1)  # noqa: E731
    assert confirm(biaser, text, [p for _, p in heard], ear) == (text, ())


@pytest.mark.parametrize(("said", "ear", "fixed"), [
    ("A taxi for 4:50.", {"4:15": 2.3}, "A taxi for 4:15."),
    ("A table at 7:50 please.", {"7:15": 0.0}, "A table at 7:15 please."),
    ("A table at 7:15 please.", {"7:50": -1.0}, "A table at 7:15 please."),  # as heard is likelier
    ("Leaving at 9.30.", {"9.13": -10.0}, "Leaving at 9.30."),
])
def test_fifteen_or_fifty_is_decided_by_ear(said: str, ear: dict[str, float], fixed: str) -> None:
    assert _heard(EarASR(said, (), ear)).text == fixed


@pytest.mark.parametrize(("heard", "tidied"), [
    ("at half-past six", "at half past six"), ("a quarter-to eight", "a quarter to eight"),
    ("at the Ate o'clock", "at the eight o'clock"), ("at for o'clock", "at four o'clock"),
    ("I ate there for a while", "I ate there for a while"),
    ("to the station for two", "to the station for two"),
])
def test_spoken_times_are_written_as_times(heard: str, tidied: str) -> None:
    assert fix_times(heard)[0] == tidied


def test_a_hyphenated_half_past_reaches_the_system_as_a_time() -> None:
    tr = _heard(EarASR("Book Zizzi Cambridge for eight people at half-past six."))
    assert tr.text == "Book Zizzi Cambridge for eight people at half past six."
    assert teen_or_ty("at 6:30 or 4.15, for 3 people") == [(3, 7, "6:13"), (11, 15, "4.50")]


@pytest.mark.parametrize(("heard", "said"), [
    ("Tell me about the Cambridge Belt Free.", "Tell me about the Cambridge Belfry."),
    ("Where is the Cambridge Art Theater?", "Where is the Cambridge Arts Theatre?"),
])
def test_a_name_said_inside_a_longer_one_does_not_stop_the_longer_one(biaser: Biaser, heard: str,
                                                                       said: str) -> None:
    probs: list[float | None] = [0.3 if w.strip(".?") in ("Belt", "Free", "Art", "Theater") else 0.95
                                 for w in heard.split()]
    assert biaser.snap(heard, probs)[0] == said
    assert biaser.snap("Tell me about Cambridge.", [0.3, 0.95, 0.95, 0.3])[0] == "Tell me about Cambridge."


@pytest.mark.slow
def test_the_real_recogniser_hears_the_right_name_likelier_than_others() -> None:
    from parley.audio.asr import SAMPLE_RATE, get_asr, resample
    from parley.audio.tts import get_tts

    audio, sr = get_tts("piper", fallback=False, deterministic=True).synthesize(
        "Please reserve Meghna for four people.")
    got = get_asr("tiny.en").score(resample(audio, sr, SAMPLE_RATE), [
        "Please reserve Meghna for four people.", "Please reserve Nandos for four people.",
        "Please reserve Rajmahal for four people."])
    assert got[0] > got[1] + 5 and got[0] > got[2] + 5


def test_a_name_of_two_words_said_as_it_is_is_not_taken_for_a_longer_one(biaser: Biaser) -> None:
    heard = "Please book worth house for three people."
    probs: list[float | None] = [0.95, 0.95, 0.4, 0.4, 0.95, 0.95, 0.95]
    assert "warkworth house" not in biaser.candidates(heard, probs)
    assert biaser.snap(heard, probs)[0] == heard


@pytest.mark.parametrize(("said", "probs", "ear"), [
    # "taxi" was heard surely: "a taxi" is not "Curry King", however the audio scores it
    ("I will need a taxi as well.", {"a": 0.55, "taxi": 0.96}, {"Curry King": -2.0}),
    # every word common English and only a little like the name: "far to" is not "Cotto"
    ("Is it far to walk from the station?", {"far": 0.19, "to": 0.79}, {"Cotto": -3.0}),
])
def test_plain_words_heard_surely_or_only_a_little_like_a_name_stay(biaser: Biaser, said: str,
                                                                     probs: dict[str, float],
                                                                     ear: dict[str, float]) -> None:
    words = said.split()
    heard: list[float | None] = [probs.get(w.strip(".?"), 0.95) for w in words]
    score = lambda texts: [0.0] + [next((v for k, v in ear.items() if k in t), -20.0)  # noqa: E731
                                   for t in texts[1:]]
    assert confirm(biaser, said, heard, score) == (said, ())
