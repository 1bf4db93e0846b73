"""Database writes of a screen in a thread worker, one at a time and in the order given, without a face.

A write that waits on a database another process holds locked (the store waits on its busy timeout) never
freezes the UI. Each :class:`Write` says what to do: ``start`` runs on the UI thread when its turn comes (so
it sees the writes before it committed) and returns the function the worker runs; ``done`` (with its result)
or ``failed`` (with one line for the user) run back on the UI thread. :attr:`Writes.pending` counts the
writes not finished yet; :class:`Writes.Idle` is posted when the last one finished.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import on
from textual.message import Message
from textual.widget import Widget


@dataclass(eq=False)
class Write:
    kind: str  # what it writes ("turn rating", "dialogue rating", ...)
    start: Callable[[], Callable[[], object]]
    done: Callable[[Any], None]
    failed: Callable[[str], None]
    key: object = None  # what it writes to, for callers that look for a newer write of the same thing


class Writes(Widget):
    """Never displayed; ``submit`` queues a write."""

    DEFAULT_CSS = "Writes { display: none; }"

    @dataclass
    class Finished(Message):
        """A write committed (``error`` None) or failed (posted by the worker, handled here)."""

        write: Write
        error: str | None
        result: object = None

    class Idle(Message):
        """Every write given has finished (stored, or failed and said so)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._queue: deque[Write] = deque()
        self._current: Write | None = None

    @property
    def jobs(self) -> list[Write]:
        """The writes not finished yet, the running one first."""
        return [*([self._current] if self._current is not None else []), *self._queue]

    @property
    def pending(self) -> int:
        return len(self._queue) + (self._current is not None)

    def submit(self, write: Write) -> None:
        self._queue.append(write)
        self._pump()

    def _pump(self) -> None:
        if self._current is not None or not self._queue:
            return
        write = self._current = self._queue.popleft()
        try:
            store = write.start()
        except Exception as e:
            self.post_message(self.Finished(write, str(e)))
            return

        def work() -> None:
            try:
                result = store()
            except Exception as e:  # StoreError (locked past the timeout, disk full) or anything else
                self.post_message(self.Finished(write, str(e)))
                return
            self.post_message(self.Finished(write, None, result))

        self.run_worker(work, name=write.kind, group="write", description=f"store a {write.kind}",
                        thread=True, exit_on_error=False)

    @on(Finished)
    def _finished(self, event: Finished) -> None:
        event.stop()
        write = event.write
        if self._current is write:
            self._current = None
        try:
            if event.error is None:
                write.done(event.result)
            else:
                write.failed(event.error)
        finally:
            self._pump()
            self.written(write, event.error)
            if not self.pending:
                self.post_message(self.Idle())

    def written(self, write: Write, error: str | None) -> None:
        """Called after each write's own callback (subclasses: status lines and the like)."""
