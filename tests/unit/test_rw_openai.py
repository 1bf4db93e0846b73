"""impolite backend=openai against a tiny OpenAI-compatible server started here: the request it
sends (role play, temperature 0, the step's seed), the checked reply, and the rules taking over when the reply
is unusable or the server errs or times out. The real served model: tests/unit/test_rw_openai_served.py."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.engine.rewrite import build_rewriter
from parley.engine.rewrite.base import RewriteContext
from parley.engine.rewrite.chain import Chain
from parley.engine.rewrite.courtesy import markers, scrub, sentences
from parley.engine.rewrite.impolite_openai import KEYS, ROLE_PLAY, clean
from parley.engine.spans import find_spans
from parley.engine.spec import SpecError
from parley.engine.types import Message
from tests.bots import running
from tests.polite_requests import PoliteRequest, polite_requests

REWRITERS_DOC = (Path(__file__).resolve().parents[2] / "docs" / "rewriters.md").read_text(encoding="utf-8")
TEXT = "Could you please find me a cheap hotel in the north? Thank you!"


class ChatServer(ThreadingHTTPServer):
    """Answers POST /v1/chat/completions with ``reply`` (``status`` other than 200: that status and a text
    body; ``delay``: after that many seconds, bounded by ``stop``); keeps every request body."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self.reply: Any = "ok"
        self.status = 200
        self.delay = 0.0
        self.requests: list[dict[str, Any]] = []
        self.stop = threading.Event()


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.server.requests.append(body)
        if self.server.delay and self.server.stop.wait(self.server.delay):
            return
        reply = self.server.reply
        text = reply(body) if callable(reply) else reply
        data = (json.dumps({"model": body.get("model"), "choices": [
            {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]})
            if self.server.status == 200 else "the model fell over").encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with running(ChatServer(), poll_interval=0.05) as srv:
        yield srv


def _rewrite(srv: ChatServer, text: str = TEXT, extra: str = "", seed: int = 7,
             history: tuple[Message, ...] = ()) -> Any:
    rw = build_rewriter(f"impolite:backend=openai,url={srv.url},model=tiny,retries=0{extra}")
    try:
        return rw.rewrite(text, RewriteContext(random.Random(seed), seed, history, find_spans(text)))
    finally:
        rw.close()  # type: ignore[attr-defined]


def _ok(rewrite: Any, *values: str) -> None:
    """The rules' output: every value kept, no courtesy."""
    assert rewrite.info["engine"] == "rules" and rewrite.info["backend"] == "openai"
    assert all(v in rewrite.after for v in values) and not markers(rewrite.after)


def test_accepted_reply_and_the_request_sent(server: ChatServer) -> None:
    server.reply = "Find me a cheap hotel in the north, and make it snappy."
    history = (Message("user", "Hi."), Message("system", "Hello! How can I help?"))
    out = _rewrite(server, extra=",scenario=4,intensity=3", history=history)
    assert out.info["engine"] == "openai" and "fallback" not in out.info
    assert out.after == server.reply
    values = [s.value for s in find_spans(TEXT)]
    assert "cheap" in values and "north" in values
    assert [s.value for s in out.spans] == values == [out.after[s.start:s.end] for s in out.spans]
    meta = out.info["openai"]
    assert meta["status"] == 200 and meta["attempts"] == 1 and meta["seed"] == 7
    assert meta["url"] == f"{server.url}/v1/chat/completions" and meta["served_model"] == "tiny"
    (body,) = server.requests
    assert body["model"] == "tiny" and body["temperature"] == 0 and body["seed"] == 7
    assert body["max_tokens"] == 64 and "stream" not in body
    system, example, answer, user = body["messages"]
    assert example["role"] == "user" and answer["role"] == "assistant" and not markers(answer["content"])
    assert system["role"] == "system" and ROLE_PLAY[4] in system["content"]
    assert "very rude" in system["content"] and "one sentence" in system["content"]
    assert user["content"].splitlines() == [
        "The assistant just said: Hello! How can I help?", f"Message: {TEXT}",
        f"Keep these words exactly: {'; '.join(values)}"]
    json.dumps(out.to_json())  # every step is stored as JSON


@pytest.mark.parametrize(("reply", "reason"), [
    ("Find me a cheap hotel, now.", "dropped slot value(s): north"),
    ("Find me a cheap hotel in the north, please.", "kept courtesy: please"),
    ("Thanks, find a cheap hotel in the north.", "kept courtesy"),
    ("", "returned nothing"),
    ("Find me a cheap hotel in the north. Now. Move it.", "has 3 sentences (at most 1)"),
    ("Find me a cheap hotel in the north.\nThat is the rewrite.", "2 lines"),
    ("Find me a cheap damn hotel in the north.", "offensive"),
    ("Would you kindly find me a cheap hotel in the north?", "courtesy"),
])
def test_unusable_reply_falls_back_to_the_rules(server: ChatServer, reply: str, reason: str) -> None:
    server.reply = reply
    out = _rewrite(server)
    _ok(out, "cheap", "north")
    assert reason in out.info["fallback"] and out.info["fallback_kind"] == "check"
    assert out.info["openai"]["reply"] == " ".join(reply.split())  # the refused reply is kept, on one line
    assert out.info["moves"]  # the rules' own record follows


def test_requested_attribute_must_survive(server: ChatServer) -> None:
    text = "Could you tell me the phone number of the museum, please?"
    server.reply = "Tell me about the museum already."
    out = _rewrite(server, text)
    _ok(out, "phone number")
    assert "requested attribute(s): phone number" in out.info["fallback"]


def test_server_error_falls_back_and_is_retried(server: ChatServer) -> None:
    server.status = 500
    out = _rewrite(server, extra=",retries=1")
    _ok(out, "cheap", "north")
    assert out.info["fallback_kind"] == "status" and out.info["openai"]["status"] == 500
    assert "the server failed (status)" in out.info["fallback"] and len(server.requests) == 2


def test_timeout_falls_back_within_the_deadline(server: ChatServer) -> None:
    server.reply, server.delay = "Find me a cheap hotel in the north.", 20
    t0 = time.perf_counter()
    out = _rewrite(server, extra=",timeout=0.5")
    assert time.perf_counter() - t0 < 3
    _ok(out, "cheap", "north")
    assert out.info["fallback_kind"] == "timeout"


def test_unreachable_server_falls_back() -> None:
    rw = build_rewriter("impolite:backend=openai,url=http://127.0.0.1:9,model=m,retries=0")
    out = rw.rewrite(TEXT, RewriteContext(random.Random(1), 1, (), find_spans(TEXT)))
    _ok(out, "cheap", "north")
    assert out.info["fallback_kind"] == "connect"


def test_chain_is_deterministic_and_records_the_step(server: ChatServer) -> None:
    server.reply = lambda body: f"Find me a cheap hotel in the north, and make it snappy, {body['seed']}."
    chain = Chain([f"impolite:backend=openai,url={server.url},model=tiny,scenario=2"])
    a, b = (chain.apply(TEXT, seed=3, turn_index=1) for _ in range(2))
    c = chain.apply(TEXT, seed=4, turn_index=1)
    assert a.after == b.after != c.after
    step = a.steps[0]
    assert step.info["engine"] == "openai" and step.params["backend"] == "openai"
    assert [r["seed"] for r in server.requests[:2]] == [step.seed, step.seed]


@pytest.mark.parametrize(("reply", "want"), [
    ('Rewritten message: "Find me a cheap hotel in the north."', "Find me a cheap hotel in the north."),
    ("“Find me a cheap hotel in the north”!", "Find me a cheap hotel in the north!"),
    ("  Find me the guests' rooms.  ", "Find me the guests' rooms."),
])
def test_clean(reply: str, want: str) -> None:
    assert clean(reply) == want


@pytest.mark.parametrize(("spec", "msg"), [
    ("impolite:url=http://127.0.0.1:8000", "url applies to backend=openai only"),
    ("impolite:timeout=5", "timeout applies to backend=openai only"),
    ("impolite:backend=openai,model=m", "needs url=http"),
    ("impolite:backend=openai,url=ftp://x,model=m", "needs url=http"),
    ("impolite:backend=openai,url=http://x", "needs model=NAME"),
    ("impolite:backend=openai,url=http://x,model=m,llm=true", "exclude each other"),
    ("impolite:backend=openai,url=http://x,model=m,timeout=nan", "finite number"),
    ("impolite:backend=openai,url=http://x,model=m,timeout=0", "timeout must be"),
    ("impolite:backend=openai,url=http://x,model=m,retries=9", "retries"),
    ("impolite:backend=openai,url=http://x,model=m,max_tokens=0", "max_tokens"),
    ("impolite:backend=openai,url=http://x,model=m,key_env=PARLEY_NO_SUCH_KEY", "PARLEY_NO_SUCH_KEY"),
    ("impolite:backend=gpt", "backend"),
])
def test_bad_specs(spec: str, msg: str) -> None:
    with pytest.raises(SpecError, match=re.escape(msg)):
        build_rewriter(spec)


def test_rules_params_unchanged() -> None:
    """Without backend=openai the stored params are what they were (no backend keys)."""
    assert set(build_rewriter("impolite").params) == {"scenario", "intensity", "profanity", "model", "llm"}


def test_key_is_sent_from_the_environment(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_TEST_KEY", "sk-test")
    seen: list[str] = []
    server.reply = "Find me a cheap hotel in the north."
    orig = _Handler.do_POST

    def spy(self: _Handler) -> None:
        seen.append(self.headers.get("Authorization", ""))
        orig(self)

    monkeypatch.setattr(_Handler, "do_POST", spy)
    out = _rewrite(server, extra=",key_env=PARLEY_TEST_KEY")
    assert out.info["engine"] == "openai" and seen == ["Bearer sk-test"]
    assert "sk-test" not in json.dumps(out.to_json())


def test_docs_document_the_backend() -> None:
    section = REWRITERS_DOC
    assert "backend=openai" in section
    missing = [k for k in KEYS if f"{k}=" not in section]
    assert not missing, f"docs/rewriters.md lacks {missing}"


REPLIES = st.sampled_from(("echo", "scrubbed", "first-value-dropped", "empty", "two-lines"))


def _reply_for(kind: str, req: PoliteRequest) -> str:
    if kind == "echo":
        return req.text
    if kind == "scrubbed":
        return " ".join(scrub(s) for s in sentences(req.text))
    if kind == "first-value-dropped" and req.values:
        return req.text.replace(req.values[0], "somewhere")
    return "" if kind == "empty" else f"{req.text}\nDone."


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(req=polite_requests(), kind=REPLIES)
def test_whatever_the_server_says_values_survive_and_courtesy_goes(
        server: ChatServer, req: PoliteRequest, kind: str) -> None:
    server.reply = _reply_for(kind, req)
    out = _rewrite(server, req.text)
    assert all(v in out.after for v in req.values), (req.text, out.after, out.info)
    assert all(a in out.after.lower() for a in req.attrs), (req.text, out.after, out.info)
    assert not markers(out.after), (req.text, out.after, out.info)
    assert out.info["engine"] in ("openai", "rules")


def test_a_value_in_another_case_is_kept_as_the_user_wrote_it() -> None:
    from parley.engine.rewrite.impolite_openai import recase
    from parley.engine.types import Span

    spans = [Span(0, 5, "area", "north"), Span(10, 27, "name", "Acorn Guest House")]
    assert recase("Find me one in the North, now. ACORN GUEST HOUSE.", spans) == \
        "Find me one in the north, now. Acorn Guest House."
    assert recase("north only", spans[:1]) == "north only"
