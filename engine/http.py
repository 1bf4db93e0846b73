"""A bounded HTTP client for remote bots and OpenAI-compatible endpoints (used by ``remote`` and LLM
backends).

Every request is bounded, whatever the server does:

- **deadline per attempt** (``timeout``): connect → last byte of the body, so a bot trickling one byte every
  second cannot hold a turn past it; and a **deadline per turn** (``turn_timeout``) over every attempt, retry
  and back-off;
- **size cap** (``max_bytes``, default 1 MB) enforced while reading: a ``Content-Length`` over it is refused
  before the body is read, an endless chunked body is cut when it passes the cap;
- **redirects only to the same origin** (scheme, host and port): a 307 or 302 to another host is refused (the
  dialogue history is never re-sent elsewhere); the final URL is reported;
- **cancellation**: :meth:`BoundedClient.cancel` (or ``close``) ends every request in flight at once, from any
  thread; the caller gets a :class:`HttpFailure` of kind ``cancelled``.

Requests run on one event loop in a daemon thread shared by every client (httpx's async client), so a blocked
request never keeps the process alive and cancellation is immediate. JSON replies are parsed strictly: NaN and
±Infinity (``NaN``, ``1e400``) are refused, never stored.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import math
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn
from urllib.parse import urlsplit

from parley.engine.types import TurnError
from parley.jsontypes import JSONValue
from parley.text import squash

if TYPE_CHECKING:
    import httpx

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRIES = 5
DEFAULT_MAX_BYTES = 1_000_000
#: longest error body kept in a failure's message (the whole capped body stays on ``HttpFailure.body``)
ERROR_SNIPPET = 300


@dataclass(frozen=True)
class Limits:
    """Bounds of one turn's HTTP exchange (see the module docstring)."""

    timeout: float = 10.0
    turn_timeout: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    retries: int = 2
    max_redirects: int = 5

    @property
    def turn_deadline(self) -> float:
        """Seconds for a whole turn: ``turn_timeout``, or every attempt plus the back-offs between them (and a
        quarter second, so that the last attempt's own deadline is the one reported)."""
        if self.turn_timeout is not None:
            return self.turn_timeout
        return self.timeout * (self.retries + 1) + sum(backoff(a) for a in range(1, self.retries + 1)) + 0.25

    def check(self) -> Limits:
        """Raise ValueError naming the bad limit."""
        for name in ("timeout", "turn_timeout"):
            v = getattr(self, name)
            if v is None and name == "turn_timeout":
                continue
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 < v <= 3600 or math.isnan(v):
                raise ValueError(f"{name} must be a number of seconds between 0 and 3600")
        if isinstance(self.max_bytes, bool) or not isinstance(self.max_bytes, int) or self.max_bytes < 1:
            raise ValueError("max_bytes must be a positive integer")
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) or \
                not 0 <= self.retries <= MAX_RETRIES:
            raise ValueError(f"retries must be an integer from 0 to {MAX_RETRIES}")
        return self


def backoff(attempt: int) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based): 0.25, 0.5, 1, …"""
    return 0.25 * 2 ** (attempt - 1)


class HttpFailure(TurnError):
    """A request that gave no usable answer. ``kind`` is one of connect, timeout, deadline, too_large,
    redirect, status, cancelled, json; ``body`` holds the (capped) error body as data, never interpreted."""

    def __init__(self, message: str, kind: str, *, status: int | None = None, body: str = "",
                 url: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.body = body
        self.url = url


@dataclass(frozen=True)
class Reply:
    """A successful (2xx) answer: the final URL after same-origin redirects, the body, how many attempts."""

    status: int
    url: str
    content: bytes
    attempts: int
    elapsed_ms: float

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


def short(text: str, n: int = ERROR_SNIPPET) -> str:
    """One line of at most ``n`` characters (whitespace runs collapsed; other characters kept as they are)."""
    text = squash(text)
    return text if len(text) <= n else text[:n] + "…"


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number parley accepts")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def strict_loads(text: str | bytes) -> JSONValue:
    """``json.loads`` that refuses NaN, Infinity and numbers that overflow to ±inf (ValueError)."""
    try:
        value: JSONValue = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
        return value
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


# -- the shared event loop -------------------------------------------------------------------------------
_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def event_loop() -> asyncio.AbstractEventLoop:
    """The loop every client's requests run on (a daemon thread, started on first use)."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="parley-http", daemon=True).start()
            _loop = loop
        return _loop


class BoundedClient:
    """POSTs JSON with the bounds of :class:`Limits`; safe to share between threads."""

    def __init__(self, limits: Limits, headers: Mapping[str, str] | None = None) -> None:
        self.limits = limits.check()
        self.headers = {"Accept-Encoding": "identity", **(headers or {})}
        self._client: httpx.AsyncClient | None = None
        self._inflight: set[concurrent.futures.Future[Reply]] = set()
        self._lock = threading.Lock()
        self._closed = False

    # -- public, blocking ---------------------------------------------------------------------------------
    def post_json(self, url: str, body: object, *, headers: Mapping[str, str] | None = None) -> Reply:
        """POST ``body`` as JSON; return the 2xx reply or raise :class:`HttpFailure` (retries included)."""
        with self._lock:
            if self._closed:
                raise HttpFailure("remote: the client was closed (parley is quitting)", "cancelled", url=url)
            fut = asyncio.run_coroutine_threadsafe(
                self._turn(url, json.dumps(body, allow_nan=False).encode(), dict(headers or {})), event_loop()
            )
            self._inflight.add(fut)
        try:
            return fut.result(timeout=self.limits.turn_deadline + 5)
        except concurrent.futures.CancelledError:
            raise HttpFailure(f"remote: request to {url} cancelled", "cancelled", url=url) from None
        except (
            concurrent.futures.TimeoutError
        ):  # the loop itself is stuck: never wait longer than the deadline
            fut.cancel()
            raise HttpFailure(
                f"remote: no answer from {url} within {self.limits.turn_deadline:g} s (turn deadline)",
                "deadline",
                url=url,
            ) from None
        finally:
            with self._lock:
                self._inflight.discard(fut)

    def cancel(self) -> None:
        """End every request in flight now (they fail with kind ``cancelled``); the client stays usable."""
        with self._lock:
            pending = list(self._inflight)
        for fut in pending:
            fut.cancel()

    def close(self) -> None:
        """Cancel what is in flight and release the connections; later requests fail at once."""
        with self._lock:
            self._closed = True
            client, self._client = self._client, None
        self.cancel()
        if client is not None:
            loop = event_loop()
            fut = asyncio.run_coroutine_threadsafe(client.aclose(), loop)
            with contextlib.suppress(Exception):  # best effort: the sockets go with the process anyway
                fut.result(timeout=2)

    # -- on the loop --------------------------------------------------------------------------------------
    def _async_client(self) -> httpx.AsyncClient:
        import httpx

        if self._client is None:
            self._client = httpx.AsyncClient(
                follow_redirects=False, timeout=httpx.Timeout(self.limits.timeout), trust_env=False
            )
        return self._client

    async def _turn(self, url: str, data: bytes, headers: dict[str, str]) -> Reply:
        lim = self.limits
        t0 = time.perf_counter()
        last: HttpFailure | None = None
        try:
            async with asyncio.timeout(lim.turn_deadline):
                for attempt in range(lim.retries + 1):
                    if attempt:
                        await asyncio.sleep(backoff(attempt))
                    try:
                        async with asyncio.timeout(lim.timeout):
                            status, final, content = await self._attempt(url, data, headers)
                    except TimeoutError:
                        last = HttpFailure(
                            f"no answer from {url} within {lim.timeout:g} s", "timeout", url=url
                        )
                        continue
                    except HttpFailure as e:
                        if e.kind != "connect":
                            raise
                        last = e
                        continue
                    if status in RETRY_STATUS or status >= 400:
                        body = content.decode("utf-8", errors="replace")
                        last = HttpFailure(
                            f"{final} answered HTTP {status}: {short(body)}",
                            "status",
                            status=status,
                            body=body,
                            url=final,
                        )
                        if status in RETRY_STATUS:
                            continue
                        raise last
                    return Reply(status, final, content, attempt + 1, (time.perf_counter() - t0) * 1000)
        except TimeoutError:
            raise HttpFailure(
                f"remote: no answer from {url} within {lim.turn_deadline:g} s (turn deadline)",
                "deadline",
                url=url,
            ) from None
        except HttpFailure as e:
            e.args = (f"remote: {e.args[0]}",)
            raise
        assert last is not None
        tries = f" (after {lim.retries + 1} attempts)" if lim.retries else ""
        last.args = (f"remote: {last.args[0]}{tries}",)
        raise last

    async def _attempt(self, url: str, data: bytes, headers: dict[str, str]) -> tuple[int, str, bytes]:
        import httpx

        client = self._async_client()
        home = origin(url)
        request = client.build_request(
            "POST", url, content=data, headers={**self.headers, "Content-Type": "application/json", **headers}
        )
        for _ in range(self.limits.max_redirects + 1):
            try:
                resp = await client.send(request, stream=True)
            except httpx.TimeoutException:
                raise TimeoutError from None
            except httpx.HTTPError as e:
                raise HttpFailure(
                    f"cannot reach {url}: {type(e).__name__}: {short(str(e)) or 'connection failed'}",
                    "connect",
                    url=url,
                ) from None
            try:
                nxt = resp.next_request
                if nxt is None:
                    content = await self._read(resp)
                    return resp.status_code, str(resp.url), content
                if origin(str(nxt.url)) != home:
                    raise HttpFailure(
                        f"{resp.url} redirected (HTTP {resp.status_code}) to another host, {nxt.url}: "
                        "refused (redirects may only stay on the same scheme, host and port)",
                        "redirect",
                        status=resp.status_code,
                        url=str(resp.url),
                    )
                request = nxt
            finally:
                await resp.aclose()
        raise HttpFailure(f"{url}: more than {self.limits.max_redirects} redirects", "redirect", url=url)

    async def _read(self, resp: httpx.Response) -> bytes:
        cap = self.limits.max_bytes
        declared = resp.headers.get("Content-Length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise HttpFailure(
                f"{resp.url} sent a reply of {int(declared):,} bytes, over the {cap:,}-byte limit "
                "(max_bytes)",
                "too_large",
                status=resp.status_code,
                url=str(resp.url),
            )
        buf = bytearray()
        async for chunk in resp.aiter_bytes():
            buf += chunk
            if len(buf) > cap:
                raise HttpFailure(
                    f"{resp.url} sent more than {cap:,} bytes (max_bytes): reply cut",
                    "too_large",
                    status=resp.status_code,
                    url=str(resp.url),
                )
        return bytes(buf)
