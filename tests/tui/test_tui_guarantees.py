"""Pilot tests of what the chat promises: typed turns are stored before anything else, quitting
with waiting turns asks, untrusted text is shown literally, checkpoint code runs only after a confirmation
naming it, the log follows new turns unless the tester scrolled up, ctrl+n leaves no empty sessions, the
palette lists each command once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widgets import Input, Static

from parley.store import open_store
from parley.tui.app import ParleyApp
from parley.tui.screens.confirm import QuitScreen, TrustScreen
from parley.tui.screens.picker import ModelPickerScreen
from parley.tui.widgets.chatlog import ChatLog, SystemTurnView, UserTurnView
from tests.tui import fakes
from tests.tui.pilot import notes, say, settle

fakes.register()


def make_app(tmp_path: Path, system: str = "tui-fake", **kw: Any) -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester="ana", seed=7, **kw)


async def type_turns(pilot: Any, *texts: str) -> None:
    for text in texts:
        pilot.app.screen.query_one("#prompt", Input).value = text
        await pilot.press("enter")
    await pilot.pause()


async def until_exit(pilot: Any) -> None:
    for _ in range(400):
        if pilot.app.return_code is not None:
            return
        await pilot.pause(0.05)
    raise AssertionError("the app did not quit")


def user_turns(tmp_path: Path) -> list[tuple[str, str]]:
    store = open_store(tmp_path / "t.db")
    (session,) = store.sessions()
    return [(t.text, t.status) for t in store.turns(session.id) if t.role == "user"]


# -- quitting with turns still waiting -----------------------------------------------------------------------
async def test_quit_with_two_queued_turns_can_cancel_them(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-gate")
    fakes.GATE.clear()  # a slow system: the first turn is in flight, the second waits
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await type_turns(pilot, "first", "second")
            assert user_turns(tmp_path) == [("first", "pending"), ("second", "pending")]
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, QuitScreen) and app.screen.waiting == 2
            await pilot.press("c")
            await until_exit(pilot)
    finally:
        fakes.GATE.set()  # the answer to "first" arrives after the cancel: it must not be stored
    time.sleep(0.5)
    assert user_turns(tmp_path) == [("first", "cancelled"), ("second", "cancelled")]
    store = open_store(tmp_path / "t.db")
    (session,) = store.sessions()
    assert session.ended_at is not None
    assert [t.role for t in store.turns(session.id)] == ["user", "user"]


async def test_quit_with_two_queued_turns_can_finish_them_first(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-gate")
    fakes.GATE.clear()
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            await type_turns(pilot, "first", "second")
            await pilot.press("ctrl+q")
            await pilot.pause()
            await pilot.press("escape")  # keep working: nothing changes
            await pilot.pause()
            assert not isinstance(app.screen, QuitScreen) and app.return_code is None
            await pilot.press("ctrl+q")
            await pilot.pause()
            await pilot.press("f")  # finish, then quit
            await pilot.pause()
            assert app.return_code is None and "finishing 2" in str(app.screen.query_one("#status").render())
            await pilot.press("ctrl+q", "escape")  # asked again: keep working after all
            await pilot.pause()
            assert not app.screen.quitting
            await pilot.press("ctrl+q", "f")
            await pilot.pause()
            fakes.GATE.set()
            await until_exit(pilot)
    finally:
        fakes.GATE.set()
    assert user_turns(tmp_path) == [("first", "ok"), ("second", "ok")]
    store = open_store(tmp_path / "t.db")
    (session,) = store.sessions()
    assert session.ended_at is not None and len(store.turns(session.id)) == 4


async def test_a_clean_quit_always_sets_the_end_time(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        await pilot.press("ctrl+q")  # nothing waits: no question
        await until_exit(pilot)
    assert open_store(tmp_path / "t.db").sessions()[0].ended_at is not None


async def test_ctrl_n_leaves_no_empty_sessions(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        for _ in range(3):
            await pilot.press("ctrl+n")
            await settle(pilot)
        await say(pilot, "again")
        await pilot.press("ctrl+n")
        await settle(pilot)
    sessions = open_store(tmp_path / "t.db").sessions()
    assert len(sessions) == 2 and all(s.ended_at for s in sessions)


# -- untrusted text is shown literally -----------------------------------------------------------------------
def rendered(view: Any, selector: str) -> str:
    return str(view.query_one(selector, Static).render())


async def test_escape_sequences_and_markup_in_replies_are_shown_literally(tmp_path: Path) -> None:
    hostile = "\x1b]0;TITLE\x07 \x1b[2J"
    app = make_app(tmp_path, "echo")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, hostile)
        await say(pilot, "x[/bold]y [link=file:///etc/passwd]z[/link]")
        replies = [rendered(v, ".reply") for v in app.screen.query(SystemTurnView)]
        assert replies[0] == "You said: ␛]0;TITLE␇ ␛[2J"
        assert replies[1] == "You said: x[/bold]y [link=file:///etc/passwd]z[/link]"
        assert rendered(app.screen.query(UserTurnView).first(), ".typed") == "␛]0;TITLE␇ ␛[2J"
        await pilot.press("ctrl+o")  # internals hold the raw output too
        await settle(pilot)
        screen = app.export_screenshot()
        assert "\x1b" not in screen and "␛[2J" in screen and "x[/bold]y" in screen
    store = open_store(tmp_path / "t.db")
    texts = [t.text for t in store.turns(store.sessions()[0].id)]
    assert texts[:2] == [hostile, f"You said: {hostile}"]  # stored unchanged


async def test_an_error_body_with_markup_is_shown_literally(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake:fail_on=boom")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "boom x[/bold]y \x1b[2J")
        view = app.screen.query(SystemTurnView).first()
        assert "told to fail: boom x[/bold]y ␛[2J" in rendered(view, ".reply")
        assert "told to fail: boom x[/bold]y ␛[2J" in notes(app)[-1]
        await say(pilot, "fine now")  # the app is alive and the session goes on
        assert len(app.screen.query(SystemTurnView)) == 2


async def test_tester_names_and_specs_with_markup_never_crash_the_status_bar(tmp_path: Path) -> None:
    app = ParleyApp(db_path=str(tmp_path / "t.db"), system_spec="tui-fake", tester="x[/bold]\x1b[2J", seed=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "hi")
        assert "tester x[/bold]␛[2J" in str(app.screen.query_one("#status").render())
    assert open_store(tmp_path / "t.db").sessions()[0].tester == "x[/bold]\x1b[2J"


# -- checkpoint code runs only after a confirmation naming the checkpoint ------------------------------------
async def pick(pilot: Any, spec: str) -> None:
    await pilot.press("f5")
    await pilot.pause()
    field = pilot.app.screen.query_one("#spec", Input)
    field.focus()
    field.value = spec
    await pilot.press("enter")
    await settle(pilot)


async def test_trust_remote_code_from_the_picker_needs_a_confirmation(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(pilot)
        chat: Any = app.screen
        await pick(pilot, "tui-trust:model=/ckpt/ubar,trust_remote_code=true")
        assert isinstance(app.screen, TrustScreen) and app.screen.checkpoint == "/ckpt/ubar"
        await pilot.press("n")  # refused: nothing loads, the picker says why
        await settle(pilot)
        assert isinstance(app.screen, ModelPickerScreen) and chat.system_spec == "tui-fake"
        assert "may not run its own code" in rendered(app.screen, "#picker-error")
        await pilot.press("escape")
        await pick(pilot, "tui-trust:model=/ckpt/ubar,trust_remote_code=true")
        await pilot.press("y")
        await settle(pilot)
        assert chat.system_spec == "tui-trust:model=/ckpt/ubar" and chat.system.trust_remote_code
        assert app.settings.recent_models[0] == "tui-trust:model=/ckpt/ubar"  # never saved with trust
        await pick(pilot, "tui-trust:model=/ckpt/other")  # no trust asked: none given
        assert chat.system_spec == "tui-trust:model=/ckpt/other" and not chat.system.trust_remote_code


async def test_the_command_line_flag_trusts_the_first_system(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-trust:model=/ckpt/a", trust_remote_code=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert app.screen.system.trust_remote_code and app.screen.system_spec == "tui-trust:model=/ckpt/a"


# -- the log follows new turns -------------------------------------------------------------------------------
async def test_the_log_follows_new_turns_after_rating_an_earlier_one(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o")  # internals on: the log overflows quickly
        for text in ("one", "two", "three"):
            await say(pilot, text)
        log = app.screen.query_one(ChatLog)
        await pilot.press("escape", "up", "up", "2")  # rate an earlier turn: the log scrolls up to it
        await pilot.pause()
        assert log.scroll_y < log.max_scroll_y
        await pilot.press("f", "o", "u", "r")  # typing goes back to the prompt
        await pilot.press("enter")
        await settle(pilot)
        last = log.system_views()[-1]
        assert last.reply.text == fakes.REPLIES[3] and log.scroll_y == log.max_scroll_y
        assert not app.screen.query_one("#new-below").display


async def test_scrolled_up_the_log_stays_put_and_says_new_turns_below(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-gate")
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        for text in ("one", "two", "three"):
            await say(pilot, text)
        log = app.screen.query_one(ChatLog)
        fakes.GATE.clear()
        try:
            await type_turns(pilot, "four")
            log.scroll_home(animate=False)  # the tester scrolls up to read
            await pilot.pause()
        finally:
            fakes.GATE.set()
        await settle(pilot)
        assert log.scroll_y == 0 and app.screen.query_one("#new-below").display
        await pilot.press("ctrl+end")
        await settle(pilot)
        assert log.scroll_y == log.max_scroll_y and not app.screen.query_one("#new-below").display


# -- the palette ---------------------------------------------------------------------------------------------
async def test_the_palette_lists_keys_once(tmp_path: Path) -> None:
    from parley.tui.commands import COMMANDS

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)] + [t for t, _, _ in COMMANDS]
        assert titles.count("Keys") == 1 and len(titles) == len(set(titles))


async def test_trust_remote_code_in_a_spec_or_the_settings_is_refused(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-trust:model=/ckpt/a,trust_remote_code=true")  # no --trust-remote-code
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert app.screen.system is None
        assert any("trust_remote_code cannot be set in a system spec" in n for n in notes(app))
