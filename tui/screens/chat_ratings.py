"""Turn ratings (rating mode in the log) and the end-of-dialogue rating, for the chat screen.

Handlers use the ``on_<message>`` naming convention because ``@on`` only registers on MessagePump classes.
"""

from __future__ import annotations

from typing import Any

from parley.tui.widgets.chatlog import ChatLog, SystemTurnView

LOCKED_HINT = "Session locked (dialogue rated) — ctrl+n starts a new session"


class RatingMixin:
    """Mixed into ChatScreen (provides log_view, prompt, status, session, locked, notify, app, ...)."""

    def action_rate_mode(self) -> None:
        this: Any = self
        if not this.log_view.system_views():
            this.notify("Nothing to rate yet: no system turn has answered.", severity="warning")
            return
        if this.locked:
            this.notify("The dialogue rating was submitted: turn ratings are locked.", severity="warning")
            return
        this.log_view.focus()

    def on_chat_log_leave(self, event: ChatLog.Leave) -> None:
        this: Any = self
        prompt = this.prompt
        if event.typed and not prompt.disabled:
            prompt.insert_text_at_cursor(event.typed)
        prompt.focus()

    def on_chat_log_refused(self, event: ChatLog.Refused) -> None:
        this: Any = self
        this.notify(event.reason, severity="warning")

    def on_chat_log_rate(self, event: ChatLog.Rate) -> None:
        this: Any = self
        from parley.store import StoreError

        if this.locked or this.session is None or event.view.turn_id is None:
            this.notify("The dialogue rating was submitted: turn ratings are locked.", severity="warning")
            return
        app: Any = this.app
        ratings = {**event.view.ratings, event.aspect: event.value}
        try:
            this.session.rate_turn(event.view.turn_id, app.tester, relevance=ratings["relevance"],
                                   interestingness=ratings["interestingness"])
        except StoreError as e:
            this.notify(f"Rating not stored: {e}", severity="error")
            return
        event.view.set_rating(event.aspect, event.value)
        event.view.refresh_ratings(this.log_view.aspect if this.log_view.cursor is event.view else None)

    def action_end_dialogue(self) -> None:
        this: Any = self
        from parley.tui.screens.rating import DialogueRatingScreen

        if this.session is None:
            this.notify("No session yet: the system is still loading.", severity="warning")
            return
        if this.locked:
            this.notify("This dialogue is already rated — ctrl+n starts a new session.", severity="warning")
            return
        if this._busy or this._queue:
            this.notify("Wait for the system to answer the queued turns first.", severity="warning")
            return
        if not this.log_view.query(SystemTurnView):
            this.notify("Nothing to rate yet: hold the dialogue first.", severity="warning")
            return
        app: Any = this.app
        this.app.push_screen(DialogueRatingScreen(this.session.id, app.tester), this._dialogue_rated)

    def _dialogue_rated(self, rating: Any) -> None:
        this: Any = self
        from parley.store import StoreError

        if rating is None:
            this.notify("Dialogue rating cancelled; nothing was stored.")
            return
        try:
            this.session.rate_dialogue(rating)
        except StoreError as e:
            this.notify(f"Dialogue rating not stored: {e}", severity="error")
            return
        this.locked = True
        this.log_view.locked = True
        this.status.locked = True
        this.prompt.placeholder = LOCKED_HINT
        this.prompt.disabled = True
        this.log_view.add_note(
            f"── dialogue rated: understanding {rating.understanding}, task completion {rating.task_completion}, "
            f"interest arousal {rating.interest_arousal}, efficiency {rating.efficiency}, overall {rating.overall}"
            f" — session locked; ctrl+n starts a new one ──")
        this.notify("Dialogue rating stored; the session is locked. ctrl+n starts a new session.")
        this.refresh_bindings()

