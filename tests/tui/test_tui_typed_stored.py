"""Typed means stored, whatever fails (Pilot, keys pressed with no pause): a turn shown in the chat is
committed as pending at once — before any system has loaded, when the system fails to load (then f5 picks
another system that answers it, or cancels it) — and a database another program holds locked never freezes
the chat: typed turns wait visibly ("saving…") and are stored in order once the lock clears. Settings that
cannot be read stop the app with one line, never a silent "starting…". Each runs idle and beside a busy CPU.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from parley.store import db as store_db
from parley.tui.app import ParleyApp
from parley.tui.screens.confirm import QuitScreen, UnstoredScreen
from parley.tui.screens.picker import ModelPickerScreen
from parley.tui.widgets.chatlog import UserTurnView
from tests.load import load
from tests.stored import broken_checkpoint, sessions, user_rows, user_turns
from tests.tui import fakes
from tests.tui.pilot import notes, until
from tests.tui.test_tui_rating_saves import write_lock

fakes.register()

__all__ = ["load"]  # the fixture, imported for its use here


def make_app(tmp_path: Path, system: str) -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester="ana", seed=7)


@pytest.fixture
def load_gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """``tui-slow`` loads only once the test sets the event (60 s at most)."""
    gate = threading.Event()
    monkeypatch.setattr(fakes.SlowLoadSystem, "load", lambda self, progress=None: gate.wait(60))
    yield gate
    gate.set()


def notes_of(app: Any) -> list[str]:
    return [str(v.query_one(".note", Static).render()) for v in app.screen.query(UserTurnView)]


def system_turns(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM turns WHERE role = 'system'").fetchone()[0])


# -- before any system is loaded -----------------------------------------------------------------------------
@pytest.mark.usefixtures("load")
async def test_turns_typed_while_the_system_loads_are_stored_before_it_answers(
        tmp_path: Path, load_gate: threading.Event) -> None:
    db = tmp_path / "t.db"
    app = make_app(tmp_path, "tui-slow")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"first", "enter", *"second", "enter")  # at once, before start-up is done
        await until(pilot, lambda: user_turns(db) == [("first", "pending"), ("second", "pending")],
                    "both turns stored while the system loads")
        assert not load_gate.is_set() and app.screen.status.activity == "loading tui-slow…"
        assert sessions(db) == [("tui-slow", None)]  # the session names the system it is for
        await until(pilot, lambda: notes_of(app) == ["… waiting for the system"] * 2, "shown as stored")
        load_gate.set()
        await until(pilot, lambda: user_turns(db) == [("first", "ok"), ("second", "ok")], "answered")
        await until(pilot, lambda: system_turns(db) == 2, "both replies stored")


# -- a system that fails to load -----------------------------------------------------------------------------
async def test_a_failed_load_keeps_the_typed_turns_and_f5_picks_a_system_that_answers_them(
        tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    ckpt = broken_checkpoint(tmp_path / "ckpt")  # an empty weights file
    app = make_app(tmp_path, f"hf-causal:model={ckpt}")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"first", "enter", *"second", "enter")
        await until(pilot, lambda: any("Could not load" in n for n in notes(app)), "the load failed")
        await until(pilot, lambda: user_turns(db) == [("first", "pending"), ("second", "pending")], "stored")
        # the failure's note names the waiting turns when they were typed before it (the load of an empty
        # weights file may also fail first, on a busy machine): the status bar says it either way
        assert app.screen.status.activity == "no system — f5 picks one"
        await pilot.press("f5")  # not refused: the turns wait for a system that failed
        await until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the picker")
        assert "2 typed turns wait for a system" in str(app.screen.query_one(".hint", Static).render())
        spec = app.screen.query_one("#spec", Input)
        spec.focus()
        spec.value = "tui-fake"
        await pilot.press("enter")
        await until(pilot, lambda: user_turns(db) == [("first", "ok"), ("second", "ok")], "answered")
        await until(pilot, lambda: system_turns(db) == 2, "both replies stored")
    assert sessions(db) == [("tui-fake", sessions(db)[0][1])]  # one session, naming the system that answered


@pytest.mark.usefixtures("load")
async def test_after_a_failed_load_f5_can_cancel_the_waiting_turns(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    app = make_app(tmp_path, "tui-missing")  # its module does not exist: the load fails
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"first", "enter", *"second", "enter")
        await until(pilot, lambda: any("Could not load" in n for n in notes(app)), "the load failed")
        await until(pilot, lambda: len(user_turns(db)) == 2, "both turns stored")
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the picker")
        await pilot.press("home", "enter")  # the first line: cancel them
        await until(pilot, lambda: [s for _, s, _ in user_rows(db)] == ["cancelled"] * 2, "cancelled")
        await until(pilot, lambda: all("cancelled" in n for n in notes_of(app)), "shown cancelled")
        (_, _, why), _ = user_rows(db)
        assert why is not None and why.startswith("never sent: tui-missing failed to load")
        await pilot.press(*"third", "enter")  # the chat goes on: stored, waiting for a system
        await until(pilot, lambda: user_turns(db)[-1] == ("third", "pending"), "stored")


async def test_quitting_after_a_failed_load_offers_to_cancel_not_to_finish(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    app = make_app(tmp_path, "tui-missing")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press(*"first", "enter")
        await until(pilot, lambda: any("Could not load" in n for n in notes(app)), "the load failed")
        await until(pilot, lambda: user_turns(db) == [("first", "pending")], "stored")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, QuitScreen), "the quit dialog")
        assert not app.screen.can_finish and not app.screen.query("#finish")
        await pilot.press("f")  # nothing to finish them with: not an answer
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("c")
        await until(pilot, lambda: app.return_code is not None, "the app quit")
    assert user_turns(db) == [("first", "cancelled")]
    ((system, ended),) = sessions(db)
    assert system == "tui-missing" and ended is not None


# -- settings that cannot be read ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "problem"), [
    ("[[[", "Invalid"), ('seed = "nan"', "seed: must be a whole number"),
    ('show_internals = "maybe"', "show_internals: must be")])
async def test_settings_that_cannot_be_read_stop_the_app_with_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, problem: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text + "\n", encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(config))
    app = make_app(tmp_path, "tui-fake")  # no settings given: the boot worker reads them
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.return_code is not None, "the app stopped")
    assert app.return_code == 2 and app.fatal is not None
    assert app.fatal.startswith(f"cannot read settings from {config}: ") and problem in app.fatal
    assert config.read_text(encoding="utf-8") == text + "\n"  # left as it was


# -- a database another program holds locked -----------------------------------------------------------------
async def chatting(pilot: Any, db: Path) -> None:
    await pilot.press(*"hello", "enter")
    await until(pilot, lambda: system_turns(db) == 1, "the first exchange")


@pytest.mark.usefixtures("load")
async def test_a_locked_database_never_freezes_the_chat_and_typed_turns_are_stored_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 10_000)
    db = tmp_path / "t.db"
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await chatting(pilot, db)
        chat: Any = app.screen
        with write_lock(db) as other:
            await pilot.press(*"one", "enter", *"two", "enter", *"three", "enter", *"abc")
            assert chat.prompt.value == "abc"  # every key answered while the database was locked
            assert notes_of(app)[1:] == ["… saving"] * 3
            assert chat.status.turns == "saving 3 turns…"
            assert other.execute("SELECT count(*) FROM turns WHERE role = 'user'").fetchone() == (1,)
        await until(pilot, lambda: user_turns(db) == [("hello", "ok"), ("one", "ok"), ("two", "ok"),
                                                       ("three", "ok")], "stored and answered in order")
        await until(pilot, lambda: system_turns(db) == 4, "every reply stored")
        assert chat.status.turns == "" and not any("not stored" in n for n in notes(app))


@pytest.mark.usefixtures("load")
async def test_a_lock_held_past_the_busy_timeout_is_waited_out_and_nothing_typed_is_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 200)  # every try gives up quickly: tried again
    db = tmp_path / "t.db"
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await chatting(pilot, db)
        chat: Any = app.screen
        with write_lock(db):
            await pilot.press(*"one", "enter", *"two", "enter")
            await until(pilot, lambda: "trying again" in chat.status.turns, "the refusal shown")
            shown = chat.status.turns
            assert "database is locked" in shown and shown.startswith("saving 2 turns")
        await until(pilot, lambda: user_turns(db)[1:] == [("one", "ok"), ("two", "ok")], "stored in order")
        assert chat.status.turns == ""


async def test_quitting_with_turns_not_stored_yet_stores_them_first(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 10_000)
    db = tmp_path / "t.db"
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await chatting(pilot, db)
        with write_lock(db):
            await pilot.press(*"one", "enter", "ctrl+q")
            await until(pilot, lambda: isinstance(app.screen, QuitScreen), "the quit dialog")
            assert app.screen.unstored == 1
            await pilot.press("c")
            await pilot.press("ctrl+q")  # asked again: quit without it, or keep waiting
            await until(pilot, lambda: isinstance(app.screen, UnstoredScreen), "asked")
            await pilot.press("escape")
            assert app.return_code is None
        await until(pilot, lambda: app.return_code is not None, "quit once stored")
    assert user_turns(db) == [("hello", "ok"), ("one", "cancelled")]
    assert sessions(db)[0][1] is not None  # the end time, after the turn
