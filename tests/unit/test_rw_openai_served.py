"""impolite backend=openai against a real OpenAI-compatible server: `parley serve-bundled`
(llama.cpp's server on the bundled SmolLM2 GGUF), started by the fixture of test_served_model.py."""

from __future__ import annotations

import random
import time

import pytest

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.courtesy import markers
from parley.engine.spans import find_requests, find_spans
from tests.unit.test_served_model import served  # noqa: F401  (the fixture; skips without the serve extra)

pytestmark = pytest.mark.slow
REQUESTS = (
    "Hello, could you please find me a cheap hotel in the north? Thank you!",
    "I'd be grateful if you could tell me the phone number of the museum.",
    "Would you mind booking a table for 4 people at 19:00 on Friday, if that's okay?",
)


def _rewrite(spec: str, text: str, seed: int = 5) -> object:
    rw = build_rewriter(spec)
    try:
        return rw.rewrite(text, RewriteContext(random.Random(seed), seed, (), find_spans(text)))
    finally:
        rw.close()  # type: ignore[attr-defined]


def test_served_model_rewrites_or_falls_back(served: str) -> None:  # noqa: F811
    """One test (one server under pytest-xdist): every request rewritten by the model or by the rules, the
    values kept either way, greedy decoding deterministic, and the deadline honoured."""
    spec = f"impolite:backend=openai,url={served},model=smollm2,scenario=2,timeout=600,retries=0"
    for text in REQUESTS:
        out = _rewrite(spec, text)
        info = out.info  # type: ignore[attr-defined]
        after = out.after  # type: ignore[attr-defined]
        assert info["backend"] == "openai" and info["engine"] in ("openai", "rules")
        assert info["openai"]["url"] == f"{served}/v1/chat/completions"
        if info["engine"] == "rules":  # the model answered, but its reply failed the check
            assert info["fallback_kind"] == "check" and info["openai"]["status"] == 200, info
        else:
            assert info["openai"]["status"] == 200 and "fallback" not in info
        assert all(s.value in after for s in find_spans(text))
        assert all(r.value.lower() in after.lower() for r in find_requests(text))
        assert not markers(after)
        again = _rewrite(spec, text)
        assert again.after == after  # type: ignore[attr-defined]
        assert again.info.get("openai", {}).get("reply") == info["openai"].get("reply")  # type: ignore[attr-defined]

    # last: the server goes on generating after parley gives up; the rules answer within the deadline
    t0 = time.perf_counter()
    out = _rewrite(f"impolite:backend=openai,url={served},model=smollm2,max_tokens=200,timeout=0.3,retries=0",
                   REQUESTS[0])
    assert time.perf_counter() - t0 < 3
    assert out.info["engine"] == "rules" and out.info["fallback_kind"] == "timeout"  # type: ignore[attr-defined]
    assert "cheap" in out.after and "north" in out.after  # type: ignore[attr-defined]
