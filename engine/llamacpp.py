"""GGUF models on llama.cpp, through ``xllamacpp`` (prebuilt CPU wheels, no conversion step).

:class:`LlamaServer` starts llama.cpp's own server inside this process: requests go straight to it
(:meth:`LlamaServer.chat`), the prompt prefix a request shares with the previous one is taken from the KV
cache (llama.cpp's prompt cache), and the same server answers OpenAI-compatible HTTP requests on its address
(``parley serve-bundled``). In ``parley`` itself the HTTP side listens on a Unix socket in a private temporary
folder (mode 0700) and wants a random API key: nothing else on the machine can reach it.

Threads: llama.cpp's threads wait for each other after every step, so two threads on two busy cores run many
times slower than one (measured here: 0.5 against 34 tokens/s for SmolLM2 at load 11). ``threads=0`` takes 2
on an idle 2-core machine and 1 when the machine is busy (:func:`choose_threads`), decided at start.

llama.cpp's messages go to the log (:func:`log_path`), not the terminal: the server runs with verbosity 0 (it
then prints nothing) and parley writes what it did — model, size, threads, start-up time, failures — to the
log.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from parley.engine.loading import say
from parley.engine.types import LoadError
from parley.jsontypes import JSONObject, JSONValue
from parley.progress import Progress

log = logging.getLogger("parley.llm")
_log_lock = threading.Lock()
_servers: dict[tuple[str, int, int], LlamaServer] = {}
_servers_lock = threading.Lock()
#: seconds :meth:`LlamaServer.close` waits for a server's HTTP side to listen before stopping it
LISTEN_S = 30.0
#: servers that never listened: kept referenced, so their destructor (which would wait for ever) never runs
_abandoned: list[object] = []
DEFAULT_CTX = 4096


def log_path() -> Path:
    """``<cache dir>/logs/llm.log``: what the model backends did, and the warnings of their libraries."""
    from parley.engine.locations import cache_dir

    return cache_dir() / "logs" / "llm.log"


def use_log() -> logging.Logger:
    """The ``parley.llm`` logger, writing to :func:`log_path` (set up once per process and log file)."""
    path = log_path()
    with _log_lock:
        if not any(getattr(h, "baseFilename", None) == str(path) for h in log.handlers):
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                handler = logging.FileHandler(path, encoding="utf-8", delay=True)
            except OSError:
                return log
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            log.addHandler(handler)
            log.setLevel(logging.INFO)
            log.propagate = False
    return log


def choose_threads(threads: int = 0) -> int:
    """``threads`` if given, else 1 when the CPUs are busy with other work, else up to 2."""
    if threads > 0:
        return threads
    cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0] > cpus - 0.5
    except OSError:
        busy = False
    return 1 if busy or cpus < 2 else min(2, cpus)


def check_gguf(path: Path) -> Path:
    """``path`` when it is a readable GGUF file, else :class:`LoadError` saying what is wrong."""
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except FileNotFoundError:
        raise LoadError(f"model file {path} does not exist") from None
    except OSError as e:
        raise LoadError(f"cannot read model file {path}: {e.strerror or e}") from None
    if magic != b"GGUF":
        raise LoadError(f"{path} is not a GGUF model file")
    return path


@dataclass(frozen=True)
class Completion:
    """One answer: its text, the prompt's tokens (``cached`` of them reused from the last request), the new
    tokens and the time llama.cpp spent."""

    text: str
    prompt_tokens: int
    cached_tokens: int
    new_tokens: int
    ms: float
    finish: str


class LlamaServer:
    """llama.cpp's server on one GGUF file (see the module doc). Thread-safe; requests queue."""

    def __init__(self, gguf: Path, *, threads: int = 0, n_ctx: int = DEFAULT_CTX, host: str | None = None,
                 port: int = 0, alias: str | None = None, api_key: str | None = None, verbosity: int = 0,
                 parallel: int = 1) -> None:
        import xllamacpp as xlc

        self.path = check_gguf(Path(gguf))
        self.threads = choose_threads(threads)
        p = xlc.CommonParams()
        p.model.path = str(self.path)
        p.n_ctx = n_ctx * parallel
        p.n_parallel = parallel
        p.cpuparams.n_threads = self.threads
        p.cpuparams_batch.n_threads = self.threads
        p.cpuparams.poll = 0  # no busy-waiting between steps: other processes share these cores
        p.cpuparams_batch.poll = 0
        p.verbosity = verbosity
        p.warmup = False
        p.cache_prompt = True
        self._private: str | None = None
        if host is None:  # in-process use: a Unix socket only this user can reach
            self._private = tempfile.mkdtemp(prefix="parley-llama-")
            p.hostnames = [os.path.join(self._private, "llama.sock")]
        else:
            p.hostnames = [host]
            p.port = port
        p.api_keys = [api_key or secrets.token_urlsafe(24)] if api_key != "" else []
        if alias:
            p.model_alias = {alias}
        t0 = time.perf_counter()
        try:
            self._server = xlc.Server(p)
        except RuntimeError as e:
            self._remove_private()
            use_log().error("llama.cpp could not load %s: %s", self.path, e)
            raise LoadError(f"llama.cpp could not load {self.path.name} (see {log_path()})") from None
        self.load_s = time.perf_counter() - t0
        use_log().info("llama.cpp loaded %s (%d bytes) with %d thread(s) in %.2f s", self.path,
                       self.path.stat().st_size, self.threads, self.load_s)

    @property
    def address(self) -> str:
        """``http://host:port`` (or ``unix://…`` in-process) of the OpenAI-compatible HTTP side."""
        return str(self._server.listening_address)

    def request(self, body: JSONObject) -> JSONObject:
        """An OpenAI-style chat completion request, answered in-process (``error`` raised as RuntimeError)."""
        out = self._server.handle_chat_completions(body)
        if not isinstance(out, dict) or "error" in out:
            err = out.get("error") if isinstance(out, dict) else out
            message = err.get("message") if isinstance(err, dict) else err
            raise RuntimeError(f"llama.cpp: {message}")
        return out

    def chat(self, messages: list[dict[str, str]], *, max_tokens: int, grammar: str | None = None,
             stop: list[str] | None = None, cache_prompt: bool = True, seed: int | None = None,
             temperature: float = 0.0, banned: tuple[str, ...] = ()) -> Completion:
        """Greedy (``temperature=0``) chat completion, at most ``max_tokens`` new tokens, constrained by a
        GBNF ``grammar`` when given; the tokens of the ``banned`` strings are never written."""
        body: JSONObject = {"messages": [{**m} for m in messages], "max_tokens": max_tokens,
                            "temperature": temperature, "cache_prompt": cache_prompt}
        if banned:
            body["logit_bias"] = [[word, False] for word in banned]
        if temperature == 0:
            body["top_k"] = 1
        if grammar:
            body["grammar"] = grammar
        if stop:
            body["stop"] = [*stop]
        if seed is not None:
            body["seed"] = seed
        out = self.request(body)
        choices = out.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(choice, dict) or not isinstance(message, dict):
            raise RuntimeError("llama.cpp: the reply has no choices[0].message")
        timings, usage = _object(out.get("timings")), _object(out.get("usage"))
        return Completion(text=str(message.get("content") or ""),
                          prompt_tokens=int(_number(usage.get("prompt_tokens", 0))),
                          cached_tokens=int(_number(timings.get("cache_n", 0))),
                          new_tokens=int(_number(usage.get("completion_tokens", 0))),
                          ms=_number(timings.get("prompt_ms", 0.0))
                          + _number(timings.get("predicted_ms", 0.0)),
                          finish=str(choice.get("finish_reason") or ""))

    def close(self) -> None:
        """Stop the server (the process keeps running). A server stopped before its HTTP side listens never
        stops (llama.cpp's listener starts afterwards and waits for ever), so the private socket must answer
        first; one that does not within :data:`LISTEN_S` is left running rather than waited for."""
        server, self._server = self._server, None
        if server is not None and self._private and not self._listening():
            use_log().warning("llama.cpp's server on %s did not listen within %s s; left running", self.path,
                              LISTEN_S)
            _abandoned.append(server)
        del server
        self._remove_private()

    def _listening(self) -> bool:
        import httpx

        sock = os.path.join(self._private or "", "llama.sock")
        deadline = time.monotonic() + LISTEN_S
        with httpx.Client(transport=httpx.HTTPTransport(uds=sock), timeout=5) as client:
            while time.monotonic() < deadline:
                try:
                    client.get("http://llama/health")
                    return True
                except httpx.HTTPError:
                    time.sleep(0.1)
        return False

    def _remove_private(self) -> None:
        if self._private:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None


def shared_server(gguf: Path, threads: int = 0, n_ctx: int = DEFAULT_CTX,
                  progress: Progress = None) -> LlamaServer:
    """One server per GGUF file, thread count and context size in this process (loaded once)."""
    key = (str(Path(gguf).resolve()), choose_threads(threads) if threads else 0, n_ctx)
    with _servers_lock:
        server = _servers.get(key)
        if server is None:
            say(progress, f"loading {Path(gguf).name} on llama.cpp")
            server = LlamaServer(Path(gguf), threads=threads, n_ctx=n_ctx)
            _servers[key] = server
        return server


def clear_servers() -> None:
    """Forget the servers of this process (tests)."""
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for s in servers:
        s.close()


def _object(value: JSONValue) -> JSONObject:
    """``value`` if it is a JSON object, else an empty one (a reply's optional parts)."""
    return value if isinstance(value, dict) else {}


def _number(value: JSONValue) -> float:
    """A count or duration of a reply (a number, or a string holding one, as llama.cpp writes them)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise ValueError(f"llama.cpp: not a number: {value!r}")
