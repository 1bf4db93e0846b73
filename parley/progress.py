"""The progress callback every long call accepts: ``progress("loading tiny.en …")`` or None for silence.
A leaf module: engine, audio and store may all import it."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None] | None
