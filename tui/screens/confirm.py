"""Two questions the chat asks before doing something that cannot be undone.

- :class:`QuitScreen`: quitting while typed turns still wait for the system → ``"finish"`` (answer them, then
  quit), ``"cancel"`` (quit now; they stay stored as ``cancelled``) or ``None`` (keep working).
- :class:`TrustScreen`: a model spec asked for ``trust_remote_code`` → ``True`` only when the tester confirms
  that this checkpoint, named in full, may run its own Python code.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from parley.display import literal


class QuitScreen(ModalScreen[str | None]):
    """``f`` finishes the waiting turns then quits, ``c`` cancels them and quits, escape keeps working."""

    BINDINGS = [
        Binding("f", "choose('finish')", "Finish, then quit", id="quit_finish"),
        Binding("c", "choose('cancel')", "Cancel them and quit", id="quit_cancel"),
        Binding("escape", "choose('')", "Keep working", id="quit_back"),
    ]

    def __init__(self, waiting: int) -> None:
        super().__init__(classes="modal")
        self.waiting = waiting

    def compose(self) -> ComposeResult:
        turns = "1 turn is" if self.waiting == 1 else f"{self.waiting} turns are"
        with Vertical(id="dialog", classes="dialog small-dialog"):
            yield Label("Quit parley?", classes="dialog-title")
            yield Static(f"{turns} still waiting for the system. They are stored already (pending). Finish "
                         "lets the system answer them, then quits; cancel quits now and keeps them stored as "
                         "cancelled (never answered).", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Finish, then quit (f)", variant="primary", id="finish")
                yield Button("Cancel them and quit (c)", variant="error", id="cancel")
                yield Button("Keep working (esc)", id="back")

    def on_mount(self) -> None:
        self.query_one("#finish", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose("" if event.button.id == "back" else str(event.button.id))

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)


class TrustScreen(ModalScreen[bool]):
    """Confirm that ``checkpoint`` (loaded by ``system``) may run its own code; anything but ``y`` refuses."""

    BINDINGS = [
        Binding("y", "answer(True)", "Run its code", id="trust_yes"),
        Binding("n,escape", "answer(False)", "Do not", id="trust_no"),
    ]

    def __init__(self, system: str, checkpoint: str) -> None:
        super().__init__(classes="modal")
        self.system = system
        self.checkpoint = checkpoint

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog small-dialog"):
            yield Label("Run code from this checkpoint?", classes="dialog-title")
            yield Static(literal(self.checkpoint, style="bold", one_line=True), id="trust-checkpoint")
            yield Static(f"The spec asks for trust_remote_code: {self.system} would import and run "
                         "the Python files that come with this checkpoint, with your permissions. Only say "
                         "yes for a checkpoint whose code you trust. This is asked every time; never saved.",
                         classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Run its code (y)", variant="error", id="yes")
                yield Button("Do not (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
