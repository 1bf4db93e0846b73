"""``parley doctor``, ``speak`` and ``transcribe``: reports, WAV in and out, one-line errors with exit 2."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from parley.audio.devices import AudioStatus
from parley.cli import main


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


def test_doctor_json_reports_everything() -> None:
    r = run("doctor", "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert set(rep) >= {"portaudio", "input", "output", "espeak_ng", "models", "extras", "versions"}
    assert {m["name"] for m in rep["models"]} >= {"tiny.en", "base", "piper en_US-joe-medium",
                                                    "SmolLM2-135M-Instruct GGUF",
                                                    "Qwen2.5-Coder-0.5B-Instruct GGUF (the llm default)"}
    assert set(rep["extras"]) == {"models", "stats", "audio", "sktod", "ray", "serve"}
    assert rep["versions"]["faster-whisper"]
    if not rep["input"]["available"]:
        assert rep["input"]["reason"]


def test_doctor_text() -> None:
    r = run("doctor")
    assert r.exit_code == 0 and "tiny.en" in r.output and "PortAudio" in r.output
    assert "ok extra audio" in r.output.splitlines()


def test_doctor_names_a_missing_extra_and_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from parley import extras

    monkeypatch.setitem(extras.EXTRAS, "ray", ("ray", "no_such_module_here"))
    r = run("doctor")
    assert r.exit_code == 0, r.output
    line = "-- extra ray: missing no_such_module_here (pip install 'parley-tod[ray]')"
    assert line in r.output.splitlines()


def test_transcribe_missing_file_is_one_line() -> None:
    r = run("transcribe", "/no/such.wav")
    assert r.exit_code == 2
    assert r.output.strip().splitlines() == ["parley: error: audio file /no/such.wav does not exist"]


def test_transcribe_bad_model_is_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    import soundfile

    wav = tmp_path / "x.wav"
    soundfile.write(str(wav), np.zeros(1600, dtype=np.float32), 16000)
    r = run("transcribe", str(wav), "--model", "/no/such/model")
    assert r.exit_code == 2 and "does not exist" in r.output and len(r.output.strip().splitlines()) == 1


def test_transcribe_reads_the_file_before_loading_whisper(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import parley.audio.asr as asr

    def no_model(*_a: object, **_k: object) -> None:
        raise AssertionError("Whisper was loaded for a file that is not audio")

    monkeypatch.setattr(asr, "get_asr", no_model)
    wav = tmp_path / "noise.wav"
    wav.write_bytes(b"RIFF\x00\x01garbage" * 50)
    r = run("transcribe", str(wav))
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[0].startswith("parley: error: cannot read audio")


def test_speak_without_output_device_asks_for_out(monkeypatch: pytest.MonkeyPatch) -> None:
    import parley.audio.devices

    monkeypatch.setattr(parley.audio.devices, "check_output",
                        lambda: AudioStatus(False, "No audio output device (speakers) was found.", (), ()))
    r = run("speak", "hello")
    assert r.exit_code == 2 and "--out" in r.output


@pytest.mark.slow
def test_speak_then_transcribe(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "s.wav"
    r = run("speak", "Two tickets to Cambridge, please.", "--out", str(out), "--no-play")
    assert r.exit_code == 0, r.output
    assert out.is_file() and "piper" in r.output
    r = run("transcribe", str(out), "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output.strip().splitlines()[-1])
    assert "cambridge" in rep["text"].lower() and rep["segments"] and rep["model"] == "tiny.en"


def test_transcribe_names_a_folder_and_an_undecodable_file_plainly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A folder was reported as "does not exist"; a file no decoder reads as "[Errno 1094995529] Invalid data
    found when processing input: 'PATH'" (PyAV's errno and the path a second time)."""
    r = run("transcribe", str(tmp_path))
    assert r.output.strip().splitlines() == [f"parley: error: {tmp_path} is a folder, not an audio file"]
    bad = tmp_path / "noise.wav"
    bad.write_bytes(bytes(range(256)) * 8)
    r = run("transcribe", str(bad))
    assert r.exit_code == 2
    reason = "Invalid data found when processing input"
    assert r.output.strip().splitlines() == [f"parley: error: cannot read audio file {bad}: {reason}"]
