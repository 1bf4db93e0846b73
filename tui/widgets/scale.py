"""A keyboard rating scale: one aspect, its one-line definition, and the values as options.

Focused, a digit sets the value directly and moves on to the next field (an invalid digit is refused with a
message), ``left``/``right`` move along the scale, ``enter`` moves on. Any other character typed on a scale
(or pasted) is text, not a rating: it goes to ``typed`` (the form's justification field) or, without one, is
refused with a message — never dropped. Clicking an option works too. The chosen value is marked (a filled
dot), bold and reversed, and named after the aspect's label (a tick and its name), so it reads without
colour. The options wrap onto as many lines as the width needs.

Every key a focused scale takes is a *priority* binding: Textual runs those in the app's own message loop,
as each key arrives, instead of queueing the key to the focused widget. A burst of digits (a fast typist, a
paste, a loaded machine) is therefore handled strictly in order: the first digit has set its scale and moved
the focus before the second is routed, so each lands on its own scale.
"""

from __future__ import annotations

import string
from collections.abc import Callable
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


def key_name(character: str) -> str:
    """A printable character as a binding key: itself (Textual names it), but a comma separates keys and a
    space is stripped, so those two go by their names."""
    return {",": "comma", " ": "space"}.get(character, character)


#: every printable ASCII character that is not a digit: typed on a scale, it is text
TEXT_CHARACTERS = "".join(c for c in string.printable if c.isprintable() and not c.isdigit())
_PICK = [Binding(d, f"pick({d})", show=False, priority=True, system=True) for d in string.digits]
_TYPE = [Binding(key_name(c), f"type({ord(c)})", show=False, priority=True, system=True)
         for c in TEXT_CHARACTERS]
INDENT = 2  # the options start after two spaces
GAP = 2     # and are two spaces apart


class Scale(Widget, can_focus=True):
    """Rates one :class:`~parley.scales.Aspect`; ``value`` is None until the rater picks one.

    ``typed(text)`` takes text typed while the scale has focus (the form's justification field); it is called
    as the key arrives (see the module docstring)."""

    BINDINGS = [
        Binding("left", "step(-1)", "Lower", show=False, priority=True, system=True),
        Binding("right", "step(1)", "Higher", show=False, priority=True, system=True),
        Binding("enter", "app.focus_next", "Next", show=False, priority=True, system=True),
        *_PICK,
        *_TYPE,
    ]

    value: reactive[int | None] = reactive(None)

    @dataclass
    class Refused(Message):
        reason: str

    @dataclass
    class Changed(Message):
        scale: Scale
        value: int | None

    def __init__(self, aspect: Aspect, *, id: str | None = None,
                 typed: Callable[[str], None] | None = None) -> None:
        super().__init__(id=id or aspect.key, classes="scale")
        self.aspect = aspect
        self.typed = typed
        self._spans: list[tuple[int, int, int, int]] = []  # (options line, x from, x to, value) for clicks

    def _option_lines(self, width: int) -> list[list[tuple[int, Text]]]:
        """The options laid out on lines of ``width`` cells (at least one option a line)."""
        lines: list[list[tuple[int, Text]]] = [[]]
        x = INDENT
        for v in self.aspect.values:
            t = option_text(v, self.aspect.option(v), v == self.value)
            if lines[-1] and x + t.cell_len > width:
                lines.append([])
                x = INDENT
            lines[-1].append((v, t))
            x += t.cell_len + GAP
        return lines

    def render(self) -> Text:
        a = self.aspect
        out = Text()
        out.append(f"{a.label} ({a.lo}-{a.hi})", style="bold")
        if self.value is None:
            out.append("  — press a digit", style="dim")
        else:
            out.append(f"  ✓ {self.value} {a.option(self.value)}", style="bold")
        out.append(f"\n{a.definition}", style="italic")
        self._spans = []
        for n, line in enumerate(self._option_lines(self.content_size.width or 80)):
            out.append("\n" + " " * INDENT)
            x = INDENT
            for v, t in line:
                out.append_text(t)
                out.append(" " * GAP)
                self._spans.append((n, x, x + t.cell_len, v))
                x += t.cell_len + GAP
        return out

    def watch_value(self, value: int | None) -> None:
        self.post_message(self.Changed(self, value))

    def action_pick(self, v: int) -> None:
        if self.aspect.valid(v):
            self.value = v
            self.screen.focus_next()
        else:
            self.post_message(self.Refused(
                f"{self.aspect.label} takes {self.aspect.lo}-{self.aspect.hi}; {v} is not on the scale."))

    def action_type(self, code: int) -> None:
        self.take_text(chr(code))

    def take_text(self, text: str) -> None:
        """Text typed on the scale: to the form's text field, or refused with a message."""
        if self.typed is not None:
            self.typed(text)
        else:
            self.post_message(self.Refused(f"{self.aspect.label} takes a digit ({self.aspect.lo}-"
                                           f"{self.aspect.hi}); {text!r} is not a rating."))

    def on_key(self, event: events.Key) -> None:
        """A printable character no binding covers (beyond ASCII, such as ``é``) is text as well."""
        if event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            self.take_text(event.character)

    def on_paste(self, event: events.Paste) -> None:
        """A paste on a scale is text too."""
        event.stop()
        if event.text:
            self.take_text(event.text)

    def action_step(self, step: int) -> None:
        a = self.aspect
        start = a.lo if step > 0 else a.hi
        self.value = start if self.value is None else max(a.lo, min(a.hi, self.value + step))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        first = self.content_size.height - (max((s[0] for s in self._spans), default=0) + 1)
        for line, x0, x1, v in self._spans:
            if offset.y == first + line and x0 <= offset.x < x1:
                self.value = v
                return
