"""Skipping a dialogue in annotation mode: ``SkipScreen(position)`` → the reason, or None (cancelled).

The reason is required (a study coordinator reads it in ``parley progress``); it is stored as typed.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class SkipScreen(ModalScreen[str | None]):
    """Ask why dialogue ``position`` is skipped; enter stores the reason, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="annotate_skip_cancel")]

    def __init__(self, position: int, reason: str = "") -> None:
        super().__init__(classes="modal")
        self.position = position
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog small-dialog"):
            yield Label(f"Skip dialogue {self.position}", classes="dialog-title")
            yield Static("Why? (e.g. not in English, too short to judge) · enter skips · escape cancels",
                         classes="hint")
            yield Input(value=self.reason, placeholder="the reason (required)", id="skip-reason")
            yield Static("", id="skip-error", classes="error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        reason = event.value.strip()
        if not reason:
            self.query_one("#skip-error", Static).update(
                "Say why you skip it: the reason is stored with the skip.")
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)
