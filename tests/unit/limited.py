"""Running ``parley`` in a child process under an address-space limit (``RLIMIT_AS``, what ``ulimit -v``
sets) and measuring the child's own peak memory (``ru_maxrss`` from ``os.wait4``): a command that would
exhaust the machine fails fast here, as a MemoryError traceback, instead of taking the machine down."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Limited:
    returncode: int
    stdout: str
    stderr: str
    peak_rss_mb: float

    @property
    def error_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.startswith("parley: error: ")]


def one_error(r: Limited) -> str:
    """The run ended with exit 2 and exactly one ``parley: error:`` line, no traceback: that line."""
    out = r.stdout[-2000:] + r.stderr[-3000:]
    assert r.returncode == 2, out
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr, out
    assert len(r.error_lines) == 1, out
    return r.error_lines[0]


def run_limited(args: Sequence[str], *, mem_mb: int | None = 1500, input: bytes | None = None,
                stdin: IO[Any] | None = None, env: dict[str, str] | None = None, timeout: float = 300,
                cwd: Path = REPO) -> Limited:
    """``python -m parley ARGS`` with at most ``mem_mb`` MB of address space (None: no limit), ``input`` or
    the file ``stdin`` on standard input; returns the output and the child's peak resident memory."""
    cap = None
    if mem_mb is not None:
        limit = mem_mb * 1024 * 1024

        def cap() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with open(os.devnull, "rb") as null:
        source: Any = subprocess.PIPE if input is not None else stdin if stdin is not None else null
        p = subprocess.Popen([sys.executable, "-m", "parley", *args], cwd=cwd, preexec_fn=cap, stdin=source,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, **(env or {})})
    chunks: dict[str, bytes] = {}

    def read(name: str, stream: IO[bytes]) -> None:
        chunks[name] = stream.read()

    def feed() -> None:
        assert p.stdin is not None
        try:
            p.stdin.write(input or b"")
            p.stdin.close()
        except OSError:  # the child stopped reading: what it said about it is the test's business
            pass

    threads = [threading.Thread(target=read, args=("out", p.stdout)),
               threading.Thread(target=read, args=("err", p.stderr))]
    if input is not None:
        threads.append(threading.Thread(target=feed))
    for t in threads:
        t.start()
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    for t in threads:
        t.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    return Limited(p.returncode, chunks.get("out", b"").decode("utf-8", "replace"),
                   chunks.get("err", b"").decode("utf-8", "replace"), usage.ru_maxrss / 1024)
