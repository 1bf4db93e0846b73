"""Running ``parley`` as a user would: in-process (CliRunner, exceptions not caught, so a traceback fails the
test) or as a subprocess, optionally without root's power to override file permissions, so that read-only
files stay read-only when the suite runs as root."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from parley.cli import main

REPO = Path(__file__).resolve().parents[2]
# Root keeps its uid (so a private /root holding the interpreter stays reachable) but loses the two
# capabilities that let it ignore file modes.
DROP_DAC = ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
            "--bounding-set=-dac_override,-dac_read_search", "--"]


def cli(args: Sequence[str], input: str | bytes | None = None) -> Result:
    """``parley ARGS`` in-process; an exception other than SystemExit propagates (that is a traceback)."""
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def one_line_error(r: Any) -> str:
    """Assert the run ended with exit 2 and one ``parley: error:`` line (no traceback); return that line."""
    out = r.output if hasattr(r, "output") else (r.stdout or "") + (r.stderr or "")
    code = r.exit_code if hasattr(r, "exit_code") else r.returncode
    assert code == 2, out
    assert "Traceback" not in out, out
    errors = [ln for ln in out.splitlines() if ln.startswith("parley: error: ")]
    assert len(errors) == 1, out
    return errors[0]


def run(args: Sequence[str], *, cwd: Path, input: bytes | None = None, env: dict[str, str] | None = None,
        unprivileged: bool = False, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``python -m parley ARGS`` in a fresh process (when ``unprivileged`` and running as root: without the
    capabilities that override file modes)."""
    prefix = DROP_DAC if unprivileged and os.geteuid() == 0 else []
    p = subprocess.run([*prefix, sys.executable, "-m", "parley", *args], cwd=cwd, input=input,
                       capture_output=True, env={**os.environ, **(env or {})}, timeout=timeout)
    return subprocess.CompletedProcess(p.args, p.returncode, p.stdout.decode("utf-8", "replace"),
                                       p.stderr.decode("utf-8", "replace"))


@contextmanager
def shared_dir() -> Iterator[Path]:
    """A folder an unprivileged user can enter (pytest's own temp folders are private to root)."""
    d = Path(tempfile.mkdtemp(prefix="parley-ro-"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        for p in d.rglob("*"):
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(d, ignore_errors=True)


def env_in(d: Path) -> dict[str, str]:
    """PARLEY_* paths inside ``d`` (for processes run as another user)."""
    return {"PARLEY_CONFIG": str(d / "config.toml"), "PARLEY_DB": str(d / "default.db"),
            "PARLEY_DATA": str(d / "data"), "PARLEY_CACHE": str(d / "cache"), "HOME": str(d)}


def _cpu_ticks(pid: int) -> tuple[str, int]:
    """The main thread's state letter and the process's CPU time in clock ticks (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return fields[0], int(fields[11]) + int(fields[12])


def wait_blocked(proc: subprocess.Popen[str], quiet: float = 1.0, budget: float = 120.0) -> None:
    """Until ``proc`` sleeps without using the CPU for ``quiet`` seconds: started up and blocked on its read
    (a fixed pause is not enough on a loaded machine, where a SIGINT during start-up ends Python itself)."""
    deadline = time.monotonic() + budget
    last, since = _cpu_ticks(proc.pid)[1], time.monotonic()
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        state, ticks = _cpu_ticks(proc.pid)
        if state != "S" or ticks != last:
            last, since = ticks, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
