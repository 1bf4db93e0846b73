"""The live dialogue without a face: the session, the user turns waiting for it, the worker that runs them,
and the ratings that land in the session.

The tester may keep typing while the system answers: every turn is *accepted* at once (stored as ``pending``
by ``Session.accept``, on the UI thread: one small commit) and queued; a thread worker runs them one at a
time, in order, and the widget posts :class:`Dialogue.Done` (or :class:`Dialogue.Crashed`) for the screen to
show. Turns typed before any system is loaded wait in memory and are accepted as soon as a session starts.
Ratings are stored by :class:`parley.tui.widgets.ratings.Ratings`; the dialogue rating sets ``locked``
(until the next session starts).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from textual import on
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from parley.engine.session import Exchange, Pending, Session
from parley.tui.notify import tell


@dataclass
class _Turn:
    ticket: int
    text: str
    audio_in: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    pending: Pending | None = None  # None until a session has stored it
    session: Session | None = None  # the session that stored it, which also runs it
    ahead: Any = None  # audio.ahead.AheadReply: the turn as computed during the end-of-turn silence


class Dialogue(Widget):
    """Holds the session and the queue; never displayed. ``submit`` returns the ticket the log shows."""

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

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self._queue: deque[_Turn] = deque()
        self._current: _Turn | None = None
        self._ticket = 0
        self.locked = False  # the dialogue rating was stored (set by Ratings)

    @property
    def waiting(self) -> int:
        """Turns typed and not finished yet (queued or running)."""
        return len(self._queue) + (self._current is not None)

    def submit(self, text: str, audio_in: str | None = None, info: Mapping[str, Any] | None = None,
               ahead: Any = None) -> int:
        """Accept a user turn (stored as pending when a session is open) and queue it; returns its ticket.
        Raises ``store.StoreError`` when the database refuses the turn (nothing is queued then). ``ahead``:
        the turn computed ahead (spoken turns), used if it still fits when the turn runs."""
        self._ticket += 1
        turn = _Turn(self._ticket, text, audio_in, dict(info or {}), ahead=ahead)
        if self.session is not None:
            turn.pending = self.session.accept(text, audio_in=audio_in, input_info=turn.info)
            turn.session = self.session
        self._queue.append(turn)
        self._pump()
        return turn.ticket

    def start(self, session: Session) -> None:
        """End the current session (if any; in a worker, so a locked database never holds the UI) and run the
        following turns in ``session``; turns typed while no session was open are accepted now."""
        old = self.session
        if old is not None:
            self.run_worker(old.end, name=f"end {old.id[:8]}", group="end", description="end the session",
                            thread=True, exit_on_error=False)
        self.session = session
        self.locked = False
        try:
            for turn in self._queue:
                if turn.pending is None:
                    turn.pending = session.accept(turn.text, audio_in=turn.audio_in, input_info=turn.info)
                    turn.session = session
        finally:  # a turn the database refused (the error goes on to the caller) is not sent either
            self._queue = deque(t for t in self._queue if t.pending is not None)
            self._pump()

    def cancel(self) -> int:
        """Stop: every stored turn not answered yet becomes ``cancelled``; returns how many. A turn in flight
        finishes in its thread, but its answer is not kept."""
        turns = [*self._queue, *([self._current] if self._current is not None else [])]
        sessions = {id(s): s for s in (self.session, *(t.session for t in turns)) if s is not None}
        self._queue.clear()
        return sum(s.cancel_pending() for s in sessions.values())

    def _pump(self) -> None:
        if self._current is not None or not self._queue or self.session is None:
            if self._current is None and not self._queue:
                self.post_message(self.Idle())
            return
        turn = self._current = self._queue.popleft()
        session, pending = turn.session, turn.pending  # typed during a system switch: still the old session's
        assert session is not None and pending is not None

        def work() -> None:
            ahead = turn.ahead.turn() if turn.ahead is not None else None
            self.post_message(self.Done(turn.ticket, session.run(pending, ahead)))

        self.run_worker(work, name=f"turn {turn.ticket}", group="turn",
                        description=f"user turn {turn.ticket}", thread=True, exit_on_error=False)

    @on(Done)
    @on(Crashed)
    def _finished(self, event: Done | Crashed) -> None:
        """Let the screen see it (it bubbles on), then run the next turn."""
        if self._current is not None and self._current.ticket == event.ticket:
            self._current = None
        self.call_later(self._pump)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "end":
            which, error = event.worker.name[4:], event.worker.error
            tell(self, f"The end time of session {which} was not stored: {error}", severity="error")
        elif event.state == WorkerState.ERROR and event.worker.group == "turn":
            error = event.worker.error
            ticket = int(event.worker.name.split()[-1])
            self.post_message(self.Crashed(ticket, f"{type(error).__name__}: {error}"))
