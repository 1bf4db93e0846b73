"""Fixtures for every Pilot test of the TUI."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App


@pytest.fixture(autouse=True)
def _record_notifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep every toast an app shows (``pilot.notes``): a toast times out after a few seconds, and on a
    loaded machine waiting for the workers can take longer than that, so the live list may be empty by the
    time a test reads it."""
    shown = App.notify

    def notify(self: App[Any], message: str, *args: Any, **kwargs: Any) -> None:
        self.__dict__.setdefault("_notes_shown", []).append(message)
        shown(self, message, *args, **kwargs)

    monkeypatch.setattr(App, "notify", notify)
    yield
