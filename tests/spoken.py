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
