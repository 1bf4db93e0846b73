"""SIGTERM and SIGHUP end a command as ctrl+c does: what was stored stays stored, the command says so in one
line and exits with the shell's code for the signal (128 + its number: 130 for SIGINT, 143 for SIGTERM, 129
for SIGHUP).

:func:`install` makes both signals raise :class:`Terminated`, a ``KeyboardInterrupt``, so every path a command
already has for ctrl+c (cleanup in ``finally``, rollback of the write in flight, the session's end time) runs
for them too. A terminal app cannot take an exception in the middle of its event loop: while it runs
(:func:`handled_by`), a signal calls its ``end`` callback on that loop instead (the app then ends the session
and exits with :func:`exit_code`). A leaf module: it imports nothing of parley.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

#: the signals handled like ctrl+c (SIGINT keeps Python's own handler: KeyboardInterrupt)
ENDING = (signal.SIGTERM, signal.SIGHUP)

_received: int | None = None  # the last of ENDING received (None: none, so an interruption is ctrl+c)
_end: Callable[[int], None] | None = None  # while a terminal app runs: what a signal asks of it


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where ctrl+c would raise KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _handler(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = signum
    if _end is not None:
        try:
            loop = asyncio.get_running_loop()  # the handler runs on the main thread: the app's loop, if any
        except RuntimeError:
            loop = None
        if loop is not None:
            loop.call_soon_threadsafe(_end, signum)
            return
    raise Terminated(signum)


def install() -> None:
    """SIGTERM and SIGHUP raise :class:`Terminated` from now on (main thread only; elsewhere a no-op). A
    signal the command was started ignoring (``nohup parley run …``) stays ignored."""
    for sig in ENDING:
        try:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, _handler)
        except ValueError:  # not the main thread (a command run from a test's thread): left as it was
            return


@contextmanager
def handled_by(end: Callable[[int], None]) -> Iterator[None]:
    """While the block runs (a terminal app's ``run()``), SIGTERM/SIGHUP call ``end(signum)`` on the running
    event loop rather than raising; outside any loop they still raise :class:`Terminated`."""
    global _end
    install()
    before, _end = _end, end
    try:
        yield
    finally:
        _end = before


def received() -> int | None:
    """The SIGTERM or SIGHUP received last, if any."""
    return _received


def signum_of(error: BaseException | None = None) -> int:
    """The signal that interrupted: ``error``'s own when it is a :class:`Terminated`, else the last SIGTERM or
    SIGHUP received, else SIGINT (ctrl+c)."""
    if isinstance(error, Terminated):
        return error.signum
    return _received or signal.SIGINT


def exit_code(signum: int) -> int:
    """The shell's exit code for a command ended by ``signum``."""
    return 128 + signum


def describe(signum: int) -> str:
    """How the line printed on the way out names the signal: "interrupted" (ctrl+c), "terminated (SIGTERM)",
    "hung up (SIGHUP)"."""
    if signum == signal.SIGINT:
        return "interrupted"
    name = signal.Signals(signum).name
    return f"hung up ({name})" if signum == signal.SIGHUP else f"terminated ({name})"


def reword(said: str, signum: int) -> str:
    """``said`` (a command's "interrupted: …" line, or nothing) naming the signal that really ended it."""
    word = describe(signum)
    if not said:
        return word
    return word + said[len("interrupted"):] if said.startswith("interrupted") else f"{word}: {said}"
