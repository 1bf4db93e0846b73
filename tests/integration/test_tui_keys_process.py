"""The chat as a real process in a pseudo-terminal, sent keys the way a terminal sends a burst (one write: a
fast typist, tmux send-keys, a paste): every turn and rating lands once, in order, with the machine idle and
with every core busy. Each test waits on the database, then quits with ctrl+q and reads it again."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_tui_process import Tui, tui_in_pty, user_turns, wait_for
from tests.load import load  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.subprocess,
              pytest.mark.skipif(not shutil.which("true"), reason="needs a POSIX system"),
              pytest.mark.usefixtures("load")]

THREE = ["first turn alpha", "second turn beta", "third turn gamma"]


@pytest.fixture
def slow_bot() -> Iterator[str]:
    """A parley-protocol bot that takes a second over every answer."""
    from tests.bots import serving

    with serving(latency=1.0) as bot:
        yield f"remote:url={bot.url}/ok,timeout=30,retries=0"


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    except sqlite3.OperationalError:  # not created yet
        return []


def ratings(db: Path) -> list[tuple[Any, ...]]:
    return rows(db, "SELECT relevance, interestingness FROM turn_ratings")


def answered(db: Path) -> int:
    return len(rows(db, "SELECT id FROM turns WHERE role = 'system' AND status = 'ok'"))


def ready(tui: Tui, db: Path) -> None:
    """The chat is up and its system answers (a first turn typed before the load would also wait for it)."""
    assert tui.shown(b"ype to the system", 120), "the chat did not start"
    tui.press(b"ready\r")
    assert wait_for(lambda: answered(db) == 1, 120), f"no first answer: {user_turns(db)}"


def quit_and_wait(tui: Tui) -> None:
    tui.press(b"\x11")  # ctrl+q: every turn is answered, so it quits at once
    try:
        tui.proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the chat did not quit")
    shown = re.sub(rb"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b[()][A-Z0-9]|\x1b[=>]", b"", bytes(tui.screen))
    assert tui.proc.returncode == 0, shown[-3000:].decode(errors="replace")


def test_three_turns_written_in_one_burst_are_three_turns(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with tui_in_pty(db, tmp_path, "echo") as tui:
        ready(tui, db)
        tui.press(("\r".join(THREE) + "\r").encode())
        assert wait_for(lambda: answered(db) == 4, 120), f"stored: {user_turns(db)}"
        quit_and_wait(tui)
    assert user_turns(db) == [("ready", "ok")] + [(t, "ok") for t in THREE]


def test_three_turns_in_one_burst_to_a_slow_bot_are_all_stored_and_answered(tmp_path: Path,
                                                                             slow_bot: str) -> None:
    db = tmp_path / "t.db"
    with tui_in_pty(db, tmp_path, slow_bot) as tui:
        ready(tui, db)
        tui.press(("\r".join(THREE) + "\r").encode())
        assert wait_for(lambda: len(user_turns(db)) == 4, 120), f"stored: {user_turns(db)}"
        assert [t for t, _ in user_turns(db)] == ["ready", *THREE]  # stored at once, before any answer
        assert wait_for(lambda: answered(db) == 4, 120), f"stored: {user_turns(db)}"
        quit_and_wait(tui)
    assert user_turns(db) == [("ready", "ok")] + [(t, "ok") for t in THREE]


def test_rating_then_typing_in_one_burst_stores_the_rating_and_the_whole_turn(tmp_path: Path) -> None:
    """escape, then "23i need a taxi⏎" in one write. A terminal sends a lone ESC as the escape key only when
    nothing follows it at once (else it is alt+key), so the test waits until rating mode shows its keys."""
    db = tmp_path / "t.db"
    with tui_in_pty(db, tmp_path, "echo") as tui:
        ready(tui, db)
        tui.press(b"\x1b")
        assert tui.shown(b"Somewhat", 120), "rating mode did not open"
        tui.press(b"23i need a taxi\r")
        assert wait_for(lambda: answered(db) == 2 and ratings(db) == [(2, 3)], 120), (
            f"stored: {user_turns(db)}, {ratings(db)}")
        quit_and_wait(tui)
    assert user_turns(db) == [("ready", "ok"), ("i need a taxi", "ok")]
    assert ratings(db) == [(2, 3)]


def test_a_bracketed_paste_of_three_lines_is_three_turns(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with tui_in_pty(db, tmp_path, "echo") as tui:
        ready(tui, db)
        tui.press(b"\x1b[200~" + "\n".join(THREE).encode() + b"\x1b[201~")
        assert wait_for(lambda: answered(db) == 4, 120), f"stored: {user_turns(db)}"
        quit_and_wait(tui)
    assert user_turns(db) == [("ready", "ok")] + [(t, "ok") for t in THREE]
