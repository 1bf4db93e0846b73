"""A spoken turn is transcribed whole, and only what was said: speech after a pause inside the turn stays in
it (live, when the speaker resumes within the end-of-turn silence, and from a file); a stock phrase Whisper
appends where the VAD heard no speech ("… phone number? Thank you.") is dropped, one that was said is kept; a
sentence repeated by a decoding loop is kept once. Real synthesised speech (piper, espeak-ng), Silero VAD and
tiny.en."""

from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest

from parley.audio.asr import Transcript
from parley.audio.cleanup import drop_loops, heard_tail, stock_tail, without_tail
from parley.audio.listen import Heard, Listener, Transcribe, speech_span
from parley.audio.vad import has_long_pause
from parley.audio.wer import normalise
from tests.spoken import noise, paused, speech

SR = 16000
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")
BOOK = ("I'd like to book the Acorn Guest House", "for two nights.")


@pytest.fixture(scope="module")
def transcribe() -> Transcribe:
    from parley.audio.asr import get_asr
    from parley.audio.voice import transcriber

    return transcriber(get_asr("tiny.en"))


def noisy(audio: np.ndarray) -> np.ndarray:
    return (audio + noise(audio.size / SR, -50.0, 3)[:audio.size]).astype(np.float32)


@needs_espeak
@pytest.mark.parametrize(("parts", "pause", "lead"), [  # espeak-ng files: digital silence between the parts
    (BOOK, 0.9, 0.0),
    (BOOK, 1.2, 1.0),
    (("I'd like to book the", "Acorn Guest House for two nights."), 1.2, 0.0),
])
def test_speech_after_a_pause_is_transcribed_with_the_rest(transcribe: Transcribe, parts: tuple[str, ...],
                                                           pause: float, lead: float) -> None:
    audio = paused(parts, pause, lead_s=lead)
    span = speech_span(audio)
    assert has_long_pause(span)
    got = normalise(transcribe(span).text).split()
    said = normalise(" ".join(parts)).split()
    assert said[-2:] == got[-2:] and len(got) >= len(said) - 2, got


def test_a_turn_without_a_long_pause_is_decoded_as_it_was() -> None:
    said = np.concatenate([noise(0.3), speech("Italian food, please."), noise(0.3)])
    assert not has_long_pause(noisy(said))
    assert not has_long_pause(np.zeros(SR, np.float32))


def hear(transcribe: Transcribe, audio: np.ndarray, end_silence_s: float) -> list[Heard]:
    listener = Listener(transcribe, end_silence_s=end_silence_s)
    heard: list[Heard] = []
    for i in range(0, audio.size, 1024):
        heard += listener.feed(100.0 + i / SR, audio[i:i + 1024])
    listener.close()
    return heard + listener.flush()


@needs_espeak
def test_a_speaker_who_resumes_within_the_end_of_turn_silence_stays_in_one_whole_turn(
        transcribe: Transcribe) -> None:
    audio = paused(BOOK, 1.2, lead_s=1.0, trail_s=2.5)
    (turn,) = hear(transcribe, audio, end_silence_s=2.0)  # espeak-ng adds its own quiet to the pause
    assert {"house", "nights"} <= set(normalise(turn.transcript.text).split()), turn.transcript.text


class Appends:
    """tiny.en, then "Thank you." appended over the last 0.3 s of the audio, as Whisper appends it where
    nothing was said; word times only when asked for, as the real recogniser gives them."""

    def __init__(self) -> None:
        from parley.audio.asr import get_asr

        self.asr = get_asr("tiny.en")
        self.calls: list[dict[str, object]] = []

    def transcribe(self, audio: np.ndarray, sample_rate: int, **options: bool) -> Transcript:
        self.calls.append(dict(options))
        tr = self.asr.transcribe(audio, sample_rate, **options)
        end = audio.size / SR
        extra = ((end - 0.3, end - 0.15), (end - 0.15, end))
        return replace(tr, text=f"{tr.text} Thank you.", words=(*tr.words, ("Thank", 0.6), ("you.", 0.9)),
                       word_spans=(*tr.word_spans, *extra) if tr.word_spans else ())


def test_a_stock_phrase_appended_where_no_speech_was_heard_is_dropped() -> None:
    from parley.audio.voice import transcriber

    audio = noisy(np.concatenate([noise(0.3), speech("Can I have the phone number?"), noise(0.6)]))
    asr = Appends()
    text = transcriber(asr)(audio).text
    assert normalise(text) == "can i have the phone number", text
    assert [c.get("word_probs", False) for c in asr.calls] == [False, True]  # times asked for only to check


def test_a_stock_phrase_that_was_said_is_kept(transcribe: Transcribe) -> None:
    audio = noisy(np.concatenate([noise(0.3), speech("Can I have the phone number?"), noise(0.3),
                                  speech("Thank you."), noise(0.3)]))
    assert normalise(transcribe(audio).text).endswith("thank you")


def test_which_endings_are_stock_phrases() -> None:
    assert stock_tail("Can I have the phone number? Thank you.") == 2
    assert stock_tail("Book it. Thanks for watching!") == 3
    assert stock_tail("Thank you.") == 0  # a whole turn is not appended to anything
    assert stock_tail("I said thank you") == 0 and stock_tail("Italian food, please.") == 0
    tr = Transcript("Yes. Thank you.", (), None, 1.0, 1.0, "t", words=(("Yes.", 0.9), ("Thank", 0.9),
                                                                        ("you.", 0.9)))
    assert heard_tail(tr, np.zeros(SR, np.float32)) is None  # no word times: cannot tell
    timed = replace(tr, word_spans=((0.0, 0.3), (0.4, 0.6), (0.6, 0.9)))
    assert heard_tail(timed, np.zeros(SR, np.float32)) is False
    dropped = without_tail(timed, stock_tail(timed.text))
    assert dropped.text == "Yes." and dropped.words == (("Yes.", 0.9),)
    assert dropped.word_spans == ((0.0, 0.3),)


@pytest.mark.parametrize(("heard", "kept"), [
    ("Please. Please. Please. Please. Pl", "Please."),
    ("Can you find me a train? Leaving after 9 15. Leaving after 9 15. Leaving after 9 15. Leaving after",
     "Can you find me a train? Leaving after 9 15."),
    ("No. No. I said the north.", "No. No. I said the north."),  # said twice is speech, not a loop
    ("Italian food, please.", "Italian food, please."),
])
def test_a_sentence_repeated_by_a_decoding_loop_is_kept_once(heard: str, kept: str) -> None:
    assert drop_loops(heard) == kept


def test_a_stock_phrase_a_prompted_pass_made_up_is_dropped() -> None:
    from parley.audio.asr import get_asr
    from parley.audio.cleanup import drop_unsaid

    asr = get_asr("tiny.en")
    audio = np.concatenate([np.zeros(3000, np.float32), speech("Yes please."), noise(0.2, -50.0, 2)])

    def decode(**options: object) -> Transcript:
        return asr.transcribe(audio, SR, vad=False, deterministic=True, short_window=True, **options)

    prompt = ("I need a train to Cambridge on Saturday. Where will you be departing from? "
              "From London Kings Cross.")
    options: dict[str, object] = {"word_probs": True, "initial_prompt": prompt}
    prompted = decode(**options)
    assert normalise(prompted.text) == "yes please thanks"  # tiny.en, prompted with the dialogue so far
    assert normalise(drop_unsaid(prompted, audio, decode, options).text) == "yes please"


def test_a_decoding_loop_is_decoded_again_without_repeats() -> None:
    from parley.audio.asr import get_asr

    audio = np.concatenate([np.zeros(3000, np.float32), speech("Please."), noise(0.2, -50.0, 2)])
    prompt = ("I need a train to Cambridge on Saturday. Where will you be departing from? "
              "From London Kings Cross.")
    tr = get_asr("tiny.en").transcribe(audio, SR, vad=False, deterministic=True, short_window=True,
                                       initial_prompt=prompt)  # greedy tiny.en says "Please?" 25 times here
    assert normalise(tr.text).split().count("please") <= 3, tr.text
    assert normalise(drop_loops(tr.text)) == "please"


class StopsAtThePause:
    """tiny.en, except that the first decode of the whole turn ends at its pause, as Whisper's sometimes does
    even with the pause shortened (its word times are those of the whole turn)."""

    def __init__(self, whole: np.ndarray, pause_at: int) -> None:
        from parley.audio.asr import get_asr

        self.asr, self.whole, self.pause_at, self.calls = get_asr("tiny.en"), whole, pause_at, 0

    def transcribe(self, audio: np.ndarray, sample_rate: int, **options: bool) -> Transcript:
        self.calls += 1
        if audio.size == self.whole.size:
            return self.asr.transcribe(audio[:self.pause_at], sample_rate, **options)
        return self.asr.transcribe(audio, sample_rate, **options)


@needs_espeak
def test_speech_the_transcript_left_out_after_a_pause_is_decoded_and_appended() -> None:
    from parley.audio.voice import transcriber

    first = paused(BOOK[:1], 0.0, lead_s=0.3, trail_s=0.0)
    audio = np.concatenate([first, paused(BOOK[1:], 0.0, lead_s=1.0)])
    asr = StopsAtThePause(audio, first.size + SR // 2)
    text = transcriber(asr)(audio).text
    got = normalise(text).split()
    assert "house" in got and "2" in got[got.index("house"):] and len(got) >= 10, text  # the part after it
    assert asr.calls >= 2
