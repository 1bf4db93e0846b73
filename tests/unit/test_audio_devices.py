"""No PortAudio and no device: check_input/check_output give one clear reason, recording raises
AudioUnavailable, speaking never raises. Simulated by hiding sounddevice or faking its device queries."""

from __future__ import annotations

import importlib.abc
import sys
import threading
import types

import numpy as np
import pytest

from parley.audio import capture, devices, tts
from parley.audio.capture import AudioUnavailable, record_utterance
from parley.audio.devices import check_input, check_output


class _NoPortAudio(importlib.abc.MetaPathFinder):
    """Importing sounddevice fails the way it does without libportaudio2."""

    def find_spec(self, fullname, path, target=None):  # type: ignore[no-untyped-def]
        if fullname == "sounddevice":
            raise OSError("PortAudio library not found")
        return None


@pytest.fixture
def no_portaudio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoPortAudio(), *sys.meta_path])


class PortAudioError(Exception):
    pass


def fake_sounddevice(devices_list: list[dict], default_in: dict | None, default_out: dict | None):
    mod = types.ModuleType("sounddevice")
    mod.PortAudioError = PortAudioError  # type: ignore[attr-defined]

    def query_devices(device=None, kind=None):  # type: ignore[no-untyped-def]
        if kind is None:
            return list(devices_list)
        d = default_in if kind == "input" else default_out
        if d is None:
            raise PortAudioError("Error querying device -1")
        return d

    mod.query_devices = query_devices  # type: ignore[attr-defined]
    mod.get_portaudio_version = lambda: (1, "PortAudio fake")  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def no_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", fake_sounddevice([], None, None))


def test_no_portaudio_gives_one_clear_reason(no_portaudio: None) -> None:
    for status in (check_input(), check_output()):
        assert status.available is False
        assert "PortAudio is not installed" in (status.reason or "")
        assert "libportaudio2" in (status.reason or "")
        assert "\n" not in (status.reason or "")
        assert status.input_devices == () and status.output_devices == ()
    assert devices.portaudio_version() is None


def test_no_portaudio_recording_raises(no_portaudio: None, tmp_path) -> None:
    with pytest.raises(AudioUnavailable, match="PortAudio is not installed"):
        record_utterance(str(tmp_path / "u.wav"), threading.Event())
    assert not (tmp_path / "u.wav").exists()


def test_no_device_gives_one_clear_reason(no_device: None, tmp_path) -> None:
    status = check_input()
    assert not status.available
    assert status.reason and status.reason.startswith("No microphone")
    out = check_output()
    assert not out.available and out.reason and "output device" in out.reason
    with pytest.raises(AudioUnavailable, match="No microphone"):
        record_utterance(str(tmp_path / "u.wav"), threading.Event())


def test_devices_listed_when_present(monkeypatch: pytest.MonkeyPatch) -> None:
    mic = {"name": "USB mic", "max_input_channels": 1, "max_output_channels": 0}
    spk = {"name": "Speakers", "max_input_channels": 0, "max_output_channels": 2}
    monkeypatch.setitem(sys.modules, "sounddevice", fake_sounddevice([mic, spk], mic, spk))
    s = check_input()
    assert s.available and s.reason is None
    assert s.input_devices == ("USB mic",) and s.output_devices == ("Speakers",)
    assert check_output().available


class _FakeTTS:
    name = "fake"
    note = None

    def synthesize(self, text: str, speed: float = 1.0):  # type: ignore[no-untyped-def]
        return np.full(800, 0.1, dtype=np.float32), 16000


def test_speak_never_raises_without_device(
    no_portaudio: None, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(tts, "get_tts", lambda backend="piper", progress=None, **kw: _FakeTTS())
    out = tmp_path / "reply.wav"
    assert tts.speak("hello", out_path=str(out)) == str(out)
    assert out.is_file()
    assert tts.speak("hello") is None  # nothing saved, nothing played, no exception


def test_speak_never_raises_when_synthesis_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setattr(tts, "get_tts", broken)
    assert tts.speak("hello", out_path="/nonexistent/x.wav") is None


def test_capture_module_reexports_audio_unavailable() -> None:
    assert capture.AudioUnavailable is devices.AudioUnavailable
    assert issubclass(AudioUnavailable, RuntimeError)


def test_play_uses_the_output_device(monkeypatch: pytest.MonkeyPatch) -> None:
    spk = {"name": "Speakers", "max_input_channels": 0, "max_output_channels": 2}
    mod = fake_sounddevice([spk], None, spk)
    calls: list[str] = []
    mod.play = lambda audio, sr: calls.append(f"play {audio.size} {sr}")  # type: ignore[attr-defined]
    mod.wait = lambda: calls.append("wait")  # type: ignore[attr-defined]
    mod.stop = lambda: calls.append("stop")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sounddevice", mod)
    monkeypatch.setattr(tts, "get_tts", lambda backend="piper", progress=None, **kw: _FakeTTS())
    assert tts.speak("hello") is None  # played, not saved
    assert calls == ["play 800 16000", "wait"]
    tts.stop_playback()
    assert calls[-1] == "stop"


def test_play_failure_is_logged_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    spk = {"name": "Speakers", "max_input_channels": 0, "max_output_channels": 2}
    mod = fake_sounddevice([spk], None, spk)

    def boom(audio, sr):  # type: ignore[no-untyped-def]
        raise PortAudioError("device unplugged")

    mod.play = boom  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sounddevice", mod)
    assert tts.play(np.zeros(10, dtype=np.float32), 16000) is False


@pytest.mark.skipif(devices.portaudio_version() is None, reason="PortAudio (libportaudio2) is not installed")
def test_rescan_uses_sounddevice_names_that_exist() -> None:
    """devices.rescan relies on sounddevice's _terminate/_initialize (its maintainers' advice; no public
    call): fail loudly here if a sounddevice release moves them."""
    sd = devices.import_sounddevice()
    assert callable(sd._terminate) and callable(sd._initialize)
    assert devices.rescan() is True


def test_rescan_without_portaudio_is_false(no_portaudio: None) -> None:
    assert devices.rescan() is False
