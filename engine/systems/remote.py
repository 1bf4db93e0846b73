"""``remote``: a dialogue system behind HTTP — the parley JSON protocol or an OpenAI-compatible chat endpoint.

``remote:url=URL[,api=parley|openai][,model=NAME][,key_env=VAR][,timeout=10][,turn_timeout=S][,retries=2]``
``[,max_bytes=1000000][,stream=false][,max_tokens=N][,system_prompt=TEXT]``

**parley protocol** (``api=parley``, the default). For every user turn parley sends one request::

    POST <url>
    Content-Type: application/json
    {"session_id": "3f2c…",            # one id per dialogue (new after reset)
     "turn": 1,                         # 1-based number of the user turn being answered
     "history": [{"role": "user", "text": "I need a cheap hotel"},
                 {"role": "system", "text": "Which area?"},
                 {"role": "user", "text": "north please"}]}

and expects HTTP 200 with a JSON object::

    {"text": "The Acorn Guest House is in the north.",           # required
     "state": {"hotel": {"area": "north", "pricerange": "cheap"}}, # optional belief state (engine.mwdb names)
     "acts": [{"act": "inform", "domain": "hotel", "slot": "name", "value": "acorn guest house"}],  # optional
     "internals": {...}}                                          # optional, stored as is

An act's ``act``, ``domain`` and ``slot``, when given, are strings (``domain`` and ``slot`` may be null); its
``value`` and any other keys are stored as sent.

**OpenAI-compatible** (``api=openai``): ``POST <url>/v1/chat/completions`` (``url`` may already end in
``/chat/completions`` or ``/v1``) with ``{"model", "messages", "temperature": 0}``; the user's messages are
sent as ``user``, the system's as ``assistant``, after an optional ``system_prompt``. The reply is
``choices[0].message.content``. The API key is read from the environment variable named by ``key_env`` (never
from the spec string, so it is not stored with the session) and sent as ``Authorization: Bearer``.

``stream=true`` asks an OpenAI-compatible server for server-sent events (same reply, same limits);
``max_tokens`` bounds the length of its replies.

Every exchange is bounded by :mod:`engine.http`: ``timeout`` seconds per attempt (connect → last byte, so a
trickling bot cannot hold a turn), ``turn_timeout`` per turn over all attempts (default: every attempt plus
the back-offs), ``max_bytes`` per reply (default 1 MB, enforced while reading), redirects only to the same
scheme, host and port (``internals.url`` is the final URL), and :meth:`RemoteSystem.close` cancels a request
in flight (the TUI calls it on quit). Replies holding NaN or ±Infinity are refused.

Failures — no answer in time, connection refused, an HTTP error status, a body over the cap, a body that is
not JSON or lacks the reply — raise :class:`~engine.types.TurnError` with one clear line (an error body is
quoted as data); the session stores a failed turn and goes on. Connection errors, timeouts, HTTP 429 and 5xx
are retried ``retries`` times (0.25 s, 0.5 s, … apart); other errors are not.
"""

from __future__ import annotations

import os
import threading
import uuid
from typing import ClassVar, Literal

from parley.engine.http import (
    DEFAULT_MAX_BYTES,
    MAX_RETRIES,
    BoundedClient,
    HttpFailure,
    Limits,
    Reply,
    short,
    strict_loads,
)
from parley.engine.loading import say
from parley.engine.openai_client import ChatClient, chat_url
from parley.engine.params import Field, Params, SystemParams
from parley.engine.spec import SpecError
from parley.engine.types import (
    BeliefState,
    DialogueAct,
    Message,
    SystemInternals,
    SystemTurn,
    TurnError,
    is_dialogue_act,
)
from parley.jsontypes import JSONObject
from parley.params import Text
from parley.progress import Progress

__all__ = ["APIS", "MAX_RETRIES", "RemoteSystem", "chat_url"]

APIS = ("parley", "openai")


def _limits(timeout: float, turn_timeout: float | None, retries: int, max_bytes: int) -> Limits:
    try:
        return Limits(
            timeout=timeout, turn_timeout=turn_timeout, retries=retries, max_bytes=max_bytes
        ).check()
    except ValueError as e:
        raise SpecError(f"remote: {e}") from None


class RemoteParams(SystemParams):
    url: Text | None = Field(None, description="the bot's URL (http:// or https://)")
    api: Literal["parley", "openai"] = Field("parley",
                                             description="parley's JSON protocol or OpenAI-compatible chat")
    model: Text | None = Field(None, description="api=openai: the served model's name")
    key_env: Text | None = Field(None, description="environment variable holding the API key")
    timeout: float = Field(10.0, gt=0, le=3600, description="seconds per attempt")
    retries: int = Field(2, ge=0, le=MAX_RETRIES,
                         description="retries after a connection error, timeout, 429 or 5xx")
    system_prompt: Text | None = Field(None, description="api=openai: the system message")
    seed: int | None = Field(None, description="recorded with the session (the bot itself is not seeded)")
    turn_timeout: float | None = Field(None, gt=0, le=3600,
                                       description="seconds for a whole turn, retries included")
    max_bytes: int = Field(DEFAULT_MAX_BYTES, ge=1, description="largest reply, in bytes")
    stream: bool = Field(False, description="api=openai: stream the reply")
    max_tokens: int | None = Field(None, ge=1, description="api=openai: longest reply, in tokens")


class RemoteSystem:
    """A bot behind HTTP (see the module docstring for the protocol and the limits)."""

    name = "remote"

    PARAMS: ClassVar[type[Params]] = RemoteParams

    def __init__(self, **given: object) -> None:
        p = RemoteParams.from_spec(self.name, given)
        url, api, model, key_env = p.url, p.api, p.model, p.key_env
        timeout, retries, turn_timeout, max_bytes = p.timeout, p.retries, p.turn_timeout, p.max_bytes
        system_prompt, seed, stream, max_tokens = p.system_prompt, p.seed, p.stream, p.max_tokens
        if not url or not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise SpecError(
                "remote needs url=http://… or https://… (e.g. remote:url=http://127.0.0.1:8000/chat)"
            )
        if api not in APIS:
            raise SpecError(f"remote api must be one of {', '.join(APIS)}, not {api!r}")
        self.limits = _limits(timeout, turn_timeout, retries, max_bytes)
        if key_env is not None and not os.environ.get(str(key_env)):
            raise SpecError(f"environment variable {key_env} (key_env) is not set")
        if api == "openai" and not model:
            raise SpecError("api=openai needs model=NAME")
        if not isinstance(stream, bool) or (stream and api != "openai"):
            raise SpecError("stream=true applies to api=openai only")
        if max_tokens is not None and (
            api != "openai"
            or isinstance(max_tokens, bool)
            or not isinstance(max_tokens, int)
            or max_tokens < 1
        ):
            raise SpecError("max_tokens must be a positive integer, with api=openai")
        self.url = url if api == "parley" else chat_url(url)
        self.api = api
        self.model = str(model) if model is not None else None
        self.key_env = str(key_env) if key_env is not None else None
        self.timeout = float(timeout)
        self.retries = retries
        self.stream = stream
        self.max_tokens = max_tokens
        self.system_prompt = system_prompt
        self.seed = seed
        self.session_id = uuid.uuid4().hex
        self._client: BoundedClient | ChatClient | None = None
        self._lock = threading.Lock()

    def load(self, progress: Progress = None) -> None:
        """Create the HTTP client (no request is made)."""
        with self._lock:
            if self._client is None:
                say(progress, f"remote bot at {self.url}")
                if self.api == "openai":
                    assert self.model is not None
                    self._client = ChatClient(
                        self.url,
                        self.model,
                        key_env=self.key_env,
                        limits=self.limits,
                        stream=self.stream,
                        max_tokens=self.max_tokens,
                    )
                else:
                    self._client = BoundedClient(self.limits, {"Accept": "application/json"})

    def close(self) -> None:
        """Cancel a request in flight (it fails at once as a stored failed turn) and release the
        connections."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def cancel(self) -> None:
        """Cancel a request in flight; the system stays usable."""
        client = self._client
        if client is not None:
            client.cancel()

    def reset(self, seed: int | None = None) -> None:
        """A new dialogue: a new session id."""
        if seed is not None:
            self.seed = seed
        self.session_id = uuid.uuid4().hex

    def _messages(self, history: tuple[Message, ...]) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages += [
            {"role": "user" if m.role == "user" else "assistant", "content": m.text} for m in history
        ]
        return messages

    def _parse(
        self, reply: Reply
    ) -> tuple[str, BeliefState, tuple[DialogueAct, ...], JSONObject]:
        try:
            data = strict_loads(reply.content)
        except ValueError as e:
            raise HttpFailure(
                f"remote: the answer from {reply.url} is not JSON ({e}): {short(reply.text)!r}",
                "json",
                status=reply.status,
                body=reply.text,
                url=reply.url,
            ) from None
        text = data.get("text") if isinstance(data, dict) else None
        if not isinstance(data, dict) or not isinstance(text, str):
            raise TurnError(
                f'remote: the answer from {reply.url} has no "text" string: {short(reply.text)!r}'
            )
        state = data.get("state") or {}
        if not isinstance(state, dict) or not all(isinstance(v, dict) for v in state.values()):
            raise TurnError('remote: "state" must be an object of objects ({domain: {slot: value}})')
        acts = data.get("acts") or []
        if not isinstance(acts, list) or not all(is_dialogue_act(a) for a in acts):
            raise TurnError('remote: "acts" must be a list of objects whose "act", "domain" and "slot" are '
                            "strings (or null)")
        internals = data.get("internals") or {}
        if not isinstance(internals, dict):
            raise TurnError('remote: "internals" must be an object')
        beliefs = {d: s for d, s in state.items() if isinstance(s, dict)}
        return text.strip(), beliefs, tuple(a for a in acts if is_dialogue_act(a)), dict(internals)

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if not history or history[-1].role != "user":
            raise TurnError("the dialogue history must end with a user message")
        if self._client is None:
            self.load()
        client = self._client
        if isinstance(client, ChatClient):
            chat = client.complete(self._messages(history))
            internals: SystemInternals = {
                "url": chat.url,
                "api": self.api,
                "session_id": self.session_id,
                "attempts": chat.attempts,
                "http_status": chat.status,
                "remote": {"usage": chat.usage, "model": chat.model},
            }
            return SystemTurn(text=chat.text, internals=internals, latency_ms=chat.elapsed_ms)
        assert isinstance(client, BoundedClient)
        body = {
            "session_id": self.session_id,
            "turn": sum(1 for m in history if m.role == "user"),
            "history": [{"role": m.role, "text": m.text} for m in history],
        }
        reply = client.post_json(self.url, body)
        text, state, acts, remote_internals = self._parse(reply)
        internals = {
            "url": reply.url,
            "api": self.api,
            "session_id": self.session_id,
            "attempts": reply.attempts,
            "http_status": reply.status,
            "remote": remote_internals,
        }
        return SystemTurn(
            text=text,
            state={d: dict(s) for d, s in state.items()},
            acts=acts,
            internals=internals,
            latency_ms=reply.elapsed_ms,
        )
