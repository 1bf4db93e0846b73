"""remote: parley JSON protocol and OpenAI-compatible chat against a loopback HTTP server started here."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.engine.types import Message, TurnError

HISTORY = (Message("user", "I need a cheap hotel"), Message("system", "Which area?"),
           Message("user", "north"))


#: acts as a bot may send them: a count as a number, a key parley does not know
ACTS = [{"act": "inform", "domain": "hotel", "slot": "choice", "value": 2, "score": 0.9},
        {"act": "request", "domain": None, "slot": "area"}]


class Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []
    flaky_failures = 0

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, body: str | bytes, ctype: str = "application/json") -> None:
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        Handler.seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.path == "/ok":
            last = body["history"][-1]["text"]
            self._send(200, json.dumps({"text": f"Looking in the {last}.", "state": {"hotel": {"area": last}},
                                        "internals": {"bot": "test"}}))
        elif self.path == "/acts":
            self._send(200, json.dumps({"text": "Two places.", "acts": ACTS}))
        elif self.path == "/badacts":
            self._send(200, json.dumps({"text": "Two places.", "acts": [{"act": 5, "domain": "hotel"}]}))
        elif self.path == "/slow":
            time.sleep(10.0)
            self._send(200, json.dumps({"text": "late"}))
        elif self.path == "/500":
            self._send(500, "internal error")
        elif self.path == "/badjson":
            self._send(200, "<html>not json</html>", "text/html")
        elif self.path == "/notext":
            self._send(200, json.dumps({"reply": "wrong key"}))
        elif self.path == "/flaky":
            if Handler.flaky_failures < 1:
                Handler.flaky_failures += 1
                self._send(503, "busy")
            else:
                self._send(200, json.dumps({"text": "second time lucky"}))
        elif self.path == "/v1/chat/completions":
            if self.headers.get("Authorization") != "Bearer sk-test":
                self._send(401, json.dumps({"error": "bad key"}))
                return
            roles = [m["role"] for m in body["messages"]]
            self._send(200, json.dumps({"model": body["model"], "choices": [
                {"message": {"role": "assistant", "content": f" roles={','.join(roles)} "}}]}))
        else:
            self._send(404, "no such path")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_parley_protocol_success(server: str) -> None:
    bot = build_system(f"remote:url={server}/ok")
    turn = bot.respond(HISTORY)
    assert turn.text == "Looking in the north."
    assert turn.state == {"hotel": {"area": "north"}}
    assert turn.internals["remote"] == {"bot": "test"} and turn.internals["attempts"] == 1
    sent = Handler.seen[-1]["body"]
    assert sent["turn"] == 2 and sent["session_id"] == bot.session_id
    assert sent["history"][1] == {"role": "system", "text": "Which area?"}
    old = bot.session_id
    bot.reset()
    assert bot.session_id != old


def test_acts_are_kept_as_sent_and_checked(server: str) -> None:
    turn = build_system(f"remote:url={server}/acts").respond(HISTORY)
    assert list(turn.acts) == ACTS
    assert json.dumps(turn.to_json()["acts"]) == json.dumps(ACTS)
    with pytest.raises(TurnError, match='"acts" must be a list of objects whose "act"'):
        build_system(f"remote:url={server}/badacts").respond(HISTORY)


def test_timeout_is_a_turn_error_fast(server: str) -> None:
    bot = build_system(f"remote:url={server}/slow,timeout=0.2,retries=0")
    t0 = time.perf_counter()
    with pytest.raises(TurnError, match="no answer .* within 0.2 s"):
        bot.respond(HISTORY)
    assert time.perf_counter() - t0 < 5  # the bot answers after 10 s


def test_http_500_retried_then_reported(server: str) -> None:
    n = len(Handler.seen)
    bot = build_system(f"remote:url={server}/500,retries=1")
    with pytest.raises(TurnError, match="HTTP 500: internal error .after 2 attempts"):
        bot.respond(HISTORY)
    assert len(Handler.seen) - n == 2


def test_bad_json_and_missing_text(server: str) -> None:
    with pytest.raises(TurnError, match="not JSON"):
        build_system(f"remote:url={server}/badjson,retries=0").respond(HISTORY)
    with pytest.raises(TurnError, match='no "text"'):
        build_system(f"remote:url={server}/notext").respond(HISTORY)


def test_transient_failure_is_retried(server: str) -> None:
    turn = build_system(f"remote:url={server}/flaky,retries=2").respond(HISTORY)
    assert turn.text == "second time lucky" and turn.internals["attempts"] == 2


def test_client_error_not_retried_and_refused_connection(server: str) -> None:
    n = len(Handler.seen)
    with pytest.raises(TurnError, match="HTTP 404"):
        build_system(f"remote:url={server}/missing,retries=3").respond(HISTORY)
    assert len(Handler.seen) - n == 1
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(TurnError, match="cannot reach"):
        build_system(f"remote:url=http://127.0.0.1:{port}/x,retries=0").respond(HISTORY)


def test_openai_format(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_TEST_KEY", "sk-test")
    bot = build_system(f"remote:url={server},api=openai,model=tiny,key_env=PARLEY_TEST_KEY,"
                       "system_prompt=be brief")
    turn = bot.respond(HISTORY)
    assert turn.text == "roles=system,user,assistant,user"
    assert Handler.seen[-1]["path"] == "/v1/chat/completions"
    assert Handler.seen[-1]["body"]["model"] == "tiny"
    assert "sk-test" not in json.dumps(turn.to_json())


def test_bad_params() -> None:
    with pytest.raises(SpecError, match="url="):
        build_system("remote")
    with pytest.raises(SpecError, match="api: must be"):
        build_system("remote:url=http://x,api=grpc")
    with pytest.raises(SpecError, match="is not set"):
        build_system("remote:url=http://x,api=openai,model=m,key_env=PARLEY_SURELY_UNSET_VAR")
    with pytest.raises(SpecError, match="needs model"):
        build_system("remote:url=http://x,api=openai")
    with pytest.raises(SpecError, match="retries"):
        build_system("remote:url=http://x,retries=50")
