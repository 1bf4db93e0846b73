"""A progress bar above the prompt while a one-time job reports a fraction in its status line (the llm's first
model conversion: "…: 42% (about 80 s left)"); removed when a status line without one arrives."""

from __future__ import annotations

import re
from typing import Any

from textual.screen import Screen
from textual.widget import Widget

_FRACTION = re.compile(r"(\d{1,3})% \(about \d+ s left\)")


def show_job(screen: Screen[Any], text: str, before: Widget) -> None:
    """Mount, move or remove ``#job-bar`` on ``screen`` (above ``before``) for the status line ``text``."""
    from textual.widgets import ProgressBar

    m = _FRACTION.search(text)
    bars = screen.query("#job-bar")
    if m:
        bar = bars.first(ProgressBar) if bars else ProgressBar(total=100, show_eta=False, id="job-bar")
        if not bars:
            screen.mount(bar, before=before)
        bar.update(progress=int(m.group(1)))
    elif bars:
        bars.remove()
