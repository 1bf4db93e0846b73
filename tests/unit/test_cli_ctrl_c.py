"""ctrl+c ends every command with exit code 130 (the shell's code for SIGINT, as ``parley run`` always had)
and one line on stderr, never click's "Aborted!" with exit 1; what was stored stays stored. Real
processes, real SIGINT."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bots import serving
from tests.unit.clihelpers import REPO, wait_blocked
from tests.unit.storehelpers import count_rows

pytestmark = pytest.mark.subprocess


def _start(args: list[str], stdin: int | None = subprocess.PIPE) -> subprocess.Popen[str]:
    # ctrl+c as a terminal delivers it: SIGINT at its default in the child, even when the suite runs as a
    # background job whose shell set SIGINT to "ignore"
    return subprocess.Popen([sys.executable, "-m", "parley", *args], cwd=REPO, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _interrupt(proc: subprocess.Popen[str], ready: bool) -> tuple[int, str]:
    """SIGINT (once ``proc`` is blocked on its read, when ``ready``); its exit code and stderr."""
    if ready:
        wait_blocked(proc)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def _one_line(err: str) -> str:
    """The one line ctrl+c printed (a loading message may come before it)."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    said = [ln for ln in lines if ln.startswith("parley: ")]
    assert len(said) == 1 and lines[-1] == said[0] and "Traceback" not in err and "Aborted" not in err, err
    return said[0]


def test_rewrite_reading_a_pipe_exits_130() -> None:
    proc = _start(["rewrite", "-r", "disfluency"])
    assert proc.stdin is not None
    proc.stdin.write("a first line\n")  # the pipe stays open: parley waits for the rest
    proc.stdin.flush()
    code, err = _interrupt(proc, ready=True)
    assert code == 130, err
    assert "interrupted" in _one_line(err)


def test_chat_reading_its_script_from_a_pipe_exits_130(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    proc = _start(["chat", "--system", "echo", "--script", "-", "--db", str(db)])
    code, err = _interrupt(proc, ready=True)
    assert code == 130, err
    assert "interrupted" in _one_line(err)


def _turns(db: Path) -> int:
    return count_rows(db, "SELECT count(*) FROM turns WHERE role = 'system'")


def test_chat_interrupted_mid_session_keeps_what_was_stored(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    script = tmp_path / "script.txt"
    script.write_text("".join(f"turn {i}\n" for i in range(20)), encoding="utf-8")
    with serving(latency=0.5) as bot:
        url = f"{bot.url}/ok"
        proc = _start(["chat", "--system", f"remote:url={url}", "--script", str(script), "--db", str(db)],
                      stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while _turns(db) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        code, err = _interrupt(proc, ready=False)
    assert code == 130, err
    line = _one_line(err)
    assert "interrupted" in line and "stored in" in line
    with sqlite3.connect(db) as conn:
        answered = conn.execute("SELECT count(*) FROM turns WHERE role = 'system'").fetchone()[0]
        ended = conn.execute("SELECT ended_at FROM sessions").fetchall()
    assert 2 <= answered < 20 and len(ended) == 1 and ended[0][0] is not None
    assert f"{answered} user turn(s)" in line or f"{answered - 1} user turn(s)" in line
