"""SIGTERM and SIGHUP end every command as ctrl+c does: what was stored stays stored (a session gets its end
time), one line on stderr naming the signal, and the shell's exit code for it (143, 129). Real processes,
real signals, idle and beside a spinning CPU."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from parley import signals
from tests.bots import serving
from tests.corpora import write_corpus
from tests.load import load
from tests.stored import default_signals, wait_for
from tests.unit.clihelpers import REPO, wait_blocked
from tests.unit.storehelpers import count_rows

__all__ = ["load"]  # the fixture, imported for its use here

pytestmark = pytest.mark.subprocess

SIGNALS = [signal.SIGTERM, signal.SIGHUP]


def _start(args: list[str], stdin: int | None = subprocess.PIPE,
           preexec: Callable[[], None] = default_signals) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "parley", *args], cwd=REPO, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec)


def _end(proc: subprocess.Popen[str], sig: int) -> tuple[int, str]:
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def _one_line(err: str, sig: int) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    said = [ln for ln in lines if ln.startswith("parley: ")]
    assert len(said) == 1 and lines[-1] == said[0] and "Traceback" not in err, err
    assert said[0].startswith(f"parley: {signals.describe(sig)}"), said[0]
    return said[0]


@pytest.mark.parametrize("sig", SIGNALS)
@pytest.mark.usefixtures("load")
def test_chat_script_ended_by_a_signal_stores_its_end_time(tmp_path: Path, sig: int) -> None:
    db = tmp_path / "p.db"
    script = tmp_path / "script.txt"
    script.write_text("".join(f"turn {i}\n" for i in range(20)), encoding="utf-8")
    with serving(latency=0.5) as bot:
        proc = _start(["chat", "--system", f"remote:url={bot.url}/ok", "--script", str(script),
                       "--db", str(db)], stdin=subprocess.DEVNULL)
        assert wait_for(lambda: count_rows(db, "SELECT count(*) FROM turns WHERE role = 'system'") >= 2
                        or proc.poll() is not None)
        code, err = _end(proc, sig)
    assert code == 128 + sig, err
    line = _one_line(err, sig)
    assert "session " in line and "stored in" in line
    with sqlite3.connect(db) as conn:
        answered = conn.execute("SELECT count(*) FROM turns WHERE role = 'system'").fetchone()[0]
        ended = conn.execute("SELECT ended_at FROM sessions").fetchall()
    assert 2 <= answered < 20 and len(ended) == 1 and ended[0][0] is not None


@pytest.mark.parametrize("sig", SIGNALS)
def test_a_command_reading_a_pipe_ends_on_a_signal_with_one_line(sig: int) -> None:
    proc = _start(["rewrite", "-r", "disfluency"])
    assert proc.stdin is not None
    proc.stdin.write("a first line\n")  # the pipe stays open: parley waits for the rest
    proc.stdin.flush()
    wait_blocked(proc)  # started up and blocked on its read
    code, err = _end(proc, sig)
    assert code == 128 + sig, err
    assert _one_line(err, sig) == f"parley: {signals.describe(sig)}"


def test_run_ended_by_sigterm_keeps_what_it_stored_and_says_how_to_resume(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.json", 30)
    db = tmp_path / "r.db"
    with serving(latency=0.2) as bot:
        proc = _start(["run", "--system", f"remote:url={bot.url}/ok", "--dialogues", str(corpus),
                       "--condition", "original", "--json", "--bootstrap", "50", "--db", str(db)],
                      stdin=subprocess.DEVNULL)
        items = "SELECT count(*) FROM run_items"
        assert wait_for(lambda: count_rows(db, items) >= 2 or proc.poll() is not None)
        code, err = _end(proc, signal.SIGTERM)
    assert code == 143, err
    line = _one_line(err, signal.SIGTERM)
    assert "dialogues of run" in line and "--resume" in line


def test_a_signal_the_command_was_started_ignoring_stays_ignored() -> None:
    def nohup() -> None:  # as `nohup parley rewrite …` starts it
        default_signals()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    proc = _start(["rewrite", "-r", "disfluency"], preexec=nohup)
    assert proc.stdin is not None
    proc.stdin.write("a first line\n")
    proc.stdin.flush()
    wait_blocked(proc)  # started up and blocked on its read
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate("a second line\n", timeout=120)
    assert proc.returncode == 0 and len(out.splitlines()) == 2, err


def test_the_line_and_the_exit_code_name_the_signal() -> None:
    assert [signals.exit_code(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)] == [130, 143, 129]
    assert signals.reword("", signal.SIGINT) == "interrupted"
    assert signals.reword("interrupted: session 1", signal.SIGTERM) == "terminated (SIGTERM): session 1"
    assert signals.reword("3 of 9 stored", signal.SIGHUP) == "hung up (SIGHUP): 3 of 9 stored"
    assert signals.signum_of(signals.Terminated(signal.SIGHUP)) == signal.SIGHUP
