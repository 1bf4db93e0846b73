"""Spoken test turns made by the tests themselves: a three-turn restaurant dialogue we wrote, synthesised with
the bundled piper voice (deterministic) with pink background noise mixed in (audio.rig.make_utterance)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

#: the tester's side of a short restaurant dialogue (written for parley's tests)
RESTAURANT = (
    "I am looking for a cheap restaurant in the north of town.",
    "Italian food, please.",
    "Can I have the phone number?",
)


@lru_cache(maxsize=32)
def speech(text: str) -> np.ndarray:
    """``text`` as clean 16 kHz speech (float32, peak 0.5)."""
    from parley.audio.asr import resample
    from parley.audio.tts import get_tts

    audio, sr = get_tts("piper", deterministic=True).synthesize(text)
    return (resample(audio, sr, 16000) * 0.5).astype(np.float32)


def noise(seconds: float, dbfs: float = -45.0, seed: int = 0) -> np.ndarray:
    """Pink room noise at ``dbfs`` RMS."""
    from parley.audio.utterances import pink_noise

    n = int(seconds * 16000)
    return pink_noise(n, np.random.default_rng(seed)) * np.float32(10 ** (dbfs / 20))


def restaurant_wavs(folder: Path, snr_db: float = 15.0) -> list[Path]:
    """The three turns as WAV files ``01.wav``..``03.wav`` in ``folder`` (made once per folder)."""
    from parley.audio.utterances import make_utterance

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i, text in enumerate(RESTAURANT, 1):
        path = folder / f"{i:02d}.wav"
        if not path.exists():
            make_utterance(text, path, snr_db=snr_db, seed=i)
        out.append(path)
    return out


def espeak(text: str, voice: str = "en-us") -> np.ndarray:
    """``text`` spoken by espeak-ng (16 kHz float32)."""
    import io
    import subprocess

    import soundfile

    from parley.audio.asr import resample

    wav = subprocess.run(["espeak-ng", "-v", voice, "--stdout", text], capture_output=True, check=True).stdout
    audio, sr = soundfile.read(io.BytesIO(wav), dtype="float32")
    return resample(audio, sr, 16000)


def trimmed(audio: np.ndarray) -> np.ndarray:
    """``audio`` without the quiet a voice puts before and after the words (so a pause between parts is the
    pause asked for)."""
    loud = np.flatnonzero(np.abs(audio) > 0.02 * np.abs(audio).max())
    return audio[loud[0]:loud[-1] + 1]


def paused(parts: tuple[str, ...], pause_s: float, *, voice: str = "espeak", lead_s: float = 0.0,
           trail_s: float = 0.5, trim: bool = False) -> np.ndarray:
    """One utterance said in ``parts`` with ``pause_s`` of digital silence between them (a speaker who stops
    to think), by espeak-ng (en-us) or the bundled piper voice; with ``trim`` the voice's own quiet around
    each part is cut first (the pause is then exactly ``pause_s``)."""
    say = espeak if voice == "espeak" else speech
    gap = np.zeros(int(pause_s * 16000), np.float32)
    pieces = [np.zeros(int(lead_s * 16000), np.float32)]
    for i, part in enumerate(parts):
        pieces += [gap] if i else []
        pieces.append(trimmed(say(part)) if trim else say(part))
    return np.concatenate([*pieces, np.zeros(int(trail_s * 16000), np.float32)]).astype(np.float32)
