"""The ``openai`` backend of the impoliteness rewriter: the tester's own LLM behind any OpenAI-compatible
endpoint.

``impolite:backend=openai,url=URL,model=NAME[,key_env=VAR][,timeout=30][,retries=1][,max_tokens=64]`` asks the
endpoint — through :class:`engine.openai_client.ChatClient`, the client of the ``remote`` system, so with the
same bounds (a deadline per attempt, a size cap, retries after connection errors, 429 and 5xx) — to say the
user's sentence as the scenario's character would. The prompt gives the role-play instruction of the
impolite-users corpus (Hu et al., Table I: a sarcastic customer in a bad mood, an impatient one, …; the
wording here is parley's), the tone of the intensity, the slot values to keep and, when there is one, the
assistant's last turn. Requests are deterministic: ``temperature`` 0 and the step's ``seed``.

The reply is checked like the bundled LLM's (``impolite_check``): not empty, every slot value and requested
attribute kept, no courtesy marker, impolite by ``engine.rewrite.politeness``, no more sentences than the
original (one for a one-sentence request), no offensive word unless ``profanity=true,intensity=3``. When the
check fails, or the server errs or times out, the rules rewrite the turn instead; ``Rewrite.info`` tells
which: ``engine`` ("openai" or "rules"), ``fallback`` (why), ``fallback_kind`` ("check" or the ``HttpFailure``
kind) and ``openai`` (url, model, status, attempts, elapsed_ms, the request's seed, the refused reply).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from parley.engine.http import Limits, short
from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.impolite_check import check_llm_rewrite, sentence_count
from parley.engine.spec import SpecError
from parley.engine.types import RewriteInfo, Span, TurnError
from parley.jsontypes import JSONObject

if TYPE_CHECKING:
    from parley.engine.openai_client import ChatClient
    from parley.engine.rewrite.impolite import ImpoliteParams

#: the backend's parameters (fields of ``impolite.ImpoliteParams``, validated with the rewriter's own)
KEYS = ("backend", "url", "key_env", "timeout", "retries", "max_tokens")

#: the role-play instruction of each scenario (after the corpus's Table I, in parley's words)
ROLE_PLAY: dict[int, str] = {
    1: "Imagine you are a sarcastic customer in a foul mood: every request comes out dripping with sarcasm.",
    2: "Imagine you are an impatient customer who wants the information right now and hates waiting.",
    3: "Imagine you are a customer in a terrible mood because something bad just happened to you (a row "
       "with your partner, say), and you take it out on whoever you talk to.",
    4: "Imagine you have just got off a long-haul flight, exhausted and starving, and you need this "
       "information fast.",
    5: "Imagine you are a spoilt brat with far too much money, used to getting whatever you want, who treats "
       "the assistant as a servant.",
    6: "Imagine you are asking for the third time because the assistant got it wrong twice already, and you "
       "have had enough.",
}
TONE = {1: "curt and blunt", 2: "rude", 3: "very rude"}
#: one worked example before the user's sentence (small models follow the format far better with one)
EXAMPLE = (
    {"role": "user", "content": "Message: Hi, could you please tell me the postcode of the museum? "
                                "Thanks a lot.\nKeep these words exactly: museum"},
    {"role": "assistant", "content": "Just tell me the postcode of the museum, I haven't got all day."},
)
_LABEL = re.compile(r"^(?:the\s+)?(?:rewritten|rude|impolite)?\s*"
                    r"(?:message|sentence|version|rewrite|customer|answer|reply)\s*:\s*", re.I)
_QUOTES = "\"'“”‘’`"


def backend_params(name: str, p: ImpoliteParams) -> ImpoliteParams:
    """The params, checked: with ``backend=rules`` the backend's keys must not be given; with
    ``backend=openai`` the endpoint's are checked (SpecError naming the problem)."""
    if p.backend != "openai":
        fields = type(p).model_fields
        given = [k for k in KEYS if getattr(p, k) != fields[k].default]
        if given:
            raise SpecError(f"{name}: {', '.join(given)} applies to backend=openai only")
        return p
    if not p.url or not p.url.startswith(("http://", "https://")):
        raise SpecError(f"{name}: backend=openai needs url=http://… or https://… (the endpoint's base URL)")
    if not p.model:
        raise SpecError(f"{name}: backend=openai needs model=NAME (the served model's name)")
    if p.llm:
        raise SpecError(f"{name}: llm=true and backend=openai exclude each other")
    if p.key_env is not None and not os.environ.get(p.key_env):
        raise SpecError(f"environment variable {p.key_env} (key_env) is not set")
    limits(name, p)
    return p


def limits(name: str, p: ImpoliteParams) -> Limits:
    try:
        return Limits(timeout=p.timeout, retries=p.retries).check()
    except ValueError as e:
        raise SpecError(f"{name}: {e}") from None


def messages(text: str, spans: Sequence[Span], ctx: RewriteContext,
             p: ImpoliteParams) -> list[dict[str, str]]:
    """The chat request: the role-play instruction as the system message, the user's sentence after it."""
    n = max(1, sentence_count(text, [s.value for s in spans], courtesy=False))
    swear = "" if p.profanity and p.intensity == 3 else " and no swear words"
    system = (
        "You rewrite what a customer says to a travel booking assistant (hotels, restaurants, trains, taxis, "
        f"attractions). {ROLE_PLAY[p.scenario]} Say the same request the way that customer would: "
        f"{TONE[p.intensity]}, with no please, thanks, sorry, greeting or any other politeness{swear}. "
        "Keep every name, place, day, time and number and every detail asked for (phone number, "
        "postcode, price, reference…) exactly as written, and add no new request. Reply with the rewritten "
        "message only: "
        f"{'one sentence' if n == 1 else f'at most {n} sentences'}, no quotes, no explanation."
    )
    user = ""
    said = [m.text for m in ctx.history if m.role != "user"]
    if said:
        user += f"The assistant just said: {short(said[-1], 300)}\n"
    user += f"Message: {text}"
    keep = [s.value for s in spans]
    if keep:
        user += f"\nKeep these words exactly: {'; '.join(keep)}"
    return [{"role": "system", "content": system}, *EXAMPLE, {"role": "user", "content": user}]


def clean(reply: str) -> str:
    """The rewrite in a reply: a leading label ("Rewritten message:") and enclosing quotes go; a reply of
    several lines is refused."""
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    if len(lines) > 1:
        raise ValueError(f"the LLM reply has {len(lines)} lines")
    out = _LABEL.sub("", lines[0]) if lines else ""
    if out[:1] in _QUOTES and out[:1]:
        out = out[1:]
        m = re.search(r"[\"'“”‘’`]([.!?]?)$", out)
        if m:
            out = out[:m.start()] + m.group(1)
    return out.strip()


def recase(out: str, spans: Sequence[Span]) -> str:
    """Slot values spelt as the user spelt them: a model that writes "North" for "north" keeps the value (the
    check then compares exactly)."""
    for value in {s.value for s in spans}:
        if not value or value in out:
            continue
        m = re.search(re.escape(value), out, flags=re.IGNORECASE)
        if m:
            out = out[: m.start()] + value + out[m.end():]
    return out


class OpenAIBackend:
    """One endpoint and model; the client is made at the first rewrite (thread-safe)."""

    def __init__(self, name: str, p: ImpoliteParams) -> None:
        self.p = p
        self.url = str(p.url)
        self.model = str(p.model)
        self.limits = limits(name, p)
        self._client: ChatClient | None = None
        self._lock = threading.Lock()

    def client(self) -> ChatClient:
        from parley.engine.openai_client import ChatClient

        with self._lock:
            if self._client is None:
                self._client = ChatClient(self.url, self.model, key_env=self.p.key_env, limits=self.limits,
                                          temperature=0.0, max_tokens=self.p.max_tokens)
            return self._client

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def rewrite(self, text: str, spans: Sequence[Span],
                ctx: RewriteContext) -> tuple[str | None, RewriteInfo]:
        """The checked rewrite and what to record, or ``None`` and why the rules must take over."""
        from parley.engine.openai_client import chat_url

        meta: JSONObject = {"url": chat_url(self.url), "model": self.model, "seed": ctx.seed,
                            "temperature": 0.0}
        info = RewriteInfo(backend="openai", openai=meta)
        try:
            reply = self.client().complete(messages(text, spans, ctx, self.p), seed=ctx.seed)
        except TurnError as e:
            kind = getattr(e, "kind", "error")
            meta["status"] = getattr(e, "status", None)
            info["fallback"] = f"the server failed ({kind}): {short(str(e), 200)}"
            info["fallback_kind"] = str(kind)
            return None, info
        meta.update(url=reply.url, status=reply.status, attempts=reply.attempts,
                    elapsed_ms=round(reply.elapsed_ms, 1), finish_reason=reply.finish_reason)
        if reply.model:
            meta["served_model"] = reply.model
        try:
            out = recase(clean(reply.text), spans)
            check_llm_rewrite(text, out, spans, sentences=True)
            rude = set(re.findall(r"[a-z']+", out.lower())) & L.OFFENSIVE_WORDS
            if rude and not (self.p.profanity and self.p.intensity == 3):
                raise ValueError("the LLM rewrite is offensive and profanity is off")
        except ValueError as e:
            meta["reply"] = short(reply.text, 300)
            info["fallback"] = str(e)
            info["fallback_kind"] = "check"
            return None, info
        return out, info
