"""Spoken test turns: speech synthesised with the bundled piper voice over room noise, for the rig
(:mod:`parley.audio.rig`), the tests and the benchmarks."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from parley.audio.rig import MIC_RATE


def pink_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` samples of pink (1/f) noise with unit RMS — closer to a room than white noise."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.arange(spectrum.size, dtype=np.float64)
    freqs[0] = 1.0
    noise = np.fft.irfft(spectrum / np.sqrt(freqs), n)
    return (noise / (np.sqrt(np.mean(noise ** 2)) or 1.0)).astype(np.float32)


def make_utterance(text: str, path: str | os.PathLike[str], *, snr_db: float | None = 15.0,
                   lead_s: float = 0.4, tail_s: float = 0.4, seed: int = 0, tts: str = "piper") -> str:
    """Synthesise ``text`` (the bundled piper voice, deterministic) as a 16 kHz WAV with ``lead_s``/``tail_s``
    of room before and after, and pink background noise at ``snr_db`` under the whole file: a spoken test
    turn."""
    from parley.audio.asr import resample
    from parley.audio.capture import write_wav
    from parley.audio.tts import get_tts

    voice = get_tts(tts, deterministic=True)
    speech, sr = voice.synthesize(text)
    speech = resample(speech, sr, MIC_RATE) * 0.5
    audio = np.concatenate([np.zeros(int(lead_s * MIC_RATE)), speech, np.zeros(int(tail_s * MIC_RATE))])
    if snr_db is not None:
        power = float(np.mean(speech.astype(np.float64) ** 2))
        gain = np.sqrt(power / 10 ** (snr_db / 10))
        audio = audio + pink_noise(audio.size, np.random.default_rng(seed)) * gain
    return write_wav(Path(path), audio.astype(np.float32), MIC_RATE)
