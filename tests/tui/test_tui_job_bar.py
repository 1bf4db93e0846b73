"""The chat shows a progress bar while a system reports a one-time job with a fraction (the llm's first model
conversion: "…: 42% (about 80 s left)"), and removes it when the job is over."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import ProgressBar

from parley.tui import messages as M
from parley.tui.app import ParleyApp
from tests.tui import fakes
from tests.tui.pilot import settle

fakes.register()


async def test_conversion_progress_is_a_bar_that_goes_away(tmp_path: Path) -> None:
    app = ParleyApp(db_path=str(tmp_path / "t.db"), system_spec="multiwoz", tester="ana", seed=7)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert not screen.query("#job-bar")
        screen.post_message(
            M.Status(
                "llm: converting model.gguf to safetensors (once): de-quantising the weights:"
                " 42% (about 80 s left)"
            )
        )
        await pilot.pause()
        bar = screen.query_one("#job-bar", ProgressBar)
        assert bar.progress == 42
        screen.post_message(M.Status("llm: converting model.gguf to safetensors (once): writing safetensors:"
                                     " 95% (about 3 s left)"))
        await pilot.pause()
        assert screen.query_one("#job-bar", ProgressBar).progress == 95
        screen.post_message(M.Status("llm: model ready"))
        await pilot.pause()
        assert not screen.query("#job-bar")
