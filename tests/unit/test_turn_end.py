"""Semantic end of turn: the rules that say whether a transcript so far is a complete turn, and the Listener
ending a turn sooner when it is and later when it is not (real synthesised speech, Silero VAD, tiny.en; the
transcript made during the pause is waited for, so the result does not depend on the machine's speed)."""

from __future__ import annotations

import numpy as np
import pytest

from parley.audio.listen import Heard, Listener, Transcribe
from parley.audio.turn_end import Completeness, TurnEndPolicy, completeness
from parley.engine.settings import SettingsError, load_settings
from tests.spoken import noise, speech

SR = 16000


@pytest.mark.parametrize(("text", "kind"), [
    ("Italian food, please.", Completeness.COMPLETE),
    ("Can I have the phone number?", Completeness.COMPLETE),
    ("Yes, thank you.", Completeness.COMPLETE),
    ("I'd like a table for...", Completeness.INCOMPLETE),
    ("I'd like a table for.", Completeness.INCOMPLETE),
    ("I need a train to", Completeness.INCOMPLETE),
    ("Book it for my", Completeness.INCOMPLETE),
    ("I'd like the cheap one and", Completeness.INCOMPLETE),
    ("a table for two, um", Completeness.INCOMPLETE),
    ("I want to go to Cambridge,", Completeness.INCOMPLETE),
    ("somewhere in the north", Completeness.UNKNOWN),
    ("", Completeness.UNKNOWN),
])
def test_completeness_rules(text: str, kind: Completeness) -> None:
    assert completeness(text) is kind


def test_policy_silences() -> None:
    p = TurnEndPolicy.of("semantic", 500, 250, 1000, 0.4)
    assert [p.wait_windows(k) for k in Completeness] == [8, 31, 16]  # 32 ms windows
    assert TurnEndPolicy.of("silence", 500, 250, 1000, 0.2).wait_windows(Completeness.COMPLETE) == 16
    assert TurnEndPolicy.of("semantic", 300, 400, 200, 0.2).complete_silence_ms == 300  # clamped to the end
    with pytest.raises(ValueError, match="policy"):
        TurnEndPolicy("soon")


def test_end_of_turn_settings_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().audio.end_of_turn == "semantic"
    monkeypatch.setenv("PARLEY_AUDIO__END_OF_TURN", "soon")
    with pytest.raises(SettingsError, match="PARLEY_AUDIO__END_OF_TURN"):
        load_settings()
    monkeypatch.setenv("PARLEY_AUDIO__END_OF_TURN", "silence")
    monkeypatch.setenv("PARLEY_AUDIO__COMPLETE_SILENCE_MS", "20")
    with pytest.raises(SettingsError, match="COMPLETE_SILENCE_MS"):
        load_settings()


def noisy(*parts: np.ndarray) -> np.ndarray:
    audio = np.concatenate(parts)
    return (audio + noise(audio.size / SR, -45.0, 3)[:audio.size]).astype(np.float32)


@pytest.fixture(scope="module")
def transcribe() -> Transcribe:
    from parley.audio.asr import get_asr
    from parley.audio.voice import transcriber

    return transcriber(get_asr("tiny.en"))


def hear(transcribe: Transcribe, audio: np.ndarray, policy: str) -> list[Heard]:
    listener = Listener(transcribe, turn_end=TurnEndPolicy.of(policy, 500, 250, 1000, 0.4),
                        wait_for_transcript=True)
    heard: list[Heard] = []
    for i in range(0, audio.size, 1024):
        heard += listener.feed(100.0 + i / SR, audio[i:i + 1024])
    listener.close()
    return heard + listener.flush()


def test_a_complete_turn_ends_sooner(transcribe: Transcribe) -> None:
    audio = noisy(noise(0.4), speech("Can I have the phone number?"), noise(1.5))
    (quick,), (slow,) = hear(transcribe, audio, "semantic"), hear(transcribe, audio, "silence")
    assert (quick.end_reason, slow.end_reason) == ("complete", "silence")
    assert quick.transcript.text == slow.transcript.text
    assert quick.silence_heard is not None and slow.silence_heard is not None
    waited = quick.silence_heard - quick.speech_end, slow.silence_heard - slow.speech_end  # capture times
    assert waited[0] < 0.4 <= waited[1], waited


def test_an_unfinished_turn_waits_for_the_rest(transcribe: Transcribe) -> None:
    audio = noisy(noise(0.4), speech("I need a train to Cambridge and"), noise(0.7), speech("a cheap hotel."),
                  noise(1.5))
    semantic = hear(transcribe, audio, "semantic")
    assert len(semantic) == 1, [h.transcript.text for h in semantic]
    assert "hotel" in semantic[0].transcript.text.lower() and semantic[0].end_reason == "complete"
    cut = hear(transcribe, audio, "silence")  # 500 ms of silence alone ends the turn inside the pause
    assert len(cut) == 2 and cut[0].end_reason == "silence"
