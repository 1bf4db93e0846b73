"""Voice mode and spoken replies in the chat, without a sound card (the real audio stack is driven by
tests/integration/test_rig.py): one message without a microphone, models loaded as soon as a voice feature is
switched on, replies saved as the system turn's audio with their latencies, a snapshot of voice mode."""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any

import pytest

from parley.audio import devices
from parley.store import open_store
from parley.tui.app import ParleyApp
from parley.tui.screens.voice import VoiceInput
from parley.tui.widgets.chatlog import ChatLog
from tests.tui import fakes
from tests.tui.pilot import say, settle

fakes.register()


def make_app(tmp_path: Path, system: str = "tui-fake") -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester="ana", seed=7)


def told(app: ParleyApp) -> list[str]:
    """Every notification from now on (kept: toasts expire, and a loaded machine makes tests slow)."""
    seen: list[str] = []
    original = app.notify

    def spy(message: str, **kw: Any) -> None:
        seen.append(message)
        original(message, **kw)

    app.notify = spy  # type: ignore[method-assign]
    return seen


@pytest.fixture
def no_speakers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(devices, "check_output", lambda: devices.AudioStatus(
        False, "No audio output device (speakers) was found.", (), ()))


async def test_voice_key_without_microphone_shows_one_message(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(devices, "check_input", lambda: devices.AudioStatus(
        False, "No microphone (audio input device) was found; typed input keeps working.", (), ()))
    app = make_app(tmp_path)
    seen = told(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert seen[-1].startswith("No microphone")
        assert not app.screen.query_one(VoiceInput).listening
        await say(pilot, "typing still works")
        assert len(app.screen.query_one(ChatLog).system_views()) == 1


async def test_spoken_replies_are_saved_on_the_system_turn_with_latencies(tmp_path: Path, no_speakers: None,
                                                                          monkeypatch: Any) -> None:
    from parley.audio import tts

    loads: list[str] = []
    real_get_tts = tts.get_tts

    def counting_get_tts(backend: str = "piper", progress: Any = None, **kw: Any) -> Any:
        loads.append(backend)
        return real_get_tts(backend, progress, **kw)

    monkeypatch.setattr(tts, "get_tts", counting_get_tts)
    app = make_app(tmp_path)
    seen = told(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot)
        assert loads == ["piper"]  # warmed at once, before any reply
        assert any(n.startswith("Ready: voice piper") for n in seen)
        await say(pilot, "a cheap place")
        await say(pilot, "italian")
        await settle(pilot)
    store = open_store(tmp_path / "t.db")
    system = [t for t in store.turns(store.sessions()[0].id) if t.role == "system"]
    assert [Path(t.audio_out).name for t in system] == ["0001-system.wav", "0003-system.wav"]
    assert all(Path(t.audio_out).is_file() for t in system)
    voice = system[0].internals["voice"]
    assert voice["played"] is False and voice["reply_to_audio_ms"] > 0 and voice["sentences"] == 2


async def test_a_failing_voice_is_reported_once_and_the_chat_goes_on(tmp_path: Path, no_speakers: None,
                                                                     monkeypatch: Any) -> None:
    from parley.audio import tts

    class Broken:
        name, note, sample_rate = "broken", None, 22050

        def stream(self, text: str, speed: float = 1.0) -> Any:
            raise RuntimeError("no voice today")
            yield  # pragma: no cover

    monkeypatch.setattr(tts, "get_tts", lambda backend="piper", progress=None, **kw: Broken())
    app = make_app(tmp_path)
    seen = told(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f6")
        for text in ("one", "two", "three"):
            await say(pilot, text)
        assert sum("Speaking replies failed" in n for n in seen) == 1
        assert len(app.screen.query_one(ChatLog).system_views()) == 3
    from parley.engine.settings import load_settings

    assert not load_settings().audio.speak_replies  # a toggle for this run, not saved


@pytest.mark.slow
async def test_asr_real_loads_its_models_as_soon_as_it_is_switched_on(tmp_path: Path) -> None:
    from parley.engine.rewrite.chain import Chain

    app = make_app(tmp_path)
    seen = told(app)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chain = Chain(["asr-real"])
        channel = chain._rewriters[0]
        assert channel._asr is None and channel._tts is None
        app.screen.set_chain(chain)  # type: ignore[attr-defined]
        await settle(pilot)
        assert channel._asr is not None and channel._asr.loaded and channel._tts is not None
        assert any(n.startswith("Ready: asr-real") for n in seen)
        await say(pilot, "a cheap restaurant in the north")
    store = open_store(tmp_path / "t.db")
    user = [t for t in store.turns(store.sessions()[0].id) if t.role == "user"]
    assert user[0].rewrite_steps[0]["name"] == "asr-real"


def test_voice_mode_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any) -> None:
    """Voice mode after one spoken turn: the level meter, the listening status, the spoken turn and, in the
    internals view, the stored stage latencies (fixed here; the rig test measures real ones)."""
    from parley.audio.capture import write_wav
    from parley.audio.voice import SpokenInput, pending_path
    from parley.tui.messages import ReplySpoken, VoiceHeard, VoiceListening
    from parley.tui.widgets.level import LevelMeter

    counter = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=(0x5EED0000 + next(counter)) << 96))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PARLEY_AUDIO__HANDS_FREE", "false")  # nothing is spoken: the timings below stay fixed
    app = ParleyApp(db_path="parley.db", system_spec="tui-fake", tester="ana", seed=42)
    timings = {"end_to_transcript_ms": 512.0, "endpoint_ms": 500.0, "asr_ms": 160.0, "speculative": True,
               "transcript_to_reply_ms": 14.0, "reply_to_audio_ms": 131.0, "end_to_audio_ms": 657.0,
               "tts_first_ms": 118.0, "played_s": 3.1, "barge_in": False, "source": "microphone"}

    async def run(pilot: Any) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        voice = screen.query_one(VoiceInput)
        voice.listening = True
        voice.post_message(VoiceListening("parley-rig-microphone"))
        await pilot.pause()
        path = write_wav(pending_path(), __import__("numpy").zeros(16000, dtype="float32"))
        info = {"asr": {"text": "a cheap restaurant in the centre", "model": "tiny.en"}, "voice": timings}
        voice.post_message(VoiceHeard(SpokenInput("a cheap restaurant in the centre", path, info, 1.0, 1.5)))
        await settle(pilot)
        view = screen.log_view.system_views()[0]
        voice.post_message(ReplySpoken(view.turn_id, timings))
        await pilot.press("ctrl+o")
        await settle(pilot)
        screen.query_one(LevelMeter).level = 0.45

    assert snap_compare(app, terminal_size=(110, 36), run_before=run)
