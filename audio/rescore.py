"""How likely Whisper finds a given text as the transcript of some audio: the acoustic check behind snapping a
near-miss to a known name (:mod:`parley.audio.confirm`).

The audio is encoded once; each text is then forced through the decoder (CTranslate2's ``align``, the call
faster-whisper uses for word timestamps), and the log-probabilities of its tokens are summed. Two texts that
differ in one name compare how well each name fits the sound: the decoder's language prior is the same on
both sides except for the name's own tokens.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

#: the least token probability counted (a token the decoder rules out costs this much, not infinity)
_FLOOR = 1e-9


def text_logprobs(whisper: WhisperModel, samples: np.ndarray, texts: list[str],
                  frames: int | None) -> list[float]:
    """The summed token log-probability of each of ``texts`` given ``samples`` (16 kHz) under ``whisper`` (a
    faster-whisper ``WhisperModel``; ``frames`` is its short encoder window, or None for 30 s)."""
    from faster_whisper.audio import pad_or_trim
    from faster_whisper.tokenizer import Tokenizer

    if not texts:
        return []
    multilingual = bool(whisper.model.is_multilingual)
    tokenizer = Tokenizer(whisper.hf_tokenizer, multilingual, task="transcribe",
                          language="en" if multilingual else None)
    features = whisper.feature_extractor(samples)
    num_frames = min(int(features.shape[-1]), whisper.feature_extractor.nb_max_frames)
    whisper.frames = frames  # the short encoder window (audio.asr's WhisperModel subclass)
    try:
        encoded = whisper.encode(pad_or_trim(features))
    finally:
        whisper.frames = None
    out = []
    for text in texts:
        ids = tokenizer.encode(" " + text.strip())
        if not ids:
            out.append(-math.inf)
            continue
        result = whisper.model.align(encoded, tokenizer.sot_sequence, [ids], num_frames)
        out.append(sum(math.log(max(float(p), _FLOOR)) for p in result[0].text_token_probs))
    return out
