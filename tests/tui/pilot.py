"""Helpers for driving ParleyApp with Pilot: settle workers, type turns, send key bursts, read toasts.

A burst hands every key to the app at once, as a fast typist, a paste or a loaded machine delivers them
(``pilot.press`` waits for the app to go idle after each key, which hides any key handled out of order). For
a busy CPU beside it, see ``tests/load.py``."""

from __future__ import annotations

import time
from collections.abc import Callable
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
    for field in app.screen.query("Input, TextArea"):  # a blinking cursor is drawn or not by the clock
        field.cursor_blink = False  # type: ignore[attr-defined]
        if isinstance(field, TextArea):
            # TextArea caches its lines under a key that holds the cursor only while it blinks: a line cached
            # in the blink's dark phase would be drawn again without the cursor
            field._line_cache.clear()
            field.refresh()
    for area in app.screen.query(TextArea):
        area.cursor_blink = False


async def say(pilot: Pilot[Any], text: str) -> None:
    """Type a user turn into the prompt and wait for the system's answer."""
    app: Any = pilot.app
    app.screen.query_one("#prompt", Input).value = text
    await pilot.press("enter")
    await settle(pilot)


def notes(app: Any) -> list[str]:
    """Every notification shown so far (toasts), oldest first, also those that have timed out already
    (recorded by the autouse fixture in ``tests/tui/conftest.py``)."""
    shown = app.__dict__.get("_notes_shown")
    return list(shown) if shown is not None else [n.message for n in app._notifications]


#: the escape key alone (a bare ESC in terminal input is only a key once nothing follows it)
ESCAPE = "<escape>"


def burst(pilot: Pilot[Any], *parts: str) -> None:
    """Deliver keys as a terminal does with what it reads in one go: every event is posted to the app at once,
    with no pause (``pilot.press`` waits for the app to idle after each key, so it never makes a burst).
    ``parts`` are terminal input parsed by Textual's own parser — text, ``\\r`` for enter, ``\\x1b[A`` for up,
    ``\\x7f`` for backspace, ``\\x1b[200~…\\x1b[201~`` for a bracketed paste — or :data:`ESCAPE`."""
    from textual import events
    from textual._xterm_parser import XTermParser

    app = pilot.app
    parser = XTermParser()
    for part in parts:
        made = [events.Key("escape", "\x1b")] if part == ESCAPE else list(parser.feed(part))
        for event in made:
            event.set_sender(app)
            app.post_message(event)


#: Pilot's key names for the keys the tests send, as a terminal writes them (a character is itself)
TERMINAL = {"enter": "\r", "escape": ESCAPE, "tab": "\t", "shift+tab": "\x1b[Z", "up": "\x1b[A",
            "down": "\x1b[B", "ctrl+r": "\x12", "ctrl+s": "\x13"}


async def burst_keys(pilot: Pilot[Any], *keys: str) -> None:
    """:func:`burst` of ``keys`` named as for ``pilot.press`` (a character, or a name in :data:`TERMINAL`),
    then wait until the app has handled them and the work they started (or quit)."""
    burst(pilot, *(TERMINAL.get(key, key) for key in keys))
    app = pilot.app
    for _ in range(3):
        if app.return_code is not None:  # the keys quit the app
            return
        await pilot.pause()
    if app.return_code is None:
        await settle(pilot)


async def until(pilot: Pilot[Any], condition: Callable[[], object], what: str, seconds: float = 120) -> None:
    """Wait (generously: a loaded machine is slow) until ``condition()`` holds; fail naming ``what``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)
