"""``llm``: the MultiWOZ rule pipeline, reworded by a small chat LLM (offline out of the box).

``llm[:model=qwen2.5-coder-0.5b|smollm2|FILE.gguf|FOLDER|HUB_ID][,max_new_tokens=40][,seed=N][,clock=…]
[,check=true][,threads=0][,sentences=0][,prefix_cache=true][,strict=false][,delex=true]`` — and every other
``multiwoz`` parameter (``db_dir``, ``read_system``), handed to the pipeline.

The ``multiwoz`` pipeline (rule NLU, state tracking, DB query, policy) decides *what* to say — dialogue acts
and the offered venue — and its template NLG writes a draft. The draft's values become placeholders
(``[name] is a [pricerange] [food] restaurant in the [area].``), the model rewords it sentence by sentence,
and the values are filled in afterwards, so names, numbers and references can be neither dropped nor invented.

GGUF models (the bundled ones, a ``.gguf`` file) run on llama.cpp (:mod:`engine.systems.llm_cpp`: no
conversion, prompt prefix cached across turns, a grammar keeping the placeholders); model folders and hub ids
on transformers (:mod:`engine.systems.llm_torch`).

Every reworded sentence is checked before it is shown, by rules and not by the model: the placeholder check
(:func:`engine.systems.llm_delex.check_sentence`), then :func:`engine.systems.llm_reword.reword_reason` — the
same dialogue act (a confirmation stays a confirmation, an offer an offer, a question asks for the same
slots), no fact the draft does not state, articles and number agreement. A sentence that fails keeps the
draft's words; ``sentences=N`` rewords only the first N sentences of a reply (faster; 0: all). The whole reply
is checked again (values, questions). ``internals``: ``reworded`` (the text shown differs from the template),
``fallback`` (the template's words were kept for at least one sentence the model spoiled, ``reason`` says
why), ``rewritten`` (sentences reworded / sentences to reword), ``delex_draft``, ``delex_reply`` and
``values`` (the placeholders' values). ``check=false`` shows the model's words unchecked (for studying the
model itself).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import date
from typing import ClassVar, Protocol

from parley.engine.loading import say
from parley.engine.params import Field, Params, SystemParams
from parley.engine.systems.llm_act import act_reason
from parley.engine.systems.llm_check import (  # noqa: F401 - re-exported for callers and tests
    REFUSALS,
    check_reply,
    missing_values,
    required_values,
    tidy,
)
from parley.engine.systems.llm_delex import check_sentence, delexicalise, fill, rewrite, sentences
from parley.engine.systems.llm_reword import reword_reason, sentence_problems
from parley.engine.types import LoadError, Message, SystemInternals, SystemTurn, TurnError
from parley.params import Text
from parley.progress import Progress

#: the model ``llm`` uses unless told otherwise (chosen by measurement: bench/results/llm.md)
DEFAULT_MODEL = "qwen2.5-coder-0.5b"
MAX_TOKENS_LIMIT = 256


class LLMParams(SystemParams):
    model: Text | None = Field(DEFAULT_MODEL,
                               description="chat model: bundled name, GGUF file, folder or Hugging Face id")
    max_new_tokens: int = Field(40, ge=1, le=MAX_TOKENS_LIMIT, description="longest rewording, in tokens")
    seed: int | Text | None = Field(None, description="the pipeline's and the model's seed (text is hashed)")
    check: bool = Field(True, description="check each rewording by rules (false: show the model's words)")
    trust_remote_code: bool = Field(False, description="run the checkpoint's own code (command line only)")
    allow_pickle: bool = Field(False, description="load pickled weights (.bin) as well as safetensors")
    db_dir: Text | None = Field(None, description="folder of MultiWOZ database files (default: bundled)")
    threads: int = Field(0, ge=0, le=64, description="threads (0: 2 on an idle machine, 1 on a busy one)")
    prefix_cache: bool = Field(True, description="reuse the prompt's common prefix between turns")
    strict: bool = Field(False, description="keep every value of the draft, not only names, numbers, times")
    delex: bool = Field(True, description="the model rewords placeholders, not values")
    copy_bias: float = Field(3.0, ge=0, le=20, description="added to the logits of the draft's tokens")
    sentences: int = Field(0, ge=0, le=20, description="most sentences kept (0: as many as the template)")
    read_system: bool = Field(False, description="also read system turns it did not write (corpus scoring)")
    clock: bool | Text | Callable[[], date | None] | None = Field(
        "today", description='the date "today" and "tomorrow" count from: today, off or YYYY-MM-DD')


class LLMSystem:
    """``multiwoz`` decides, a small chat LLM rewords it, a rule check keeps the template where it must."""

    name = "llm"

    PARAMS: ClassVar[type[Params]] = LLMParams

    def __init__(self, **given: object) -> None:
        p = LLMParams.from_spec(self.name, given)
        model, max_new_tokens, seed, check = p.model, p.max_new_tokens, p.seed, p.check
        trust_remote_code, allow_pickle = p.trust_remote_code, p.allow_pickle
        db_dir, threads = p.db_dir, p.threads
        prefix_cache, strict, delex, copy_bias = p.prefix_cache, p.strict, p.delex, p.copy_bias
        sentences, read_system, clock = p.sentences, p.read_system, p.clock
        self.model_ref = str(model if model is not None else DEFAULT_MODEL).strip() or DEFAULT_MODEL
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
        self.sentences = sentences
        self.read_system = read_system
        self.backend: Backend | None = None
        self._lock = threading.Lock()
        from parley.engine.systems.multiwoz import MultiwozSystem

        # built now (cheap; the databases load in load()): multiwoz checks its own parameters
        self._pipeline = MultiwozSystem(seed=seed, db_dir=db_dir, read_system=read_system, clock=clock)

    @property
    def clock(self) -> bool | str | Callable[[], date | None] | None:
        """The inner ``multiwoz`` pipeline's clock ("tomorrow" counts from it); None in replays."""
        return self._pipeline.clock

    @clock.setter
    def clock(self, value: bool | str | Callable[[], date | None] | None) -> None:
        self._pipeline.clock = value

    @property
    def loaded(self) -> bool:
        return self.backend is not None

    def load(self, progress: Progress = None) -> None:
        """Load the rule pipeline and the model (a bundled Qwen is joined from its packages once)."""
        with self._lock:
            if self.backend is not None:
                return
            from parley.engine.gguf import resolve_gguf

            say(progress, "loading the MultiWOZ pipeline")
            self._pipeline.load()
            gguf = resolve_gguf(self.model_ref, progress)
            if gguf is not None:
                from parley.engine.systems.llm_cpp import CppBackend

                backend: Backend = CppBackend(gguf, threads=self.threads, max_new_tokens=self.max_new_tokens,
                                          prefix_cache=self.prefix_cache, progress=progress)
            else:
                from parley.engine.systems.llm_torch import TorchBackend

                backend = TorchBackend(self.model_ref, threads=self.threads,
                                       max_new_tokens=self.max_new_tokens, prefix_cache=self.prefix_cache,
                                       copy_bias=self.copy_bias, trust_remote_code=self.trust_remote_code,
                                       allow_pickle=self.allow_pickle, progress=progress)
            say(progress, "model ready")
            self.backend = backend

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.seed = seed
        if self._pipeline is not None:
            self._pipeline.reset(seed)

    def _reword(self, shown: str, mapping: dict[str, str],
                internals: SystemInternals) -> tuple[str, list[str]]:
        """The delexicalised draft reworded sentence by sentence (spoiled sentences keep the draft's words);
        ``(reply, reasons the model's words were refused)``."""
        backend = self.backend
        assert backend is not None  # respond() loads first
        counts = [0, 0, 0]
        raws: list[str] = []
        cached = backend.cached_tokens

        def one(sentence: str) -> str:
            raw, n_prompt, n_new = backend.reword(sentence)
            raws.append(raw)
            counts[0] += n_prompt
            counts[1] += n_new
            return raw

        first = (sentences(shown) or [""])[0]

        def judge(out: str, sentence: str) -> str | None:
            if not self.check:
                return None if out.strip() else "empty output"
            why = (check_sentence(out, sentence, lexical=getattr(backend, "lexical", False))
                   or reword_reason(out, sentence, mapping))
            if why is None and sentence != first:  # "Sure, ..." may open a reply, not follow a sentence
                why = next(iter(sentence_problems(["", out])), None)
            return why

        reply, done, total, reasons = rewrite(shown, one, judge, limit=self.sentences)
        internals.update({"llm_raw": " | ".join(raws), "prompt_tokens": counts[0], "new_tokens": counts[1],
                          "cached_tokens": backend.cached_tokens - cached, "rewritten": f"{done}/{total}"})
        if done and self.check:
            why = reword_reason(reply, shown, mapping)
            if why:
                return shown, [*reasons, f"the whole reply: {why}"]
        return reply, reasons

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if not history or history[-1].role != "user":
            raise TurnError("the dialogue history must end with a user message")
        if not self.loaded:
            self.load()
        backend = self.backend
        assert backend is not None  # load() sets it or raises
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
        # after "Booked! A [car] will pick you up") cannot be demanded of the rewrite, whose fallback is that
        # draft
        required = [p for p in required_values(decision.acts, self.strict) if not missing_values(draft, [p])]
        internals: SystemInternals = {
            "model": self.model_ref, "backend": backend.name, "template": draft,
            "required": [v for _, v in required], **pipeline.internals_of(decision),
        }
        t1 = time.perf_counter()
        reasons: list[str] = []
        try:
            if self.delex:  # the model sees "[name] is a [stars] star [type]"; the values come back later
                shown, mapping = delexicalise(draft, decision.acts, decision.venue)
                reply_delex, reasons = self._reword(shown, mapping, internals)
                internals.update({"delex_draft": shown, "delex_reply": reply_delex, "values": mapping})
                reply = fill(reply_delex, mapping)
                if self.check and reply != draft:
                    why = check_reply(reply, draft, required, history[-1].text)
                    if why:
                        reasons.append(f"the whole reply: {why}")
                        reply = draft
            else:
                raw, n_prompt, n_new = backend.plain(history[-1].text, draft)
                reply = tidy(raw)
                internals.update({"llm_raw": raw, "prompt_tokens": n_prompt, "new_tokens": n_new})
                if self.check:
                    why = (check_reply(reply, draft, required, history[-1].text) or act_reason(reply, draft)
                           or reword_reason(reply, draft, {}))
                else:
                    why = None if reply else "empty output"
                if why:
                    reply, reasons = draft, [why]
        except Exception as e:  # the template is always there to fall back on
            reply, reasons = draft, [f"generation failed: {type(e).__name__}: {e}"]
        internals.update({"threads": backend.threads,
                          "generation_ms": round((time.perf_counter() - t1) * 1000, 1),
                          "reworded": reply != draft, "fallback": bool(reasons),
                          "reason": "; ".join(dict.fromkeys(reasons)) or None})
        return SystemTurn(text=reply, state={d: dict(s) for d, s in decision.state.items()},
                          acts=tuple(a.copy() for a in decision.acts), internals=internals,
                          latency_ms=(time.perf_counter() - t0) * 1000)


class Backend(Protocol):
    """What ``llm`` asks of a model backend (llama.cpp or transformers)."""

    name: str
    cached_tokens: int

    @property
    def threads(self) -> int: ...

    def reword(self, sentence: str) -> tuple[str, int, int]: ...

    def plain(self, user: str, draft: str) -> tuple[str, int, int]: ...
