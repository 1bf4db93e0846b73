"""The help screen: every key, generated from the bindings themselves (user keymap applied).

A screen or widget whose keys belong in the help says where they apply in a ``HELP_GROUP`` class attribute
next to its ``BINDINGS``; :func:`help_groups` collects every such class that is loaded (the app first, then
the screen in front, then the rest by name), so a new screen with bindings shows up without editing a list
here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from parley.display import literal


def _classes(base: type) -> Iterator[type]:
    sub: type
    for sub in base.__subclasses__():
        yield sub
        yield from _classes(sub)


def _binding(b: Binding | tuple[str, ...]) -> Binding:
    return b if isinstance(b, Binding) else Binding(b[0], b[1], b[2] if len(b) > 2 else "")


def help_groups(app: App[Any]) -> list[tuple[str, list[Binding]]]:
    """``(where, bindings)``: the app, the screen in front, then each other loaded class with a HELP_GROUP."""
    front = app.screen_stack[-1] if app.screen_stack else None
    classes = {c for c in _classes(DOMNode) if "HELP_GROUP" in vars(c)}
    ordered = sorted(classes, key=lambda c: (not isinstance(app, c), not isinstance(front, c),
                                             vars(c)["HELP_GROUP"]))
    out = []
    for cls in ordered:
        bindings = [b for b in map(_binding, vars(cls).get("BINDINGS", [])) if not b.system]
        if isinstance(app, cls):
            bindings.append(Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Command palette",
                                    id="command_palette"))
        out.append((str(vars(cls)["HELP_GROUP"]), bindings))
    return out


def binding_rows(groups: Iterable[tuple[str, Iterable[Binding | tuple[str, ...]]]],
                 keymap: Mapping[str, str]) -> list[tuple[str, str, str, str]]:
    """``(where, keys, description, id)`` for every binding of the given classes, with the keymap applied."""
    rows = []
    for where, bindings in groups:
        for b in bindings:
            b = _binding(b)
            keys = keymap.get(b.id, b.key) if b.id else b.key
            desc = b.description or b.action
            rows.append((where, keys.replace(",", " / "), desc, b.id or ""))
    return rows


class HelpScreen(ModalScreen[None]):
    """Lists ``rows`` (see :func:`binding_rows`); any of escape/q/f1 closes it."""

    BINDINGS = [Binding("escape,q,f1", "close", "Close help", id="help_close")]

    def __init__(self, rows: list[tuple[str, str, str, str]], intro: str = "") -> None:
        super().__init__(classes="modal")
        self.rows = rows
        self.intro = intro

    def compose(self) -> ComposeResult:
        table = Table(expand=True, box=None, show_edge=False, pad_edge=False)
        table.add_column("where", style="dim", no_wrap=True)
        table.add_column("keys", style="bold", no_wrap=True)
        table.add_column("what it does")
        table.add_column("binding id (for keymap)", style="dim", no_wrap=True)
        for row in self.rows:  # keys come from the user's keymap: shown literally, like everything else
            table.add_row(*(literal(cell, one_line=True) for cell in row))
        with VerticalScroll(id="dialog", classes="dialog help-dialog"):
            yield Label("parley — keys", classes="dialog-title")
            if self.intro:
                yield Static(Text(self.intro), classes="hint")
            yield Static(table)

    def action_close(self) -> None:
        self.dismiss(None)
