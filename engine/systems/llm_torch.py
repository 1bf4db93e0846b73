"""``llm``'s transformers backend, for checkpoints llama.cpp does not run: model folders with ``config.json``
and hub ids (users with a network). A delexicalised sentence is reworded under constrained decoding
(:mod:`engine.systems.llm_decode`); ``delex=false`` gives the model the plain draft.

The KV cache of the static part of the prompt (instructions and example) is computed once and reused.
``threads=0`` picks torch threads per turn: 1 when the CPUs are busy with other work (two contending OpenMP
threads ran 7x slower here), else 2. The library's warnings go to the log (:func:`engine.llamacpp.log_path`).
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from parley.engine.llamacpp import choose_threads, use_log
from parley.engine.systems.llm_check import REFUSALS
from parley.engine.systems.llm_decode import text_of
from parley.engine.systems.llm_delex import placeholders
from parley.progress import Progress

if TYPE_CHECKING:
    import torch
    from transformers import Cache, PreTrainedTokenizerBase, StoppingCriteriaList

    from parley.engine.systems.llm_decode import Vocabulary

DELEX_PROMPT = ("You are a friendly clerk at the Cambridge tourist office. Say the draft sentence in your "
                "own words, with the same meaning. Copy every word in square brackets, such as [name], "
                "exactly. One sentence.")
DELEX_EXAMPLE = (
    {"role": "user", "content": "Draft: [name] is a [stars] star [type] in the [area]."},
    {"role": "assistant", "content": "[name] is a lovely [stars] star [type] in the [area]."},
    {"role": "user", "content": "Draft: Shall I book it for you?"},
    {"role": "assistant", "content": "Would you like me to book it?"},
)
SYSTEM_PROMPT = ("You are a helpful clerk at the Cambridge tourist office. Say the draft answer to the "
                 "customer in your own friendly words. Keep names, numbers and times exactly. One or two "
                 "sentences.")
EXAMPLE = (
    {"role": "user", "content": "Customer: I need a hotel in the north.\nDraft: Acorn Guest House is a 4 "
                                "star guesthouse in the north. Shall I book it?"},
    {"role": "assistant", "content": "How about the Acorn Guest House? It's a lovely 4 star guesthouse in "
                                     "the north. Would you like me to book it?"},
)


@contextlib.contextmanager
def warnings_to_log() -> Iterator[None]:
    """Python warnings raised inside go to the llm log instead of the terminal; transformers' own logger
    writes there too from now on."""
    logger = use_log()
    with contextlib.suppress(Exception):
        from transformers.utils import logging as hf_logging

        hf_logging.disable_default_handler()
        for handler in logger.handlers:
            if handler not in hf_logging.get_logger().handlers:
                hf_logging.add_handler(handler)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        try:
            yield
        finally:
            for w in caught:
                logger.warning("%s: %s", w.category.__name__, w.message)


def _stop_on_refusal(tokenizer: PreTrainedTokenizerBase, prompt_len: int) -> StoppingCriteriaList:
    """Stop generating as soon as the reply is a refusal: it will fall back anyway, so save the time."""
    from transformers import StoppingCriteriaList

    class _Refusal:  # called as a StoppingCriteria is: (ids so far, scores) → one stop flag per row
        def __call__(self, input_ids: torch.Tensor, scores: object, **kwargs: object) -> torch.Tensor:
            import torch

            text = text_of(tokenizer, input_ids[0, prompt_len:])
            return torch.full((input_ids.shape[0],), bool(REFUSALS.search(text)), dtype=torch.bool,
                              device=input_ids.device)

    return StoppingCriteriaList([_Refusal()])


def _cache_kwarg() -> str:
    """``generate``'s name for a pre-filled KV cache (``cache`` from transformers 5, ``past_key_values``
    before)."""
    import transformers

    major = int(transformers.__version__.split(".")[0])
    return "cache" if major >= 5 else "past_key_values"


class TorchBackend:
    """A causal chat LM loaded by transformers (see the module doc)."""

    name = "transformers"
    lexical = True  # constrained decoding with a copy bias: also keep the draft's words (check_sentence)

    def __init__(self, ref: str, *, threads: int = 0, max_new_tokens: int = 40, prefix_cache: bool = True,
                 copy_bias: float = 3.0, trust_remote_code: bool = False, allow_pickle: bool = False,
                 progress: Progress = None) -> None:
        from parley.engine.smollm import load_causal_lm

        with warnings_to_log():
            self.model, self.tokenizer = load_causal_lm(ref, progress=progress,
                                                        trust_remote_code=trust_remote_code,
                                                        allow_pickle=allow_pickle)
        self.wanted_threads = threads
        self.max_new_tokens = max_new_tokens
        self.prefix_cache = prefix_cache
        self.copy_bias = copy_bias
        self.threads = 0
        self.cached_tokens = 0
        self._stops: list[int] | None = None
        self._prefix: tuple[list[int], Cache] | None = None
        self._vocab: Vocabulary | None = None

    def _stop_ids(self) -> list[int]:
        """End-of-turn and line-break token ids (computed once per model)."""
        if self._stops is None:
            tok = self.tokenizer
            ids = {tok.eos_token_id, tok.convert_tokens_to_ids("<|im_end|>")}
            ids |= {i for t, i in tok.get_vocab().items() if t in ("Ċ", "\n", "ĊĊ", "<0x0A>")}
            self._stops = sorted(i for i in ids if isinstance(i, int) and i >= 0 and i != tok.unk_token_id)
        return list(self._stops)

    def _encode(self, messages: list[dict[str, str]]) -> tuple[torch.Tensor, int]:
        """``(input ids, length of the static prefix — system prompt and example — or 0)``."""
        tok = self.tokenizer
        if not getattr(tok, "chat_template", None):  # a plain causal LM: a simple transcript
            text = "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"
            return tok(text, return_tensors="pt")["input_ids"], 0
        full = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prefix = tok.apply_chat_template(messages[:-1], tokenize=False)
        if not isinstance(full, str) or not isinstance(prefix, str):
            raise TypeError("the chat template gave tokens, not text (tokenize=False)")
        ids = tok(full, return_tensors="pt", add_special_tokens=False)["input_ids"]
        if not full.startswith(prefix):
            return ids, 0
        n = len(tok(prefix, add_special_tokens=False)["input_ids"])
        if self._prefix is None or self._prefix[0] != ids[0, :n].tolist():
            return ids, -n  # cache not built yet for this prefix
        return ids, n

    def _prefix_cache(self, ids: torch.Tensor, n: int) -> Cache:
        """A copy of the KV cache of the static prompt prefix (computed once per prefix)."""
        import copy

        import torch

        if n < 0:
            n = -n
            with torch.inference_mode():
                out = self.model(ids[:, :n], use_cache=True)
            cache = getattr(out, "cache", None)
            self._prefix = (ids[0, :n].tolist(), cache if cache is not None else out.past_key_values)
        else:
            self.cached_tokens += n
        assert self._prefix is not None
        return copy.deepcopy(self._prefix[1])

    @contextlib.contextmanager
    def _torch_threads(self) -> Iterator[None]:
        import torch

        previous = torch.get_num_threads()
        self.threads = choose_threads(self.wanted_threads)
        torch.set_num_threads(self.threads)
        try:
            with warnings_to_log():
                yield
        finally:
            torch.set_num_threads(previous)

    def plain(self, user: str, draft: str) -> tuple[str, int, int]:
        """``(raw text, prompt tokens, new tokens)``: greedy, ≤ max_new_tokens, stopping at a line break."""
        import torch

        from parley.engine.loading import generating

        tok, model = self.tokenizer, generating(self.model, "the model")
        eos = self._stop_ids()
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, *EXAMPLE,
                    {"role": "user", "content": f"Customer: {user.strip()}\nDraft: {draft}"}]
        with self._torch_threads():
            ids, n = self._encode(messages)
            kwargs: dict[str, object] = {"stopping_criteria": _stop_on_refusal(tok, ids.shape[1])}
            if n and self.prefix_cache:
                kwargs[_cache_kwarg()] = self._prefix_cache(ids, n)
            with torch.inference_mode():
                out = model.generate(ids, attention_mask=torch.ones_like(ids),
                                          max_new_tokens=self.max_new_tokens, do_sample=False, num_beams=1,
                                          eos_token_id=eos or None, **kwargs,
                                          pad_token_id=tok.pad_token_id if tok.pad_token_id is not None
                                          else eos[0])
        seqs = out if isinstance(out, torch.Tensor) else out.sequences
        new = seqs[0, ids.shape[1]:]
        return text_of(tok, new), int(ids.shape[1]), int(new.shape[0])

    def reword(self, sentence: str) -> tuple[str, int, int]:
        """``(raw text, prompt tokens, new tokens)`` by constrained decoding (see :mod:`llm_decode`)."""
        from parley.engine.systems.llm_decode import Vocabulary, decode_delex

        if self._vocab is None:
            self._vocab = Vocabulary(self.tokenizer, self._stop_ids())
        messages = [{"role": "system", "content": DELEX_PROMPT}, *DELEX_EXAMPLE,
                    {"role": "user", "content": f"Draft: {sentence}"}]
        with self._torch_threads():
            ids, n = self._encode(messages)
            past = self._prefix_cache(ids, n) if n and self.prefix_cache else None
            start = abs(n) if past is not None else 0
            text, new = decode_delex(self.model, self.tokenizer, self._vocab, ids, past, start,
                                     placeholders(sentence), self.max_new_tokens, question="?" in sentence,
                                     one_sentence=True, copy=sentence, copy_bias=self.copy_bias)
            end = re.search(r"\]\s*([.!?]?)\s*$", sentence)
            if end and re.search(r"\]\s*$", text):  # stopped at the last placeholder, as the draft does
                text += end.group(1)
        return text, int(ids.shape[1]), new
