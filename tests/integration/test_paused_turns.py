"""A spoken turn with pauses inside it is transcribed whole, through the real command: utterances made here
(espeak-ng and the bundled piper voice) with 0.3–1.2 s of silence between their parts go through
``parley chat --audio-script`` in a subprocess, with a system that knows no names (so what is checked is the
recogniser's own transcript). Before, tiny.en's decoder ended its transcript at a long pause and the rest of
the file was dropped: "I'd like to book the A"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import soundfile

from parley.audio.wer import normalise
from tests.spoken import paused

pytestmark = [pytest.mark.subprocess,
              pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")]

BOOK = ("I'd like to book the Acorn Guest House", "for two nights")
#: (parts, pause between them in seconds, voice, silence before the speech)
CASES = (
    (BOOK, 0.3, "piper", 0.0),
    (BOOK, 0.6, "espeak", 0.0),
    (BOOK, 0.9, "espeak", 0.0),
    (BOOK, 1.2, "espeak", 1.0),
    (("I'd like to book the", "Acorn Guest House for two nights"), 1.2, "espeak", 0.0),
    (("I need a cheap hotel", "in the north", "with free parking please"), 0.9, "piper", 0.0),
)


def test_speech_after_a_pause_stays_in_the_turn(tmp_path: Path) -> None:
    folder = tmp_path / "turns"
    folder.mkdir()
    for i, (parts, pause, voice, lead) in enumerate(CASES, 1):
        soundfile.write(folder / f"{i:02d}.wav", paused(parts, pause, voice=voice, lead_s=lead), 16000,
                        subtype="PCM_16")
    env = {**os.environ, "PARLEY_DATA": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-m", "parley", "chat", "--system", "echo", "--audio-script",
                             str(folder), "--json", "--db", str(tmp_path / "t.db")],
                            capture_output=True, text=True, env=env, timeout=900)
    assert result.returncode == 0, result.stderr
    turns = [json.loads(line) for line in result.stdout.splitlines()]
    heard = [t["user"] for t in turns]
    assert len(heard) == len(CASES), heard
    for (parts, *_), text in zip(CASES, heard, strict=True):
        last = normalise(parts[-1]).split()[-1]  # the last word came through
        said = normalise(" ".join(parts)).split()
        got = normalise(text).split()
        assert last in got and len(got) >= len(said) - 2, (parts, text)
