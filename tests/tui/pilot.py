"""Helpers for driving ParleyApp with Pilot: settle workers, type turns, read notifications."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input, TextArea


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for every worker to finish and the UI to process what they posted; stop cursor blinking."""
    app = pilot.app
    idle_rounds = 0
    while idle_rounds < 2:  # a finished worker may start the next one (boot → load → session)
        busy = any(not w.is_finished for w in app.workers)
        await app.workers.wait_for_complete()
        await pilot.pause()
        idle_rounds = 0 if busy else idle_rounds + 1
    for inp in app.screen.query(Input):
        inp.cursor_blink = False
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


async def say(pilot: Pilot[Any], text: str) -> None:
    """Type a user turn into the prompt and wait for the system's answer."""
    app: Any = pilot.app
    app.screen.query_one("#prompt", Input).value = text
    await pilot.press("enter")
    await settle(pilot)


def notes(app: Any) -> list[str]:
    """Every notification shown so far (toasts), oldest first."""
    return [n.message for n in app._notifications]
