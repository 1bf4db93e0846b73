"""Snapshots of what the chat shows while typed turns wait: for a system that failed to load (the picker that
can cancel them, the quit dialog without "finish"), and for a database another program holds locked (the
turns "saving…", the question before quitting without them)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from parley.store import db as store_db
from parley.tui.screens.confirm import QuitScreen, UnstoredScreen
from parley.tui.screens.picker import ModelPickerScreen
from tests.stored import user_turns
from tests.tui.pilot import notes, settle, until
from tests.tui.test_tui_snapshots import SIZE, stable_app


async def failed_load_with_a_turn(pilot: Any) -> None:
    await pilot.press(*"first", "enter")
    await until(pilot, lambda: any("Could not load" in n for n in notes(pilot.app)), "the load failed")
    await until(pilot, lambda: user_turns(Path("parley.db")) == [("first", "pending")], "stored")
    await until(pilot, lambda: pilot.app.screen.dialogue.unstored == 0, "shown as stored")
    pilot.app.clear_notifications()  # the failure's toast times out: shown or not by the machine's speed
    await pilot.pause()


def after_a_failed_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any, key: str,
                        screen: type, size: tuple[int, int]) -> bool:
    """The chat after ``tui-missing`` failed to load with a turn typed, then ``key`` pressed (opening
    ``screen``)."""
    app = stable_app(tmp_path, monkeypatch, system_spec="tui-missing")

    async def run(pilot: Any) -> None:
        await failed_load_with_a_turn(pilot)
        await pilot.press(key)
        await until(pilot, lambda: isinstance(pilot.app.screen, screen), screen.__name__)
        await settle(pilot)

    return bool(snap_compare(app, terminal_size=size, run_before=run))


def test_picker_after_a_failed_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    snap_compare: Any) -> None:
    assert after_a_failed_load(tmp_path, monkeypatch, snap_compare, "f5", ModelPickerScreen, (110, 44))


def test_quit_dialog_with_no_system_to_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              snap_compare: Any) -> None:
    assert after_a_failed_load(tmp_path, monkeypatch, snap_compare, "ctrl+q", QuitScreen, SIZE)


def test_quitting_without_turns_the_database_does_not_take(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           snap_compare: Any) -> None:
    """The database is locked: the typed turn shows "saving…", the status bar says why, quitting asks."""
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)  # refused at once, so the reason is shown
    app = stable_app(tmp_path, monkeypatch)
    locks: list[sqlite3.Connection] = []

    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press(*"hello", "enter")
        await until(pilot, lambda: len(user_turns(Path("parley.db"))) == 1, "the first turn stored")
        await settle(pilot)
        other = sqlite3.connect("parley.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        locks.append(other)
        chat = pilot.app.screen
        await pilot.press(*"one more", "enter", "ctrl+q", "c")
        await until(pilot, lambda: chat.dialogue.problem != "", "refused")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(pilot.app.screen, UnstoredScreen), "asked")
        pilot.app.clear_notifications()
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run)
    finally:
        for other in locks:
            other.execute("ROLLBACK")
            other.close()
