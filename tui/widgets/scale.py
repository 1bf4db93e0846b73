"""A keyboard rating scale: one aspect, its one-line definition, and the values as options.

Focused, a digit sets the value directly (an invalid digit is refused with a message), ``left``/``right`` move
along the scale. Clicking an option works too.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from parley.engine.aspects import Aspect


class Scale(Widget, can_focus=True):
    """Rates one :class:`~engine.aspects.Aspect`; ``value`` is None until the rater picks one."""

    BINDINGS = [
        Binding("left", "step(-1)", "Lower", show=False),
        Binding("right", "step(1)", "Higher", show=False),
    ]

    value: reactive[int | None] = reactive(None)

    @dataclass
    class Refused(Message):
        reason: str

    def __init__(self, aspect: Aspect, *, id: str | None = None) -> None:
        super().__init__(id=id or aspect.key, classes="scale")
        self.aspect = aspect

    def render(self) -> Text:
        a = self.aspect
        out = Text()
        out.append(f"{a.label} ({a.lo}-{a.hi})\n", style="bold")
        out.append(f"{a.definition}\n", style="italic")
        out.append("  ")
        for v in a.values:
            label = f" {v} {a.option(v)} "
            out.append(label, style="reverse bold" if v == self.value else "")
            out.append("  ")
        if self.value is None:
            out.append("  — press a digit", style="dim")
        return out

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.isdigit():
            event.stop()
            event.prevent_default()
            v = int(event.character)
            if self.aspect.valid(v):
                self.value = v
            else:
                self.post_message(self.Refused(
                    f"{self.aspect.label} takes {self.aspect.lo}-{self.aspect.hi}; {v} is not on the scale."))

    def action_step(self, step: int) -> None:
        a = self.aspect
        start = a.lo if step > 0 else a.hi
        self.value = start if self.value is None else max(a.lo, min(a.hi, self.value + step))

    def on_click(self, event: events.Click) -> None:
        # the options sit on the last line, after two spaces: " v label " + 2 spaces each
        if event.y != self.size.height - 1:
            return
        x = 2
        for v in self.aspect.values:
            width = len(f" {v} {self.aspect.option(v)} ")
            if x <= event.x < x + width:
                self.value = v
                return
            x += width + 2
