"""``hf-causal``: UBAR / SimpleTOD / AuGPT-style decoder-only checkpoints (GPT-2 and the like).

``hf-causal:model=PATH|HUB_ID[,format=ubar|simpletod|augpt|PATH.toml][,max_new_tokens=N][,allow_pickle=true]
[,db=DIR][,threads=0]`` (checkpoint code runs only with ``--trust-remote-code``)

The model continues one sequence whose segment markers and order come from the format file, e.g. UBAR's
``<sos_u> … <eos_u> <sos_b> … <eos_b> <sos_db> … <eos_db> <sos_a> … <eos_a> <sos_r> … <eos_r>``. Generation
stops at the end of the belief state; parley parses it, queries the DB and appends the DB segment itself; the
model then writes the act and the delexicalised response up to the response end marker, which parley
lexicalises. Formats with ``history = "full"`` (UBAR) feed every segment of earlier turns back, as the model
was trained; formats with ``prompt_markers = false`` (SimpleTOD) let the model write the segment start markers
itself.

Decoding is greedy with the model's key/value cache, one token at a time, stopping at the segment's end marker
(a single token in the model's vocabulary, or found in the decoded text) or the model's end-of-text token.
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING

from parley.engine.loading import Source, load_pretrained, pretrained_kwargs, say
from parley.engine.systems.hf_base import HFTODSystem, TurnRecord, check_special_tokens
from parley.engine.systems.hf_common import State, between
from parley.progress import Progress
from parley.text import squash

if TYPE_CHECKING:
    import torch
    from transformers import Cache, PreTrainedModel, PreTrainedTokenizerBase

    from parley.engine.systems.hf_batch import Gateway


class CausalSystem(HFTODSystem):
    """A decoder-only end-to-end TOD checkpoint driven by a format file."""

    name = "hf-causal"
    kind = "causal"
    default_format = "ubar"
    prefix_cache = True
    _kv: tuple[list[int], Cache | None] | None = None
    _gateway: Gateway | None = None  # hf_batch.Gateway shared by the systems of one batch group
    _vocab: dict[str, int] | None = None

    def batch_group(self, n: int) -> list[CausalSystem]:
        """``n`` systems, this one first, that share its model and decode their prompts together through
        one :class:`~parley.engine.systems.hf_batch.Gateway` (``parley run --batch N``: one per thread).
        Each keeps its own dialogue state and tokenizer copy (a fast tokenizer is not safe across
        threads)."""
        import copy
        import threading

        from parley.engine.systems.hf_batch import Decoder, Gateway

        self.load()
        tok = copy.deepcopy(self.tokenizer)
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        decode = functools.partial(tok.decode, skip_special_tokens=False)
        self._gateway = Gateway(Decoder(self.model, pad, decode))
        group = [self]
        for _ in range(n - 1):
            other = copy.copy(self)
            other.tokenizer = copy.deepcopy(self.tokenizer)
            other._load_lock, other._records, other._state, other._kv = threading.Lock(), [], {}, None
            group.append(other)
        return group

    def batch_member(self) -> contextlib.AbstractContextManager[None]:
        """Held while this system plays a dialogue of a batch group (the gateway waits for its members)."""
        return self._gateway.member() if self._gateway is not None else contextlib.nullcontext()

    def close(self) -> None:
        if self._gateway is not None:
            self._gateway.close()

    def _load_model(self, src: Source, progress: Progress) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
        from transformers import AutoModelForCausalLM

        kwargs = pretrained_kwargs(src, self.allow_pickle, self.trust_remote_code)
        model, tok = load_pretrained(src.ref, kwargs, AutoModelForCausalLM, progress, self.model_ref,
                                     folder=src.folder)
        if tok.pad_token_id is None and tok.eos_token_id is not None:
            tok.pad_token = tok.eos_token
        self.missing_tokens = check_special_tokens(self.format, tok)
        say(progress, "model ready")
        return model, tok

    def _input_limit(self) -> int:
        if self.max_input_tokens:
            return self.max_input_tokens
        cfg = getattr(self.model, "config", None)
        n = getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None) or 1024
        return max(16, min(int(n), 4096) - self.max_new_tokens)

    def _generate(self, text: str, stop: str | None = None) -> str:

        tok = self.tokenizer
        ids = tok(text, return_tensors="pt", add_special_tokens=False)["input_ids"][:, -self._input_limit():]
        stop_ids = {i for i in (tok.eos_token_id,) if i is not None}
        stop_text = None
        if stop:
            if self._vocab is None:  # get_vocab() builds the whole dict at every call
                self._vocab = tok.get_vocab()
            if stop in self._vocab:
                stop_ids.add(tok.convert_tokens_to_ids(stop))
            else:
                stop_text = stop
        device = getattr(self.model, "device", None)
        new = self._decode(ids.to(device) if device is not None else ids, stop_ids, stop_text)
        out = tok.decode(new, skip_special_tokens=False)
        eos = tok.eos_token
        if isinstance(eos, str) and eos and eos != stop:
            out = out.split(eos, 1)[0]
        return squash(out)

    def _decode(self, ids: torch.Tensor, stop_ids: set[int], stop_text: str | None) -> list[int]:
        """Greedy continuation of ``ids`` (1 × n) with the KV cache: the new token ids, stop token included.

        The cache of the previous call is reused for the longest prefix the two inputs share (the response
        step extends the belief step's sequence; UBAR's next turn extends the whole session)."""
        from parley.engine.systems.hf_batch import Request, forward_kwargs, stopped

        if self._gateway is not None:
            req = Request(ids[0].tolist(), frozenset(stop_ids), stop_text, self.max_new_tokens)
            return self._gateway.submit(req)
        import torch

        cache_kw, extra = forward_kwargs(self.model)

        def decode(out: list[int]) -> str:
            return str(self.tokenizer.decode(out, skip_special_tokens=False))

        cache, start = self._reusable_cache(ids[0].tolist())
        x = ids[:, start:]
        out: list[int] = []
        with torch.inference_mode():
            for _ in range(self.max_new_tokens):
                res = self.model(input_ids=x, use_cache=True, **{cache_kw: cache}, **extra)
                cache = getattr(res, "cache", None) or getattr(res, "past_key_values", None)
                nxt = int(res.logits[0, -1].argmax())
                out.append(nxt)
                if stopped(out, stop_ids, stop_text, decode):
                    break
                x = torch.tensor([[nxt]], device=ids.device)
        self._kv = (ids[0].tolist() + out[:-1], cache)  # the cache holds every token fed so far
        return out

    def _reusable_cache(self, ids: list[int]) -> tuple[Cache | None, int]:
        """``(cache, n)``: the previous call's cache cropped to the ``n`` leading tokens it shares with
        ``ids``."""
        kv = getattr(self, "_kv", None)
        self._kv = None
        if kv is None or not self.prefix_cache or not hasattr(kv[1], "crop"):
            return None, 0
        prev, cache = kv
        n = 0
        for a, b in zip(prev, ids[:-1], strict=False):  # at least one token is left to feed
            if a != b:
                break
            n += 1
        if n < 8:
            return None, 0
        if n < len(prev):
            cache.crop(n - len(prev))  # negative: drop that many trailing tokens (every transformers version)
        return cache, n

    def _prefix(self, records: list[TurnRecord], user: str, prev: State) -> str:
        fmt = self.format
        opener = fmt.belief_start if fmt.prompt_markers else ""
        return fmt.segment(self.context(records, user, full=fmt.history == "full", previous=prev), opener)

    def _generate_belief(self, records: list[TurnRecord], user: str, prev: State) -> tuple[str, str]:
        fmt = self.format
        self._prompt = self.fit(lambda recs: self._prefix(recs, user, prev), records)
        raw = self._generate(self._prompt, stop=fmt.belief_end or None)
        return between(raw, fmt.belief_start, fmt.belief_end), raw

    def _generate_response(self, records: list[TurnRecord], user: str, belief: str, db_text: str
                           ) -> tuple[str, str, str]:
        fmt = self.format
        if fmt.prompt_markers:
            opener = fmt.act_start or fmt.response_start
            prompt = fmt.segment(self._prompt, belief, fmt.belief_end, db_text, opener)
        else:
            prompt = fmt.segment(self._prompt, fmt.belief_start, belief, fmt.belief_end, db_text)
        raw = self._generate(prompt, stop=fmt.response_end or None)
        act, rest = "", raw
        if fmt.act_start:
            if fmt.act_end and fmt.act_end in raw:
                act, rest = raw.split(fmt.act_end, 1)
            else:
                act, rest = raw, ""
            act = act.replace(fmt.act_start, " ")
        return squash(act), between(rest, fmt.response_start, fmt.response_end), raw
