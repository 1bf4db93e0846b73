"""Reading JSON that a user hands parley (dialogue files, labels, predictions, exports): one reader, every
failure one line naming the file (and line and column) — never a traceback.

Refused: text that is not UTF-8, invalid JSON, JSON nested too deeply for Python to parse (``[[[[…`` 100,000
deep), and ``NaN``/``Infinity`` (not JSON, and they would poison every later export). Each caller passes the
:class:`~parley.errors.ParleyError` subclass it raises (``ImportFileError``, ``CorpusError``, ``LoadError``
…). A leaf module: engine and store both use it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from parley.errors import ParleyError


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0:  # inf (1e400) or nan
        raise ValueError(f"{text} is too large for a number")
    return value


def decode(raw: bytes, source: str, error: type[ParleyError] = ParleyError) -> str:
    """``raw`` as UTF-8 text (a BOM is dropped); otherwise ``error`` naming ``source`` and the byte."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise error(f"{source}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def loads(text: str | bytes, source: str, error: type[ParleyError] = ParleyError, *, line: int | None = None
          ) -> Any:
    """Parse JSON text from ``source`` (a file name) that starts on line ``line`` of it (JSONL); failures
    raise ``error`` with one line naming the source and the line."""
    if isinstance(text, bytes):
        text = decode(text, source, error)
    here = f"{source}: line {line}" if line is not None else source
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as e:
        at = e.lineno + (line or 1) - 1
        raise error(f"{source}: line {at}, column {e.colno}: invalid JSON ({e.msg})") from None
    except RecursionError:
        raise error(f"{here}: JSON nested too deeply to read") from None
    except ValueError as e:  # NaN / Infinity
        raise error(f"{here}: invalid JSON ({e})") from None


def read_json(path: str | Path, error: type[ParleyError] = ParleyError, what: str = "") -> Any:
    """The JSON value in the file ``path``; a missing or unreadable file, bad bytes or bad JSON raise
    ``error``."""
    p = Path(path)
    source = f"{what} {p}" if what else str(p)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise error(f"{source}: no such file") from None
    except OSError as e:
        raise error(f"cannot read {source}: {e.strerror or e}") from None
    return loads(raw, source, error)
