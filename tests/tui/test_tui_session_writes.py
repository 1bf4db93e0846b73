"""Pilot tests of the chat's session writes besides ratings: the tester name and the session's end time on
quitting go through the same worker queue, so a database another process holds locked never freezes the UI;
once the lock is released they are stored (and the app quits only after the end time is). The status bar
shows what is being saved beside (not instead of) a system being loaded."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from parley.store import StoreError, open_store
from parley.store import db as store_db
from parley.tui.screens import tester
from tests.tui import fakes
from tests.tui.pilot import notes, settle
from tests.tui.test_tui_rating_saves import chatting, write_lock


@pytest.fixture(autouse=True)
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write waits on a lock up to 10 s in all (the tests hold theirs well under that), not 30 s."""
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 10_000)


async def wait_exit(app: Any, pilot: Any) -> None:
    for _ in range(200):
        if app.return_code is not None:
            return
        await pilot.pause(0.05)


async def test_a_new_tester_name_waits_for_a_locked_database_while_the_ui_goes_on(tmp_path: Path) -> None:
    async with chatting(tmp_path) as (app, pilot):
        chat: Any = app.screen
        sid = chat.session.id
        with write_lock(tmp_path / "t.db") as other:
            app.action_change_tester()
            await pilot.pause()
            assert isinstance(app.screen, tester.TesterScreen)
            app.screen.query_one("#tester-name", Input).value = "bea"
            await pilot.press("enter")
            await pilot.pause(0.2)
            assert app.screen is chat and chat.status.tester == "bea"
            assert "saving the tester name" in chat.status.saving
            await pilot.press("h", "i")  # the UI answers keys while the write waits
            assert chat.query_one("#prompt", Input).value == "hi"
            assert other.execute("SELECT tester FROM sessions WHERE id = ?", [sid]).fetchone() == ("ana",)
        await settle(pilot)
        assert chat.status.saving == ""
        assert not any("not stored" in n for n in notes(app))
    assert open_store(tmp_path / "t.db").session(sid).tester == "bea"


async def test_quitting_ends_the_session_in_a_worker_then_exits(tmp_path: Path) -> None:
    async with chatting(tmp_path) as (app, pilot):
        chat: Any = app.screen
        with write_lock(tmp_path / "t.db"):
            await pilot.press("ctrl+q")
            await pilot.pause(0.2)
            assert app.return_code is None
            assert chat.status.saving == "saving the session's end time, then quitting"
            await pilot.press("h", "i")  # the UI answers keys while the end time waits
            assert chat.query_one("#prompt", Input).value == "hi"
            await pilot.press("enter")  # but no turn goes into a session being ended
            assert "being ended" in notes(app)[-1] and chat.query_one("#prompt", Input).value == "hi"
            await pilot.press("ctrl+q")  # asked again: still one end write, still waiting
            await pilot.pause(0.1)
            assert chat.ratings.saving == 1 and app.return_code is None
        await wait_exit(app, pilot)
        assert app.return_code == 0 and app.fatal is None
    assert open_store(tmp_path / "t.db").sessions()[0].ended_at is not None


async def test_an_end_time_that_cannot_be_stored_is_told_and_the_app_still_quits(tmp_path: Path) -> None:
    async with chatting(tmp_path) as (app, pilot):
        store = app.screen.session.store

        def fails(session_id: str) -> None:
            raise StoreError(f"cannot write {store.path}: disk I/O error")

        store.end_session = fails
        await pilot.press("ctrl+q")
        await wait_exit(app, pilot)
        assert app.return_code is not None
    assert app.fatal is not None and "end time was not stored" in app.fatal and "disk I/O" in app.fatal


async def test_saving_and_loading_show_side_by_side_and_the_load_stays_after_the_save(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The status bar's "saving …" has its own slot: it neither hides a "loading …" line showing at the same
    time nor takes it away when the save ends."""
    gate = threading.Event()
    monkeypatch.setattr(fakes.SlowLoadSystem, "load", lambda self, progress=None: gate.wait(30))
    async with chatting(tmp_path) as (app, pilot):
        chat: Any = app.screen
        try:
            chat.load_system("tui-slow")
            await pilot.pause(0.1)
            assert chat.status.activity == "loading tui-slow…"
            with write_lock(tmp_path / "t.db"):
                await pilot.press("escape", "2")
                await pilot.pause(0.2)
                shown = str(chat.status.render())
                assert "saving 1 rating…" in shown and "loading tui-slow…" in shown
            for _ in range(200):
                if not chat.ratings.saving:
                    break
                await pilot.pause(0.05)
            await pilot.pause()
            shown = str(chat.status.render())
            assert "saving 1" not in shown and chat.status.saving == "" and "loading tui-slow…" in shown
        finally:
            gate.set()
        await settle(pilot)
        assert chat.status.system == "tui-slow" and chat.status.activity == ""
    assert [r.relevance for r in open_store(tmp_path / "t.db").turn_ratings()] == [2]
