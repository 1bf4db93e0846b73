"""TTS backends: espeak-ng fallback when piper fails, Coqui failing soft, espeak synthesis, WAV writing."""

from __future__ import annotations

import shutil
import sys

import numpy as np
import pytest
import soundfile

from parley.audio import tts, voices
from parley.engine.types import LoadError

needs_espeak = pytest.mark.skipif(not (shutil.which("espeak-ng") or shutil.which("espeak")),
                                  reason="espeak-ng is not installed")


@pytest.fixture(autouse=True)
def _fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tts, "_cache", {})


@pytest.fixture
def broken_piper(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self, progress=None):  # type: ignore[no-untyped-def]
        raise LoadError("piper voice could not load (simulated)")

    monkeypatch.setattr(tts.PiperTTS, "load", fail)


@pytest.fixture
def no_coqui(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "TTS", None)  # importing TTS.api raises ImportError
    monkeypatch.setitem(sys.modules, "TTS.api", None)


@needs_espeak
def test_piper_falls_back_to_espeak_with_a_logged_reason(
    broken_piper: None, caplog: pytest.LogCaptureFixture
):
    with caplog.at_level("WARNING", logger="parley.audio.tts"):
        engine = tts.get_tts("piper")
    assert engine.name == "espeak"
    assert engine.note and "simulated" in engine.note and "using espeak" in engine.note
    assert any("using espeak" in r.getMessage() for r in caplog.records)
    audio, sr = engine.synthesize("Two tickets to Ely, please.")
    assert audio.dtype == np.float32 and audio.ndim == 1 and sr > 8000
    assert 0.5 < audio.size / sr < 5 and np.max(np.abs(audio)) <= 1.0


def test_piper_without_fallback_raises(broken_piper: None) -> None:
    with pytest.raises(LoadError, match="simulated"):
        tts.get_tts("piper", fallback=False)


def test_coqui_fails_soft(no_coqui: None, broken_piper: None, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(LoadError) as e:
        tts.get_tts("coqui", fallback=False)
    msg = str(e.value)
    assert "Coqui TTS is an optional backend" in msg and "\n" not in msg
    monkeypatch.setattr(tts.EspeakTTS, "load", lambda self, progress=None: self)
    engine = tts.get_tts("coqui")  # falls back (piper is broken here, so espeak)
    assert engine.name == "espeak" and "Coqui" in (engine.note or "")


def test_nothing_works_is_one_load_error(broken_piper: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(voices.shutil, "which", lambda name: None)
    with pytest.raises(LoadError, match="espeak-ng is not installed"):
        tts.get_tts("piper")


def test_unknown_backend_and_speed() -> None:
    with pytest.raises(LoadError, match="unknown TTS backend"):
        tts.get_tts("festival")
    with pytest.raises(ValueError, match="speed"):
        tts.EspeakTTS().synthesize("hi", speed=9)


@needs_espeak
def test_espeak_speed_and_determinism() -> None:
    e = tts.EspeakTTS()
    a1, sr = e.synthesize("I would like a taxi at five.")
    a2, _ = e.synthesize("I would like a taxi at five.")
    fast, _ = e.synthesize("I would like a taxi at five.", speed=1.6)
    assert np.array_equal(a1, a2)
    assert fast.size < 0.8 * a1.size


def test_write_wav(tmp_path) -> None:
    path = tts.write_wav(tmp_path / "sub" / "x.wav", np.linspace(-2, 2, 1600, dtype=np.float32), 16000)
    data, sr = soundfile.read(path)
    assert sr == 16000 and data.size == 1600 and np.max(np.abs(data)) <= 1.0
    assert soundfile.info(path).subtype == "PCM_16"
