"""Microphone level meter (updated from coalesced ``tui.messages.Level`` messages)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


class LevelMeter(Widget):
    """A one-line bar ``● rec ▮▮▮▮▯▯▯▯``; hidden unless recording."""

    level: reactive[float] = reactive(0.0)
    label: reactive[str] = reactive("recording — press the voice key again to stop")

    def render(self) -> Text:
        width = max(10, min(40, self.size.width - len(self.label) - 10))
        n = round(max(0.0, min(1.0, self.level)) * width)
        out = Text("● ", style="bold red")
        out.append("█" * n, style="green" if self.level < 0.8 else "red")
        out.append("░" * (width - n), style="dim")
        out.append(f"  {self.label}")
        return out
