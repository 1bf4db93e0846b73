"""Snapshot tests (pytest-textual-snapshot): chat, internals, rating modal, help, rewriter panel, model
picker, tester prompt, quit dialog, trust confirmation, "new turns below", a locked session.

Deterministic: fixed terminal size, fixed seed, the fake system (fixed replies and latency), uuid4 stubbed so
the session id is stable, a relative database path, cursor blink off. Update with ``--snapshot-update`` and
look at the SVGs in __snapshots__/ before committing them.
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input

from parley.tui.app import ParleyApp
from tests.tui import fakes
from tests.tui.pilot import say, settle, until

fakes.register()

SIZE = (110, 36)


def stable_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> ParleyApp:
    """An app whose session ids and database path are the same on every run."""
    counter = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=(0x5EED0000 + next(counter)) << 96))
    monkeypatch.chdir(tmp_path)
    options: dict[str, Any] = {"system_spec": "tui-fake", "tester": "ana", "seed": 42, **kw}
    return ParleyApp(db_path="parley.db", **options)


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ParleyApp:
    return stable_app(tmp_path, monkeypatch)


async def _dialogue(pilot: Any) -> None:
    await settle(pilot)
    await say(pilot, "I need a cheap restaurant in the centre")
    await pilot.press("escape", "3", "2", "escape")
    await say(pilot, "Italian food, quickly")
    await settle(pilot)


def test_chat_screen(app: ParleyApp, snap_compare: Any) -> None:
    assert snap_compare(app, terminal_size=SIZE, run_before=_dialogue)


def test_chat_with_rewriter_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any) -> None:
    app = stable_app(tmp_path, monkeypatch, rewrite_specs=("asr-sim",))

    async def run(pilot: Any) -> None:
        await settle(pilot)
        await say(pilot, "Find a cheap restaurant for 3 people at 13:45, please.")

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_internals_view(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await _dialogue(pilot)
        await say(pilot, "book it")
        await say(pilot, "is the atmosphere nice?")
        await pilot.press("ctrl+o")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(110, 60), run_before=run)


def test_rating_modal(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await _dialogue(pilot)
        await pilot.press("ctrl+r")
        await pilot.press("3", "2", "ctrl+s")  # incomplete: refused with a message
        await settle(pilot)

    assert snap_compare(app, terminal_size=(110, 44), run_before=run)


def test_help_screen(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 50), run_before=run)


def test_rewriter_panel(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        pilot.app.screen.query_one("#rw-impolite", Checkbox).value = True
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 60), run_before=run)


def test_model_picker(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_rating_mode(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await _dialogue(pilot)
        await pilot.press("escape", "2")  # relevance of the latest turn; interestingness is next
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_tester_prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any) -> None:
    app = stable_app(tmp_path, monkeypatch, tester=None)  # no tester yet: asked at start

    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("enter")  # an empty name is refused with a message

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_quit_dialog_with_waiting_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       snap_compare: Any) -> None:
    app = stable_app(tmp_path, monkeypatch, system_spec="tui-gate")
    shoot = app.export_screenshot

    def shoot_then_open(*args: Any, **kwargs: Any) -> str:
        """The held answers are let go once the dialog is on the picture: the app's exit that follows waits
        for its worker threads, which would otherwise sit out the gate's 30 s."""
        try:
            return shoot(*args, **kwargs)
        finally:
            fakes.GATE.set()

    monkeypatch.setattr(app, "export_screenshot", shoot_then_open)

    async def run(pilot: Any) -> None:
        await settle(pilot)
        fakes.GATE.clear()
        for text in ("first", "second"):
            pilot.app.screen.query_one("#prompt", Input).value = text
            await pilot.press("enter")
        await until(pilot, lambda: pilot.app.screen.dialogue.unstored == 0, "both stored")
        await pilot.press("ctrl+q")
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run)
    finally:
        fakes.GATE.set()


def test_trust_confirmation(app: ParleyApp, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        spec = pilot.app.screen.query_one("#spec", Input)
        spec.focus()
        spec.value = "hf-causal:model=/models/ubar-x[/bold],trust_remote_code=true"
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_new_turns_below(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any) -> None:
    app = stable_app(tmp_path, monkeypatch, system_spec="tui-gate")

    async def run(pilot: Any) -> None:
        await _dialogue(pilot)
        await say(pilot, "book it")
        fakes.GATE.clear()  # the system is slow to answer the next turn
        pilot.app.screen.query_one("#prompt", Input).value = "is the atmosphere nice?"
        await pilot.press("enter")
        await pilot.pause()
        pilot.app.screen.query_one("#log").scroll_home(animate=False)  # meanwhile the tester scrolls up
        await pilot.pause()
        fakes.GATE.set()  # the answer arrives below what the tester is reading
        await settle(pilot)

    try:
        assert snap_compare(app, terminal_size=(110, 24), run_before=run)
    finally:
        fakes.GATE.set()


def test_locked_session(app: ParleyApp, snap_compare: Any) -> None:
    """After the dialogue rating: the log says so, the prompt is off, and the footer no longer offers
    "Rate turns" or "End & rate dialogue"."""
    async def run(pilot: Any) -> None:
        await _dialogue(pilot)
        await pilot.press("ctrl+r")
        await pilot.press("3", "2", "1", "0", "4")
        pilot.app.screen.query_one("#justification", Input).value = "found and booked"
        await pilot.press("ctrl+s")
        await settle(pilot)
        pilot.app.clear_notifications()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
