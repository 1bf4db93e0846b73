"""Running ``parley`` in a child process under an address-space limit (``RLIMIT_AS``, what ``ulimit -v``
sets) and measuring the child's own peak memory (``ru_maxrss`` from ``os.wait4``): a command that would
exhaust the machine fails fast here, as a MemoryError traceback, instead of taking the machine down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from tests.unit.clihelpers import DROP_DAC, REPO


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


#: a small go-between: sets the limit, runs parley, and writes parley's own peak RSS (KB) to a file. Measured
#: from the test process itself, ru_maxrss would count that process's memory too (a forked child holds the
#: parent's pages until it execs), which in a long test session is hundreds of MB.
_WRAPPER = """
import os, resource, subprocess, sys
limit, out, *argv = sys.argv[1:]
if limit != "none":
    resource.setrlimit(resource.RLIMIT_AS, (int(limit), int(limit)))
p = subprocess.Popen(argv)
_, status, usage = os.wait4(p.pid, 0)
open(out, "w").write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def run_limited(args: Sequence[str], *, mem_mb: int | None = 1500, input: bytes | None = None,
                stdin: IO[bytes] | None = None, env: dict[str, str] | None = None, timeout: float = 300,
                cwd: Path = REPO, unprivileged: bool = False) -> Limited:
    """``python -m parley ARGS`` with at most ``mem_mb`` MB of address space (None: no limit), ``input`` or
    the file ``stdin`` on standard input (when ``unprivileged`` and running as root: without the capabilities
    that override file modes); returns the output and parley's own peak resident memory."""
    limit = str(mem_mb * 1024 * 1024) if mem_mb is not None else "none"
    with tempfile.NamedTemporaryFile(prefix="parley-rss-", delete=False) as f:
        report = Path(f.name)
    source: int | IO[bytes] = (subprocess.PIPE if input is not None else stdin if stdin is not None
                               else subprocess.DEVNULL)
    prefix = DROP_DAC if unprivileged and os.geteuid() == 0 else []
    parley = [*prefix, sys.executable, "-m", "parley", *args]
    argv = [sys.executable, "-c", _WRAPPER, limit, str(report), *parley]
    p = subprocess.Popen(argv, cwd=cwd, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, **(env or {})}, start_new_session=True)
    try:
        out, err = p.communicate(input=input, timeout=timeout)
        peak = int(report.read_text() or 0) / 1024
    except BaseException:  # our timeout, pytest-timeout's, or ^C: the go-between and parley under it go too
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise
    finally:
        report.unlink(missing_ok=True)
    return Limited(p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), peak)
