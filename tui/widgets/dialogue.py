"""The live dialogue without a face: the session, the user turns typed into it, the writes that store them and
the worker that runs them.

Typed means stored. A turn is shown the moment the tester sends it and committed as ``pending``
(``Session.accept``) by a write worker (:class:`Writes`), in the order typed, so a database another program
holds locked never freezes the UI: until its commit lands the turn shows "saving…" (the status bar says why
when it waits long), then "waiting for the system". A commit the database refuses (locked past the busy
timeout, disk full) is retried in place until it lands: nothing typed is dropped, and the order holds.

The session opens as soon as the database does (``start``), before any system is loaded: turns typed
meanwhile are stored in it at once and wait there for a system (``attach``) — also when loading it fails,
until the tester picks another system (which then answers them: the session's record names it) or cancels
them (``cancel``: stored as cancelled, with the reason). Stored turns run one at a time, in order, in a
thread worker; the widget posts :class:`Dialogue.Done` (or :class:`Dialogue.Crashed`) for the screen to
show. Ratings are stored by :class:`parley.tui.widgets.ratings.Ratings`; the dialogue rating sets ``locked``
(until the next session starts).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from parley.engine.session import Exchange, Pending, Session
from parley.tui.notify import tell
from parley.tui.widgets.writes import Write, Writes

if TYPE_CHECKING:
    from parley.audio.ahead import AheadReply
    from parley.engine.types import DialogueSystem
    from parley.tui.widgets.chatlog import UserTurnView

T = TypeVar("T")
RETRY_S = 0.5  # between two tries of a commit the database refused (each try waits its busy timeout first)


@dataclass(eq=False)
class _Turn:
    ticket: int
    text: str
    audio_in: str | None = None
    info: Mapping[str, object] = field(default_factory=dict)
    ahead: AheadReply | None = None  # the turn as computed during the end-of-turn silence
    session: Session | None = None  # the session it is stored in, which also runs it (None: none open yet)
    pending: Pending | None = None  # None until its commit landed


class Dialogue(Widget):
    """Holds the session, the turns and their writes; never displayed. ``submit`` returns the ticket the log
    shows."""

    DEFAULT_CSS = "Dialogue { display: none; }"

    @dataclass
    class Done(Message):
        """The session finished one user turn (stored, with the system's answer, an error, or cancelled)."""

        ticket: int
        exchange: Exchange

    @dataclass
    class Crashed(Message):
        """``Session.run`` itself raised (e.g. the database went away); nothing more is known of the turn."""

        ticket: int
        error: str

    class Idle(Message):
        """Nothing is queued or running any more."""

    @dataclass
    class Refused(Message):
        """The database refused a commit (posted by the write worker, which tries again)."""

        error: str

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self._turns: deque[_Turn] = deque()  # typed and not run yet, in order
        self._committing: list[_Turn] = []  # their commit queued, not landed yet (cancelled ones too)
        self._current: _Turn | None = None
        self._ticket = 0
        self.locked = False  # the dialogue rating was stored (set by Ratings)
        self.problem = ""  # why the database refuses a commit that is being retried ("" once it landed)
        self._cancel_reason: str | None = None  # cancelled before any session was open: cancel once stored
        self._stop = threading.Event()  # the app is going: refused commits are no longer retried

    def compose(self) -> ComposeResult:
        yield Writes(id="turn-writes")

    @property
    def writes(self) -> Writes:
        return self.query_one("#turn-writes", Writes)

    @property
    def waiting(self) -> int:
        """Turns typed and not finished yet (being saved, queued or running)."""
        return len(self._turns) + (self._current is not None)

    @property
    def unstored(self) -> int:
        """Turns shown whose commit has not landed yet."""
        return len(self._committing) + sum(t.session is None for t in self._turns)

    @property
    def saving(self) -> int:
        """Writes of this dialogue not committed yet: turns, cancellations, a system given to the session, the
        end of a session."""
        return self.writes.pending if self.is_mounted else 0

    @property
    def has_system(self) -> bool:
        return self.session is not None and self.session.system is not None

    # -- turns -------------------------------------------------------------------------------------------
    def submit(self, text: str, audio_in: str | None = None, info: Mapping[str, object] | None = None,
               ahead: AheadReply | None = None) -> int:
        """Queue a user turn and its commit (at once when a session is open, else as soon as one is); returns
        its ticket. ``ahead``: the turn computed ahead (spoken turns), used if it still fits when it runs."""
        self._ticket += 1
        turn = _Turn(self._ticket, text, audio_in, dict(info or {}), ahead=ahead)
        self._turns.append(turn)
        if self.session is not None:
            self._commit(turn, self.session)
        self.show_saving()
        return turn.ticket

    def start(self, session: Session) -> None:
        """End the current session (if any, once its writes landed) and run the following turns in
        ``session``; turns typed while no session was open are stored in it now."""
        old = self.session
        if old is not None:
            def not_ended(error: str) -> None:
                tell(self, f"The end time of session {old.id[:8]} was not stored: {error}", severity="error")

            end = Write("session end", lambda: self._persist(old.end), lambda _: None, not_ended)
            self.writes.submit(end)
        self.session = session
        self.locked = False
        for turn in self._turns:
            if turn.session is None:
                self._commit(turn, session)
        if self._cancel_reason is not None:
            reason, self._cancel_reason = self._cancel_reason, None
            self.cancel(reason or None)
        self._pump()

    def attach(self, system: DialogueSystem, spec: str) -> bool:
        """Let ``system`` answer the open session's turns when the session has no system yet (opened before
        any loaded, or the one it was for failed to load): its record then names ``spec``. False when the
        session has a system (start a new session for another one)."""
        session = self.session
        if session is None or session.system is not None:
            return False

        def failed(error: str) -> None:
            tell(self, f"{spec} cannot answer this session: {error}", severity="error")

        self.writes.submit(Write("system", lambda: self._persist(partial(session.attach, system, spec)),
                                 lambda _: self._pump(), failed))
        return True

    def cancel(self, reason: str | None = None) -> int:
        """Stop: every turn not answered yet becomes ``cancelled`` (stored so, ``reason`` as its error; one
        still being saved is stored first); returns how many. A turn in flight finishes in its thread, but its
        answer is not kept once the cancellation landed first."""
        queued = list(self._turns)
        count = len(queued) + (self._current is not None)
        if self.session is None:  # nothing is stored yet: they are, as cancelled, once a session opens
            self._cancel_reason = (reason or "") if queued else None
            return count
        self._turns.clear()
        current = [self._current] if self._current is not None else []
        sessions = {id(t.session): t.session for t in [*queued, *current] if t.session is not None}
        for session in sessions.values():
            mine = [t for t in queued if t.session is session]

            def cancelled(_: object, mine: list[_Turn] = mine) -> None:
                for t in mine:
                    self.post_message(self.Done(t.ticket, _cancelled(t)))

            def failed(error: str) -> None:
                tell(self, f"Waiting turns not cancelled: {error}", severity="error")

            cancel = partial(self._persist, partial(session.cancel_pending, reason))
            self.writes.submit(Write("cancel", cancel, cancelled, failed))
        self._pump()
        return count

    # -- writes --------------------------------------------------------------------------------------------
    def _commit(self, turn: _Turn, session: Session) -> None:
        turn.session = session
        self._committing.append(turn)
        accept = partial(session.accept, turn.text, audio_in=turn.audio_in, input_info=turn.info)

        def stored(pending: Pending) -> None:
            turn.pending = pending
            self._committing.remove(turn)
            self.problem = ""
            view = self._view(turn.ticket)
            if view is not None:
                view.show_stored()
            self.show_saving()
            self._pump()

        def failed(error: str) -> None:  # not the database refusing (that is retried): this turn cannot be
            if turn in self._turns:       # stored (its recording went away...): it is not sent either
                self._turns.remove(turn)
            self._committing.remove(turn)
            view = self._view(turn.ticket)
            if view is not None:
                view.show_crash(f"not stored, so not sent: {error}")
            tell(self, f"Turn not stored, so not sent: {error}", severity="error", timeout=10)
            self.show_saving()
            self._pump()

        self.writes.submit(Write("turn", lambda: self._persist(accept), stored, failed, key=turn))

    def _persist(self, write: Callable[[], T]) -> Callable[[], T]:
        """``write``, for the worker: tried until the database takes it (each refusal is shown), so the writes
        after it never overtake it. Only the app going stops the tries."""
        from parley.store import StoreError

        def run() -> T:
            while True:
                try:
                    return write()
                except StoreError as e:
                    if self._stop.is_set():
                        raise
                    self.post_message(self.Refused(str(e)))
                    self._stop.wait(RETRY_S)

        return run

    @on(Refused)
    def _refused(self, event: Refused) -> None:
        event.stop()
        if self.unstored:
            self.problem = event.error
            self.show_saving()

    def show_saving(self) -> None:
        """The turns being saved (and why they wait, when the database refuses them) in the status bar."""
        from parley.tui.widgets.statusbar import StatusBar

        if not self.is_attached:
            return
        n = self.unstored
        text = f"saving {n} turn{'s' if n > 1 else ''}…" if n else ""
        if text and self.problem:
            text += f" {self.problem}; trying again"
        for bar in self.screen.query(StatusBar):
            bar.turns = text

    def _view(self, ticket: int) -> UserTurnView | None:
        from parley.tui.widgets.chatlog import ChatLog

        if not self.is_attached:
            return None
        for log in self.screen.query(ChatLog):
            return log.user_view(ticket)
        return None

    def on_unmount(self) -> None:
        self._stop.set()

    # -- running -------------------------------------------------------------------------------------------
    def _pump(self) -> None:
        if self._current is None and self._turns:
            turn = self._turns[0]
            session, pending = turn.session, turn.pending  # typed during a system switch: the old session's
            if pending is None or session is None or session.system is None:
                return  # its commit has not landed, or no system answers its session yet
            self._current = self._turns.popleft()

            def work() -> None:
                ahead = turn.ahead.turn() if turn.ahead is not None else None
                self.post_message(self.Done(turn.ticket, session.run(pending, ahead)))

            self.run_worker(work, name=f"turn {turn.ticket}", group="turn",
                            description=f"user turn {turn.ticket}", thread=True, exit_on_error=False)
        elif self._current is None:
            self.post_message(self.Idle())

    @on(Done)
    @on(Crashed)
    def _finished(self, event: Done | Crashed) -> None:
        """Let the screen see it (it bubbles on), then run the next turn."""
        if self._current is not None and self._current.ticket == event.ticket:
            self._current = None
        self.call_later(self._pump)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "turn":
            error = event.worker.error
            ticket = int(event.worker.name.split()[-1])
            self.post_message(self.Crashed(ticket, f"{type(error).__name__}: {error}"))


def _cancelled(turn: _Turn) -> Exchange:
    """What the log shows of a turn cancelled before it was sent."""
    rec = turn.pending.record if turn.pending is not None else None
    return Exchange(user_turn_id=rec.id if rec else "", user_index=rec.index if rec else -1, typed=turn.text,
                    final=turn.text, steps=(), condition="", audio_in=turn.audio_in, cancelled=True)
