"""The end-of-dialogue rating: ``DialogueRatingScreen(session_id, rater)`` → ``DialogueRating | None``.

Five scales (understanding, task completion, interest arousal 1-3; efficiency 0/1; overall impression 1-5),
each with its one-line definition from parley.scales, plus a justification. A digit picks a value and moves
on to the next scale. Submitting an incomplete form is refused with a message naming what is missing; the
message follows the form (it names only what is still missing and goes once everything is filled in). The
screen only returns a complete record (the caller stores it), so nothing half-written can land; when the
caller cannot store it, it opens the screen again with ``initial=`` that record, so the answers are not lost.
Reused by the annotation screens.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from parley.scales import DIALOGUE_ASPECTS, JUSTIFICATION_PROMPT, missing_dialogue_aspects
from parley.store.records import DialogueRating
from parley.tui.widgets.scale import Scale

NOT_SUBMITTED = "Not submitted — still missing: "


class DialogueRatingScreen(ModalScreen[DialogueRating | None]):
    """Rate the whole dialogue; dismisses with a complete :class:`DialogueRating` or ``None`` (cancelled)."""

    HELP_GROUP: ClassVar[str] = "dialogue rating"
    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit rating", id="dialogue_rating_submit"),
        Binding("escape", "cancel", "Cancel", id="dialogue_rating_cancel"),
    ]

    def __init__(self, session_id: str, rater: str, *, title: str = "Rate the whole dialogue",
                 require_justification: bool = True, initial: DialogueRating | None = None) -> None:
        super().__init__(classes="modal")
        self.session_id = session_id
        self.rater = rater
        self.title_text = title
        self.require_justification = require_justification
        self.initial = initial  # the answers of a rating that could not be stored: offered again, not lost
        self._shown = ""  # what #rating-error holds: "missing", "refused" or nothing

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="dialog rating-dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Static("a digit picks a value and moves on · tab / shift+tab move · ctrl+s submits · "
                         "escape cancels", classes="hint")
            for aspect in DIALOGUE_ASPECTS:
                yield Scale(aspect)
            yield Label(JUSTIFICATION_PROMPT, classes="field-label")
            yield Input(placeholder="your reason (required)" if self.require_justification else "your reason",
                        id="justification")
            yield Static("", id="rating-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Submit", variant="primary", id="submit")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        if self.initial is not None:
            for scale in self.query(Scale):
                scale.value = getattr(self.initial, scale.aspect.key)
            self.query_one("#justification", Input).value = self.initial.justification
            self.query_one("#submit", Button).focus()
            return
        self.query_one(Scale).focus()

    def values(self) -> dict[str, int | None]:
        return {s.aspect.key: s.value for s in self.query(Scale)}

    def missing(self) -> list[str]:
        """What still has to be filled in before the rating can be submitted."""
        out = missing_dialogue_aspects(self.values())
        if self.require_justification and not self.query_one("#justification", Input).value.strip():
            out.append("justification")
        return out

    @on(Scale.Refused)
    def _refused(self, event: Scale.Refused) -> None:
        self._error(event.reason)

    def _error(self, text: str) -> None:
        self._shown = "missing" if text.startswith(NOT_SUBMITTED) else "refused"
        self.query_one("#rating-error", Static).update(text)
        self.notify(text, severity="warning", markup=False)

    @on(Scale.Changed)
    @on(Input.Changed, "#justification")
    def _filled(self, event: Scale.Changed | Input.Changed) -> None:
        """The message follows the form: a refused digit's message goes with the next value picked; a refused
        submission's names only what is still missing, and goes once nothing is."""
        if self._shown == "refused" and isinstance(event, Scale.Changed):
            self._shown = ""
        elif self._shown == "missing":
            missing = self.missing()
            self._shown = "missing" if missing else ""
        else:
            return
        text = NOT_SUBMITTED + ", ".join(self.missing()) + "." if self._shown else ""
        self.query_one("#rating-error", Static).update(text)

    @on(Button.Pressed, "#submit")
    @on(Input.Submitted, "#justification")
    def action_submit(self) -> None:
        missing = self.missing()
        if missing:
            self._error(NOT_SUBMITTED + ", ".join(missing) + ".")
            return
        v = self.values()
        rating = DialogueRating(
            session_id=self.session_id, rater=self.rater,
            understanding=int(v["understanding"] or 0), task_completion=int(v["task_completion"] or 0),
            interest_arousal=int(v["interest_arousal"] or 0), efficiency=int(v["efficiency"] or 0),
            overall=int(v["overall"] or 0),
            justification=self.query_one("#justification", Input).value.strip())
        self.dismiss(rating)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
