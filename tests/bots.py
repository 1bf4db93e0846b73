"""Local HTTP bots on 127.0.0.x for the remote-system tests and benchmarks (never any other address).

:class:`BotServer` is a threaded ``http.server`` bound to a loopback address and an ephemeral port. Its paths:

- ``/ok`` — a well-behaved parley-protocol bot (echoes the last user turn); ``/v1/chat/completions`` — an
  OpenAI-compatible one (``"stream": true`` answers with server-sent events);
- ``/slow?s=N`` — answers after N seconds (at most 30);
- ``/trickle`` — declares 1,000 bytes and sends one byte every 1.5 s;
- ``/endless`` — a chunked body of 64 KiB chunks that never ends; ``/huge`` — a declared 50 MB body;
- ``/huge-chunked`` — 50 MB without a ``Content-Length``;
- ``/redirect-other?code=307`` — a redirect to another host (``other``, a second server on 127.0.0.2);
  ``/redirect-same`` — a 307 to ``/ok`` on the same origin;
- ``/nan``, ``/inf`` — replies holding NaN / 1e400; ``/error-body`` — HTTP 500 whose body holds markup and
  terminal escape sequences; ``/500`` — HTTP 500;
- ``/mixed`` — fails ``fail_share`` of requests, cycling through the failure modes above (the soak benchmark).

Every loop is bounded (by bytes, by time and by :attr:`BotServer.stop`), so a server stops by itself when its
client goes away or the test ends; ``latency`` delays every answer (the run benchmarks).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

BIG = 50_000_000
ERROR_BODY = "x[/bold]y \x1b]0;TITLE\x07 \x1b[2J [link=file:///etc/passwd]z[/link]"
FAILURE_MODES = ("trickle", "endless", "huge", "redirect-other", "302-other", "nan", "500", "refused")


#: a test HTTP server type
S = TypeVar("S", bound=ThreadingHTTPServer)


class BotServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", *, latency: float = 0.0, fail_share: float = 0.0,
                 other: str = "") -> None:
        super().__init__((host, 0), _Handler)
        self.latency = latency
        self.fail_share = fail_share
        self.other = other
        self.stop = threading.Event()
        self.hits: list[str] = []
        self.count = 0
        self._lock = threading.Lock()
        self.url = f"http://{host}:{self.server_address[1]}"

    def next_mode(self) -> str:
        """``ok`` or the failure mode of the next ``/mixed`` request: every 1/fail_share-th request fails."""
        with self._lock:
            self.count += 1
            k = self.count
        if not self.fail_share:
            return "ok"
        period = round(1 / self.fail_share)
        if k % period:
            return "ok"
        return FAILURE_MODES[(k // period) % len(FAILURE_MODES)]


class _Handler(BaseHTTPRequestHandler):
    server: BotServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # no 40 ms Nagle/delayed-ACK stalls between headers and body
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(
        self,
        status: int,
        body: str | bytes,
        ctype: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b"{}"
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def do_GET(self) -> None:  # noqa: N802 - http.server API
        self.server.hits.append(f"GET {self.path}")
        self._send(200, json.dumps({"text": "a GET reached me"}))

    def do_POST(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
        body = self._body()
        self.server.hits.append(f"POST {self.path}")
        if self.server.latency:
            time.sleep(self.server.latency)
        if path == "/mixed":
            path = "/" + self.server.next_mode()
            if path == "/refused":  # the connection drops without an answer
                self.close_connection = True
                return
        try:
            self._route(path, query, body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _route(self, path: str, query: dict[str, str], body: dict[str, Any]) -> None:
        if path == "/ok":
            history = body.get("history") or [{"text": ""}]
            last = str(history[-1].get("text", ""))
            self._send(
                200,
                json.dumps(
                    {
                        "text": f"You said: {last}",
                        "state": {"hotel": {"area": "north"}},
                        "internals": {"bot": "ok", "turn": body.get("turn")},
                    }
                ),
            )
        elif path == "/v1/chat/completions":
            self._chat(body)
        elif path == "/slow":
            self._wait(min(float(query.get("s", 30)), 30.0))
            self._send(200, json.dumps({"text": "late"}))
        elif path == "/trickle":
            self._trickle()
        elif path == "/endless":
            self._chunked(None)
        elif path == "/huge-chunked":
            self._chunked(BIG)
        elif path == "/huge":
            self._huge()
        elif path in ("/redirect-other", "/302-other"):
            code = 302 if path == "/302-other" else int(query.get("code", 307))
            self._send(code, "", headers={"Location": f"{self.server.other}/ok"})
        elif path == "/redirect-same":
            self._send(307, "", headers={"Location": "/ok"})
        elif path == "/nan":
            self._send(200, '{"text": "fine", "internals": {"score": NaN}}')
        elif path == "/inf":
            self._send(200, '{"text": "fine", "internals": {"score": 1e400}}')
        elif path == "/error-body":
            self._send(500, ERROR_BODY, "text/plain")
        elif path == "/500":
            self._send(500, "internal error", "text/plain")
        else:
            self._send(404, "no such path", "text/plain")

    def _wait(self, seconds: float) -> None:
        self.server.stop.wait(seconds)

    def _chat(self, body: dict[str, Any]) -> None:
        msgs = body.get("messages") or [{}]
        text = f"echo: {msgs[-1].get('content', '')}"
        if not body.get("stream"):
            self._send(
                200,
                json.dumps(
                    {
                        "model": body.get("model"),
                        "choices": [
                            {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                        ],
                    }
                ),
            )
            return
        events = [
            {"model": body.get("model"), "choices": [{"delta": {"content": w + " "}}]} for w in text.split()
        ]
        events.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self._send(200, data, "text/event-stream")

    def _trickle(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        for _ in range(40):  # at most 60 s
            self.wfile.write(b" ")
            self.wfile.flush()
            if self.server.stop.wait(1.5):
                break
        self.close_connection = True

    def _chunked(self, total: int | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"[" + b"1," * 32_767 + b"1"
        sent = 0
        limit = total if total is not None else 4 * BIG  # "endless", but bounded: 200 MB at most
        while sent < limit and not self.server.stop.is_set():
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            sent += len(chunk)
        self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    def _huge(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(BIG))
        self.end_headers()
        block = b" " * 65_536
        sent = 0
        while sent < BIG and not self.server.stop.is_set():
            self.wfile.write(block)
            sent += len(block)
        self.close_connection = True


@contextmanager
def running(server: S, poll_interval: float = 0.1) -> Iterator[S]:
    """``server`` (any test HTTP server with a ``stop`` event its handlers wait on) serving in a daemon thread
    for the duration of the block; stopped, shut down and closed afterwards."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval},
                              daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def serving(host: str = "127.0.0.1", **kwargs: Any) -> Iterator[BotServer]:
    """A :class:`BotServer` running in a daemon thread for the duration of the block."""
    with running(BotServer(host, **kwargs)) as server:
        yield server


@contextmanager
def bot_pair(**kwargs: Any) -> Iterator[tuple[BotServer, BotServer]]:
    """A bot on 127.0.0.1 whose cross-host redirects point at a second bot on 127.0.0.2 (another host)."""
    with serving("127.0.0.2") as other, serving("127.0.0.1", other=other.url, **kwargs) as bot:
        yield bot, other
