"""The dialogue rating window: a digit picks a value and moves on to the next scale, the
chosen value reads without colour, and the "still missing" message follows the form until it goes. Pilot tests
and a snapshot of every state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import TextArea

from parley.store.records import DialogueRating
from parley.tui.screens.rating import DialogueRatingScreen
from parley.tui.widgets.justification import Justification
from parley.tui.widgets.scale import Scale

CSS = str(Path(__file__).resolve().parents[2] / "tui" / "app.tcss")
SIZE = (110, 46)


class RatingHost(App[None]):
    CSS_PATH = CSS

    def __init__(self) -> None:
        super().__init__()
        self.result: DialogueRating | None | str = "open"

    def on_mount(self) -> None:
        self.push_screen(DialogueRatingScreen("s1", "ann"), self._done)

    def _done(self, rating: DialogueRating | None) -> None:
        self.result = rating


def error(app: App[Any]) -> str:
    return str(app.screen.query_one("#rating-error").render())


async def test_digits_move_on_and_the_message_follows_the_form() -> None:
    app = RatingHost()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        scales = list(screen.query(Scale))
        assert screen.focused is scales[0]
        await pilot.press("3")
        assert screen.focused is scales[1] and scales[0].value == 3
        await pilot.press("2", "ctrl+s")
        await pilot.pause()
        assert error(app) == ("Not submitted — still missing: Interest arousal, Efficiency, "
                              "Overall impression, justification.")
        await pilot.press("9")  # not on the scale: refused, focus stays
        assert screen.focused is scales[2] and "9 is not on the scale" in error(app)
        await pilot.press("1")
        assert error(app) == "" and screen.focused is scales[3]
        await pilot.press("ctrl+s", "0")
        await pilot.pause()
        assert error(app) == "Not submitted — still missing: Overall impression, justification."
        await pilot.press("4")
        assert screen.focused is screen.query_one("#justification", Justification)
        assert error(app) == "Not submitted — still missing: justification."
        await pilot.press(*"it booked")
        assert error(app) == ""  # everything filled: the message is gone
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.result == DialogueRating("s1", "ann", 3, 2, 1, 0, 4, "it booked",
                                        created_at=app.result.created_at)  # type: ignore[union-attr]


STATES = {
    "empty": (),
    "partly_filled": ("3", "2"),
    "refused_missing": ("3", "2", "ctrl+s"),
    "refused_digit": ("3", "2", "9"),
    "filled_message_gone": ("3", "2", "ctrl+s", "1", "0", "4", *"it booked a table"),
}


@pytest.mark.parametrize("state", list(STATES))
def test_rating_window_snapshot(state: str, snap_compare: Any) -> None:
    async def run(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press(*STATES[state])
        await pilot.pause()
        for area in pilot.app.screen.query(TextArea):
            area.cursor_blink = False
        pilot.app.clear_notifications()  # toasts time out; the message under the form is what stays
        await pilot.pause()

    assert snap_compare(RatingHost(), run_before=run, terminal_size=SIZE)
