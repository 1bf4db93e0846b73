"""The chat TUI as a real process: on a database it cannot use it prints one line and exits 2; killed with -9
while a slow bot answers, every turn the tester typed is already in SQLite (pending)."""

from __future__ import annotations

import fcntl
import os
import pty
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from parley.store import open_store
from tests.unit.clihelpers import DROP_DAC

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]


def tui_env(home: Path) -> dict[str, str]:
    env = {**os.environ, "PARLEY_CONFIG": str(home / "config.toml"), "PARLEY_DATA": str(home / "data"),
           "PARLEY_CACHE": str(home / "cache"), "TERM": "xterm-256color", "PYTHONPATH": str(REPO)}
    env.pop("PARLEY_DB", None)
    return env


def run_tui(db: Path, home: Path, *, obey_modes: bool = False) -> subprocess.CompletedProcess[str]:
    """``parley --db DB`` with no terminal input; ``obey_modes``: as root, without the power to override file
    modes."""
    prefix = DROP_DAC if obey_modes and os.geteuid() == 0 else []
    command = [*prefix, sys.executable, "-m", "parley", "--db", str(db), "--system", "echo",
               "--tester", "ana"]
    return subprocess.run(command, env=tui_env(home), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120, cwd=home)


def last_line(stderr: str) -> str:
    """The one line printed after the TUI restored the terminal (the screen's escape codes come before)."""
    tail = stderr.rsplit("\x1b[?1006l", 1)[-1]
    return tail.strip()


def check_refused(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 2, result.stderr[-500:]
    line = last_line(result.stderr)
    assert line.startswith("parley: error: ") and words in line and "\n" not in line, line
    assert "Traceback" not in result.stderr


def test_a_text_file_is_refused_with_one_line_and_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_text("I am a text file, not a database\n")
    check_refused(run_tui(db, tmp_path), "is not a SQLite database")
    assert db.read_text() == "I am a text file, not a database\n"  # untouched


def test_a_database_from_a_newer_parley_is_refused_with_one_line_and_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    open_store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                     "VALUES ('parley', 'm999_from_the_future', 'x')")
    check_refused(run_tui(db, tmp_path), "newer parley")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder another user may enter (pytest's tmp_path sits inside a folder only its owner can)."""
    path = Path(tempfile.mkdtemp(prefix="parley-ro-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_read_only_database_is_refused_with_one_line_and_exit_2(shared_dir: Path) -> None:
    db = shared_dir / "ro.db"
    open_store(db).close()
    before = db.read_bytes()
    db.chmod(0o444)
    check_refused(run_tui(db, shared_dir, obey_modes=True), "cannot write")
    assert db.read_bytes() == before


# -- kill -9 with turns typed against a slow bot -------------------------------------------------------------
@pytest.fixture
def slow_bot() -> Iterator[str]:
    """A parley-protocol bot that takes a minute to answer (tests.bots, /ok after 60 s)."""
    from tests.bots import serving

    with serving(latency=60) as bot:
        yield f"{bot.url}/ok"


def user_turns(db: Path) -> list[tuple[str, str]]:
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        sql = "SELECT text, status FROM turns WHERE role = 'user' ORDER BY \"index\""
        rows = conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # not created yet
        rows = []
    finally:
        conn.close()
    return [(str(t), str(s)) for t, s in rows]


def wait_for(predicate, seconds: float = 90.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


class Tui:
    """``parley`` running in a pseudo-terminal (100x30): what it has shown, and keys to send it."""

    def __init__(self, proc: subprocess.Popen[bytes], master: int) -> None:
        self.proc, self.master, self.screen = proc, master, bytearray()

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def shown(self, text: bytes, seconds: float = 90.0) -> bool:
        return wait_for(lambda: text in self.screen, seconds)


@contextmanager
def in_pty(args: list[str], home: Path, module: str = "parley", **env: str) -> Iterator[Tui]:
    """``python -m MODULE ARGS`` in a 100x30 pseudo-terminal, with SIGINT, SIGTERM and SIGHUP at their
    defaults (as from a terminal, even when the suite runs under nohup); its process group is killed when the
    block ends."""
    from tests.stored import default_signals

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", module, *args], env={**tui_env(home), **env}, stdin=slave,
                            stdout=slave, stderr=slave, cwd=home, start_new_session=True,
                            preexec_fn=default_signals)
    os.close(slave)
    tui = Tui(proc, master)

    def drain() -> None:  # keep the terminal's buffer flowing, and remember what was shown
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            tui.screen.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield tui
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        reader.join(10)
        os.close(master)


@contextmanager
def tui_in_pty(db: Path, home: Path, system: str) -> Iterator[Tui]:
    """The TUI as a process on ``db`` with ``system``; its process group is killed when the block ends."""
    with in_pty(["--db", str(db), "--tester", "ana", "--system", system], home) as tui:
        yield tui


@pytest.mark.skipif(not shutil.which("true"), reason="needs a POSIX system")
def test_kill_9_with_three_turns_typed_against_a_slow_bot_keeps_all_three(tmp_path: Path,
                                                                          slow_bot: str) -> None:
    db = tmp_path / "t.db"
    with tui_in_pty(db, tmp_path, f"remote:url={slow_bot},timeout=60,retries=0") as tui:
        assert tui.shown(b"ype to the system"), "the chat did not start"
        assert tui.shown(b"remote:url="), "the system did not load"
        tui.press(b"one\r")
        assert wait_for(lambda: len(user_turns(db)) == 1), "the first turn was not stored"
        for n, text in enumerate((b"two\r", b"three\r"), start=2):  # while the bot still thinks about "one"
            tui.press(text)
            assert wait_for(lambda n=n: len(user_turns(db)) == n, 30), f"stored: {user_turns(db)}"
    assert user_turns(db) == [("one", "pending"), ("two", "pending"), ("three", "pending")]
    store = open_store(db)
    (session,) = store.sessions()
    assert session.tester == "ana" and [t.role for t in store.turns(session.id)] == ["user"] * 3


# -- quitting while a remote bot trickles its reply --------------------------------------------------------
@pytest.mark.skipif(not shutil.which("true"), reason="needs a POSIX system")
def test_quit_while_a_bot_trickles_cancels_and_exits_within_two_seconds(tmp_path: Path) -> None:
    """A bot trickling a byte every 1.5 s (deadlines far away) must not hold the TUI: ctrl+q, then
    "cancel", ends the process within 2 s and keeps the turn as ``cancelled``."""
    from tests.bots import serving

    db = tmp_path / "t.db"
    with serving() as bot, tui_in_pty(
            db, tmp_path, f"remote:url={bot.url}/trickle,timeout=60,turn_timeout=60,retries=0") as tui:
        # the prompt is up; a turn typed before the system is loaded waits for it (the bot being asked proves
        # the load: the status bar's text may reach the terminal in pieces on a busy machine)
        assert tui.shown(b"ype to the system"), "the chat did not start"
        tui.press(b"one\r")
        assert wait_for(lambda: user_turns(db) == [("one", "pending")], 120), "the turn was not stored"
        assert wait_for(lambda: bot.hits != [], 120), "the bot was never asked"
        tui.press(b"\x11")  # ctrl+q
        assert tui.shown(b"Cancel them", 30), "no quit dialog"
        tui.press(b"c")
        t0 = time.monotonic()
        try:
            tui.proc.wait(timeout=45)
        except subprocess.TimeoutExpired:
            pytest.fail("the TUI did not exit within 45 s of cancel")
        took = time.monotonic() - t0
    assert took < 30, f"exit took {took:.1f} s (the turn's own timeout is 60 s)"
    assert tui.proc.returncode == 0
    assert user_turns(db) == [("one", "cancelled")]
    (session,) = open_store(db).sessions()
    assert session.ended_at is not None
