"""``hf-seq2seq``: PPTOD/MinTL-style encoder-decoder checkpoints (T5, BART, ...).

``hf-seq2seq:model=PATH|HUB_ID[,format=pptod|mintl|PATH.toml][,max_new_tokens=N][,allow_pickle=true]
[,db=DIR][,threads=0]`` (checkpoint code runs only with ``--trust-remote-code``)

Each turn makes two generate calls: the belief prompt (PPTOD: ``translate dialogue to belief state:``) over
the context, then the response prompt over the context plus the DB segment (and, for formats that ask for it,
the belief state); formats with ``[db] place = "decoder"`` (MinTL) start the response decoder with the DB
token instead. The belief state is parsed and the DB queried between the two; the delexicalised response is
filled from the matching DB row (see :mod:`engine.systems.hf_base`). A ``parley-format.toml`` in the model
folder is used when no ``format=`` is given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from parley.engine.loading import Source, load_pretrained, pretrained_kwargs, say
from parley.engine.systems.hf_base import HFTODSystem, TurnRecord, check_special_tokens
from parley.engine.systems.hf_common import State, between, format_belief, join
from parley.progress import Progress
from parley.text import squash

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def strip_tokens(text: str, tokenizer: object) -> str:
    """Remove pad/eos/bos/unk token strings a decode with special tokens kept leaves behind."""
    for attr in ("pad_token", "eos_token", "bos_token"):
        tok = getattr(tokenizer, attr, None)
        if isinstance(tok, str) and tok:
            text = text.replace(tok, " ")
    return squash(text)


class Seq2SeqSystem(HFTODSystem):
    """An encoder-decoder end-to-end TOD checkpoint driven by a format file."""

    name = "hf-seq2seq"
    kind = "seq2seq"
    default_format = "pptod"

    def _load_model(self, src: Source, progress: Progress) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
        from transformers import AutoModelForSeq2SeqLM

        kwargs = pretrained_kwargs(src, self.allow_pickle, self.trust_remote_code)
        model, tok = load_pretrained(src.ref, kwargs, AutoModelForSeq2SeqLM, progress, self.model_ref,
                                     folder=src.folder)
        self.missing_tokens = check_special_tokens(self.format, tok)
        say(progress, "model ready")
        return model, tok

    def _input_limit(self) -> int:
        if self.max_input_tokens:
            return self.max_input_tokens
        n = getattr(self.tokenizer, "model_max_length", 0) or 0
        return int(n) if 16 <= n <= 4096 else 512

    def _generate(self, text: str, stop: str | None = None, decoder_prefix: str = "") -> str:
        import torch

        enc = self.tokenizer(text, return_tensors="pt", truncation=True, max_length=self._input_limit())
        kwargs: dict[str, torch.Tensor] = {}
        if decoder_prefix:
            ids = self.tokenizer.convert_tokens_to_ids(decoder_prefix.split())
            kwargs["decoder_input_ids"] = torch.tensor([ids])
        with torch.inference_mode():
            out = self.model.generate(**enc, max_new_tokens=self.max_new_tokens, do_sample=False, num_beams=1,
                                      **kwargs)
        seq = out[0, len(kwargs["decoder_input_ids"][0]):] if decoder_prefix else out[0]
        return strip_tokens(self.tokenizer.decode(seq, skip_special_tokens=False), self.tokenizer)

    def _inputs(self, template: str, prompt: str, user: str, prev: State, belief: str, db_text: str
                ) -> Callable[[list[TurnRecord]], str]:
        fmt = self.format

        def build(records: list[TurnRecord]) -> str:
            return join(template.format(prompt=prompt, context=self.context(records, user, previous=prev),
                                        prev_belief=format_belief(prev, fmt),
                                        belief=join(fmt.belief_start, belief, fmt.belief_end), db=db_text))
        return build

    def _generate_belief(self, records: list[TurnRecord], user: str, prev: State) -> tuple[str, str]:
        fmt = self.format
        self._prev = prev
        text = self.fit(self._inputs(fmt.belief_input, fmt.belief_prompt, user, prev, "", ""), records)
        raw = self._generate(text)
        return between(raw, fmt.belief_start, fmt.belief_end), raw

    def _generate_response(self, records: list[TurnRecord], user: str, belief: str, db_text: str
                           ) -> tuple[str, str, str]:
        fmt = self.format
        prev = getattr(self, "_prev", {})
        in_decoder = fmt.db_place == "decoder"
        text = self.fit(self._inputs(fmt.response_input, fmt.response_prompt, user, prev, belief,
                                     "" if in_decoder else db_text), records)
        raw = self._generate(text, decoder_prefix=db_text if in_decoder else "")
        act, rest = "", raw
        if fmt.act_start and fmt.act_start in raw:
            act = between(raw, fmt.act_start, fmt.act_end)
            rest = raw.split(fmt.act_end, 1)[1] if fmt.act_end in raw else ""
        return act, between(rest, fmt.response_start, fmt.response_end), raw
