"""Turn-taking on the PulseAudio loopback rig (real audio through sounddevice → PortAudio → ALSA → the pulse
plugin, spoken in real time): a speaker who stops to think inside a turn stays in that turn, whole; a
complete question ends its turn without waiting out the fixed silence. Counts turns and words, not
milliseconds (the latency goal lives in bench/audio_bench.py --rig). Needs the Debian packages pulseaudio,
pulseaudio-utils and libasound2-plugins; skips naming them where they are missing."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from parley.audio.listen import Heard
from parley.audio.rig import Rig, missing
from parley.audio.wer import normalise, wer
from tests.spoken import noise, speech

pytestmark = [pytest.mark.rig,
              pytest.mark.skipif(bool(missing()), reason=f"the audio rig needs {' '.join(missing())} "
                                                         "(./setup.sh test as root)")]


def trimmed(text: str) -> np.ndarray:
    """``text`` spoken by piper without the quiet the voice puts before and after it (so a pause between
    parts is the pause asked for)."""
    audio = speech(text)
    loud = np.flatnonzero(np.abs(audio) > 0.02 * np.abs(audio).max())
    return audio[loud[0]:loud[-1] + 1]


def test_paused_and_complete_turns_through_the_rig(rig: Rig) -> None:
    from parley.audio.asr import get_asr
    from parley.audio.capture import MicStream
    from parley.audio.listen import Listener
    from parley.audio.turn_end import TurnEndPolicy
    from parley.audio.voice import transcriber
    from parley.engine.settings import load_settings

    audio = load_settings().audio  # the defaults a tester gets
    policy = TurnEndPolicy.of(audio.end_of_turn, audio.end_silence_ms, audio.complete_silence_ms,
                              audio.incomplete_silence_ms, audio.quiet_probability)
    listener = Listener(transcriber(get_asr("tiny.en")), turn_end=policy)
    heard: list[Heard] = []
    stop = threading.Event()

    def listen() -> None:
        with MicStream() as mic:
            for t, block in mic.blocks(stop):
                heard.extend(listener.feed(t, block))

    said = [("I need a train to Cambridge and", "a cheap hotel in the north."),  # 0.7 s to think, mid-turn
            ("I would like a table for two", "at seven thirty on Friday."),     # 0.3 s, shorter than the wait
            ("Can I have the phone number?",)]
    worker = threading.Thread(target=listen, daemon=True)
    worker.start()
    try:
        for parts, pause in zip(said, (0.7, 0.3, 0.0), strict=True):
            pieces = [trimmed(parts[0])] + [x for p in parts[1:] for x in (noise(pause, -70.0), trimmed(p))]
            n = len(heard)
            rig.say(np.concatenate(pieces).astype(np.float32))
            for _ in range(100):  # the turn ends after at most incomplete_silence_ms (1 s) of silence
                if len(heard) > n:
                    break
                threading.Event().wait(0.1)
            threading.Event().wait(1.5)  # a second turn from the same utterance would have ended by now
    finally:
        stop.set()
        worker.join(10)
        listener.close()
    texts = [h.transcript.text for h in heard]
    assert len(heard) == len(said), texts  # one turn per utterance: none cut at its pause
    assert wer(" ".join(" ".join(p) for p in said), " ".join(texts)) <= 0.15, texts
    assert {"hotel", "north"} <= set(normalise(texts[0]).split()), texts  # the words after the pause
    assert all(h.end_reason in ("complete", "silence", "incomplete") for h in heard)
