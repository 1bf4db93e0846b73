"""The justification field of the dialogue rating: a multi-line text area whose keys are handled in order.

A ``TextArea`` whose every key (printable characters, ``enter`` for a new line, and the editing keys of
Textual's text area: arrows, ``backspace``, ``delete``, undo, ...) is a *priority* binding: Textual runs those
in the app's message loop as each key arrives, rather than queueing it to the focused widget. The rating
form's scales take their keys the same way, so a burst that moves from a scale into this field and back (or
types here, then presses ``tab`` and a digit) is handled strictly in the order it was typed: no key lands in
the field the focus has just left. Characters beyond ASCII (``é``) and pastes still come through the text
area's own handlers. ``tab`` moves on (it is not typed).
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import Binding
from textual.widgets import TextArea

from parley.tui.widgets.scale import TEXT_CHARACTERS, key_name

_EDITING = [replace(b, priority=True, system=True, show=False)
            for b in TextArea.BINDINGS if isinstance(b, Binding)]
_TYPED = [Binding(key_name(c), f"type({ord(c)})", show=False, priority=True, system=True)
          for c in TEXT_CHARACTERS + "0123456789"]


class Justification(TextArea):
    """A multi-line justification; :meth:`append` adds text typed elsewhere (on a scale) at its end."""

    DEFAULT_CSS = """
    Justification { height: 6; min-height: 3; }
    """
    BINDINGS = [
        *_EDITING,
        *_TYPED,
        Binding("enter", "type(10)", show=False, priority=True, system=True),
    ]

    def __init__(self, *, id: str | None = None, placeholder: str = "") -> None:
        super().__init__(id=id, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         placeholder=placeholder)

    def action_type(self, code: int) -> None:
        """Type one character where the cursor is (replacing a selection), as the text area's own key
        handler does."""
        if not self.read_only:
            start, end = self.selection
            self.replace(chr(code), start, end, maintain_selection_offset=False)

    def append(self, text: str) -> None:
        """Add ``text`` at the end and put the cursor after it."""
        end = self.document.end
        self.insert(text, end, maintain_selection_offset=False)
        self.move_cursor(self.document.end)
