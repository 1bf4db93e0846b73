"""The end-of-dialogue rating: ``DialogueRatingScreen(session_id, rater)`` → ``DialogueRating | None``.

Five scales (understanding, task completion, interest arousal 1-3; efficiency 0/1; overall impression 1-5),
each with its one-line definition from parley.scales, plus a multi-line justification (``enter`` starts a
new line, ``ctrl+s`` submits). A digit picks a value and moves on to the next scale; any other character typed
on a scale goes to the justification, so nothing typed vanishes. Every key of the form is handled as it
arrives, in order (priority bindings: see ``widgets/scale.py`` and ``widgets/justification.py``), so a fast
burst of digits lands one per scale. Submitting an incomplete form is refused with a message naming what is
missing; the message follows the form (it names only what is still missing and goes once everything is filled
in). ``escape`` closes the form at once while nothing is given; once an answer or a word of justification is
given it asks first (``y`` discards them, ``n`` or ``escape`` goes back to the form).

The screen only returns a complete record (the caller stores it), so nothing half-written can land; when the
caller cannot store it, it opens the screen again with ``initial=`` that record, so the answers are not lost.
The form is docked on the right half over a transparent background, so the dialogue being rated stays readable
on the left: the chat and the annotation screens narrow their transcript to that half while it is open.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static, TextArea

from parley.scales import DIALOGUE_ASPECTS, JUSTIFICATION_PROMPT, missing_dialogue_aspects
from parley.store.records import DialogueRating
from parley.tui.widgets.justification import Justification
from parley.tui.widgets.scale import Scale

NOT_SUBMITTED = "Not submitted — still missing: "


class FormScroll(VerticalScroll, can_focus=False):
    """The form's scrolling body: never focused itself (a key typed on it would go nowhere); the focused
    field is scrolled into view."""


class FormButton(Button, can_focus=False):
    """A button of the form: clicked, never focused (``ctrl+s`` and ``escape`` are its keys)."""


class DialogueRatingScreen(ModalScreen[DialogueRating | None]):
    """Rate the whole dialogue; dismisses with a complete :class:`DialogueRating` or ``None`` (cancelled)."""

    HELP_GROUP: ClassVar[str] = "dialogue rating"
    DEFAULT_CSS = """
    DialogueRatingScreen { align: right top; background: $background 0%; }
    DialogueRatingScreen #dialog { width: 50%; height: 100%; border: thick $primary;
        background: $surface; padding: 0 1; }
    """
    BINDINGS = [
        Binding("ctrl+s", "submit", "Submit rating", id="dialogue_rating_submit", priority=True),
        Binding("escape", "cancel", "Cancel", id="dialogue_rating_cancel", priority=True),
        Binding("tab", "app.focus_next", show=False, priority=True, system=True),
        Binding("shift+tab", "app.focus_previous", show=False, priority=True, system=True),
    ]

    def __init__(self, session_id: str, rater: str, *, title: str = "Rate the whole dialogue",
                 require_justification: bool = True, initial: DialogueRating | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.rater = rater
        self.title_text = title
        self.require_justification = require_justification
        self.initial = initial  # the answers of a rating that could not be stored: offered again, not lost
        self._shown = ""  # what #rating-error holds: "missing", "refused" or nothing
        self._form_closed = False

    def compose(self) -> ComposeResult:
        with FormScroll(id="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Static("a digit picks a value and moves on · tab / shift+tab move · enter starts a new "
                         "line · ctrl+s submits · escape cancels", classes="hint")
            for aspect in DIALOGUE_ASPECTS:
                yield Scale(aspect, typed=self._typed)
            yield Static(JUSTIFICATION_PROMPT, classes="field-label")
            yield Justification(id="justification", placeholder="your reason (required)"
                                if self.require_justification else "your reason")
            yield Static("", id="rating-error", classes="error")
            with Horizontal(classes="buttons"):
                yield FormButton("Submit (ctrl+s)", variant="primary", id="submit")
                yield FormButton("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        # set_focus, not focus(): at once, so that the keys typed while the form opened find their field
        if self.initial is not None:
            for scale in self.query(Scale):
                scale.value = getattr(self.initial, scale.aspect.key)
            self.justification.load_text(self.initial.justification)
            self.justification.move_cursor(self.justification.document.end)
            self.set_focus(self.justification)
            return
        self.set_focus(self.query_one(Scale))

    def on_key(self, event: events.Key) -> None:
        """A character that reaches the form itself was typed while it opened (nothing had focus yet): it
        goes to the field that has focus now, as if typed there."""
        if not (event.is_printable and event.character):
            return
        event.stop()
        field = self.focused
        if isinstance(field, Scale):
            if event.character.isdigit():
                field.action_pick(int(event.character))
            else:
                field.take_text(event.character)
        elif isinstance(field, Justification):
            field.action_type(ord(event.character))
        else:
            self._typed(event.character)

    @property
    def justification(self) -> Justification:
        return self.query_one("#justification", Justification)

    def values(self) -> dict[str, int | None]:
        return {s.aspect.key: s.value for s in self.query(Scale)}

    def answered(self) -> bool:
        """Something would be lost by closing: a value picked, or a justification typed."""
        return any(v is not None for v in self.values().values()) or bool(self.justification.text.strip())

    def missing(self) -> list[str]:
        """What still has to be filled in before the rating can be submitted."""
        out = missing_dialogue_aspects(self.values())
        if self.require_justification and not self.justification.text.strip():
            out.append("justification")
        return out

    def _typed(self, text: str) -> None:
        """Text typed on a scale: it is the start (or more) of the justification, never lost."""
        field = self.justification
        field.append(text)
        self.set_focus(field)

    @on(Scale.Refused)
    def _refused(self, event: Scale.Refused) -> None:
        self._error(event.reason)

    def _error(self, text: str) -> None:
        self._shown = "missing" if text.startswith(NOT_SUBMITTED) else "refused"
        self.query_one("#rating-error", Static).update(text)
        self.notify(text, severity="warning", markup=False)

    @on(Scale.Changed)
    @on(TextArea.Changed, "#justification")
    def _filled(self, event: Scale.Changed | TextArea.Changed) -> None:
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
    def action_submit(self) -> None:
        if self._form_closed:
            return
        missing = self.missing()
        if missing:
            self._error(NOT_SUBMITTED + ", ".join(missing) + ".")
            return
        v = self.values()
        rating = DialogueRating(
            session_id=self.session_id, rater=self.rater,
            understanding=int(v["understanding"] or 0), task_completion=int(v["task_completion"] or 0),
            interest_arousal=int(v["interest_arousal"] or 0), efficiency=int(v["efficiency"] or 0),
            overall=int(v["overall"] or 0), justification=self.justification.text.strip())
        self._form_closed = True
        self.dismiss(rating)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close; once something is given, only after the rater confirms that it may go."""
        if self._form_closed:
            return
        if not self.answered():
            self._form_closed = True
            self.dismiss(None)
            return
        self.app.push_screen(DiscardScreen(), self._discard)

    def _discard(self, discard: bool | None) -> None:
        if discard and not self._form_closed:
            self._form_closed = True
            self.dismiss(None)


class DiscardScreen(ModalScreen[bool]):
    """``y`` discards the answers given in the dialogue rating form; ``n`` or ``escape`` goes back to it."""

    BINDINGS = [
        Binding("y", "answer(True)", "Discard them", id="dialogue_rating_discard", priority=True),
        Binding("n,escape", "answer(False)", "Back to the form", id="dialogue_rating_keep", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__(classes="modal")

    def compose(self) -> ComposeResult:
        with Vertical(id="discard", classes="dialog small-dialog"):
            yield Label("Discard your answers?", classes="dialog-title")
            yield Static("The values you picked and the justification you typed are not stored until you "
                         "submit them (ctrl+s). y discards them and closes the form; n or escape goes back "
                         "to it.", classes="hint")
            with Horizontal(classes="buttons"):
                yield FormButton("Back to the form (n)", variant="primary", id="keep")
                yield FormButton("Discard them (y)", variant="error", id="discard-yes")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.action_answer(event.button.id == "discard-yes")

    def action_answer(self, discard: bool) -> None:
        self.dismiss(discard)
