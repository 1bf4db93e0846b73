"""The remote system's OpenAI-compatible path against a real served model: `parley serve-bundled` (llama.cpp's
server on the bundled SmolLM2 GGUF) started here on 127.0.0.1: chat completion, streaming, concurrent
requests, the attempt deadline and the size cap; and the command's own options."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from parley.engine.http import HttpFailure
from parley.engine.systems import build_system
from parley.engine.types import Message
from tests.conftest import require_extra, suite_cache

pytestmark = pytest.mark.subprocess  # every test runs parley serve-bundled in a child process
HISTORY = (Message("user", "Say hello."),)
LONG = (Message("user", "Tell me a long story about a dragon who visits every college in Cambridge."),)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "2",
           "PARLEY_CACHE": str(suite_cache())}
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("wb") as fh:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("parley")), "serve-bundled", "--port", str(port)],
            env=env,
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"serve-bundled exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("serve-bundled did not come up within 300 s")
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _bot(url: str, extra: str = "") -> object:
    return build_system(
        f"remote:url={url},api=openai,model=smollm2,max_tokens=4,timeout=600,retries=0{extra}"
    )


@pytest.mark.slow
def test_served_model(served: str) -> None:
    """One test (one server under pytest-xdist): completion, stream, concurrency, size cap, then the
    deadline."""
    plain = _bot(served).respond(HISTORY)  # type: ignore[attr-defined]
    assert plain.text and plain.internals["http_status"] == 200
    assert httpx.get(f"{served}/v1/models", timeout=10).json()["data"][0]["id"] == "smollm2"
    assert plain.internals["url"] == f"{served}/v1/chat/completions"
    streamed = _bot(served, ",stream=true").respond(HISTORY)  # type: ignore[attr-defined]
    assert streamed.text == plain.text  # greedy decoding: the same words, delivered as events

    bot = _bot(served)
    texts: list[str] = []
    errors: list[BaseException] = []

    def ask(k: int) -> None:
        try:
            texts.append(bot.respond((Message("user", f"Name a colour, {k}."),)).text)  # type: ignore[attr-defined]
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=1900)
    assert not errors and len(texts) == 3 and all(texts)

    with pytest.raises(HttpFailure) as info:
        _bot(served, ",max_bytes=64").respond(HISTORY)  # type: ignore[attr-defined]
    assert info.value.kind == "too_large"

    # last: the server goes on generating after parley gives up
    slow = build_system(f"remote:url={served},api=openai,model=smollm2,max_tokens=400,timeout=0.3,retries=0")
    t0 = time.perf_counter()
    with pytest.raises(HttpFailure) as info:
        slow.respond(LONG)
    assert info.value.kind == "timeout" and time.perf_counter() - t0 < 3


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).with_name("parley")), "serve-bundled", *args],
                          capture_output=True, text=True, timeout=120)


def test_serve_bundled_prints_the_llama_server_command() -> None:
    from parley.engine.smollm import bundled_gguf

    out = _serve("--print-command", "--port", "8123", "--threads", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (f"llama-server -m {bundled_gguf()} --host 127.0.0.1 --port 8123 -t 1 "
                                  "-c 4096 --alias smollm2")


@pytest.mark.parametrize(("args", "error"), [
    (("--device", "cuda:0"), "--device applies to --backend transformers"),
    (("--backend", "transformers", "--model", "qwen2.5-coder-0.5b"), "serves the bundled SmolLM2 only"),
    (("--model", "/no/such/model.gguf"), "model file /no/such/model.gguf does not exist"),
    (("--model", "some-org/some-model"), "give smollm2, qwen2.5-coder-0.5b or a .gguf file"),
])
def test_serve_bundled_refuses_what_it_cannot_serve(args: tuple[str, ...], error: str) -> None:
    out = _serve(*args, "--print-command")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and error in out.stderr, out.stderr


def test_serve_bundled_says_when_the_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        out = _serve("--port", str(taken.getsockname()[1]))
    assert out.returncode == 2 and "cannot listen on 127.0.0.1:" in out.stderr, out.stderr


@pytest.mark.slow
def test_serve_bundled_can_still_use_transformers_serve() -> None:
    """``--backend transformers``: the GGUF converted to safetensors once, then `transformers serve`."""
    require_extra("fastapi", "fastapi", "serve")  # installed by ./setup.sh test
    require_extra("uvicorn", "uvicorn", "serve")
    out = _serve("--backend", "transformers", "--print-command", "--port", "8124")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("cd ") and "HF_HUB_OFFLINE=1" in out.stdout
    assert out.stdout.rstrip().endswith(
        "serve smollm2 --host 127.0.0.1 --port 8124 --device cpu --log-level warning")
