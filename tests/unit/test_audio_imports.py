"""Importing audio (and the audio CLI) stays cheap: no model libraries until a function needs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("faster_whisper", "ctranslate2", "piper", "onnxruntime", "sounddevice", "torch", "transformers",
         "scipy", "jiwer", "whisper_normalizer", "textual")


def test_audio_imports_are_light() -> None:
    code = (
        "import sys\n"
        "import audio, audio.devices, audio.capture, audio.asr, audio.tts, audio.channel, audio.models, "
        "audio.voices\n"
        "import audio.wer, parley.cli.audio_cmd\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.strip() == ""
