"""An OpenAI-compatible chat-completions client on :mod:`engine.http` (the ``remote`` system and LLM
backends).

``ChatClient(url, model, ...).complete(messages)`` POSTs ``{"model", "messages", "temperature", ...}`` to the
chat-completions endpoint of ``url`` (a base URL, ``…/v1`` or ``…/chat/completions``) and returns the reply
text. With ``stream=True`` the request asks for server-sent events and the ``delta.content`` pieces are joined
(the same deadline and size cap apply to the whole stream, which is parsed once it is complete). The API key
is read from the environment variable named by
``key_env`` when a request is made (never stored with a spec).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from parley.engine.http import BoundedClient, HttpFailure, Limits, Reply, short, strict_loads
from parley.jsontypes import JSONObject, JSONValue


def chat_url(url: str) -> str:
    """The chat-completions endpoint for an OpenAI-compatible base URL."""
    u = url.rstrip("/")
    if u.endswith("/chat/completions"):
        return u
    if u.endswith("/v1"):
        return u + "/chat/completions"
    return u + "/v1/chat/completions"


@dataclass(frozen=True)
class ChatReply:
    text: str
    model: str | None
    usage: JSONObject | None
    url: str
    status: int
    attempts: int
    elapsed_ms: float
    finish_reason: str | None = None
    chunks: int = 0
    extra: JSONObject = field(default_factory=dict)


class ChatClient:
    """One OpenAI-compatible endpoint and model; thread-safe; ``close()`` cancels requests in flight."""

    def __init__(self, url: str, model: str, *, key_env: str | None = None, limits: Limits | None = None,
                 stream: bool = False, temperature: float = 0.0, max_tokens: int | None = None) -> None:
        self.url = chat_url(url)
        self.model = model
        self.key_env = key_env
        self.stream = stream
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.http = BoundedClient(limits or Limits(), {"Accept": "text/event-stream" if stream else
                                                       "application/json"})

    def payload(self, messages: Sequence[Mapping[str, str]], **extra: JSONValue) -> JSONObject:
        body: JSONObject = {"model": self.model, "messages": [dict(m) for m in messages],
                                "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.stream:
            body["stream"] = True
        body.update(extra)
        return body

    def _headers(self) -> dict[str, str]:
        if not self.key_env:
            return {}
        return {"Authorization": f"Bearer {os.environ.get(self.key_env, '')}"}

    def complete(self, messages: Sequence[Mapping[str, str]], **extra: JSONValue) -> ChatReply:
        """The assistant's reply to ``messages`` (raises :class:`~engine.http.HttpFailure`, a TurnError)."""
        reply = self.http.post_json(self.url, self.payload(messages, **extra), headers=self._headers())
        if not self.stream:
            return parse_completion(reply)
        parser = SSEParser()
        parser.feed(reply.content + b"\n")
        return parser.result(reply)

    def close(self) -> None:
        self.http.close()

    def cancel(self) -> None:
        self.http.cancel()


def _bad(reply: Reply, what: str) -> HttpFailure:
    return HttpFailure(f"remote: the answer from {reply.url} {what}: {short(reply.text)!r}", "json",
                       status=reply.status, body=reply.text, url=reply.url)


def parse_completion(reply: Reply) -> ChatReply:
    try:
        data = strict_loads(reply.content)
    except ValueError as e:
        raise _bad(reply, f"is not JSON ({e})") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    choice = _object(choices[0] if isinstance(choices, list) and choices else None)
    message = choice.get("message")
    if not isinstance(data, dict) or not isinstance(message, dict) or "content" not in message:
        raise _bad(reply, "has no choices[0].message.content")
    text = message["content"]
    if not isinstance(text, str):
        raise _bad(reply, "has a choices[0].message.content that is not a string")
    return ChatReply(
        text.strip(),
        _text(data.get("model")),
        _usage(data.get("usage")),
        reply.url,
        reply.status,
        reply.attempts,
        reply.elapsed_ms,
        _text(choice.get("finish_reason")),
    )


def _object(value: JSONValue) -> JSONObject:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _text(value: JSONValue) -> str | None:
    """A string field of a reply (a model name, a finish reason); None when missing or not a string."""
    return value if isinstance(value, str) else None


def _usage(value: JSONValue) -> JSONObject | None:
    return value if isinstance(value, dict) else None


class SSEParser:
    """Incremental parser of an OpenAI chat stream (``data: {json}`` events, ``data: [DONE]`` at the end)."""

    def __init__(self) -> None:
        self._buf = b""
        self.parts: list[str] = []
        self.model: str | None = None
        self.usage: JSONObject | None = None
        self.finish_reason: str | None = None
        self.events = 0
        self.done = False
        self.error: str | None = None

    def feed(self, chunk: bytes) -> None:
        self._buf += chunk
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            self._line(line.strip())

    def _line(self, line: bytes) -> None:
        if not line.startswith(b"data:") or self.error:
            return
        payload = line[5:].strip()
        if payload == b"[DONE]":
            self.done = True
            return
        try:
            event = strict_loads(payload)
        except ValueError as e:
            self.error = f"a stream event is not valid ({type(e).__name__}: {e})"
            return
        choices = (event.get("choices") or None) if isinstance(event, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else {}
        delta = (first.get("delta") or None) if isinstance(first, dict) else None
        if not isinstance(event, dict) or not isinstance(first, dict) or not isinstance(delta, dict | None) \
                or not isinstance(choices, list | None):
            self.error = "a stream event is not valid (not an object with choices[0].delta)"
            return
        piece = (delta or {}).get("content") or ""
        if not isinstance(piece, str):
            self.error = "a stream event's delta.content is not a string"
            return
        self.events += 1
        self.model = _text(event.get("model")) or self.model
        self.usage = _usage(event.get("usage")) or self.usage
        self.finish_reason = _text(first.get("finish_reason")) or self.finish_reason
        if piece:
            self.parts.append(piece)

    def result(self, reply: Reply) -> ChatReply:
        if self.error:
            raise _bad(reply, self.error)
        if not self.events:
            raise _bad(reply, "has no stream events (data: {...} lines)")
        return ChatReply(
            "".join(self.parts).strip(),
            self.model,
            self.usage,
            reply.url,
            reply.status,
            reply.attempts,
            reply.elapsed_ms,
            self.finish_reason,
            self.events,
        )
