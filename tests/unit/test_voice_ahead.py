"""Replies made ahead during the end-of-turn silence (audio.ahead), on real synthesised speech, Whisper, the
multiwoz system and piper: the confirm path commits the turn computed ahead and plays its first sentence made
ahead, the reply audio being the same as without; speech that resumes drops the speculation; a transcript
that differs at the end uses nothing of it. Every path stores the same session as plain turns."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from parley.audio import devices
from parley.audio.ahead import AheadReply, preparer
from parley.audio.listen import Listener
from parley.audio.speaker import speak_reply
from parley.audio.tts import get_tts, sentence_stream
from parley.audio.voices import first_clause
from parley.engine.rewrite.chain import Chain
from parley.engine.session import Session
from parley.engine.systems import build_system
from parley.store import open_store
from tests.spoken import noise, speech
from tests.unit.test_session_ahead import stored

SR = 16000
SAID = "I am looking for a cheap restaurant in the north."


@pytest.fixture(scope="module")
def transcribe():  # type: ignore[no-untyped-def]
    from parley.audio.asr import get_asr
    from parley.audio.voice import transcriber

    return transcriber(get_asr("tiny.en"))


@pytest.fixture(scope="module")
def piper():  # type: ignore[no-untyped-def]
    return get_tts("piper", deterministic=True)


@pytest.fixture(autouse=True)
def no_speakers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices, "check_output", lambda: devices.AudioStatus(False, "no speakers", (), ()))


def noisy(*parts: np.ndarray) -> np.ndarray:
    audio = np.concatenate(parts)
    return (audio + noise(audio.size / SR, -40.0, 0)[:audio.size]).astype(np.float32)


def session(store: Any) -> Session:
    return Session(store, build_system("multiwoz"), system_spec="multiwoz", chain=Chain(["disfluency", "wp"]),
                   seed=5)


def hear(audio: np.ndarray, transcribe: Any, prepare: Any, *, quick: bool = False) -> list[Any]:
    """The Listener's utterances; ``quick``: every speculation finishes before the next block comes (as on a
    fast machine), so one made for a pause is complete when speech resumes."""
    listener = Listener(transcribe, prepare=prepare)
    heard = []
    for i in range(0, audio.size, 1600):
        heard += listener.feed(100.0 + i / SR, audio[i:i + 1600])
        job = listener._job
        if quick and job is not None and job.ahead is not None:
            job.ahead.result(timeout=60)
    heard += listener.flush()
    for h in heard:  # read the speculations before the listener's thread pool goes
        if h.ahead is not None:
            h.ahead.result(timeout=60)
    listener.close()
    return heard


def plain(text: str) -> list[tuple[Any, ...]]:
    store = open_store(":memory:")
    ses = session(store)
    ses.turn(text)
    out = stored(store, ses)
    store.close()
    return out


def test_confirmed_turn_commits_the_reply_made_ahead(transcribe, piper, tmp_path: Path) -> None:
    store = open_store(":memory:")
    ses = session(store)
    calls: list[str] = []
    prepare = preparer(lambda: ses, piper)
    (h,) = hear(noisy(noise(0.4), speech(SAID), noise(1.0)), transcribe,
                lambda tr, cancelled: calls.append(tr.text) or prepare(tr, cancelled))
    assert h.speculative and h.ahead is not None and len(calls) == 1
    assert store.sessions() == []  # made ahead, nothing stored yet
    ahead = AheadReply(h.ahead)
    text = h.transcript.text.strip()
    ex = ses.run(ses.accept(text), ahead.turn())
    assert ex.ahead and ex.reply is not None
    first = ahead.speech_for(ex.reply.text)
    assert first is not None and first.tts_ms > 0
    spoken = speak_reply(piper, ex.reply.text, str(tmp_path / "a.wav"), ahead=first)
    again = speak_reply(piper, ex.reply.text, str(tmp_path / "b.wav"))
    assert spoken.timings()["tts_ahead_ms"] == pytest.approx(first.tts_ms, abs=0.1)
    assert "tts_ahead_ms" not in again.timings() and spoken.sentences == again.sentences
    a, b = (soundfile.read(tmp_path / name)[0] for name in ("a.wav", "b.wav"))
    np.testing.assert_array_equal(a, b)  # the reply stored is the same audio as without speaking ahead
    assert stored(store, ses) == plain(text)
    store.close()


def test_speech_that_resumes_drops_the_speculation(transcribe, piper) -> None:
    store = open_store(":memory:")
    ses = session(store)
    made: list[Any] = []
    prepare = preparer(lambda: ses, piper)

    def spy(tr: Any, cancelled: threading.Event) -> Any:
        made.append(prepare(tr, cancelled))
        return made[-1]

    audio = noisy(noise(0.4), speech("A table for two."), noise(0.3), speech("At seven, please."), noise(1.0))
    (h,) = hear(audio, transcribe, spy, quick=True)  # one turn: the pause was shorter than the silence
    assert store.sessions() == []
    text = h.transcript.text.strip()
    assert "seven" in text.lower() and made[-1].turn.text == text
    assert len(made) == 2 and "seven" not in made[0].turn.text.lower()  # made for the first part, dropped
    ex = ses.run(ses.accept(text), AheadReply(h.ahead).turn())
    assert ex.ahead
    assert stored(store, ses) == plain(text)  # whatever was made for the first part left no trace
    store.close()


def test_a_different_final_transcript_uses_nothing_made_ahead(transcribe, piper) -> None:
    store = open_store(":memory:")
    ses = session(store)
    (h,) = hear(noisy(noise(0.4), speech(SAID), noise(1.0)), transcribe, preparer(lambda: ses, piper))
    ahead = AheadReply(h.ahead)
    other = "I need a train to Cambridge on Saturday."
    ex = ses.run(ses.accept(other), ahead.turn())
    assert not ex.ahead and ex.reply is not None and ahead.speech_for(ex.reply.text) is None
    assert stored(store, ses) == plain(other)
    store.close()


def test_no_session_or_no_voice_prepares_less(transcribe, piper) -> None:
    (h,) = hear(noisy(noise(0.4), speech(SAID), noise(1.0)), transcribe, preparer(lambda: None, piper))
    assert AheadReply(h.ahead).turn() is None
    store = open_store(":memory:")
    (h,) = hear(noisy(noise(0.4), speech(SAID), noise(1.0)), transcribe, preparer(lambda: session(store)))
    ahead = AheadReply(h.ahead)
    turn = ahead.turn()
    assert turn is not None and turn.reply is not None and ahead.speech_for(turn.reply.text) is None
    store.close()


@pytest.mark.parametrize(("text", "head"), [
    ("I'd suggest Da Vinci Pizzeria, an italian place in the north. Shall I book it?",
     "I'd suggest Da Vinci Pizzeria,"),
    ("The phone number of Da Vinci Pizzeria is 01223351707.", "The phone number of Da Vinci Pizzeria is"),
    ("I've booked 2 tickets on TR8885; the total is 37.76 pounds.", "I've booked 2 tickets on TR8885;"),
    ("I found 2 restaurants for you. Shall I book one?", None),  # a short first sentence: not cut
    ("Da Vinci Pizzeria is a cheap italian restaurant in the north.", None),  # no place to cut
    ("It departs at 07:17 and gets in at 08:08 on Saturday morning.", None),  # a colon in a time is no clause
])
def test_a_long_first_sentence_is_cut_after_its_first_clause(text: str, head: str | None) -> None:
    cut, rest = first_clause(text)
    if head is None:
        assert (cut, rest) == (text, "")
    else:
        assert cut == head and f"{cut} {rest}" == text


def test_quick_start_makes_a_shorter_first_piece(piper) -> None:
    text = "The phone number of Da Vinci Pizzeria is 01223351707. Anything else?"
    plain_pieces = list(sentence_stream(piper, text))
    quick = list(sentence_stream(piper, text, quick_start=True))
    assert len(quick) == len(plain_pieces) + 1 and quick[0].size < plain_pieces[0].size / 2
