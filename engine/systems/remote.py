"""``remote``: a dialogue system behind HTTP — the parley JSON protocol or an OpenAI-compatible chat endpoint.

``remote:url=URL[,api=parley|openai][,model=NAME][,key_env=VAR][,timeout=10][,retries=2][,system_prompt=TEXT]``

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

**OpenAI-compatible** (``api=openai``): ``POST <url>/v1/chat/completions`` (``url`` may already end in
``/chat/completions`` or ``/v1``) with ``{"model", "messages", "temperature": 0}``; the user's messages are sent as
``user``, the system's as ``assistant``, after an optional ``system_prompt``. The reply is
``choices[0].message.content``. The API key is read from the environment variable named by ``key_env`` (never
from the spec string, so it is not stored with the session) and sent as ``Authorization: Bearer``.

Failures — no answer within ``timeout`` seconds, connection refused, an HTTP error status, a body that is not
JSON or lacks the reply — raise :class:`~engine.types.TurnError` with one clear line; the session stores a failed
turn and goes on. Connection errors, timeouts, HTTP 429 and 5xx are retried ``retries`` times (0.25 s, 0.5 s, …
apart); other errors are not.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from parley.engine.loading import say
from parley.engine.params import checked
from parley.engine.spec import SpecError
from parley.engine.types import Message, SystemTurn, TurnError
from parley.params import Text
from parley.progress import Progress

APIS = ("parley", "openai")
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRIES = 5


def _short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "…"


def chat_url(url: str) -> str:
    """The chat-completions endpoint for an OpenAI-compatible base URL."""
    u = url.rstrip("/")
    if u.endswith("/chat/completions"):
        return u
    if u.endswith("/v1"):
        return u + "/chat/completions"
    return u + "/v1/chat/completions"


class RemoteSystem:
    """A bot behind HTTP (see the module docstring for the protocol)."""

    name = "remote"

    @checked
    def __init__(self, url: Text | None = None, api: Literal["parley", "openai"] = "parley",
                 model: Text | None = None, key_env: Text | None = None,
                 timeout: Annotated[float, Field(gt=0, le=600)] = 10.0,
                 retries: Annotated[int, Field(ge=0, le=MAX_RETRIES)] = 2,
                 system_prompt: Text | None = None, seed: int | None = None) -> None:
        if not url or not url.startswith(("http://", "https://")):
            raise SpecError("remote needs url=http://… or https://… (e.g. remote:url=http://127.0.0.1:8000/chat)")
        if key_env is not None and not os.environ.get(str(key_env)):
            raise SpecError(f"environment variable {key_env} (key_env) is not set")
        if api == "openai" and not model:
            raise SpecError("api=openai needs model=NAME")
        self.url = url if api == "parley" else chat_url(url)
        self.api = api
        self.model = str(model) if model is not None else None
        self.key_env = str(key_env) if key_env is not None else None
        self.timeout = float(timeout)
        self.retries = retries
        self.system_prompt = system_prompt
        self.seed = seed
        self.session_id = uuid.uuid4().hex
        self._client: Any = None
        self._lock = threading.Lock()

    def load(self, progress: Progress = None) -> None:
        """Create the HTTP client (no request is made)."""
        with self._lock:
            if self._client is None:
                import httpx

                say(progress, f"remote bot at {self.url}")
                self._client = httpx.Client(timeout=httpx.Timeout(self.timeout), follow_redirects=True)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def reset(self, seed: int | None = None) -> None:
        """A new dialogue: a new session id."""
        if seed is not None:
            self.seed = seed
        self.session_id = uuid.uuid4().hex

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.key_env:
            headers["Authorization"] = f"Bearer {os.environ.get(self.key_env, '')}"
        return headers

    def _body(self, history: tuple[Message, ...]) -> dict[str, Any]:
        if self.api == "parley":
            return {"session_id": self.session_id, "turn": sum(1 for m in history if m.role == "user"),
                    "history": [{"role": m.role, "text": m.text} for m in history]}
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages += [{"role": "user" if m.role == "user" else "assistant", "content": m.text} for m in history]
        return {"model": self.model, "messages": messages, "temperature": 0}

    def _post(self, body: dict[str, Any]) -> tuple[Any, int]:
        """POST with bounded retries; returns (response, attempts). Raises TurnError."""
        import httpx

        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(0.25 * 2 ** (attempt - 1))
            try:
                resp = self._client.post(self.url, json=body, headers=self._headers())
            except httpx.TimeoutException:
                last = f"no answer from {self.url} within {self.timeout:g} s"
                continue
            except httpx.HTTPError as e:
                last = f"cannot reach {self.url}: {type(e).__name__}: {_short(str(e)) or 'connection failed'}"
                continue
            if resp.status_code in RETRY_STATUS:
                last = f"{self.url} answered HTTP {resp.status_code}: {_short(resp.text)}"
                continue
            if resp.status_code >= 400:
                raise TurnError(f"remote: {self.url} answered HTTP {resp.status_code}: {_short(resp.text)}")
            return resp, attempt + 1
        tries = f" (after {self.retries + 1} attempts)" if self.retries else ""
        raise TurnError(f"remote: {last}{tries}")

    def _parse(self, resp: Any) -> tuple[str, Mapping[str, Any], tuple[Mapping[str, Any], ...], dict[str, Any]]:
        try:
            data = resp.json()
        except (json.JSONDecodeError, ValueError):
            raise TurnError(f"remote: the answer from {self.url} is not JSON: {_short(resp.text)!r}") from None
        if self.api == "openai":
            try:
                text = data["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError):
                raise TurnError(f"remote: the answer from {self.url} has no choices[0].message.content") from None
            if not isinstance(text, str):
                raise TurnError("remote: choices[0].message.content is not a string")
            internals = {"usage": data.get("usage"), "model": data.get("model")} if isinstance(data, dict) else {}
            return text.strip(), {}, (), internals
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            raise TurnError(f"remote: the answer from {self.url} has no \"text\" string: {_short(resp.text)!r}")
        state = data.get("state") or {}
        if not isinstance(state, dict) or not all(isinstance(v, dict) for v in state.values()):
            raise TurnError("remote: \"state\" must be an object of objects ({domain: {slot: value}})")
        acts = data.get("acts") or []
        if not isinstance(acts, list) or not all(isinstance(a, dict) for a in acts):
            raise TurnError("remote: \"acts\" must be a list of objects")
        internals = data.get("internals") or {}
        if not isinstance(internals, dict):
            raise TurnError("remote: \"internals\" must be an object")
        return data["text"].strip(), state, tuple(acts), dict(internals)

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if not history or history[-1].role != "user":
            raise TurnError("the dialogue history must end with a user message")
        if self._client is None:
            self.load()
        t0 = time.perf_counter()
        resp, attempts = self._post(self._body(history))
        text, state, acts, remote_internals = self._parse(resp)
        internals = {"url": self.url, "api": self.api, "session_id": self.session_id, "attempts": attempts,
                     "http_status": resp.status_code, "remote": remote_internals}
        return SystemTurn(text=text, state={d: dict(s) for d, s in state.items()}, acts=acts,
                          internals=internals, latency_ms=(time.perf_counter() - t0) * 1000)
