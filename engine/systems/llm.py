"""``llm``: the MultiWOZ rule pipeline, verbalised by a small chat LLM (offline out of the box).

``llm[:model=smollm2|PATH|HUB_ID][,max_new_tokens=40][,seed=N][,check=true][,allow_pickle=true][,db_dir=DIR]
[,threads=0][,prefix_cache=true][,strict=false]`` (checkpoint code runs only with ``--trust-remote-code``)

The ``multiwoz`` pipeline (rule NLU, state tracking, DB query, policy) decides *what* to say — dialogue acts
and the offered venue — and its template NLG writes a draft. The LLM (default: the bundled
SmolLM2-135M-Instruct, see
:mod:`engine.smollm`) rewrites the draft for the user's last message in a short prompt with one example,
greedy, at most ``max_new_tokens`` (≤ 40 by default) new tokens, stopping at the first line break, or as soon
as the reply is a refusal (it would fall back anyway). The KV cache of the static part of the prompt
(instructions and example) is computed once and reused. ``threads=0`` picks torch threads per turn: 1 when the
CPUs are busy with other work (two contending OpenMP threads ran 7x slower here), else 2.

The reply is checked before it is shown. The template draft is shown instead when the reply drops a required
value of the acts (venue names, phone numbers, booking references, train ids, postcodes, times; with
``strict=true`` every value of the acts), invents a number, refuses or hedges, asks a question the policy did
not decide, drops the draft's question, is far longer than the draft, or is empty. ``internals["fallback"]``
is then true and ``internals["reason"]`` says why. ``check=false`` shows the LLM's words unchecked (for
studying the model itself).
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Annotated, Any

from pydantic import Field

from parley.engine.loading import say
from parley.engine.params import checked
from parley.engine.systems.llm_check import (  # noqa: F401 - re-exported for callers and tests
    REFUSALS,
    check_reply,
    missing_values,
    required_values,
    tidy,
)
from parley.engine.systems.llm_delex import delexicalise, fill, placeholders, rewrite
from parley.engine.types import LoadError, Message, SystemTurn, TurnError
from parley.params import Text
from parley.progress import Progress

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
MAX_TOKENS_LIMIT = 256
_PH = re.compile(r"\[[a-z]+\d?\]")


def _stop_on_refusal(tokenizer: Any, prompt_len: int) -> Any:
    """Stop generating as soon as the reply is a refusal: it will fall back anyway, so save the time."""
    from transformers import StoppingCriteria, StoppingCriteriaList

    class _Refusal(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            import torch

            text = tokenizer.decode(input_ids[0, prompt_len:], skip_special_tokens=True)
            return torch.full((input_ids.shape[0],), bool(REFUSALS.search(text)), dtype=torch.bool,
                              device=input_ids.device)

    return StoppingCriteriaList([_Refusal()])


def _cache_kwarg() -> str:
    """``generate``'s name for a pre-filled KV cache (``cache`` from transformers 5, ``past_key_values``
    before)."""
    import transformers

    major = int(transformers.__version__.split(".")[0])
    return "cache" if major >= 5 else "past_key_values"


class LLMSystem:
    """``multiwoz`` decides, a small chat LLM words it, a check falls back to the template."""

    name = "llm"

    @checked
    def __init__(self, model: Text | None = "smollm2",
                 max_new_tokens: Annotated[int, Field(ge=1, le=MAX_TOKENS_LIMIT)] = 40,
                 seed: int | None = None,
                 check: bool = True, trust_remote_code: bool = False, allow_pickle: bool = False,
                 db_dir: Text | None = None, threads: Annotated[int, Field(ge=0, le=64)] = 0,
                 prefix_cache: bool = True, strict: bool = False, delex: bool = True,
                 copy_bias: Annotated[float, Field(ge=0, le=20)] = 3.0) -> None:
        self.model_ref = str(model if model is not None else "smollm2").strip() or "smollm2"
        self.max_new_tokens = max_new_tokens
        self.seed = seed
        self.check = check
        self.trust_remote_code = trust_remote_code
        self.allow_pickle = allow_pickle
        self.db_dir = db_dir
        self.threads = threads
        self.prefix_cache = prefix_cache
        self.strict = strict
        self.delex = delex
        self.copy_bias = float(copy_bias)
        self.model: Any = None
        self.tokenizer: Any = None
        self._pipeline: Any = None
        self._lock = threading.Lock()
        self._stops: list[int] | None = None
        self._prefix: tuple[list[int], Any] | None = None
        self._last_threads = 0
        self._vocab: Any = None
        self._clock: Any = "today"

    @property
    def clock(self) -> Any:
        """The clock given to the inner ``multiwoz`` pipeline ("tomorrow" counts from it); None in replays."""
        return self._clock

    @clock.setter
    def clock(self, value: Any) -> None:
        self._clock = value
        if self._pipeline is not None:
            self._pipeline.clock = value

    @property
    def loaded(self) -> bool:
        return self.model is not None

    def load(self, progress: Progress = None) -> None:
        """Load the rule pipeline and the LLM (the bundled model is converted once, then cached)."""
        with self._lock:
            if self.model is not None:
                return
            from parley.engine.smollm import load_causal_lm
            from parley.engine.systems.multiwoz import MultiwozSystem

            say(progress, "loading the MultiWOZ pipeline")
            pipeline = MultiwozSystem(seed=self.seed, db_dir=self.db_dir, clock=self._clock)
            pipeline.load()
            self.model, self.tokenizer = load_causal_lm(self.model_ref, progress=progress,
                                                        trust_remote_code=self.trust_remote_code,
                                                        allow_pickle=self.allow_pickle)
            self._pipeline = pipeline

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed
        if self._pipeline is not None:
            self._pipeline.reset(seed)

    def prompt(self, user: str, draft: str) -> list[dict[str, str]]:
        """The chat messages sent to the LLM (with ``delex``: one delexicalised sentence, no customer
        turn)."""
        if self.delex:
            return [{"role": "system", "content": DELEX_PROMPT}, *DELEX_EXAMPLE,
                    {"role": "user", "content": f"Draft: {draft}"}]
        return [{"role": "system", "content": SYSTEM_PROMPT}, *EXAMPLE,
                {"role": "user", "content": f"Customer: {user.strip()}\nDraft: {draft}"}]

    def _stop_ids(self) -> list[int]:
        """End-of-turn and line-break token ids (computed once per model)."""
        if self._stops is None:
            tok = self.tokenizer
            ids = {tok.eos_token_id, tok.convert_tokens_to_ids("<|im_end|>")}
            ids |= {i for t, i in tok.get_vocab().items() if t in ("Ċ", "\n", "ĊĊ", "<0x0A>")}
            self._stops = sorted(i for i in ids if isinstance(i, int) and i >= 0 and i != tok.unk_token_id)
        return list(self._stops)

    def _threads(self) -> int:
        """Torch threads for this turn: ``threads=`` if given, else 1 when the CPUs are busy (OpenMP threads
        fighting other processes for 2 cores run several times slower), else up to 2."""
        if self.threads:
            return self.threads
        cpus = os.cpu_count() or 1
        try:
            busy = os.getloadavg()[0] > cpus - 0.5
        except OSError:
            busy = False
        return 1 if busy or cpus < 2 else min(2, cpus)

    def _encode(self, messages: list[dict[str, str]]) -> tuple[Any, int]:
        """``(input ids, length of the static prefix — system prompt and example — or 0)``."""
        tok = self.tokenizer
        if not getattr(tok, "chat_template", None):  # a plain causal LM: a simple transcript
            text = "\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\nassistant:"
            return tok(text, return_tensors="pt")["input_ids"], 0
        full = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prefix = tok.apply_chat_template(messages[:-1], tokenize=False)
        ids = tok(full, return_tensors="pt", add_special_tokens=False)["input_ids"]
        if not full.startswith(prefix):
            return ids, 0
        n = len(tok(prefix, add_special_tokens=False)["input_ids"])
        if self._prefix is None or self._prefix[0] != ids[0, :n].tolist():
            return ids, -n  # cache not built yet for this prefix
        return ids, n

    def _prefix_cache(self, ids: Any, n: int) -> Any:
        """A copy of the KV cache of the static prompt prefix (computed once per prefix)."""
        import copy

        import torch

        if n < 0:
            n = -n
            with torch.inference_mode():
                out = self.model(ids[:, :n], use_cache=True)
            cache = getattr(out, "cache", None)
            self._prefix = (ids[0, :n].tolist(), cache if cache is not None else out.past_key_values)
        assert self._prefix is not None
        return copy.deepcopy(self._prefix[1])

    def _generate(self, messages: list[dict[str, str]]) -> tuple[str, int, int]:
        """``(raw text, prompt tokens, new tokens)``: greedy, ≤ max_new_tokens, stopping at a line break."""
        import torch

        tok = self.tokenizer
        eos = self._stop_ids()
        previous = torch.get_num_threads()
        threads = self._threads()
        torch.set_num_threads(threads)
        try:
            ids, n = self._encode(messages)
            kwargs: dict[str, Any] = {"stopping_criteria": _stop_on_refusal(tok, ids.shape[1])}
            if n and self.prefix_cache:
                kwargs[_cache_kwarg()] = self._prefix_cache(ids, n)
            with torch.inference_mode():
                out = self.model.generate(ids, attention_mask=torch.ones_like(ids),
                                          max_new_tokens=self.max_new_tokens, do_sample=False, num_beams=1,
                                          eos_token_id=eos or None, **kwargs,
                                          pad_token_id=tok.pad_token_id if tok.pad_token_id is not None
                                          else eos[0])
        finally:
            torch.set_num_threads(previous)
        self._last_threads = threads
        new = out[0, ids.shape[1]:]
        return tok.decode(new, skip_special_tokens=True), int(ids.shape[1]), int(new.shape[0])

    def _generate_delex(self, messages: list[dict[str, str]], slots: list[str],
                        question: bool | None = None) -> tuple[str, int, int]:
        """``(raw text, prompt tokens, new tokens)`` by constrained decoding (see :mod:`llm_decode`)."""
        import torch

        from parley.engine.systems.llm_decode import Vocabulary, decode_delex

        if self._vocab is None:
            self._vocab = Vocabulary(self.tokenizer, self._stop_ids())
        previous = torch.get_num_threads()
        threads = self._threads()
        torch.set_num_threads(threads)
        try:
            ids, n = self._encode(messages)
            past = self._prefix_cache(ids, n) if n and self.prefix_cache else None
            start = abs(n) if past is not None else 0
            draft = messages[-1]["content"].rsplit("Draft: ", 1)[-1]
            text, new = decode_delex(self.model, self.tokenizer, self._vocab, ids, past, start, slots,
                                     self.max_new_tokens,
                                     question="?" in draft if question is None else question,
                                     one_sentence=True, copy=draft, copy_bias=self.copy_bias)
            end = re.search(r"\]\s*([.!?]?)\s*$", draft)
            if end and re.search(r"\]\s*$", text):  # stopped at the last placeholder, as the draft does
                text += end.group(1)
        finally:
            torch.set_num_threads(previous)
        self._last_threads = threads
        return text, int(ids.shape[1]), new

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if not history or history[-1].role != "user":
            raise TurnError("the dialogue history must end with a user message")
        if not self.loaded:
            self.load()
        t0 = time.perf_counter()
        pipeline = self._pipeline
        try:
            decision = pipeline.decide(tuple(history))
            draft = pipeline.realise(decision)
        except LoadError:
            raise
        except Exception as e:
            raise TurnError(f"llm: the MultiWOZ pipeline failed: {type(e).__name__}: {e}") from e
        # what the template says of the acts' values: a value the draft itself leaves out (the taxi's time
        # after
        # "Booked! A [car] will pick you up") cannot be demanded of the rewrite, whose fallback is that draft
        required = [p for p in required_values(decision.acts, self.strict) if not missing_values(draft, [p])]
        internals: dict[str, Any] = {
            "model": self.model_ref, "template": draft, "required": [v for _, v in required],
            "db_count": dict(decision.db_count), "offered": dict(decision.offered),
            "active_domain": decision.active_domain,
        }
        t1 = time.perf_counter()
        reason: str | None
        shown, mapping = draft, dict[str, str]()
        if self.delex:  # the model sees "[name] is a [stars] star [type]"; the values come back afterwards
            shown, mapping = delexicalise(draft, decision.acts, decision.venue)
            internals["delex_draft"] = shown
        try:
            if self.delex:  # sentence by sentence; a sentence the model spoils keeps the draft's words
                raws: list[str] = []
                counts = [0, 0]

                def one(sentence: str) -> str:
                    raw, n_prompt, n_new = self._generate_delex(self.prompt("", sentence),
                                                                placeholders(sentence))
                    raws.append(raw)
                    counts[0] += n_prompt
                    counts[1] += n_new
                    return raw

                reply, done, total, why = rewrite(shown, one)
                internals.update(llm_raw=" | ".join(raws), prompt_tokens=counts[0], new_tokens=counts[1],
                                 threads=self._last_threads, rewritten=f"{done}/{total}",
                                 reworded=reply != shown)
                reason = None if done or not total else ("; ".join(dict.fromkeys(why)) or "nothing to reword")
                reply = fill(reply, mapping)
                if reason is None and self.check:
                    reason = check_reply(reply, draft, required, history[-1].text)
            else:
                raw, n_prompt, n_new = self._generate(self.prompt(history[-1].text, shown))
                reply = tidy(raw)
                internals.update(llm_raw=raw, prompt_tokens=n_prompt, new_tokens=n_new,
                                 threads=self._last_threads)
                reason = check_reply(reply, draft, required, history[-1].text) if self.check else (
                    None if reply else "empty output")
        except Exception as e:  # the template is always there to fall back on
            reply, reason = "", f"generation failed: {type(e).__name__}: {e}"
        internals["generation_ms"] = round((time.perf_counter() - t1) * 1000, 1)
        internals["fallback"] = reason is not None
        internals["reason"] = reason
        text = draft if reason is not None else reply
        return SystemTurn(text=text, state={d: dict(s) for d, s in decision.state.items()},
                          acts=tuple(dict(a) for a in decision.acts), internals=internals,
                          latency_ms=(time.perf_counter() - t0) * 1000)
