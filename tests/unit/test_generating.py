"""loading.generating: a model that cannot generate text is refused with one line naming it."""

from __future__ import annotations

import pytest

from parley.engine.loading import generating
from parley.engine.types import LoadError


def test_only_text_generators_pass() -> None:
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Model

    config = GPT2Config(vocab_size=32, n_positions=16, n_embd=8, n_layer=1, n_head=2)
    lm = GPT2LMHeadModel(config)
    assert generating(lm, "the tiny LM") is lm
    with pytest.raises(LoadError, match="the encoder cannot generate text .a GPT2Model."):
        generating(GPT2Model(config), "the encoder")
