"""One way to check parameters and records: pydantic, with every failure told as one line naming the key.

Spec params of systems and rewriters (``engine.params``), importer options and the records of a parley JSONL
file (``store``), the settings and every numeric command-line option (:func:`check_number`, through
``parley.cli.options``) all validate through pydantic with :data:`CONFIG`: strict types (``true`` is
not a number, ``"abc"`` not an integer), unknown keys refused, and no NaN or ±infinity anywhere. A leaf
module: engine and store may both import it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Annotated

from pydantic import BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

#: strict types, unknown keys refused, NaN/±inf refused
CONFIG = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, arbitrary_types_allowed=True)


def _number_to_text(v: object) -> object:
    """A spec value such as ``model=123`` arrives as a number; a text parameter takes it as text."""
    return str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v


def as_whole(v: object) -> object:
    """``2.0`` → ``2`` (a whole number written with a decimal point); ``true`` is refused, not taken as 1."""
    if isinstance(v, bool):
        raise ValueError(f"must be a whole number, got {v!r}")
    return int(v) if isinstance(v, float) and v.is_integer() else v


#: a text parameter (numbers written in a spec are taken as their text)
Text = Annotated[str, BeforeValidator(_number_to_text)]
#: a whole number (``2.0`` is taken as 2; ``2.5`` and ``true`` are refused)
Whole = Annotated[int, BeforeValidator(as_whole)]


def key_path(loc: Sequence[int | str]) -> str:
    """``("turns", 0, "index")`` → ``turns[0].index``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _shown(value: object) -> str:
    from parley.display import visible

    text = repr(value)
    return visible(text if len(text) <= 40 else text[:37] + "...", one_line=True)


_PHRASES = {
    "bool_type": "must be true or false", "bool_parsing": "must be true or false",
    "int_type": "must be a whole number", "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number", "float_parsing": "must be a number",
    "finite_number": "must be a finite number (not NaN or infinity)",
    "string_type": "must be text", "dict_type": "must be an object", "model_type": "must be an object",
    "model_attributes_type": "must be an object", "list_type": "must be a list",
    "missing": "is missing", "missing_argument": "is missing", "missing_keyword_only_argument": "is missing",
    "extra_forbidden": "unknown key", "unexpected_keyword_argument": "unknown parameter",
}
_BOUNDS = {"greater_than": ">", "greater_than_equal": "≥", "less_than": "<", "less_than_equal": "≤"}


def describe(error: ErrorDetails, *, show_input: bool = True) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) as ``key: what is wrong, got VALUE``."""
    kind, ctx = error["type"], error.get("ctx") or {}
    given = f", got {_shown(error['input'])}" if show_input else ""
    if kind in ("missing", "missing_argument", "missing_keyword_only_argument", "extra_forbidden",
                "unexpected_keyword_argument"):
        given = ""
    if kind == "value_error":
        what = str(ctx.get("error", error["msg"]))
        given = ""
    elif kind == "literal_error":
        what = f"must be one of {ctx.get('expected', '?')}"
    elif kind in _BOUNDS:
        limit = next(iter(ctx.values()), "?")
        what = f"must be {_BOUNDS[kind]} {limit}"
    else:
        what = _PHRASES.get(kind, error["msg"][:1].lower() + error["msg"][1:])
    where = key_path(error["loc"])
    return f"{where}: {what}{given}" if where else f"{what}{given}"


def one_line(err: ValidationError, known: Sequence[str] = (), *, unknown: str = "unknown key") -> str:
    """The first failure of ``err`` as one line (and how many more there were); ``known`` keys are listed when
    the failure is an unknown key (told as ``unknown``)."""
    errors = err.errors()
    if not errors:
        return str(err).splitlines()[0]
    first = errors[0]
    text = describe(first)
    if first["type"] == "extra_forbidden" and unknown != "unknown key":
        text = text.removesuffix("unknown key") + unknown
    if known and first["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        text += f" (known: {', '.join(known)})"
    return text + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")


@functools.cache
def _number_adapter(kind: type, bounds: tuple[tuple[str, float | int], ...]) -> TypeAdapter[float]:
    if kind is int:
        return TypeAdapter(Annotated[Whole, Field(**dict(bounds))], config=CONFIG)
    return TypeAdapter(Annotated[float, Field(**dict(bounds))], config=CONFIG)


def check_number(value: object, kind: type = float, *, unit: str = "",
                 **bounds: float | int | None) -> float:
    """``value`` (a number, or its text) as ``kind`` (int or float), finite and within ``bounds`` (pydantic's
    ``ge``, ``gt``, ``le``, ``lt``), checked like a spec parameter; otherwise a ValueError of one line:
    ``must be ≤ 64 threads, got 100``, ``must be a finite number (not NaN or infinity), got nan``."""
    given = value
    if isinstance(value, str):
        text = value.strip().replace("_", "")
        try:
            value = int(text) if kind is int and text.lstrip("+-").isdigit() else float(text)
        except ValueError:
            noun = "a whole number" if kind is int else "a number"
            raise ValueError(f"must be {noun}, got {_typed(given)}") from None
    kept = tuple((k, v) for k, v in sorted(bounds.items()) if v is not None)
    try:
        return _number_adapter(kind, kept).validate_python(value)
    except ValidationError as e:
        error = e.errors()[0]
        if error["type"] in _BOUNDS and unit:
            limit = next(iter((error.get("ctx") or {}).values()), "?")
            limit = f"{limit:,}" if isinstance(limit, int) else limit
            what = f"must be {_BOUNDS[error['type']]} {limit} {unit}"
        else:
            what = describe(error, show_input=False)
        raise ValueError(f"{what}, got {_typed(given)}") from None


def _typed(value: object) -> str:
    """A value as the user typed it (command-line text is shown without quotes)."""
    from parley.display import visible

    if isinstance(value, str):
        return visible(value if len(value) <= 40 else value[:37] + "...", one_line=True)
    return _shown(value)


def number_range(*, unit: str = "", **bounds: float | int | None) -> str:
    """The range of :func:`check_number` as help text: ``1–64 threads``, ``> 0``, ``0 < x < 1``."""
    ge, gt, le, lt = (bounds.get(k) for k in ("ge", "gt", "le", "lt"))
    if le is not None and le >= 2**62:  # a 64-bit ceiling (SQLite's) is no range to read
        le = None
    lo = f"{ge:,}" if ge is not None else f"{gt:,}" if gt is not None else None
    hi = f"{le:,}" if le is not None else f"{lt:,}" if lt is not None else None
    if lo is not None and hi is not None:
        if ge is not None and le is not None:
            text = f"{lo}–{hi}"
        else:
            text = f"{lo} {'≤' if ge is not None else '<'} x {'≤' if le is not None else '<'} {hi}"
    elif lo is not None:
        text = f"{'≥' if ge is not None else '>'} {lo}"
    elif hi is not None:
        text = f"{'≤' if le is not None else '<'} {hi}"
    else:
        text = "any"
    return f"{text} {unit}".strip()
