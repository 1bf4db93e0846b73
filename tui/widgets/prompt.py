"""The chat's prompt: the one place that decides where each key lands — a turn's text, a rating or a command.

Keys reach the app in bursts (a paste, a fast typist, a loaded machine). Textual hands each key to the message
queue of the widget focused when the key arrives, but resolves bindings (``enter`` → submit, ``escape`` →
rating mode, ``backspace``…) only once the key has bubbled up to the app, and a submitted value is handled
later still. Within a burst, the later keys were therefore typed into the prompt before an earlier ``enter``
was acted on (three turns sent together became three copies of all three texts run together), and a focus
change made by a binding came after the keys already queued for the old focus (rating mode used to focus the
log: letters typed right after rating were dropped or typed out of order, and a digit meant as text could
still rate).

So the prompt keeps the focus while the tester types and rates, and finishes each key — its text, its binding
(resolved here, with the user's keymap), the turn it sends — before it reads the next one; its queue holds the
keys in the order they came. Rating mode is a state of the prompt and the log, not a focus:

- ``escape`` (``rate_mode``) selects the latest system turn; ``1``-``3`` rate relevance, then interestingness;
  ``tab`` switches the aspect, ``up``/``down`` select another turn (relevance first again).
- Once both aspects of the selected turn are given, its rating is complete: a further digit is text.
- ``escape`` or ``enter`` return to typing; any other character returns to typing *and is typed* (``i`` starts
  "i…", a space is a space); a command key (``ctrl+r``, ``f2``…) returns to typing and runs.
- Another digit while an aspect is open is refused with a message (``7`` is not a rating).

``enter`` sends the prompt's text at once (the screen stores it before anything else happens); a turn the
screen refuses (session locked, being saved) stays in the prompt. A paste without a line break is inserted at
the cursor; a paste with line breaks is inserted at the cursor and every non-blank line of the result is sent
as a turn of its own, in order (at most :data:`MAX_PASTE_LINES`; more is refused with a message, nothing
sent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets import Input

from parley.tui.notify import tell
from parley.tui.widgets.chatlog import ChatLog

#: the prompt's own rating-mode actions; any other binding leaves rating mode before it runs
RATING_ACTIONS = frozenset({"rate", "next_aspect", "select", "leave", "submit"})
#: a paste with more lines is refused (each line would be a turn sent to the system)
MAX_PASTE_LINES = 100
#: the turn aspects' scale (relevance and interestingness alike), as the footer names each key
RATING_LABELS = ("No", "Somewhat", "Yes")
RATING_PLACEHOLDER = ("Rating: 1-3 rate · tab aspect · up/down another turn · escape/enter back to typing · "
                      "letters are typed")


class Prompt(Input):
    """The chat's input line and keyboard; ``send`` stores a turn and returns None when it was refused."""

    HELP_GROUP: ClassVar[str] = "rating turns"
    DEFAULT_CSS = "Prompt.-rating, Prompt.-rating:focus { border: tall $accent; }"
    BINDINGS = [
        *(Binding(str(v), f"rate({v})", label, id=f"rate_{v}") for v, label in enumerate(RATING_LABELS, 1)),
        Binding("tab", "next_aspect", "Aspect", id="rate_next_aspect"),
        Binding("up", "select(-1)", "Previous turn", id="rate_previous_turn", show=False),
        Binding("down", "select(1)", "Next turn", id="rate_next_turn", show=False),
        Binding("escape", "leave", "Back to typing", id="rate_leave"),
    ]

    def __init__(self, log: ChatLog, send: Callable[[str], object], *, placeholder: str = "",
                 id: str | None = None) -> None:
        super().__init__(placeholder=placeholder, id=id, select_on_focus=False)
        self._log = log
        self._send = send
        self._typing_placeholder = placeholder

    @property
    def rating(self) -> bool:
        return self._log.rating

    def set_placeholder(self, text: str) -> None:
        """The placeholder shown while typing (rating mode shows its keys instead)."""
        self._typing_placeholder = text
        if not self.rating:
            self.placeholder = text

    # -- rating mode ---------------------------------------------------------------------------------------
    def start_rating(self) -> None:
        """Rating mode on the latest system turn (the caller checked that there is one to rate)."""
        self._log.start_rating()
        self.add_class("-rating")
        self.placeholder = RATING_PLACEHOLDER
        if not self.has_focus:
            self.focus()
        self.refresh_bindings()

    def stop_rating(self) -> None:
        if self._log.rating:
            self._log.stop_rating()
            self.remove_class("-rating")
            self.placeholder = self._typing_placeholder
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in RATING_ACTIONS - {"submit"}:
            return self._log.aspect_open if action == "rate" else self._log.rating
        return super().check_action(action, parameters)

    def action_rate(self, value: int) -> None:
        refused = self._log.rate(value)
        if refused:
            tell(self, refused, severity="warning")

    def action_next_aspect(self) -> None:
        self._log.next_aspect()
        self.refresh_bindings()

    def action_select(self, step: int) -> None:
        self._log.select(step)
        self.refresh_bindings()

    def action_leave(self) -> None:
        self.stop_rating()

    # -- keys ----------------------------------------------------------------------------------------------
    def _binding(self, key: str) -> tuple[DOMNode, str] | None:
        """The binding ``key`` runs here (the prompt's, the screen's, the app's; keymap applied), if enabled.
        Priority bindings ran in the app already."""
        active = self.screen.active_bindings.get(key)
        if active is None or active.binding.priority or not active.enabled:
            return None
        return active.node, active.binding.action

    async def _on_key(self, event: events.Key) -> None:
        """Every key the prompt receives is handled to its end here, in order (see the module's docstring)."""
        rating = self._log.rating
        if event.is_printable and not rating:
            return  # typed by Input._on_key, next in line
        found = self._binding(event.key)
        if found is not None:
            event.stop()
            event.prevent_default()
            node, action = found
            if rating and (node is not self or action.split("(")[0] not in RATING_ACTIONS):
                self.stop_rating()  # a command or an edit key: back to typing, then it runs
            await self.app.run_action(action, node)
            return
        if not (rating and event.is_printable):
            return  # an unbound key: nothing to do here (it bubbles on, as in any Input)
        character = event.character or ""
        if character.isdigit() and self._log.aspect_open:
            event.stop()
            event.prevent_default()
            self.action_rate(int(character))  # refused with the reason
            return
        self.stop_rating()  # and Input._on_key types the character

    async def action_submit(self) -> None:
        """``enter``: back to typing in rating mode; else the text is sent (and cleared once stored)."""
        if self._log.rating:
            self.stop_rating()
            return
        text = self.value.strip()
        if text and self._send(text) is not None:
            self.value = ""

    def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()  # Input would keep the first line and drop the others
        self.stop_rating()
        text = event.text
        start, end = sorted(self.selection)
        if "".join(text.splitlines()) == text:  # no line break: inserted like typed text
            self.replace(text, start, end)
            return
        lines = [line.strip() for line in (self.value[:start] + text + self.value[end:]).splitlines()]
        lines = [line for line in lines if line]
        if len(lines) > MAX_PASTE_LINES:
            tell(self, f"A paste of {len(lines)} lines was not sent: each line is a turn, at most "
                       f"{MAX_PASTE_LINES} at once.", severity="warning", timeout=10)
            return
        self.value = ""
        for i, line in enumerate(lines):
            if self._send(line) is None:  # refused (the screen said why): what is left waits in the prompt
                rest = lines[i:]
                self.value = " ".join(rest)
                self.cursor_position = len(self.value)
                if len(rest) > 1:
                    tell(self, f"The paste's last {len(rest)} lines were not sent; they wait in the prompt, "
                               f"joined on one line.", severity="warning", timeout=10)
                return
