"""The Pilot helpers make snapshots independent of the clock: ``settle`` draws a focused text area's cursor
whatever phase its blink was in (a snapshot taken after a dark phase lost the cursor on a busy CI run)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from textual.widgets import TextArea

from tests.tui.pilot import settle
from tests.tui.test_annotate_snapshots import app_for

#: the cursor cell after "it was quick" in the justification of the 80-column dialogue form
CURSOR = re.compile(r'fill="#e0e0e0" x="683.2" y="318.7"')


async def test_settle_draws_the_cursor_after_a_dark_blink_phase(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("3", "2", "2", "1", "0", "3", "d", "3", "2", *"it was quick")
        field = app.screen.query_one(TextArea)
        for _ in range(200):  # wait for the blink's dark phase, and let it be drawn
            if not field._cursor_visible:
                break
            await asyncio.sleep(0.05)
            await pilot.pause()
        assert not field._cursor_visible and field.has_focus
        await pilot.pause()
        await settle(pilot)
        await pilot.pause()
        assert CURSOR.search(app.export_screenshot())
