"""Typed means stored, as real processes in a pseudo-terminal: settings that cannot be read refuse to start
(one line, exit 2, before the screen opens); kill -9 while a system loads loses no typed turn; SIGTERM and
SIGHUP end the chat and ``parley rate`` as ctrl+c ends a command (end time stored, one line, exit code 128 +
the signal); a database another program holds locked never freezes the chat, even with a remote turn in
flight. The busiest ones run idle and beside a spinning CPU."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_tui_process import Tui, in_pty, last_line, tui_env
from tests.load import load
from tests.stored import sessions, user_rows, user_turns, wait_for

REPO = Path(__file__).resolve().parents[2]
ALT_SCREEN = b"\x1b[?1049h"  # what a Textual app sends first: the TUI opened

__all__ = ["load"]  # the fixture, imported for its use here

pytestmark = pytest.mark.subprocess


def exit_code(tui: Tui, seconds: float = 120.0) -> int | None:
    """The process's exit code once it ended (None: it still runs: a hang)."""
    try:
        return tui.proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def said(tui: Tui) -> str:
    """The last line printed (after the TUI restored the terminal; the terminal's echo of typed keys and a
    screen's escape codes come before it)."""
    lines = last_line(tui.screen.decode("utf-8", "replace").replace("\r", "")).splitlines()
    return lines[-1] if lines else ""


# -- settings that cannot be read ----------------------------------------------------------------------------
BROKEN = [("[[[", "Invalid"), ('seed = "nan"', "seed: must be a whole number, got 'nan'"),
          ('show_internals = "maybe"', "show_internals: must be true or false")]


@pytest.mark.parametrize(("text", "problem"), BROKEN)
def test_broken_settings_refuse_to_start_the_chat_with_one_line(tmp_path: Path, text: str,
                                                                 problem: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text + "\n", encoding="utf-8")
    db = tmp_path / "t.db"
    with in_pty(["--db", str(db), "--tester", "ana", "--system", "echo"], tmp_path) as tui:
        tui.press(b"hello\r")
        code = exit_code(tui)
    assert code == 2, f"exit code {code}: {bytes(tui.screen[-300:])!r}"
    assert ALT_SCREEN not in tui.screen  # refused before the screen opened: nothing typed was taken
    line = said(tui)
    assert "Traceback" not in tui.screen.decode("utf-8", "replace")
    assert line.startswith(f"parley: error: cannot read settings from {config}: ") and problem in line
    assert not db.exists() and config.read_text(encoding="utf-8") == text + "\n"


@pytest.mark.parametrize(("text", "problem"), BROKEN)
def test_broken_settings_refuse_parley_rate_the_same_way(tmp_path: Path, text: str, problem: str) -> None:
    (tmp_path / "config.toml").write_text(text + "\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "parley", "rate", "--db", str(tmp_path / "r.db"),
                             "--rater", "ana"], env=tui_env(tmp_path), capture_output=True, text=True,
                            timeout=120, cwd=REPO, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"parley: error: cannot read settings from {tmp_path / 'config.toml'}: ")
    assert problem in result.stderr


# -- kill -9 while the system loads --------------------------------------------------------------------------
@pytest.mark.usefixtures("load")
def test_kill_9_while_the_system_loads_loses_no_typed_turn(tmp_path: Path) -> None:
    db, gate = tmp_path / "t.db", tmp_path / "load-now"
    args = ["--db", str(db), "--tester", "ana", "--system", "tui-hold"]
    with in_pty(args, tmp_path, "tests.integration.fake_launcher", PARLEY_TEST_GATE=str(gate)) as tui:
        assert tui.shown(b"ype to the system"), "the chat did not start"
        tui.press(b"hello\r")
        assert wait_for(lambda: user_turns(db) == [("hello", "pending")]), "not stored while loading"
        assert not gate.exists() and tui.proc.poll() is None
        os.killpg(tui.proc.pid, signal.SIGKILL)
        tui.proc.wait(30)
    assert user_turns(db) == [("hello", "pending")]
    assert sessions(db) == [("tui-hold", None)]  # the record names the system it was for


# -- SIGTERM and SIGHUP --------------------------------------------------------------------------------------
@pytest.fixture
def slow_bot() -> Iterator[str]:
    from tests.bots import serving

    with serving(latency=60) as bot:
        yield f"{bot.url}/ok"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.usefixtures("load")
def test_sigterm_and_sighup_end_the_chat_as_ctrl_c_ends_a_command(tmp_path: Path, slow_bot: str,
                                                                  sig: int) -> None:
    db = tmp_path / "t.db"
    system = f"remote:url={slow_bot},timeout=60,retries=0"
    with in_pty(["--db", str(db), "--tester", "ana", "--system", system], tmp_path) as tui:
        assert tui.shown(b"ype to the system"), "the chat did not start"
        tui.press(b"one\r")
        assert wait_for(lambda: user_turns(db) == [("one", "pending")]), user_turns(db)
        tui.press(b"two\r")
        assert wait_for(lambda: user_turns(db) == [("one", "pending"), ("two", "pending")]), user_turns(db)
        tui.proc.send_signal(sig)
        code = exit_code(tui)
    assert code == 128 + sig, f"exit code {code}"
    how = f"{'hung up' if sig == signal.SIGHUP else 'terminated'} ({signal.Signals(sig).name})"
    line = said(tui)
    assert line.startswith(f"parley: {how}: session ") and "2 waiting turn(s) stored as cancelled" in line
    assert "Traceback" not in tui.screen.decode("utf-8", "replace")
    reason = f"never sent: parley was {how}"
    assert user_rows(db) == [("one", "cancelled", reason), ("two", "cancelled", reason)]
    ((_, ended),) = sessions(db)
    assert ended is not None


def test_sigterm_ends_parley_rate_with_one_line(tmp_path: Path) -> None:
    from tests.tui.annotate_fixtures import corpus_store

    corpus_store(tmp_path).close()
    db = tmp_path / "rate.db"
    with in_pty(["rate", "--db", str(db), "--rater", "ana"], tmp_path) as tui:
        assert tui.shown(b"HOTEL1") or tui.shown(b"rate"), "parley rate did not start"
        tui.proc.send_signal(signal.SIGTERM)
        code = exit_code(tui)
    assert code == 143, f"exit code {code}"
    assert said(tui) == f"parley: terminated (SIGTERM): the ratings given are stored in {db}"


# -- a database another program holds locked -----------------------------------------------------------------
@pytest.mark.usefixtures("load")
def test_a_locked_database_with_a_remote_turn_in_flight_never_freezes_the_chat(tmp_path: Path) -> None:
    from tests.bots import serving

    db = tmp_path / "t.db"
    with serving(latency=3) as bot, in_pty(
            ["--db", str(db), "--tester", "ana", "--system", f"remote:url={bot.url}/ok,retries=0"],
            tmp_path) as tui:
        assert tui.shown(b"ype to the system"), "the chat did not start"
        tui.press(b"first\r")
        assert wait_for(lambda: bot.hits != []), "the bot was never asked"
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program's write transaction
        try:
            tui.press(b"second\r")
            assert tui.shown(b"saving"), "the turn was not shown as being saved"  # the lock is held
            tui.press(b"zqxw")
            assert tui.shown(b"zqxw"), "the keys were not echoed"  # while the lock is held
            assert other.execute("SELECT count(*) FROM turns WHERE text = 'second'").fetchone() == (0,)
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert wait_for(lambda: user_turns(db) == [("first", "ok"), ("second", "ok")]), user_turns(db)
