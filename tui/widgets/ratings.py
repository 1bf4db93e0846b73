"""The chat's rating flow without a face: rating mode, turn ratings from the log, the end-of-dialogue rating
and the lock it sets.

The chat screen's rating keys and the log's :class:`ChatLog.Rate` end here. Ratings are written in a thread
worker, one at a time and in the order given (a database locked by another process never freezes the UI):
a turn rating is shown "saving…" until its write committed, then as given (both aspects as they stand in
the database go into each write, so two quick ratings of one turn never undo each other). The dialogue
rating (:class:`DialogueRatingScreen`, on the right half while the transcript narrows to the left) is stored
after every turn rating given before it; while it is being saved the session takes no turns and no ratings,
and only once it committed does the session lock (:attr:`Dialogue.locked`) and the screen hear of it
(:class:`Ratings.Rated`). When it cannot be stored, its form opens again holding the tester's answers. The
tester name and the session's end time on quitting (``set_tester``, ``end_session``) go through the same
queue. :attr:`Ratings.saving` counts the writes not committed yet (quitting waits for them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, cast

from textual import on
from textual.message import Message

from parley.store.records import DialogueRating
from parley.tui.notify import tell
from parley.tui.screens.rating import DialogueRatingScreen
from parley.tui.widgets.chatlog import ChatLog, SystemTurnView
from parley.tui.widgets.writes import Write, Writes

if TYPE_CHECKING:
    from parley.engine.session import Session
    from parley.tui.screens.chat import ChatScreen

ENDING = "session end"
TURNS_LOCKED = "The dialogue rating was submitted: turn ratings are locked."
LOCKING = "The dialogue rating is being saved; wait a moment."
ENDING_HINT = "Quitting: the session is being ended."


class Ratings(Writes):
    """Never displayed; lives on the chat screen next to :class:`Dialogue`."""

    DEFAULT_CSS = "Ratings { display: none; }"

    @dataclass
    class Rated(Message):
        """The dialogue rating was stored; the session is locked."""

        rating: DialogueRating

    @property
    def saving(self) -> int:
        """Writes given (ratings, the tester name, the session's end) and not committed (or failed) yet."""
        return self.pending

    @property
    def locking(self) -> bool:
        """A dialogue rating is waiting to be stored: the session is about to lock."""
        return any(w.kind == "dialogue rating" for w in self.jobs)

    @property
    def ending(self) -> bool:
        """Quitting: the session's end time is being written (no turn goes into it any more)."""
        return any(w.kind == ENDING for w in self.jobs)

    @property
    def chat(self) -> ChatScreen:
        return cast("ChatScreen", self.screen)

    # -- turn ratings ------------------------------------------------------------------------------------
    def rate_mode(self) -> None:
        """Enter rating mode (the prompt keeps the focus) when there is something to rate."""
        chat = self.chat
        if not chat.log_view.system_views():
            tell(self, "Nothing to rate yet: no system turn has answered.", severity="warning")
        elif chat.locked:
            tell(self, TURNS_LOCKED, severity="warning")
        elif self.locking:
            tell(self, LOCKING, severity="warning")
        else:
            chat.prompt.start_rating()

    def rate_turn(self, event: ChatLog.Rate, rater: str) -> None:
        """Queue a turn rating from the log; it shows "saving…" until stored."""
        view = event.view
        session = self.chat.session
        if self.chat.locked or session is None or view.turn_id is None:
            tell(self, TURNS_LOCKED, severity="warning")
            return
        if self.locking:
            tell(self, LOCKING, severity="warning")
            return
        turn_id, aspect, value = view.turn_id, event.aspect, event.value
        view.saving[aspect] = value
        self._refresh(view)

        def start() -> Callable[[], object]:
            values = {**view.ratings, aspect: value}  # as stored now: the writes before it committed
            return partial(session.rate_turn, turn_id, rater, relevance=values["relevance"],
                           interestingness=values["interestingness"])

        def finished(error: str | None) -> None:
            if not any(w.key == (view, aspect) for w in self.jobs):  # no newer value waits
                view.saving.pop(aspect, None)
            if error is None:
                view.ratings[aspect] = value
            else:
                tell(self, f"Rating not stored: {error}", severity="error")
            self._refresh(view)

        self.submit(Write("turn rating", start, lambda _: finished(None), finished, key=(view, aspect)))

    def _refresh(self, view: SystemTurnView) -> None:
        if view.is_attached:
            log = self.chat.log_view
            view.refresh_ratings(log.aspect if log.cursor is view else None)

    # -- the dialogue rating -----------------------------------------------------------------------------
    def end_dialogue(self, rater: str) -> None:
        """ctrl+r: open the end-of-dialogue rating unless the dialogue cannot be rated now."""
        chat = self.chat
        if chat.locked:
            tell(self, "This dialogue is already rated — ctrl+n starts a new session.", severity="warning")
        elif self.locking:
            tell(self, LOCKING, severity="warning")
        elif chat.dialogue.waiting:
            tell(self, "Wait for the system to answer the queued turns first.", severity="warning")
        elif not chat.log_view.query(SystemTurnView):
            tell(self, "Nothing to rate yet: hold the dialogue first.", severity="warning")
        else:
            self.rate_dialogue(rater)

    def rate_dialogue(self, rater: str) -> None:
        """Open the end-of-dialogue rating; the rating given is queued (after the turn ratings given before
        it); once stored, the session locks and :class:`Rated` is posted."""
        session = self.chat.session
        if session is None:
            tell(self, "No session yet: the system is still loading.", severity="warning")
            return

        def rated(rating: DialogueRating | None) -> None:
            if rating is None:
                tell(self, "Dialogue rating cancelled; nothing was stored.")
                return

            def stored(_: object) -> None:
                self.chat.dialogue.locked = True
                self.post_message(self.Rated(rating))

            def failed(error: str) -> None:
                kept = "Your answers are kept: ctrl+s tries again."
                tell(self, f"Dialogue rating not stored: {error}. {kept}", severity="error")
                self._open_form(DialogueRatingScreen(session.id, rater, initial=rating), rated)

            write = partial(session.rate_dialogue, rating)
            self.submit(Write("dialogue rating", lambda: write, stored, failed))

        self._open_form(DialogueRatingScreen(session.id, rater), rated)

    def _open_form(self, form: DialogueRatingScreen,
                   rated: Callable[[DialogueRating | None], None]) -> None:
        """The form on the right half; the transcript on the left half, at its latest turn, stays readable
        (it narrows while the form is open: ``ChatScreen.-rating-dialogue`` in app.tcss)."""
        chat = self.chat
        chat.add_class("-rating-dialogue")
        chat.log_view.follow()

        def closed(rating: DialogueRating | None) -> None:
            chat.remove_class("-rating-dialogue")
            rated(rating)

        self.app.push_screen(form, closed)

    # -- the session's other writes -----------------------------------------------------------------------
    def set_tester(self, session: Session, tester: str) -> None:
        """Write the new tester name into the session's record (after the writes before it)."""
        def failed(error: str) -> None:
            tell(self, f"Tester {tester!r} not stored with the session: {error}", severity="error")

        self.submit(Write("tester name", lambda: partial(session.set_tester, tester), lambda _: None, failed))

    def end_session(self, session: Session, done: Callable[[], None], failed: Callable[[str], None]) -> None:
        """Store the session's end time, after every write given before it (quitting)."""
        self.submit(Write(ENDING, lambda: session.end, lambda _: done(), failed))

    # -- the writes --------------------------------------------------------------------------------------
    def submit(self, write: Write) -> None:
        super().submit(write)
        self.show_status()

    def written(self, write: Write, error: str | None) -> None:
        if error is not None and self.chat.quitting and write.kind != ENDING:
            self.chat.quitting = False
            tell(self, "Not quitting: a rating was not stored (see above).", severity="warning", timeout=10)
        self.show_status()

    def show_status(self) -> None:
        """What is being saved (and that the app quits after), in the status bar."""
        kinds = [w.kind for w in self.jobs]
        n, status = sum(k.endswith(" rating") for k in kinds), self.chat.status
        text = ("saving the dialogue rating…" if self.locking else
                f"saving {n} rating{'s' if n > 1 else ''}…" if n else
                "saving the tester name…" if "tester name" in kinds else
                "saving the session's end time…" if ENDING in kinds else "")
        if text and self.chat.quitting:
            text = text[:-1] + ", then quitting"
        status.saving = text  # its own slot: a "loading …" line showing meanwhile stays
        self.chat.refresh_bindings()

    @on(Rated)
    def _rated(self, event: Rated) -> None:
        """The session is locked: the prompt, the log and the status bar say so (the message bubbles on)."""
        from parley.tui.screens.chat import LOCKED_HINT

        chat, r = self.chat, event.rating
        chat.log_view.locked = chat.status.locked = True
        chat.prompt.stop_rating()
        chat.prompt.set_placeholder(LOCKED_HINT)
        chat.set_focus(None)  # first: disabling the focused prompt would hand focus on
        chat.prompt.disabled = True
        chat.log_view.add_note(
            f"── dialogue rated: understanding {r.understanding}, task completion {r.task_completion}, "
            f"interest arousal {r.interest_arousal}, efficiency {r.efficiency}, overall {r.overall}"
            f" — session locked; ctrl+n starts a new one ──")
        tell(self, "Dialogue rating stored; the session is locked. ctrl+n starts a new session.")
        chat.refresh_bindings()
