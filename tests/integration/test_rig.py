"""The real audio stack without a sound card: the PulseAudio loopback rig (audio.rig) started by a fixture,
reached through sounddevice → PortAudio → ALSA → the pulse plugin. A Pilot test speaks three turns of a
restaurant dialogue (piper + background noise, over the rig's own room noise) into parley's voice mode and
checks the stored transcripts, recordings and replies; stored audio plays back through the rig's speaker;
barge-in stops a reply.

Needs the Debian packages pulseaudio, pulseaudio-utils and libasound2-plugins (``./setup.sh test`` as root);
the tests skip, naming them, where they are missing.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from parley.audio import devices
from parley.audio.rig import SPEAKER_RATE, Rig, missing
from parley.audio.wer import normalise, wer
from parley.store import open_store
from tests.spoken import RESTAURANT, restaurant_wavs, speech

pytestmark = [pytest.mark.rig,
              pytest.mark.skipif(bool(missing()), reason=f"the audio rig needs {' '.join(missing())} "
                                                         "(./setup.sh test as root)")]


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return restaurant_wavs(tmp_path_factory.mktemp("spoken"))


def test_the_rig_is_a_microphone_and_a_speaker(rig: Rig, tmp_path: Path) -> None:
    from parley.audio.asr import get_asr
    from parley.audio.capture import record_utterance

    assert devices.check_input().available and devices.check_output().available
    stop = threading.Event()
    words = speech("Italian food, please.")
    threading.Timer(0.5, lambda: rig.say(words)).start()
    rec = record_utterance(str(tmp_path / "u.wav"), stop, max_seconds=10)
    assert 1.0 < rec.seconds < 0.5 + words.size / 16000 + 1.5  # ended by voice activity, not by the limit
    from parley.audio.asr import load_audio
    from parley.audio.voice import transcriber

    text = transcriber(get_asr("tiny.en"))(load_audio(rec.path)).text
    assert {"food", "please"} <= set(normalise(text).split()), text  # the whole utterance was recorded


def test_a_reply_plays_from_the_first_sentence_and_barge_in_stops_it(rig: Rig, tmp_path: Path) -> None:
    from parley.audio.speaker import speak_reply
    from parley.audio.tts import get_tts

    tts = get_tts("piper", deterministic=True)
    reply = "There are three cheap restaurants in the north. Do you have a food type in mind? I can book one."
    spoken = speak_reply(tts, reply, str(tmp_path / "r.wav"))
    assert spoken.played and not spoken.interrupted and spoken.first_audio is not None
    heard_at = rig.first_sound_after(spoken.started)
    assert heard_at is not None and abs(heard_at - spoken.first_audio) < 0.25
    audio, _ = rig.heard(spoken.started)
    assert np.count_nonzero(np.abs(audio) > 0.01) > 0.5 * SPEAKER_RATE
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    cut = speak_reply(tts, reply, str(tmp_path / "r2.wav"), stop=stop)
    assert cut.interrupted and cut.played_s < spoken.played_s / 2
    time.sleep(0.3)
    tail, _ = rig.heard(time.monotonic() - 0.2)
    assert np.abs(tail).max() < 0.01  # silent once stopped
    assert soundfile.info(tmp_path / "r2.wav").frames == soundfile.info(tmp_path / "r.wav").frames


async def wait_for(pilot: Any, check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await pilot.pause(0.1)


def answered(db: Path) -> int:
    """How many user turns are stored with their spoken reply, once no stored turn waits for one (0 while
    one does)."""
    user, system = stored(db)
    spoken = sum(t.audio_out is not None for t in system)
    return len(user) if spoken == len(user) else 0


def stored(db: Path) -> tuple[list[Any], list[Any]]:
    store = open_store(db, readonly=True)
    try:
        sessions = store.sessions()
        turns = store.turns(sessions[0].id) if sessions else []
        return [t for t in turns if t.role == "user"], [t for t in turns if t.role == "system"]
    finally:
        store.close()


async def test_three_spoken_turns_through_the_rig(rig: Rig, wavs: list[Path], tmp_path: Path) -> None:
    from parley.tui.app import ParleyApp
    from parley.tui.screens.chat import ChatScreen
    from parley.tui.screens.voice import VoiceInput
    from parley.tui.widgets.chatlog import ChatLog
    from tests.tui.pilot import settle

    db = tmp_path / "t.db"
    app = ParleyApp(db_path=str(db), system_spec="multiwoz", tester="ana", seed=7)
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: screen.status.activity.startswith("listening"), 120, "voice mode")
        for n, wav in enumerate(wavs, 1):
            await asyncio.to_thread(rig.say, wav)
            await wait_for(pilot, lambda n=n: answered(db) >= n, 120, f"the reply to spoken turn {n}")
        user, system = stored(db)
        assert len(screen.query_one(ChatLog).system_views()) == len(system)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert not screen.query_one(VoiceInput).listening
    user, system = stored(db)
    # one reply per stored user turn; a loaded machine may cut an utterance in two at a pause (the speaker
    # process starved for a moment), so what was said is checked over the words, not the number of turns
    assert len(user) == len(system) >= 3, ([u.text for u in user], [s.text for s in system])
    # end of speech → transcript: 0.5 s of silence plus tiny.en on a few seconds of speech, normally well
    # under a second; 10 s at a quiet machine's load, stretched by how many jobs wait for each core
    limit_ms = 10_000 * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
    heard = [u.text for u in user]
    assert wer(" ".join(RESTAURANT), " ".join(heard)) <= 0.1, heard
    assert "restaurant" in system[0].text.lower() and "01223" in system[-1].text, [s.text for s in system]
    for u, s in zip(user, system, strict=True):
        folder = Path(u.audio_in).parent
        assert Path(u.audio_in).name == f"{u.index:04d}-user.wav" and Path(s.audio_out).parent == folder
        assert Path(s.audio_out).name == f"{s.index:04d}-system.wav"
        rec, sr = soundfile.read(u.audio_in, dtype="float32")
        assert sr == 16000 and 1.0 < rec.size / sr < 6.0
        voice = s.internals["voice"]
        assert voice["source"] == "microphone" and voice["played"] is True
        assert 0 < voice["end_to_transcript_ms"] < limit_ms and voice["endpoint_ms"] >= 400
        assert voice["end_to_audio_ms"] >= voice["end_to_transcript_ms"]
        speculative = u.internals["input"]["voice"]["speculative"]
        assert speculative in (True, False)
        if speculative:  # the dialogue was idle: the turn and its first sentence were made during the silence
            assert voice["turn_ahead"] is True and voice["tts_ahead_ms"] > 0, voice


def test_stored_audio_plays_through_the_rig(rig: Rig, wavs: list[Path], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from parley.audio.tts import play
    from parley.cli import main

    db = tmp_path / "p.db"
    result = CliRunner().invoke(main, ["chat", "--audio-script", str(wavs[0].parent), "--db", str(db)])
    assert result.exit_code == 0, result.output
    user, system = stored(db)
    for f in (user[0].audio_in, system[0].audio_out):
        data, sr = soundfile.read(f, dtype="float32")
        t0 = time.monotonic()
        assert play(data, sr)
        heard, _ = rig.heard(t0)
        loud = np.count_nonzero(np.abs(heard) > 0.02) / SPEAKER_RATE
        assert loud > 0.3 * np.count_nonzero(np.abs(data) > 0.02) / sr
