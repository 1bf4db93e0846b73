"""Budgets for everything parley reads: no file, stream or archive can exhaust the machine.

Every input is counted while it is read, never trusted for its size:

- **input** (``PARLEY_MAX_INPUT_MB``, 512 MB): the bytes of one file, stream or zip member (uncompressed:
  a member's declared size is checked before it is opened, its actual size while it is read).
- **record** (``PARLEY_MAX_RECORD_MB``, 64 MB): what is held whole in memory at once: a JSON file read whole
  (labels, knowledge, predictions), one dialogue of a streamed corpus, one line of a JSONL export.
- **lines** (``PARLEY_MAX_LINES``, 1,000,000) and **line** (``PARLEY_MAX_LINE_KB``, 64 KB): the lines of a
  script, a list file, a CSV file or standard input, and the length of each.

Going over a budget is one line naming the input, the limit and the variable that raises it (the caller's
:class:`~parley.errors.ParleyError` subclass, so its command ends with exit code 2). A leaf module: engine,
audio and store all use it.
"""

from __future__ import annotations

import math
import os
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from parley.errors import ParleyError


class LimitError(ParleyError, ValueError):
    """A budget variable that is not a positive number (``PARLEY_MAX_INPUT_MB=lots``)."""


@dataclass(frozen=True)
class Budget:
    """One budget: a default in ``unit`` s, the variable that changes it, and how many bytes a unit is."""

    name: str
    env: str
    default: int
    unit: str
    scale: int = 1

    def get(self) -> int:
        """The budget in bytes (or lines), from the environment or the default."""
        raw = os.environ.get(self.env, "").strip()
        if not raw:
            return self.default * self.scale
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= 0:
            raise LimitError(f"{self.env}={raw!r}: must be a positive number of {self.unit}")
        return max(1, int(value * self.scale))

    def shown(self) -> str:
        """``512 MB``, ``1,000,000 lines``: the budget as the user sets it."""
        value = self.get() / self.scale
        number = f"{value:,.0f}" if value >= 10 or value.is_integer() else f"{value:g}"
        return f"{number} {self.unit}"

    def message(self, source: str, what: str) -> str:
        """``SOURCE: WHAT, over the input limit of 512 MB (raise it with PARLEY_MAX_INPUT_MB=1024)``;
        ``what``: ``too large``, ``line 3 too long``, ``holds 4,294,967,296 bytes (4.3 GB) uncompressed``."""
        bigger = 2 * self.get() / self.scale
        return (f"{source}: {what}, over the {self.name} limit of {self.shown()} "
                f"(raise it with {self.env}={bigger:.0f})")


MB = 1_000_000
INPUT = Budget("input", "PARLEY_MAX_INPUT_MB", 512, "MB", MB)
RECORD = Budget("record", "PARLEY_MAX_RECORD_MB", 64, "MB", MB)
LINES = Budget("line-count", "PARLEY_MAX_LINES", 1_000_000, "lines")
LINE = Budget("line-length", "PARLEY_MAX_LINE_KB", 64, "KB", 1000)
BUDGETS = (INPUT, RECORD, LINES, LINE)


def size(n: int) -> str:
    """A byte count for messages: ``4,294,967,296 bytes (4.3 GB)``."""
    shown = (f" ({n / 1e12:,.1f} TB)" if n >= 1e12 else f" ({n / 1e9:.1f} GB)" if n >= 1e9
             else f" ({n / 1e6:.1f} MB)" if n >= 1e6 else "")
    return f"{n:,} bytes{shown}"


class Bounded:
    """A binary stream counted while it is read: over ``limit`` bytes (the input budget by default) it raises
    ``error``; between :meth:`mark` and the next mark, over the record budget. ``read`` never asks the stream
    for more than one byte past the limit."""

    def __init__(self, raw: IO[bytes], source: str, error: type[ParleyError] = ParleyError,
                 limit: int | None = None, budget: Budget = INPUT) -> None:
        self.raw, self.source, self.error, self.budget = raw, source, error, budget
        self.limit = budget.get() if limit is None else limit
        self.count = 0
        try:  # a regular file says its size: over the budget, it is refused before a byte is read
            st = os.fstat(raw.fileno())
        except (AttributeError, OSError, ValueError):
            st = None
        if st is not None and stat.S_ISREG(st.st_mode) and st.st_size > self.limit:
            raise error(budget.message(source, size(st.st_size)))
        self._mark: int | None = None
        self._record = 0
        self._what = ""

    def read(self, n: int = -1) -> bytes:
        room = self.limit + 1 - self.count
        if self._mark is not None:  # within a record: never more than one byte past the record budget
            room = min(room, self._mark + self._record + 1 - self.count)
        data = self.raw.read(room if n is None or n < 0 else min(n, room))
        self.count += len(data)
        if self.count > self.limit:
            raise self.error(self.budget.message(self.source, "too large"))
        if self._mark is not None and self.count - self._mark > self._record:
            raise self.error(RECORD.message(self.source, f"{self._what} too large"))
        return data

    def mark(self, what: str) -> None:
        """A record (``what``: ``dialogue 'SNG01'``) starts here: it may span at most the record budget."""
        if self._mark is None:
            self._record = RECORD.get()
        self._mark, self._what = self.count, what

    def readline(self, n: int = -1) -> bytes:
        data = self.raw.readline(self.limit + 1 - self.count if n is None or n < 0 else n)
        self.count += len(data)
        if self.count > self.limit:
            raise self.error(self.budget.message(self.source, "too large"))
        return data


def check_size(path: Path, source: str, error: type[ParleyError], budget: Budget = INPUT) -> None:
    """Refuse a regular file over ``budget`` at once, before reading it (others are counted while read)."""
    try:
        st = path.stat()
    except OSError:
        return
    if path.is_file() and st.st_size > budget.get():
        raise error(budget.message(source, size(st.st_size)))


def read_bytes(path: str | Path, source: str, error: type[ParleyError] = ParleyError,
               budget: Budget = RECORD) -> bytes:
    """The bytes of a file read whole, at most ``budget`` of them (``/dev/zero`` stops at the budget)."""
    p = Path(path)
    check_size(p, source, error, budget)
    try:
        with p.open("rb") as fh:
            return Bounded(fh, source, error, budget=budget).read()
    except FileNotFoundError:
        raise error(f"{source}: no such file") from None
    except IsADirectoryError:
        raise error(f"{source}: is a folder, not a file") from None
    except OSError as e:
        raise error(f"cannot read {source}: {e.strerror or e}") from None


@contextmanager
def open_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, source: str,
                error: type[ParleyError] = ParleyError, budget: Budget = INPUT) -> Iterator[Bounded]:
    """A zip member as a :class:`Bounded` stream of at most ``budget`` bytes: refused by its declared
    uncompressed size before it is opened (a zip bomb costs nothing), counted while it is read."""
    if info.file_size > budget.get():
        raise error(budget.message(source, f"holds {size(info.file_size)} uncompressed"))
    with zf.open(info) as fh:
        yield Bounded(fh, source, error, budget=budget)


def lines(fh: IO[bytes], source: str, error: type[ParleyError] = ParleyError, *, keepends: bool = False
          ) -> Iterator[str]:
    """The lines of a binary stream as UTF-8 text (a BOM dropped), each checked as it is read: at most the
    line-length budget each, the line-count budget in all and the input budget in bytes. Without
    ``keepends`` a line loses its ``\\n`` or ``\\r\\n``."""
    longest, most = LINE.get(), LINES.get()
    stream = Bounded(fh, source, error)
    n = 0
    while True:
        raw = stream.readline(longest + 3)
        if not raw:
            return
        n += 1
        body = (raw[:-1] if raw.endswith(b"\n") else raw).removesuffix(b"\r")
        if len(body) > longest:
            raise error(LINE.message(source, f"line {n} too long"))
        if n > most:
            raise error(LINES.message(source, "too many lines"))
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise error(f"{source} is not UTF-8 text ({e.reason} at byte {e.start} of line {n})") from None
        yield text if keepends else text.removesuffix("\n").removesuffix("\r")


def describe() -> list[str]:
    """Each budget as the README and ``--help`` show it: ``input: 512 MB (PARLEY_MAX_INPUT_MB)``."""
    return [f"{b.name}: {b.shown()} ({b.env})" for b in BUDGETS]
