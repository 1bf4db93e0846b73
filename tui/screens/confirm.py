"""Questions the chat asks before doing something that cannot be undone.

- :class:`QuitScreen`: quitting while typed turns still wait for the system → ``"finish"`` (answer them, then
  quit; offered while a system is loaded or loading), ``"cancel"`` (quit now; they stay stored as
  ``cancelled``) or ``None`` (keep working).
- :class:`UnstoredScreen`: quitting waits for typed turns the database does not take yet (another program
  holds it locked) → ``True`` quits without them, anything else keeps waiting.
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

    def __init__(self, waiting: int, unstored: int = 0, *, can_finish: bool = True) -> None:
        super().__init__(classes="modal")
        self.waiting = waiting
        self.unstored = unstored  # shown, their commit not landed yet (stored before parley quits)
        self.can_finish = can_finish  # a system is loaded or loading to answer them

    def compose(self) -> ComposeResult:
        turns = "1 turn is" if self.waiting == 1 else f"{self.waiting} turns are"
        them, they = ("it", "It is") if self.waiting == 1 else ("them", "They are")
        stored = (f"{they} stored already (pending)." if not self.unstored else
                  f"{self.waiting - self.unstored} stored (pending), {self.unstored} still being saved "
                  "(stored before parley quits).")
        finish = (f"Finish lets the system answer {them}, then quits; cancel" if self.can_finish else
                  f"No system is loaded to answer {them} (f5 picks one). Cancel")
        with Vertical(id="dialog", classes="dialog small-dialog"):
            yield Label("Quit parley?", classes="dialog-title")
            yield Static(f"{turns} still waiting for the system. {stored} {finish} quits now and keeps "
                         f"{them} stored as cancelled (never answered).", classes="hint")
            with Horizontal(classes="buttons"):
                if self.can_finish:
                    yield Button("Finish, then quit (f)", variant="primary", id="finish")
                yield Button("Cancel them and quit (c)", variant="error", id="cancel")
                yield Button("Keep working (esc)", id="back")

    def on_mount(self) -> None:
        self.query_one("#finish" if self.can_finish else "#back", Button).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.can_finish or action != "choose" or parameters != ("finish",)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_choose("" if event.button.id == "back" else str(event.button.id))

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice or None)


class _YesNo(ModalScreen[bool]):
    """A question answered yes (``True``) or no: a title, its lines, two buttons (the "no" one focused, so
    enter never does what cannot be undone); a button's id says which answer it is."""

    YES = "yes"

    def __init__(self) -> None:
        super().__init__(classes="modal")

    def question(self) -> tuple[str, list[Static], list[Button]]:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        title, lines, buttons = self.question()
        with Vertical(id="dialog", classes="dialog small-dialog"):
            yield Label(title, classes="dialog-title")
            yield from lines
            with Horizontal(classes="buttons"):
                yield from buttons

    def on_mount(self) -> None:
        self.query_one("Button#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == self.YES)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class UnstoredScreen(_YesNo):
    """``l`` quits without the typed turns the database has not taken; escape keeps waiting for it."""

    BINDINGS = [
        Binding("l", "answer(True)", "Quit, losing them", id="unstored_lose"),
        Binding("escape", "answer(False)", "Keep waiting", id="unstored_wait"),
    ]

    def __init__(self, unstored: int, problem: str) -> None:
        super().__init__()
        turns = "1 typed turn is" if unstored == 1 else f"{unstored} typed turns are"
        why = f" ({problem})" if problem else ""
        self.text = (f"{turns} not stored yet: the database does not take them{why}. parley stores them and "
                     "quits as soon as it does.")

    def question(self) -> tuple[str, list[Static], list[Button]]:
        return ("Quit without them?", [Static(literal(self.text), classes="hint")],
                [Button("Keep waiting (esc)", variant="primary", id="no"),
                 Button("Quit, losing them (l)", variant="error", id="yes")])


class TrustScreen(_YesNo):
    """Confirm that ``checkpoint`` (loaded by ``system``) may run its own code; anything but ``y`` refuses."""

    BINDINGS = [
        Binding("y", "answer(True)", "Run its code", id="trust_yes"),
        Binding("n,escape", "answer(False)", "Do not", id="trust_no"),
    ]

    def __init__(self, system: str, checkpoint: str) -> None:
        super().__init__()
        self.system = system
        self.checkpoint = checkpoint

    def question(self) -> tuple[str, list[Static], list[Button]]:
        hint = (f"The spec asks for trust_remote_code: {self.system} would import and run the Python files "
                "that come with this checkpoint, with your permissions. Only say yes for a checkpoint whose "
                "code you trust. This is asked every time; never saved.")
        return ("Run code from this checkpoint?",
                [Static(literal(self.checkpoint, style="bold", one_line=True), id="trust-checkpoint"),
                 Static(hint, classes="hint")],
                [Button("Run its code (y)", variant="error", id="yes"),
                 Button("Do not (n)", variant="primary", id="no")])
