"""The transcript of annotation mode: the dialogue up to the turn being rated, drawn line by line.

A Line API widget (Textual's ``ScrollView``): it mounts no widget per turn and renders a turn into lines only
when the turn changes (its rating, whether it is the current one) or the width does, and draws only the lines
on screen. A rating therefore costs the same at turn 10 and at turn 1,000 of a long dialogue; only opening a
dialogue (or resizing) renders the turns shown up to then.

The screen owns what a turn says: :meth:`Transcript.reset` takes the number of turns and a function giving
turn ``i`` as ``(text, role, current)``; :meth:`invalidate` marks turns to render again; :meth:`show` sets how
many turns are visible (a prefix of the dialogue) and scrolls to the last one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

#: turn i → (its text, "user" or "system", whether it is the turn being rated)
Source = Callable[[int], tuple[Text, str, bool]]

INDENT = 6  # users' turns are indented on the left, the system's on the right
MARK = "▌ "


class Transcript(ScrollView, can_focus=False):
    """A dialogue as lines; see the module docstring. ``renders`` counts turns rendered (tests read it)."""

    COMPONENT_CLASSES = {"transcript--current", "transcript--mark"}
    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    Transcript > .transcript--current { background: $boost; }
    Transcript > .transcript--mark { color: $accent; text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._source: Source = lambda i: (Text(), "system", False)
        self._lines: list[list[Strip] | None] = []
        self._starts: list[int] = [0]  # _starts[i]: first line of turn i; right up to index _valid
        self._valid = 0
        self._width = 0
        self.count = 0
        self.renders = 0

    # -- what the screen calls ------------------------------------------------------------------------------
    def reset(self, total: int, source: Source) -> None:
        """A new dialogue of ``total`` turns (none shown until :meth:`show`)."""
        self._source = source
        self._lines = [None] * total
        self._starts = [0] * (total + 1)
        self._valid = 0
        self.count = 0

    def invalidate(self, *turns: int | None) -> None:
        """Render these turns again when next shown (None is ignored)."""
        for i in turns:
            if i is not None and 0 <= i < len(self._lines):
                self._lines[i] = None
                self._valid = min(self._valid, i)

    def show(self, count: int) -> None:
        """Show the first ``count`` turns and scroll to the end."""
        self.count = max(0, min(count, len(self._lines)))
        self._valid = min(self._valid, self.count)
        self._layout()
        self.scroll_end(animate=False, immediate=False, x_axis=False)

    # -- layout and rendering -------------------------------------------------------------------------------
    def _layout(self) -> None:
        if not self._width:
            return
        for i in range(self._valid, self.count):
            self._starts[i + 1] = self._starts[i] + len(self._turn_lines(i))
        self._valid = self.count
        self.virtual_size = Size(self._width, self._starts[self.count])
        self.refresh()

    def _turn_lines(self, i: int) -> list[Strip]:
        lines = self._lines[i]
        if lines is None:
            lines = self._lines[i] = self._render_turn(i)
        return lines

    def _render_turn(self, i: int) -> list[Strip]:
        self.renders += 1
        text, role, current = self._source(i)
        left, right = (INDENT, 0) if role == "user" else (0, INDENT)
        inner = max(8, self._width - len(MARK) - left - right)
        console = self.app.console
        rendered = console.render_lines(text, console.options.update_width(inner), pad=True)
        base = Style(bgcolor=self.get_component_rich_style("transcript--current").bgcolor) if current \
            else Style()
        marked = self.get_component_rich_style("transcript--mark")
        mark = Segment(MARK, Style(color=marked.color, bold=True)) if current else Segment(" " * len(MARK))
        pad_l, pad_r = Segment(" " * left), Segment(" " * right)
        out = [Strip([mark, pad_l, *line, pad_r]).apply_style(base) for line in rendered]
        out.append(Strip.blank(self._width))
        return out

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._width = width
            self._lines = [None] * len(self._lines)
            self._valid = 0
            self._layout()
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        line = scroll_y + y
        if not self.count or line >= self._starts[self.count] or self._valid < self.count:
            return Strip.blank(width, self.rich_style)
        i = bisect_right(self._starts, line, 0, self.count + 1) - 1
        strip = self._turn_lines(i)[line - self._starts[i]]
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style).apply_style(self.rich_style)

    def plain(self) -> str:
        """The visible turns as plain text, one line per screen line (for tests and copying)."""
        return "\n".join(strip.text.rstrip() for i in range(self.count) for strip in self._turn_lines(i))
