"""A keyboard rating scale: one aspect, its one-line definition, and the values as options.

Focused, a digit sets the value directly and moves on to the next field (an invalid digit is refused with a
message), ``left``/``right`` move along the scale. Clicking an option works too. The chosen value is marked
(a filled dot), bold and reversed, and named after the aspect's label (a tick and its name), so it reads
without colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from parley.scales import Aspect


def option_text(value: int, label: str, chosen: bool) -> Text:
    """One option of a scale: ``○ 2 somewhat`` or, chosen, ``● 2 somewhat`` in bold reverse."""
    return Text(f"{'●' if chosen else '○'} {value} {label} ", style="bold reverse" if chosen else "")


class Scale(Widget, can_focus=True):
    """Rates one :class:`~parley.scales.Aspect`; ``value`` is None until the rater picks one."""

    BINDINGS = [
        Binding("left", "step(-1)", "Lower", show=False),
        Binding("right", "step(1)", "Higher", show=False),
    ]

    value: reactive[int | None] = reactive(None)

    @dataclass
    class Refused(Message):
        reason: str

    @dataclass
    class Changed(Message):
        scale: Scale
        value: int | None

    def __init__(self, aspect: Aspect, *, id: str | None = None) -> None:
        super().__init__(id=id or aspect.key, classes="scale")
        self.aspect = aspect

    def render(self) -> Text:
        a = self.aspect
        out = Text()
        out.append(f"{a.label} ({a.lo}-{a.hi})", style="bold")
        if self.value is None:
            out.append("  — press a digit", style="dim")
        else:
            out.append(f"  ✓ {self.value} {a.option(self.value)}", style="bold")
        out.append(f"\n{a.definition}\n", style="italic")
        out.append("  ")
        for v in a.values:
            out.append_text(option_text(v, a.option(v), v == self.value))
            out.append("  ")
        return out

    def watch_value(self, value: int | None) -> None:
        self.post_message(self.Changed(self, value))

    def on_key(self, event: events.Key) -> None:
        if event.character and event.character.isdigit():
            event.stop()
            event.prevent_default()
            v = int(event.character)
            if self.aspect.valid(v):
                self.value = v
                self.screen.focus_next()
            else:
                self.post_message(self.Refused(
                    f"{self.aspect.label} takes {self.aspect.lo}-{self.aspect.hi}; {v} is not on the scale."))

    def action_step(self, step: int) -> None:
        a = self.aspect
        start = a.lo if step > 0 else a.hi
        self.value = start if self.value is None else max(a.lo, min(a.hi, self.value + step))

    def on_click(self, event: events.Click) -> None:
        # the options sit on the last line, after two spaces: option_text + 2 spaces each
        if event.y != self.size.height - 1:
            return
        x = 2
        for v in self.aspect.values:
            width = option_text(v, self.aspect.option(v), False).cell_len
            if x <= event.x < x + width:
                self.value = v
                return
            x += width + 2
