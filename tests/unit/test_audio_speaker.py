"""Spoken replies: sentence-by-sentence synthesis, the saved WAV, playback that starts with the first
sentence, and barge-in, against an output-stream stand-in that plays in real time from a thread. The real
PortAudio output is exercised by tests/integration/test_rig.py."""

from __future__ import annotations

import shutil
import sys
import threading
import time
import types

import numpy as np
import pytest
import soundfile

from parley.audio import devices
from parley.audio.speaker import speak_reply
from parley.audio.tts import get_tts, sentence_stream

REPLY = "There are three cheap restaurants in the north. Do you have a food type in mind? I can book one."


@pytest.fixture(scope="module")
def piper():  # type: ignore[no-untyped-def]
    return get_tts("piper", deterministic=True)


def test_piper_streams_one_piece_per_sentence_and_joins_them_as_before(  # type: ignore[no-untyped-def]
        piper) -> None:
    pieces = list(sentence_stream(piper, REPLY))
    assert len(pieces) == 3 and all(p.size > 0 for p in pieces)
    whole, sr = piper.synthesize(REPLY)
    gap = int(sr * 0.12)
    assert whole.size == sum(p.size for p in pieces) + 2 * gap
    np.testing.assert_array_equal(whole[:pieces[0].size], pieces[0])


@pytest.mark.skipif(not (shutil.which("espeak-ng") or shutil.which("espeak")),
                    reason="espeak-ng not installed")
def test_espeak_streams_sentence_by_sentence() -> None:
    tts = get_tts("espeak")
    assert len(list(sentence_stream(tts, REPLY))) == 3


def test_without_an_output_device_the_reply_is_only_saved(  # type: ignore[no-untyped-def]
        piper, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(devices, "check_output", lambda: devices.AudioStatus(False, "no speakers", (), ()))
    out = tmp_path / "reply.wav"
    spoken = speak_reply(piper, REPLY, str(out))
    assert spoken.path == str(out) and not spoken.played and spoken.first_audio is None
    assert spoken.sentences == 3 and not spoken.interrupted and spoken.error is None
    data, sr = soundfile.read(out, dtype="float32")
    whole, sr2 = piper.synthesize(REPLY)
    assert sr == sr2 and data.size == whole.size
    np.testing.assert_allclose(data, whole, atol=1.0 / 16384)
    t = spoken.timings()
    assert t["played"] is False and t["reply_to_audio_ms"] == t["tts_first_ms"] > 0


def fake_output(monkeypatch: pytest.MonkeyPatch, played: list[np.ndarray]) -> None:
    """A sounddevice whose OutputStream pulls 20 ms blocks from the callback in real time."""
    mod = types.ModuleType("sounddevice")

    class CallbackStop(Exception):
        pass

    class OutputStream:
        def __init__(self, samplerate, channels, dtype, device,  # type: ignore[no-untyped-def]
                     callback, finished_callback):
            self.sr, self.cb, self.done = samplerate, callback, finished_callback
            self.stop_ = threading.Event()

        def _run(self) -> None:
            block = self.sr // 50
            t = types.SimpleNamespace(outputBufferDacTime=0.0, currentTime=0.0)
            while not self.stop_.is_set():
                buf = np.zeros((block, 1), dtype=np.float32)
                try:
                    self.cb(buf, block, t, None)
                except CallbackStop:
                    played.append(buf[:, 0].copy())
                    break
                played.append(buf[:, 0].copy())
                time.sleep(block / self.sr)
            self.done()

        def start(self) -> None:
            threading.Thread(target=self._run, daemon=True).start()

        def abort(self) -> None:
            self.stop_.set()

        def close(self) -> None:
            self.stop_.set()

    mod.OutputStream = OutputStream  # type: ignore[attr-defined]
    mod.CallbackStop = CallbackStop  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sounddevice", mod)
    monkeypatch.setattr(devices, "check_output", lambda: devices.AudioStatus(True, None, (), ("fake",)))


def test_playback_starts_with_the_first_sentence_and_plays_everything(  # type: ignore[no-untyped-def]
        piper, tmp_path, monkeypatch) -> None:
    played: list[np.ndarray] = []
    fake_output(monkeypatch, played)
    spoken = speak_reply(piper, REPLY, str(tmp_path / "r.wav"))
    assert spoken.played and not spoken.interrupted
    assert spoken.first_ready is not None and spoken.first_audio is not None
    assert spoken.first_audio >= spoken.first_ready
    heard = np.concatenate(played)
    whole, _ = piper.synthesize(REPLY)
    assert spoken.played_s == pytest.approx(whole.size / 22050, abs=0.01)
    a, b = np.flatnonzero(heard)[0], np.flatnonzero(whole)[0]  # the stream may start before the 1st sentence
    np.testing.assert_array_equal(heard[a:a + 20000], whole[b:b + 20000])


def test_barge_in_stops_playback_and_the_whole_reply_is_still_saved(  # type: ignore[no-untyped-def]
        piper, tmp_path, monkeypatch) -> None:
    played: list[np.ndarray] = []
    fake_output(monkeypatch, played)
    stop = threading.Event()
    threading.Timer(0.6, stop.set).start()
    out = tmp_path / "r.wav"
    t0 = time.monotonic()
    spoken = speak_reply(piper, REPLY, str(out), stop=stop)
    assert time.monotonic() - t0 < 4.0  # stopped at 0.6 s; the reply is ~6 s long
    assert spoken.interrupted and spoken.played
    whole, _ = piper.synthesize(REPLY)
    assert 0.0 < spoken.played_s < whole.size / 22050 / 2
    assert soundfile.info(out).frames == whole.size
    assert spoken.timings()["barge_in"] is True
