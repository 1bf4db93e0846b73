"""A byte-level BPE tokenizer trained here on the training sequences (deterministic for the same texts).

The format's markers (``<|belief|>``, ...) are special tokens that swallow the spaces around them, so ``a
<|user|> b`` and ``a<|user|>b`` encode alike and a marker never costs a stray space token; every other piece
of text gets a prefix space, so a word is one token wherever it stands.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

EOS = "<|endoftext|>"


def train_tokenizer(texts: Iterable[str], special_tokens: Sequence[str], vocab_size: int
                    ) -> PreTrainedTokenizerFast:
    """A ``PreTrainedTokenizerFast`` (eos = bos = pad = ``<|endoftext|>``) with a BPE vocabulary of
    ``vocab_size`` learnt from ``texts`` (markers removed first, so no merges are spent on them)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = list(dict.fromkeys([EOS, *special_tokens]))
    marker = re.compile("|".join(re.escape(t) for t in sorted(specials, key=len, reverse=True)))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=[])
    tok.train_from_iterator((marker.sub(" ", t) for t in texts), trainer=trainer)
    tok.add_special_tokens([AddedToken(t, lstrip=True, rstrip=True, special=True, normalized=False)
                            for t in specials])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=EOS, eos_token=EOS, pad_token=EOS,
                                   additional_special_tokens=specials[1:], clean_up_tokenization_spaces=False)
