"""Impolite users (Hu et al.): rewrite a polite user turn as one of six role-play characters would say it.

Rule-based by default, written by the team after what the paper's corpus analysis reports (Table IV):
gratitude and courtesy go, requests become commands ("find", "get", "give", "book"), impatience comes in. The
rules (``engine.rewrite.impolite_rules``) recognise what each sentence asks for — a question, an indirect
request, a statement of need, thanks or a greeting followed by a request (``impolite_parse``) — and say it
again bluntly or in the scenario's voice (``impolite_voice``, frames in ``impolite_lexicon``): sarcasm (1),
impatience (2), a bad mood (3), fatigue and hunger (4), entitlement (5), the third time asking, counted and
quoted from the dialogue history (6). Every courtesy marker goes as a whole expression
(``engine.rewrite.courtesy``) and no inserted phrase adds one. Intensity 1 says the request bluntly, 2 in the
scenario's voice, 3 with stronger frames and a remark; offensive words only at intensity 3 and only with
``profanity=true``. Slot values (``ctx.spans``) and requested attributes (``engine.spans.find_requests``) are
kept verbatim.

``model=PATH|HUB_ID`` rewrites with a Hugging Face seq2seq checkpoint (e.g. a T5/BART fine-tuned on
polite→impolite pairs); ``llm=true`` prompts the bundled SmolLM2 for a whole rewrite. Both fall back to the
rules, with the reason in ``Rewrite.info["fallback"]``, when the model cannot be loaded or its output loses a
slot value. When the LLM's rewrite is unusable — it loses a slot value or a requested attribute (SmolLM2-135M
often does), keeps a courtesy marker, is not judged impolite by ``engine.rewrite.politeness`` or rambles — the
rules' output gets one in-character remark written by the LLM instead (``info["engine"] == "rules+llm"``),
checked to hold no slot value, digit or (unless allowed) offensive word.

``backend=openai,url=URL,model=NAME`` asks the tester's own LLM behind an OpenAI-compatible endpoint
instead (``impolite_openai``: the role-play prompt, the same checks, the rules when the check fails or the
server errs).
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import BeforeValidator

from parley.engine.http import MAX_RETRIES
from parley.engine.loading import generating
from parley.engine.params import Field, Params
from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.impolite_check import check_llm_rewrite, check_rewrite
from parley.engine.rewrite.impolite_openai import KEYS, OpenAIBackend, backend_params
from parley.engine.rewrite.impolite_rules import Protected, rewrite_rules
from parley.engine.rewrite.util import sort_spans
from parley.engine.types import LoadError, Rewrite, RewriteInfo, Span
from parley.extras import require
from parley.jsontypes import JSONScalar
from parley.params import Text, Whole, as_whole

if TYPE_CHECKING:
    from transformers import GenerationMixin, PreTrainedTokenizerBase

_models: dict[str, tuple[GenerationMixin, PreTrainedTokenizerBase]] = {}
_models_lock = threading.Lock()


class ImpoliteParams(Params):
    scenario: Annotated[Literal[1, 2, 3, 4, 5, 6], BeforeValidator(as_whole)] = Field(
        2, description="role-play scenario (1 sarcastic, 2 impatient, 3 bad mood, 4 tired and hungry, 5 "
                       "spoilt brat, 6 third time asking)")
    intensity: Annotated[Literal[1, 2, 3], BeforeValidator(as_whole)] = Field(
        2, description="1 commands only, 2 plus a scenario move, 3 stronger")
    profanity: bool = Field(False, description="allow offensive words (intensity 3 only)")
    model: Text | None = Field(
        None, description="Hugging Face seq2seq checkpoint (folder or hub id) instead of the rules (with "
                          "backend=openai: the served model's name)")
    llm: bool = Field(False, description="prompt the bundled SmolLM2 instead of the rules")
    # the backend's (impolite_openai.KEYS), listed with the rest so `rewrite --list` and the panel offer them
    backend: Literal["rules", "openai"] = Field(
        "rules", description="rules (optionally model=/llm=) or openai: an OpenAI-compatible endpoint, "
                             "falling back to the rules")
    url: Text | None = Field(None, description="backend=openai: base URL (http://host:port, …/v1 or "
                                               "…/chat/completions)")
    key_env: Text | None = Field(None, description="backend=openai: environment variable holding the API key")
    timeout: float = Field(30.0, ge=0, le=3600, description="backend=openai: seconds per attempt")
    retries: Whole = Field(
        1, ge=0, le=MAX_RETRIES,
        description="backend=openai: retries after a connection error, timeout, 429 or 5xx")
    max_tokens: Whole = Field(64, ge=1, le=4096, description="backend=openai: longest reply, in tokens")


class ImpoliteRewriter:
    """Rule-based impoliteness with six scenarios, optional seq2seq model or LLM."""

    name = "impolite"
    PARAMS: ClassVar[type[Params]] = ImpoliteParams

    def __init__(self, **given: object) -> None:
        self.p = backend_params(self.name, ImpoliteParams.from_spec(self.name, given))
        self._openai = OpenAIBackend(self.name, self.p) if self.p.backend == "openai" else None
        self.pure = self._openai is None  # a served model is asked over the network: never ahead of time

    @property
    def params(self) -> dict[str, JSONScalar]:
        """The effective values (with ``backend=rules`` the backend's keys are left out)."""
        return {k: v for k, v in self.p.to_json().items() if self.p.backend == "openai" or k not in KEYS}

    def close(self) -> None:
        """Release the ``backend=openai`` client's connections (a request in flight ends at once)."""
        if self._openai is not None:
            self._openai.close()

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite:
        p = self.p
        spans = sort_spans(ctx.spans)
        info = RewriteInfo(scenario=p.scenario, scenario_name=L.SCENARIOS[p.scenario])
        retry = False
        if self._openai is not None:
            out, more = self._openai.rewrite(text, spans, ctx)
            info.update(more)
            if out is not None:
                info["engine"] = "openai"
                located = Protected(text, spans).locate(out)
                return Rewrite(self.name, self.params, ctx.seed, text, out, located, (), info)
        elif p.model or p.llm:
            try:
                out = self._model_rewrite(text, spans, ctx)
                info["engine"] = "model" if p.model else "llm"
                prot = Protected(text, spans)
                return Rewrite(self.name, self.params, ctx.seed, text, out, prot.locate(out), (), info)
            except (LoadError, ValueError, ImportError, RuntimeError, OSError) as e:
                info["fallback"] = str(e).splitlines()[0] if str(e) else type(e).__name__
                # the LLM answered but its text was unusable: it may still add a remark to the rules' output
                retry = isinstance(e, ValueError)
        info["engine"] = "rules"
        after, new_spans, moves = rewrite_rules(text, spans, ctx, p.scenario, p.intensity, p.profanity)
        info["moves"] = moves
        if p.llm and "fallback" in info and text.strip() and retry:
            # the small LLM could not keep the slot values: let it add one in-character remark to the
            # rules' output
            try:
                remark = self._llm_remark(ctx)
                after = f"{after} {remark}"
                info["engine"] = "rules+llm"
                info["llm_remark"] = remark
            except (LoadError, ValueError, ImportError, RuntimeError, OSError) as e:
                info["llm_remark_failed"] = str(e).splitlines()[0] if str(e) else type(e).__name__
        return Rewrite(self.name, self.params, ctx.seed, text, after, new_spans, (), info)

    def _llm_remark(self, ctx: RewriteContext) -> str:
        require("models", "the impolite rewriter's LLM mode")
        import torch

        from parley.engine.smollm import load_default_llm
        from parley.engine.spans import find_spans

        model, tok = load_default_llm()
        torch.manual_seed(ctx.seed + 1)
        scen = L.SCENARIOS[self.p.scenario]
        msgs = [{"role": "system", "content": "You play a rude customer talking to a booking assistant."},
                {"role": "user", "content": f"You are {scen}. Say one short, rude sentence to the assistant "
                                            "about how you feel. Do not mention places, times or numbers."}]
        text = _generate(generating(model, "the bundled LLM"), tok, msgs, max_new_tokens=32)
        m = re.match(r"^(.+?[.!?])(?:\s|$)", text)
        remark = (m.group(1) if m else text).strip().strip('"')
        n_words = len(remark.split())
        if not 2 <= n_words <= 25:
            raise ValueError("the LLM remark has the wrong length")
        if find_spans(remark) or re.search(r"\d", remark):
            raise ValueError("the LLM remark mentions a slot value")
        from parley.engine.rewrite.courtesy import markers

        if markers(remark):
            raise ValueError("the LLM remark is courteous")
        low = set(re.findall(r"[a-z']+", remark.lower()))
        if low & L.OFFENSIVE_WORDS and not (self.p.profanity and self.p.intensity == 3):
            raise ValueError("the LLM remark is offensive and profanity is off")
        return remark

    # ---- model-based variants -----------------------------------------------------------------------------

    def _model_rewrite(self, text: str, spans: list[Span], ctx: RewriteContext) -> str:
        require("models", "the impolite rewriter's model and LLM modes")
        import torch

        torch.manual_seed(ctx.seed)
        if self.p.model:
            model, tok = _load_seq2seq(self.p.model)
            enc = tok(text, return_tensors="pt", truncation=True, max_length=256)
            with torch.no_grad():
                ids = model.generate(**enc, max_new_tokens=96, num_beams=1, do_sample=False)
            out = str(tok.decode(ids[0], skip_special_tokens=True)).strip()
        else:
            from parley.engine.smollm import load_default_llm

            llm, llm_tok = load_default_llm()
            out = _llm_generate(generating(llm, "the bundled LLM"), llm_tok, text, spans, self.p.scenario)
            check_llm_rewrite(text, out, spans)
            return out
        check_rewrite(text, out, spans)
        return out


def _load_seq2seq(ref: str) -> tuple[GenerationMixin, PreTrainedTokenizerBase]:
    with _models_lock:
        if ref in _models:
            return _models[ref]
        from transformers import AutoModelForSeq2SeqLM

        from parley.engine.loading import load_pretrained, pretrained_kwargs, resolve

        src = resolve(ref)
        model, tok = load_pretrained(src.ref, pretrained_kwargs(src), AutoModelForSeq2SeqLM,
                                     what=f"seq2seq model {ref!r}")
        _models[ref] = (generating(model, f"seq2seq model {ref!r}"), tok)
        return _models[ref]


def _generate(model: GenerationMixin, tok: PreTrainedTokenizerBase, msgs: list[dict[str, str]],
              max_new_tokens: int) -> str:
    """Sample a chat completion (seeded by the caller through ``torch.manual_seed``)."""
    import torch

    prompt = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    enc = tok(prompt, return_tensors="pt")
    with torch.no_grad():
        ids = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=True, top_p=0.9, temperature=0.8,
                             pad_token_id=tok.eos_token_id)
    return str(tok.decode(ids[0][enc["input_ids"].shape[1]:], skip_special_tokens=True)).strip()


def _llm_generate(model: GenerationMixin, tok: PreTrainedTokenizerBase, text: str, spans: list[Span],
                  scenario: int) -> str:
    keep = "; ".join(s.value for s in spans)
    system = ("You rewrite a customer's message to a booking assistant so that it sounds rude and impolite, "
              f"like a customer who is {L.SCENARIOS[scenario]}. Keep the same request and meaning. "
              "No thanks, no please. Reply with the rewritten message only.")
    user = f"Message: {text}" + (f"\nKeep these words exactly: {keep}" if keep else "")
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    out = _generate(model, tok, msgs, max_new_tokens=60)
    out = re.sub(r"^(?:rewritten message|message)\s*:\s*", "", out, flags=re.I).strip().strip('"')
    return out.splitlines()[0].strip() if out else out
