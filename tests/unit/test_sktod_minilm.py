"""The numpy MiniLM encoder gives the vectors sentence-transformers gives for the bundled all-MiniLM-L6-v2,
and the SK-TOD pipeline loads without importing torch."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from parley.engine.sktod.embed import bundled_minilm
from parley.engine.sktod.minilm import NumpyMiniLM

TEXTS = ["Is the wifi any good there?", "The breakfast ran out early and the coffee was weak.", "ok",
         "Do they allow dogs? Small dogs are welcome for a fee.", "word " * 400]  # the last is truncated


@pytest.mark.slow
def test_same_vectors_as_sentence_transformers() -> None:
    from sentence_transformers import SentenceTransformer

    ours = NumpyMiniLM(bundled_minilm()).encode(TEXTS, batch_size=2)
    ref = SentenceTransformer(str(bundled_minilm()), device="cpu").encode(TEXTS, normalize_embeddings=True)
    assert ours.shape == ref.shape == (len(TEXTS), 384)
    assert np.abs(ours - ref).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@pytest.mark.subprocess
def test_sktod_pipeline_loads_without_torch() -> None:
    code = ("import sys; from parley.engine.systems import build_system; s = build_system('sktod'); s.load();"
            "from parley.engine.types import Message;"
            "t = s.respond((Message('user', 'is the wifi good at the acorn guest house?'),));"
            "print(t.internals['branch'], 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["sktod", "False"]
