"""Keys pressed with no pause, as a fast typist, a paste or a loaded machine delivers them, and a busy CPU.

``burst(pilot, *keys)`` hands every key to the app's driver at once (Pilot's own ``press`` waits for the app
to go idle after each key, which hides any key the app handles out of order), then waits until the app has
processed them. ``busy_cpu`` is a fixture (import ``busy_cpu_fixture`` to use it) that runs a test twice:
idle, and beside a process that spins on a core (started by the test, ended by its pid).
"""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest
from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot

from tests.tui.pilot import settle


def key_event(key: str) -> events.Key:
    """The Key event a terminal sends for ``key`` (a character or a key name), as Pilot builds it."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def burst(pilot: Pilot[Any], *keys: str) -> None:
    """Send ``keys`` all at once, then wait for the app to handle them (and the work they started)."""
    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        driver.send_message(event)
    for _ in range(3):
        if app.return_code is not None:  # the keys quit the app
            return
        await pilot.pause()
    if app.return_code is None:
        await settle(pilot)


@pytest.fixture(params=[False, True], ids=["idle", "busy-cpu"], name="busy_cpu")
def busy_cpu_fixture(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Run the test twice: on an idle machine, and beside a process spinning on a core."""
    if not request.param:
        yield False
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield True
    finally:
        spinner.kill()
        spinner.wait(10)
