"""One error base for everything a user can cause: a bad spec, file, database, model or device.

A :class:`ParleyError` carries a message meant for the user, one line, no traceback. The command line catches
it once, in ``parley.cli.main`` (one line on stderr, exit code 2); the TUI shows it as a notification. Each
package subclasses it for its own failures (``StoreError``, ``LoadError``, ``SpecError`` …), so callers can
still tell them apart. A leaf module: engine, audio and store may all import it.
"""

from __future__ import annotations


class ParleyError(Exception):
    """A failure the user can act on; ``str(e)`` is the one-line message shown to them."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)

    @property
    def message(self) -> str:
        """The first line of the message (what the CLI prints after ``parley: error:``)."""
        text = str(self)
        return text.splitlines()[0] if text else self.__class__.__name__
