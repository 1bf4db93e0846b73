"""Shared text normalisation steps (a leaf module: engine, store and audio may all import it).

parley's normalisers serve different comparisons and stay different where their results must differ: the WER
normaliser is whisper-normalizer's English one (``audio.wer``), BLEU/metric tokenisation follows the MultiWOZ
corpus (``engine.rewrite.metrics``), entity names fold spellings (``engine.sktod.entities``). What they share
is here: :func:`squash` (white space) and :func:`fold` (case and white space).
"""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def squash(text: str) -> str:
    """Runs of white space (Unicode included: em spaces, tabs, new lines) as one space, no space at the
    ends."""
    return _SPACE.sub(" ", text).strip()


def fold(text: str) -> str:
    """Lower case, white space squashed: the comparison form of free text."""
    return squash(text.lower())
