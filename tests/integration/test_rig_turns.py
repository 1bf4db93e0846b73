"""Paused turns on the PulseAudio loopback rig (real audio through sounddevice → PortAudio → ALSA → the pulse
plugin, spoken in real time in a quiet room): a speaker who stops to think for 0.3–1.2 s inside a turn and
resumes within the end-of-turn silence stays in that turn, and the words after the pause are in its
transcript, with nothing appended. Before, Whisper could end the transcript at the pause ("I'd like to move
the A"). Counts turns and words, not milliseconds. Needs the Debian packages pulseaudio, pulseaudio-utils and
libasound2-plugins; skips naming them where they are missing."""

from __future__ import annotations

import shutil
import threading

import pytest

from parley.audio.cleanup import stock_tail
from parley.audio.listen import Heard
from parley.audio.rig import Rig, missing
from parley.audio.wer import normalise, wer
from tests.spoken import paused

pytestmark = [pytest.mark.rig,
              pytest.mark.skipif(bool(missing()), reason=f"the audio rig needs {' '.join(missing())} "
                                                         "(./setup.sh test as root)"),
              pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")]

BOOK = ("I'd like to book the Acorn Guest House", "for two nights.")
BOOK_THE = ("I'd like to book the", "Acorn Guest House for two nights.")
#: (parts, the pause between them in seconds, voice): espeak-ng puts its own quiet around each part, piper's
#: parts are trimmed to the pause asked for
SAID = (
    (BOOK_THE, 0.6, "espeak"),
    (BOOK, 1.2, "espeak"),
    (BOOK_THE, 1.2, "espeak"),
    (("I need a cheap hotel", "in the north", "with free parking please."), 0.7, "piper"),
    (("I would like a table for two", "at seven thirty on Friday."), 0.3, "piper"),
)
#: the end-of-turn silence a tester who pauses to think sets (audio.end_silence_ms = 2000): every pause, with
#: the voice's own quiet around it, is shorter
END_SILENCE_S = 2.0


def test_paused_turns_through_the_rig_are_heard_whole(quiet_rig: Rig) -> None:
    from parley.audio.asr import get_asr
    from parley.audio.capture import MicStream
    from parley.audio.listen import Listener
    from parley.audio.voice import transcriber

    listener = Listener(transcriber(get_asr("tiny.en")), end_silence_s=END_SILENCE_S)
    heard: list[Heard] = []
    stop = threading.Event()

    def listen() -> None:
        with MicStream() as mic:
            for t, block in mic.blocks(stop):
                heard.extend(listener.feed(t, block))

    worker = threading.Thread(target=listen, daemon=True)
    worker.start()
    try:
        for parts, pause, voice in SAID:
            n = len(heard)
            quiet_rig.say(paused(parts, pause, voice=voice, trail_s=0.0, trim=voice == "piper"))
            for _ in range(300):  # the turn ends END_SILENCE_S after the speech, and is transcribed
                if len(heard) > n:
                    break
                threading.Event().wait(0.1)
            threading.Event().wait(END_SILENCE_S + 1.0)  # a second turn from the same utterance would be here
    finally:
        stop.set()
        worker.join(10)
        listener.close()
    texts = [h.transcript.text for h in heard]
    assert len(heard) == len(SAID), texts  # one turn per utterance: none cut at its pause
    for (parts, _, _), text in zip(SAID, texts, strict=True):
        said, got = normalise(" ".join(parts)).split(), normalise(text).split()
        assert len(got) >= len(said) - 2, (parts, text)  # the words after the pause (tiny.en may mishear one)
        assert stock_tail(text) == 0, text  # nothing made up appended
    assert wer(" ".join(" ".join(p) for p, _, _ in SAID), " ".join(texts)) <= 0.25, texts
