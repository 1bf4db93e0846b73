"""Recording from a microphone stand-in (a fake sounddevice stream fed from a thread): voice-activity
end-pointing on real synthesised speech over noise, the stop event, the length limit, level callbacks, device
failures and the 16 kHz mono WAV written. The real PortAudio stack is exercised by
tests/integration/test_rig.py."""

from __future__ import annotations

import sys
import threading
import types

import numpy as np
import pytest
import soundfile

from parley.audio.capture import SAMPLE_RATE, AudioUnavailable, level_of, record_utterance
from tests.spoken import noise, speech

BLOCK = SAMPLE_RATE // 10


def hush(seconds: float) -> np.ndarray:
    return noise(seconds, -50.0)


def install_stream(monkeypatch: pytest.MonkeyPatch, signal: np.ndarray, realtime: bool = False,
                   fail_open: bool = False) -> dict:
    """A sounddevice stand-in whose InputStream feeds ``signal`` in blocks from a thread."""
    seen: dict = {}
    mod = types.ModuleType("sounddevice")
    mic = {"name": "fake mic", "max_input_channels": 1, "max_output_channels": 0}
    mod.query_devices = lambda device=None, kind=None: [mic] if kind is None else mic  # type: ignore[attr-defined]

    class InputStream:
        def __init__(self, samplerate, channels, dtype, blocksize, callback,  # type: ignore[no-untyped-def]
                     device=None, latency=None):
            if fail_open:
                raise RuntimeError("device busy")
            seen.update(samplerate=samplerate, channels=channels, dtype=dtype)
            self.cb, self.bs = callback, blocksize
            self.stopped = threading.Event()

        def _run(self) -> None:
            for i in range(0, signal.size, self.bs):
                if self.stopped.is_set():
                    return
                self.cb(signal[i:i + self.bs].reshape(-1, 1), self.bs, None, None)
                if realtime:
                    self.stopped.wait(self.bs / SAMPLE_RATE)

        def start(self) -> None:
            self.t = threading.Thread(target=self._run, daemon=True)
            self.t.start()

        def abort(self) -> None:
            self.stopped.set()
            self.t.join(2)

        def close(self) -> None:
            seen["closed"] = True

    mod.InputStream = InputStream  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sounddevice", mod)
    return seen


def test_vad_ends_the_utterance_after_speech(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    words = speech("I need a cheap restaurant in the north, please.")
    signal = np.concatenate([hush(0.5), words + hush(words.size / SAMPLE_RATE), hush(3.0), speech("Thanks.")])
    seen = install_stream(monkeypatch, signal)
    levels: list[float] = []
    out = tmp_path / "turn.wav"
    rec = record_utterance(str(out), threading.Event(), on_level=levels.append, max_seconds=30)
    assert seen["samplerate"] == 16000 and seen["channels"] == 1 and seen.get("closed")
    spoken = 0.5 + words.size / SAMPLE_RATE
    assert spoken <= rec.seconds < spoken + 0.9  # speech + ~0.5 s of silence, not the second utterance
    data, sr = soundfile.read(out)
    assert sr == 16000 and data.ndim == 1 and abs(len(data) / sr - rec.seconds) < 0.3
    assert levels and all(0.0 <= v <= 1.0 for v in levels)
    assert max(levels) > 0.6 and min(levels) < 0.3


def test_without_vad_records_until_max_seconds(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    install_stream(monkeypatch, np.concatenate([speech("Hello there."), hush(4.0)]))
    rec = record_utterance(str(tmp_path / "a.wav"), threading.Event(), max_seconds=2.0, vad=False)
    assert rec.seconds == pytest.approx(2.0, abs=0.01)


def test_stop_event_ends_recording(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    install_stream(monkeypatch, np.tile(speech("Hello there."), 15), realtime=True)
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    rec = record_utterance(str(tmp_path / "b.wav"), stop, max_seconds=30)
    assert 0.2 <= rec.seconds <= 2.0


def test_device_failure_is_audio_unavailable(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    install_stream(monkeypatch, hush(1.0), fail_open=True)
    with pytest.raises(AudioUnavailable, match="could not be opened"):
        record_utterance(str(tmp_path / "c.wav"), threading.Event())


def test_level_scale() -> None:
    assert level_of(np.zeros(100, dtype=np.float32)) == 0.0
    assert level_of(np.ones(100, dtype=np.float32)) == 1.0
    assert 0.4 < level_of(np.full(100, 0.03, dtype=np.float32)) < 0.6


def test_turn_audio_path_is_under_the_data_dir(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parley.audio.capture import turn_audio_path

    monkeypatch.setenv("PARLEY_DATA", str(tmp_path))
    p = turn_audio_path("s1", 3)
    assert p == str(tmp_path / "audio" / "s1" / "0003-user.wav")
    assert (tmp_path / "audio" / "s1").is_dir()
    assert turn_audio_path("s1", 3, "system").endswith("0003-system.wav")
