"""Model-based impoliteness: a seq2seq checkpoint built here, and the bundled LLM (slow)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite.base import RewriteContext
from parley.engine.spans import find_spans


def _tiny_t5(folder: Path) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    vocab = {"<pad>": 0, "</s>": 1, "<unk>": 2}
    for w in ["find", "me", "a", "hotel", "now", "give", "the", "address", "hurry", "up"]:
        vocab[w] = len(vocab)
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=len(vocab), d_model=16, d_ff=32, d_kv=8, num_layers=1, num_decoder_layers=1,
                   num_heads=2, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _ctx(text: str) -> RewriteContext:
    return RewriteContext(rng=random.Random(1), seed=1, spans=find_spans(text))


def test_seq2seq_checkpoint_is_loaded_and_checked(tmp_path: Path) -> None:
    folder = _tiny_t5(tmp_path / "t5")
    rw = build_rewriter(f"impolite:model={folder}")
    # a text with a slot value: random weights cannot keep it, so the rules take over and say why
    t = "Could you please find me a hotel in the north ?"
    out = rw.rewrite(t, _ctx(t))
    assert out.info["engine"] == "rules"
    assert "north" in out.info["fallback"] or "nothing" in out.info["fallback"]
    assert "north" in out.after
    # without slot values whatever the model says is taken (if it says anything)
    t = "give me the address"
    out = rw.rewrite(t, _ctx(t))
    assert out.info["engine"] in ("model", "rules")
    if out.info["engine"] == "rules":
        assert "nothing" in out.info["fallback"] or "address" in out.info["fallback"]


def test_missing_checkpoint_falls_back() -> None:
    out = build_rewriter("impolite:model=./no/such/folder").rewrite("thanks", _ctx("thanks"))
    assert out.info["engine"] == "rules" and out.info["fallback"]


@pytest.mark.slow
def test_bundled_llm_rewrite_or_fallback() -> None:
    t = "Could you please find me a cheap hotel in the north ? Thank you !"
    rw = build_rewriter("impolite:llm=true,scenario=2")
    out = rw.rewrite(t, _ctx(t))
    assert out.info["engine"] in ("llm", "rules", "rules+llm")
    assert "cheap" in out.after and "north" in out.after
    if out.info["engine"] != "llm":
        assert out.info["fallback"]
    if out.info["engine"] == "rules+llm":
        assert out.after.endswith(out.info["llm_remark"])
        assert find_spans(out.info["llm_remark"]) == ()
