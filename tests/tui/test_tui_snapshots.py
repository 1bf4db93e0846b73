"""Snapshot tests (pytest-textual-snapshot): chat, internals, rating modal, help, rewriter panel, model picker.

Deterministic: fixed terminal size, fixed seed, the fake system (fixed replies and latency), uuid4 stubbed so the
session id is stable, a relative database path, cursor blink off. Update with ``--snapshot-update`` and look at
the SVGs in __snapshots__/ before committing them.
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox

from parley.tui.app import ParleyApp
from tests.tui import fakes
from tests.tui.pilot import say, settle

fakes.register()

SIZE = (110, 36)


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ParleyApp:
    counter = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=(0x5EED0000 + next(counter)) << 96))
    monkeypatch.chdir(tmp_path)
    return ParleyApp(db_path="parley.db", system_spec="tui-fake", tester="ana", seed=42)


async def _dialogue(pilot: Any) -> None:
    await settle(pilot)
    await say(pilot, "I need a cheap restaurant in the centre")
    await pilot.press("escape", "3", "2", "escape")
    await say(pilot, "Italian food, quickly")
    await settle(pilot)


def test_chat_screen(app: ParleyApp, snap_compare: Any) -> None:
    assert snap_compare(app, terminal_size=SIZE, run_before=_dialogue)


def test_chat_with_rewriter_diff(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, snap_compare: Any) -> None:
    counter = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=(0x5EED0000 + next(counter)) << 96))
    monkeypatch.chdir(tmp_path)
    app = ParleyApp(db_path="parley.db", system_spec="tui-fake", tester="ana", seed=42,
                    rewrite_specs=("asr-sim",))

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
