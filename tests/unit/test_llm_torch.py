"""The transformers backend of ``llm``: its plain (not delexicalised) generation and the refusal stop."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_plain_generation_and_the_refusal_stop() -> None:
    from parley.engine.systems.llm_torch import TorchBackend, _stop_on_refusal

    backend = TorchBackend("smollm2", threads=1, max_new_tokens=12)
    text, prompt, new = backend.plain("I need a hotel in the north", "Acorn Guest House is in the north.")
    assert text.strip() and prompt > 0 and 0 < new <= 12
    tok, model = backend.tokenizer, backend.model
    stop = _stop_on_refusal(tok, 0)
    refusal = tok("I'm sorry, but I cannot help with that.", return_tensors="pt")["input_ids"]
    assert stop(refusal, None).tolist() == [True]
    assert stop(tok("How about the Acorn?", return_tensors="pt")["input_ids"], None).tolist() == [False]
    # inside generate: a reply that already refuses ends within a few tokens, not at the budget
    ids = tok("I'm sorry, but I", return_tensors="pt")["input_ids"]
    out = model.generate(ids, max_new_tokens=20, do_sample=False, stopping_criteria=stop)
    assert out.shape[1] - ids.shape[1] < 20
