"""Pilot tests of rating writes in the chat: they run in a worker, so a database another process holds locked
never freezes the UI; what is shown as rated is stored; the session locks (and its rating keys leave the
footer) only once the dialogue rating committed; ctrl+n and quitting during a pending write lose nothing."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, TextArea

from parley.store import StoreError, open_store
from parley.store import db as store_db
from parley.tui.app import ParleyApp
from parley.tui.screens.rating import DialogueRatingScreen
from tests.tui import fakes
from tests.tui.pilot import notes, say, settle, until

fakes.register()


@pytest.fixture(autouse=True)
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write waits on a lock up to 10 s in all (the tests hold theirs well under that; the app's own
    connections open after this), not the default 30 s."""
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 10_000)


def make_app(tmp_path: Path, system: str = "tui-fake") -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester="ana", seed=7)


@asynccontextmanager
async def chatting(tmp_path: Path, size: tuple[int, int] = (100, 40)) -> AsyncIterator[tuple[ParleyApp, Any]]:
    """The chat, started, after one exchange ("hello") with the fake system."""
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        yield app, pilot


@contextmanager
def write_lock(path: Path) -> Iterator[sqlite3.Connection]:
    """Another process's write transaction on the database (BEGIN IMMEDIATE) until the block ends."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield other
    finally:
        other.execute("ROLLBACK")
        other.close()


def turn_ratings(tmp_path: Path) -> list[tuple[int | None, int | None]]:
    return [(r.relevance, r.interestingness) for r in open_store(tmp_path / "t.db").turn_ratings()]


def actions(chat: Any) -> dict[str, bool]:
    """The chat's bindings the footer shows now: action → enabled."""
    return {b.binding.action: b.enabled for b in chat.active_bindings.values()}


async def test_a_turn_rating_waits_for_a_locked_database_while_the_ui_goes_on(tmp_path: Path) -> None:
    async with chatting(tmp_path) as (app, pilot):
        chat: Any = app.screen
        view = chat.log_view.system_views()[0]
        with write_lock(tmp_path / "t.db") as other:
            await pilot.press("escape", "2")
            await pilot.pause(0.2)
            assert view.saving == {"relevance": 2} and view.ratings["relevance"] is None
            assert "saving…" in str(view.query_one(".ratings").render())
            assert chat.status.saving == "saving 1 rating…"
            await pilot.press("tab")  # the UI still answers keys while the write waits
            assert chat.log_view.aspect.key == "relevance"
            await pilot.press("h", "i")
            assert chat.query_one("#prompt", Input).value == "hi"
            assert other.execute("SELECT count(*) FROM turn_ratings").fetchone() == (0,)
        await settle(pilot)
        assert view.ratings["relevance"] == 2 and view.saving == {}
        assert "saving" not in str(view.query_one(".ratings").render())
        assert chat.status.saving == ""
    assert turn_ratings(tmp_path) == [(2, None)]


async def test_two_quick_ratings_of_a_turn_are_both_stored(tmp_path: Path) -> None:
    """Each write carries both aspects as stored: the second, given while the first waits, keeps the first."""
    async with chatting(tmp_path) as (app, pilot):
        with write_lock(tmp_path / "t.db"):
            await pilot.press("escape", "3", "1")
            await pilot.pause(0.1)
            assert app.screen.ratings.saving == 2
        await settle(pilot)
    assert turn_ratings(tmp_path) == [(3, 1)]


async def test_the_session_locks_only_once_the_dialogue_rating_committed(tmp_path: Path) -> None:
    async with chatting(tmp_path, size=(100, 45)) as (app, pilot):
        chat: Any = app.screen
        assert actions(chat)["rate_mode"] and actions(chat)["end_dialogue"]
        with write_lock(tmp_path / "t.db"):
            await pilot.press("ctrl+r")
            await pilot.pause()
            await pilot.press("3", "2", "1", "0", "4")
            app.screen.query_one("#justification", TextArea).text = "fine"
            await pilot.press("ctrl+s")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, DialogueRatingScreen)
            assert not chat.locked and chat.ratings.locking
            assert chat.status.saving == "saving the dialogue rating…"
            assert not any(n.startswith("Dialogue rating stored") for n in notes(app))
            state = actions(chat)  # greyed out while it is being saved
            assert not state["rate_mode"] and not state["end_dialogue"] and not state["new_session"]
            chat.query_one("#prompt", Input).value = "one more thing"
            await pilot.press("enter")
            assert "being saved" in notes(app)[-1]
        await settle(pilot)
        assert chat.locked and notes(app)[-1].startswith("Dialogue rating stored")
        state = actions(chat)  # locked: the rating keys are gone from the footer
        assert "rate_mode" not in state and "end_dialogue" not in state and state["new_session"]
        app.run_chat_action("end_dialogue")  # the palette still answers, with the reason
        await pilot.pause()
        assert "already rated" in notes(app)[-1]
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert not chat.locked and actions(chat)["end_dialogue"]
    store = open_store(tmp_path / "t.db")
    first = store.sessions()[-1]
    assert first.locked and [t.role for t in store.turns(first.id)] == ["user", "system"]
    assert len(store.dialogue_ratings(first.id)) == 1


async def test_ctrl_n_during_a_pending_turn_rating_keeps_it(tmp_path: Path) -> None:
    async with chatting(tmp_path) as (app, pilot):
        chat: Any = app.screen
        first = chat.session.id
        with write_lock(tmp_path / "t.db"):
            await pilot.press("escape", "2", "escape", "ctrl+n")
            await pilot.pause(0.1)
        await settle(pilot)
        assert chat.session.id != first and not any("not stored" in n for n in notes(app))
    store = open_store(tmp_path / "t.db")
    (r,) = store.turn_ratings()
    assert r.relevance == 2
    assert store.session(first).ended_at is not None  # ended in a worker: the lock never held the UI


async def test_quit_during_a_pending_rating_waits_for_it(tmp_path: Path) -> None:
    async with chatting(tmp_path) as (app, pilot):
        with write_lock(tmp_path / "t.db"):
            await pilot.press("escape", "3", "ctrl+q")
            await pilot.pause(0.2)
            assert app.return_code is None and app.screen.status.saving == "saving 1 rating, then quitting"
        for _ in range(200):
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
        assert app.return_code == 0
    assert turn_ratings(tmp_path) == [(3, None)]
    assert open_store(tmp_path / "t.db").sessions()[0].ended_at is not None


async def test_a_rating_that_fails_while_quitting_stops_the_quit_and_says_so(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    release = threading.Event()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        chat: Any = app.screen
        store = chat.session.store

        def fails(rating: Any) -> Any:
            release.wait(10)
            raise StoreError(f"cannot write {store.path}: disk I/O error")

        store.rate_turn = fails
        await pilot.press("escape", "3", "ctrl+q")
        await pilot.pause(0.1)
        assert app.return_code is None and chat.quitting
        release.set()
        await settle(pilot)
        assert app.return_code is None and not chat.quitting
        shown = notes(app)
        assert any("Rating not stored" in n and "disk I/O error" in n for n in shown)
        assert "Not quitting" in shown[-1]
        view = chat.log_view.system_views()[0]
        assert view.ratings["relevance"] is None and view.saving == {}


async def test_rating_a_turn_while_the_next_reply_is_generated(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-gate")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "first")
        fakes.GATE.clear()
        try:
            app.screen.query_one("#prompt", Input).value = "second"
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("escape", "2", "3")  # the first reply, while the second is being made
            for _ in range(100):
                if not app.screen.ratings.saving:
                    break
                await pilot.pause(0.05)
            assert turn_ratings(tmp_path) == [(2, 3)]
            await pilot.press("ctrl+r")  # no dialogue rating while a turn waits
            assert "Wait for the system" in notes(app)[-1]
        finally:
            fakes.GATE.set()
        await settle(pilot)
        assert len(app.screen.log_view.system_views()) == 2


async def test_a_dialogue_rating_given_while_turn_ratings_wait_is_stored_after_them(tmp_path: Path) -> None:
    """The store refuses turn ratings of a locked dialogue: the dialogue rating waits behind them."""
    async with chatting(tmp_path, size=(100, 45)) as (app, pilot):
        chat: Any = app.screen
        with write_lock(tmp_path / "t.db"):
            await pilot.press("escape", "3", "2", "escape", "ctrl+r")
            await pilot.pause()
            await pilot.press("1", "1", "1", "1", "1")
            app.screen.query_one("#justification", TextArea).text = "ok"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: chat.ratings.locking, "the form's dialogue rating queued")
            assert chat.ratings.saving == 3 and not chat.locked  # behind the two turn ratings, none stored
        await settle(pilot)
        assert chat.locked and not any("not stored" in n for n in notes(app))
    assert turn_ratings(tmp_path) == [(3, 2)]
    assert len(open_store(tmp_path / "t.db").dialogue_ratings()) == 1


async def test_ctrl_q_in_the_dialogue_rating_form_does_not_drop_the_answers(tmp_path: Path) -> None:
    async with chatting(tmp_path, size=(100, 45)) as (app, pilot):
        await pilot.press("ctrl+r")
        await pilot.pause()
        await pilot.press("3", "2", "ctrl+q")
        await pilot.pause()
        assert app.return_code is None and isinstance(app.screen, DialogueRatingScreen)
        assert "ctrl+s" in notes(app)[-1] and app.screen.values()["understanding"] == 3
        await pilot.press("escape", "ctrl+q")  # cancelled: nothing is pending, so ctrl+q quits
        for _ in range(100):
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
        assert app.return_code == 0
