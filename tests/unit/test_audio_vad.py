"""Voice activity end-pointing (Silero VAD, streamed) and the hands-free Listener, on real synthesised speech
with background noise: probabilities equal faster-whisper's whole-array VAD, turns end a configurable silence
after speech, noise alone never starts one, short pauses do not end one, speculative transcription gives the
same transcript as waiting."""

from __future__ import annotations

import numpy as np
import pytest

from parley.audio.listen import Listener, speech_span
from parley.audio.vad import WINDOW, EndPointer, SileroStream
from tests.spoken import noise, speech

SR = 16000


def noisy(*parts: np.ndarray, dbfs: float = -40.0, seed: int = 0) -> np.ndarray:
    audio = np.concatenate(parts)
    return (audio + noise(audio.size / SR, dbfs, seed)[:audio.size]).astype(np.float32)


def events(audio: np.ndarray, block: int = 1600, **kw: float) -> list[tuple[str, float]]:
    vad, ep = SileroStream(), EndPointer(**kw)
    out = []
    for i in range(0, audio.size, block):
        out += [(e.kind, e.sample / SR) for e in ep.push(vad(audio[i:i + block]))]
    return out


def test_streamed_probabilities_equal_faster_whispers_vad() -> None:
    from faster_whisper.vad import get_vad_model

    audio = noisy(noise(0.4), speech("Could you book a table for two at seven?"), noise(0.6))
    audio = np.pad(audio, (0, -audio.size % WINDOW))
    whole = np.asarray(get_vad_model()(audio)).reshape(-1)
    vad = SileroStream()
    streamed = np.concatenate([vad(audio[i:i + 1000]) for i in range(0, audio.size, 1000)])  # odd block size
    np.testing.assert_allclose(streamed, whole, atol=1e-5)
    assert whole.max() > 0.9 and whole[:5].max() < 0.3


def test_a_turn_ends_the_configured_silence_after_speech() -> None:
    words = speech("I am looking for a cheap restaurant in the north of town.")
    audio = noisy(noise(0.5), words, noise(2.0))
    evs = events(audio)
    kinds = [k for k, _ in evs]
    assert kinds[0] == "start" and kinds.count("end") == 1
    start = evs[0][1]
    end = next(t for k, t in evs if k == "end")
    assert 0.3 <= start <= 0.9
    spoken_end = 0.5 + words.size / SR
    assert spoken_end - 0.5 <= end <= spoken_end + 0.1  # piper leaves a little silence at the end


@pytest.mark.parametrize("silence_s", [0.3, 0.5, 1.0])
def test_end_silence_is_configurable(silence_s: float) -> None:
    audio = noisy(noise(0.3), speech("Italian food, please."), noise(2.0))
    vad, ep = SileroStream(), EndPointer(end_silence_s=silence_s)
    decided = None
    for i in range(0, audio.size, 320):
        evs = ep.push(vad(audio[i:i + 320]))
        if any(e.kind == "end" for e in evs):
            last = next(e.sample for e in evs if e.kind == "end")
            decided = (i + 320 - last) / SR  # heard after the last voiced window when the end was called
            break
    assert decided is not None
    assert silence_s - 0.05 <= decided <= silence_s + 0.08


@pytest.mark.parametrize("dbfs", [-50.0, -35.0, -25.0])
def test_background_noise_alone_never_starts_a_turn(dbfs: float) -> None:
    assert events(noise(6.0, dbfs, seed=3)) == []


def test_a_short_pause_does_not_end_the_turn() -> None:
    audio = noisy(noise(0.3), speech("A table for two."), noise(0.3), speech("At seven, please."), noise(1.5))
    kinds = [k for k, _ in events(audio, end_silence_s=0.5)]
    assert kinds.count("start") == 1 and kinds.count("end") == 1
    assert [k for k, _ in events(audio, end_silence_s=0.2)].count("end") == 2


@pytest.fixture(scope="module")
def transcribe():  # type: ignore[no-untyped-def]
    from parley.audio.asr import get_asr
    from parley.audio.voice import transcriber

    return transcriber(get_asr("tiny.en"))


def run(listener: Listener, audio: np.ndarray, block: int = 1600) -> list:
    heard = []
    for i in range(0, audio.size, block):
        heard += listener.feed(100.0 + i / SR, audio[i:i + block])
    return heard + listener.flush()


def test_listener_cuts_utterances_and_transcribes_them(transcribe) -> None:  # type: ignore[no-untyped-def]
    starts: list[int] = []
    listener = Listener(transcribe, on_speech=lambda: starts.append(1))
    first, second = speech("I need a train to Cambridge."), speech("On Friday morning.")
    audio = noisy(noise(0.5), first, noise(1.2), second, noise(1.0))
    heard = run(listener, audio)
    listener.close()
    assert [h.transcript.text.strip().lower().rstrip(".") for h in heard] == [
        "i need a train to cambridge", "on friday morning"]
    assert len(starts) == 2
    h = heard[0]
    assert h.speech_start < h.speech_end <= h.endpoint
    assert h.speech_end == pytest.approx(100.0 + 0.5 + first.size / SR, abs=0.35)
    assert h.timings()["speech_s"] == pytest.approx(h.audio.size / SR)
    assert h.timings()["endpoint_ms"] >= 0.0


def test_speculative_transcription_gives_the_same_transcript(  # type: ignore[no-untyped-def]
        transcribe) -> None:
    audio = noisy(noise(0.4), speech("Can I have the phone number?"), noise(1.0))
    fast = Listener(transcribe, speculative=True)
    slow = Listener(transcribe, speculative=False)
    a, b = run(fast, audio, block=320), run(slow, audio, block=320)
    fast.close()
    slow.close()
    assert len(a) == len(b) == 1
    assert a[0].speculative and not b[0].speculative
    assert a[0].transcript.text == b[0].transcript.text
    np.testing.assert_array_equal(a[0].audio, b[0].audio)


def test_listener_cuts_an_utterance_at_max_seconds(transcribe) -> None:  # type: ignore[no-untyped-def]
    long = np.concatenate([speech("Hello there, I would like to book a hotel.")] * 3)
    listener = Listener(transcribe, max_seconds=3.0)
    heard = run(listener, noisy(noise(0.2), long, noise(1.0)))
    listener.close()
    assert len(heard) >= 2 and heard[0].audio.size <= int(3.6 * SR)


def test_speech_span_trims_the_room_around_a_recording() -> None:
    words = speech("Italian food, please.")
    audio = noisy(noise(1.5), words, noise(2.0))
    span = speech_span(audio)
    assert words.size <= span.size <= words.size + int(0.6 * SR)
    silent = noise(2.0, -50.0)
    assert speech_span(silent).size == silent.size  # no speech: the whole recording
