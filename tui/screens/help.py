"""The help screen: every key, generated from the bindings in force (user keymap applied)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static


def binding_rows(groups: Iterable[tuple[str, Iterable[Binding | tuple[str, ...]]]],
                 keymap: Mapping[str, str]) -> list[tuple[str, str, str, str]]:
    """``(where, keys, description, id)`` for every binding of the given classes, with the keymap applied."""
    rows = []
    for where, bindings in groups:
        for b in bindings:
            if not isinstance(b, Binding):
                key, action, *rest = b
                b = Binding(key, action, rest[0] if rest else "")
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
        for where, keys, desc, bid in self.rows:
            table.add_row(where, keys, desc, bid)
        with VerticalScroll(id="dialog", classes="dialog help-dialog"):
            yield Label("parley — keys", classes="dialog-title")
            if self.intro:
                yield Static(self.intro, classes="hint")
            yield Static(table)

    def action_close(self) -> None:
        self.dismiss(None)
