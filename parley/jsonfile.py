"""Reading JSON that a user hands parley (dialogue files, labels, predictions, exports): one reader, every
failure one line naming the file (and line and column) — never a traceback.

Refused: text that is not UTF-8, invalid JSON, JSON nested too deeply for Python to parse (``[[[[…`` 100,000
deep), and ``NaN``/``Infinity`` (not JSON, and they would poison every later export). Each caller passes the
:class:`~parley.errors.ParleyError` subclass it raises (``ImportFileError``, ``CorpusError``, ``LoadError``
…). A leaf module: engine and store both use it.

Sizes are budgeted (:mod:`parley.limits`): a file read whole may hold at most the record budget; a corpus too
big for that is read item by item with :func:`items` (ijson), each item within the record budget.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

from parley.errors import ParleyError
from parley.jsontypes import JSONObject, JSONValue
from parley.limits import Bounded, read_bytes


def _refuse_constant(name: str) -> NoReturn:
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
    return loads(read_bytes(p, source, error), source, error)


class SyntaxFault(Exception):
    """Invalid JSON met by :func:`items`, which cannot say where: ``error`` is the caller's one-line error,
    to raise when a re-read that names the line and column (:func:`loads`) is not possible."""

    def __init__(self, error: ParleyError) -> None:
        super().__init__(str(error))
        self.error = error


#: deepest nesting accepted inside one streamed item (MultiWOZ needs about 6)
MAX_DEPTH = 64
_SCALARS = ("string", "number", "boolean", "null")
_KINDS = {"start_map": "an object", "start_array": "a list", "string": "a string", "number": "a number",
          "boolean": "true or false", "null": "null"}


def items(fh: IO[bytes] | Bounded, source: str, error: type[ParleyError] = ParleyError, *,
          top: str = "object", what: str = "item", shape: str = "") -> Iterator[tuple[Any, Any]]:
    """``(key, value)`` of each member of the top-level object (``top="object"``), or ``(index, value)`` of
    each element of the top-level list (``top="array"``), parsed one at a time (ijson's basic events, no
    per-event prefix strings): memory holds one item, not the file. Each item may span at most the record
    budget when ``fh`` is :class:`~parley.limits.Bounded` (``what`` names it: ``dialogue 'SNG01'``) and nest
    at most :data:`MAX_DEPTH` levels; NaN and numbers too large for a float are refused. A top level of
    another kind raises ``error`` saying ``shape`` (``an object of dialogues keyed by id``); invalid JSON
    raises :class:`SyntaxFault` (ijson does not say where)."""
    import ijson

    mark = fh.mark if isinstance(fh, Bounded) else lambda _w: None
    want = "start_map" if top == "object" else "start_array"
    stack: list[JSONObject | list[JSONValue]] = []
    keys: list[str] = []  # the key of each open object ("" for a list and the top level)
    key: str | None = None
    index = 0
    try:
        events = ijson.basic_parse(fh, use_float=True)
        for event, value in events:
            if not keys:  # the top level
                if event != want:
                    _refuse_top(events, event, source, error, f"expected {shape or _KINDS[want]}")
                keys.append("")
                if top == "array":
                    mark(f"{what} [0]")
                continue
            if event == "map_key":
                if stack:
                    keys[-1] = value
                else:
                    key = value
                    mark(f"{what} {value!r}")
                continue
            if event in ("start_map", "start_array"):
                if len(stack) >= MAX_DEPTH:
                    here = f"{what} {key!r}" if top == "object" else f"{what} [{index}]"
                    raise error(f"{source}: JSON nested too deeply ({here}: more than {MAX_DEPTH} levels)")
                stack.append({} if event == "start_map" else [])
                keys.append("")
                continue
            if event in ("end_map", "end_array"):
                keys.pop()
                if not stack:  # the end of the top level
                    continue
                value = stack.pop()
            elif event not in _SCALARS:
                continue
            elif event == "number" and isinstance(value, float) and value - value != 0:
                raise error(f"{source}: invalid JSON ({value} is not a JSON number)")
            if not stack:
                yield (key if top == "object" else index), value
                index += 1
                if top == "array":
                    mark(f"{what} [{index}]")
            elif isinstance(stack[-1], list):
                stack[-1].append(value)
            else:
                stack[-1][keys[-1]] = value
    except ijson.JSONError as e:
        said = e.args[0] if e.args else ""
        text = (said.decode("utf-8", "replace") if isinstance(said, bytes) else str(said)).strip()
        first = text.splitlines()[0] if text else type(e).__name__
        if "invalid bytes in UTF8" in first:
            raise error(f"{source}: not UTF-8 text ({first})") from None
        raise SyntaxFault(error(f"{source}: invalid JSON ({first})")) from None
    except UnicodeDecodeError as e:
        raise error(f"{source}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def _refuse_top(events: Iterator[tuple[str, object]], first: str, source: str, error: type[ParleyError],
                expected: str) -> None:
    """The top level is not the kind expected: say whether it is too deep to read or simply another kind."""
    depth = int(first in ("start_map", "start_array"))
    for seen, (event, _) in enumerate(events):  # the opening events say it (not the whole file)
        if depth == 0 or seen > 4 * MAX_DEPTH:
            break
        depth += event in ("start_map", "start_array")
        depth -= event in ("end_map", "end_array")
        if depth > MAX_DEPTH:
            raise error(f"{source}: JSON nested too deeply (more than {MAX_DEPTH} levels)")
    raise error(f"{source}: {expected}, got {_KINDS.get(first, first)}")
