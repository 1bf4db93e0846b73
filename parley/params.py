"""One way to check parameters and records: pydantic, with every failure told as one line naming the key.

Spec params of systems and rewriters (``engine.params``), importer options and the records of a parley JSONL
file (``store``) and the settings all validate through pydantic with :data:`CONFIG`: strict types (``true`` is
not a number, ``"abc"`` not an integer), unknown keys refused, and no NaN or ±infinity anywhere. A leaf
module: engine and store may both import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, ValidationError

#: strict types, unknown keys refused, NaN/±inf refused
CONFIG = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, arbitrary_types_allowed=True)


def _number_to_text(v: Any) -> Any:
    """A spec value such as ``model=123`` arrives as a number; a text parameter takes it as text."""
    return str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v


def as_whole(v: Any) -> Any:
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


def _shown(value: Any) -> str:
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


def describe(error: Any) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) as ``key: what is wrong, got VALUE``."""
    kind, ctx = error["type"], error.get("ctx") or {}
    given = f", got {_shown(error['input'])}" if "input" in error else ""
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
    where = key_path(error.get("loc", ()))
    return f"{where}: {what}{given}" if where else f"{what}{given}"


def one_line(err: ValidationError, known: Sequence[str] = ()) -> str:
    """The first failure of ``err`` as one line (and how many more there were); ``known`` keys are listed when
    the failure is an unknown key."""
    errors = err.errors()
    if not errors:
        return str(err).splitlines()[0]
    first = errors[0]
    text = describe(first)
    if known and first["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
        text += f" (known: {', '.join(known)})"
    return text + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
