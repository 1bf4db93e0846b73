"""The chat's rating flow without a face: rating mode, turn ratings from the log, the end-of-dialogue rating
and the lock it sets.

The chat screen's rating keys and the log's :class:`ChatLog.Rate` end here. A turn rating is stored with both
aspects as they now stand and then shown in the log; the dialogue rating (:class:`DialogueRatingScreen`) is
stored, then the session locks (:attr:`Dialogue.locked`) and the screen is told (:class:`Ratings.Rated`).
When a dialogue rating cannot be stored, its form opens again holding the tester's answers.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from textual import on
from textual.message import Message
from textual.widget import Widget

from parley.store.records import DialogueRating
from parley.tui.notify import tell
from parley.tui.screens.rating import DialogueRatingScreen
from parley.tui.widgets.chatlog import ChatLog, SystemTurnView

if TYPE_CHECKING:
    from parley.tui.screens.chat import ChatScreen

TURNS_LOCKED = "The dialogue rating was submitted: turn ratings are locked."


class Ratings(Widget):
    """Never displayed; lives on the chat screen next to :class:`Dialogue`."""

    DEFAULT_CSS = "Ratings { display: none; }"

    @dataclass
    class Rated(Message):
        """The dialogue rating was stored; the session is locked."""

        rating: DialogueRating

    @property
    def chat(self) -> ChatScreen:
        return cast("ChatScreen", self.screen)

    # -- turn ratings ------------------------------------------------------------------------------------
    def rate_mode(self) -> None:
        """Enter rating mode (focus the log) when there is something to rate."""
        chat = self.chat
        if not chat.log_view.system_views():
            tell(self, "Nothing to rate yet: no system turn has answered.", severity="warning")
        elif chat.locked:
            tell(self, TURNS_LOCKED, severity="warning")
        else:
            chat.log_view.focus()

    def rate_turn(self, event: ChatLog.Rate, rater: str) -> None:
        """Store a turn rating from the log (both aspects as they now stand) and show it there."""
        from parley.store import StoreError

        view = event.view
        session = self.chat.session
        if self.chat.locked or session is None or view.turn_id is None:
            tell(self, TURNS_LOCKED, severity="warning")
            return
        ratings = {**view.ratings, event.aspect: event.value}
        try:
            session.rate_turn(view.turn_id, rater, relevance=ratings["relevance"],
                              interestingness=ratings["interestingness"])
        except (StoreError, sqlite3.Error) as e:
            tell(self, f"Rating not stored: {e}", severity="error")
            return
        view.set_rating(event.aspect, event.value)
        log = self.chat.log_view
        view.refresh_ratings(log.aspect if log.cursor is view else None)

    # -- the dialogue rating -----------------------------------------------------------------------------
    def end_dialogue(self, rater: str) -> None:
        """ctrl+r: open the end-of-dialogue rating unless the dialogue cannot be rated now."""
        chat = self.chat
        if chat.locked:
            tell(self, "This dialogue is already rated — ctrl+n starts a new session.", severity="warning")
        elif chat.dialogue.waiting:
            tell(self, "Wait for the system to answer the queued turns first.", severity="warning")
        elif not chat.log_view.query(SystemTurnView):
            tell(self, "Nothing to rate yet: hold the dialogue first.", severity="warning")
        else:
            self.rate_dialogue(rater)

    def rate_dialogue(self, rater: str) -> None:
        """Open the end-of-dialogue rating; once stored, the session locks and :class:`Rated` is posted."""
        from parley.store import StoreError

        session = self.chat.session
        if session is None:
            tell(self, "No session yet: the system is still loading.", severity="warning")
            return

        def rated(rating: DialogueRating | None) -> None:
            if rating is None:
                tell(self, "Dialogue rating cancelled; nothing was stored.")
                return
            try:
                session.rate_dialogue(rating)
            except (StoreError, sqlite3.Error) as e:
                tell(self, f"Dialogue rating not stored: {e}. Your answers are kept: ctrl+s tries again.",
                     severity="error")
                self.app.push_screen(DialogueRatingScreen(session.id, rater, initial=rating), rated)
                return
            self.chat.dialogue.locked = True
            self.post_message(self.Rated(rating))

        self.app.push_screen(DialogueRatingScreen(session.id, rater), rated)

    @on(Rated)
    def _rated(self, event: Rated) -> None:
        """The session is locked: the prompt, the log and the status bar say so (the message bubbles on)."""
        from parley.tui.screens.chat import LOCKED_HINT

        chat, r = self.chat, event.rating
        chat.log_view.locked = chat.status.locked = True
        chat.prompt.placeholder = LOCKED_HINT
        chat.set_focus(None)  # first: disabling the focused prompt would hand focus to the log
        chat.prompt.disabled = True
        chat.log_view.add_note(
            f"── dialogue rated: understanding {r.understanding}, task completion {r.task_completion}, "
            f"interest arousal {r.interest_arousal}, efficiency {r.efficiency}, overall {r.overall}"
            f" — session locked; ctrl+n starts a new one ──")
        tell(self, "Dialogue rating stored; the session is locked. ctrl+n starts a new session.")
        chat.refresh_bindings()
