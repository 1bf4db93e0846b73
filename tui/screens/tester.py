"""Ask the tester's name once (kept in settings): ``TesterScreen() → str | None``."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from parley.display import visible
from parley.store.records import clean_name


class TesterScreen(ModalScreen[str | None]):
    """A one-field dialog; an empty name is refused with a message, escape cancels."""

    BINDINGS = [("escape", "cancel", "Cancel")]

    def __init__(self, current: str = "") -> None:
        super().__init__(classes="modal")
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog small-dialog"):
            yield Label("Who is testing?", classes="dialog-title")
            yield Static("Your name or rater id is stored with every session and rating, and remembered.",
                         classes="hint")
            yield Input(value=visible(self.current, one_line=True), placeholder="name", id="tester-name")
            yield Static("", id="tester-error", classes="error")

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        error = self.query_one("#tester-error", Static)
        if not name:
            error.update("Please type a name (any id you like).")
        elif not clean_name(name):
            error.update("A name cannot hold control characters; please type it again.")
        else:
            self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)
