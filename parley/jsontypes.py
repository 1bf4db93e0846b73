"""Types for JSON-shaped data: what ``json.loads`` returns and ``json.dumps`` takes.

Use :data:`JSONValue` / :data:`JSONObject` for data parley builds and writes; take read-only inputs as
``Mapping[str, object]`` (a ``dict[str, int]`` is not a ``dict[str, JSONValue]``: dicts are invariant) and
narrow with ``isinstance``. A leaf module: every package may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]


#: what :func:`as_json` does with what is not JSON data (an object that is no scalar, mapping, list or tuple,
#: or a mapping key that is not text): ``"raise"`` a TypeError naming its type (data parley builds must be
#: JSON already), or make it its ``str`` (``"text"``: what a system or a rewriter hands over, stored as
#: ``json.dumps(default=str)`` would write it)
NotJSON: TypeAlias = Literal["raise", "text"]


def as_json(value: object, *, other: NotJSON = "raise") -> JSONValue:
    """``value`` as JSON data (a TypedDict, a tuple of mappings, ...): mappings become dicts, lists and tuples
    lists, scalars stay; anything else as ``other`` says.

    >>> as_json({"counts": {"uh": 2}, "moves": ("a", "b")})
    {'counts': {'uh': 2}, 'moves': ['a', 'b']}
    >>> as_json({1: {2, 3}}, other="text")
    {'1': '{2, 3}'}
    """
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        return as_json_object(value, other=other)
    if isinstance(value, list | tuple):
        return [as_json(v, other=other) for v in value]
    if other == "text":
        return str(value)
    raise TypeError(f"not JSON data: {type(value).__name__}")


def as_json_object(value: Mapping[str, object], *, other: NotJSON = "raise") -> JSONObject:
    """A mapping as a JSON object (a copy; :func:`as_json` of each value); ``"text"`` makes every key its
    ``str``."""
    out: JSONObject = {}
    for k, v in value.items():
        if other == "text":
            k = str(k)
        elif not isinstance(k, str):
            raise TypeError(f"a JSON key must be text, got {type(k).__name__}")
        out[k] = as_json(v, other=other)
    return out


def json_object(value: object) -> Mapping[str, object]:
    """``value`` when it is a mapping (a JSON object), else an empty one: how a reader takes an optional
    part of JSON-shaped data (missing or null) without assuming more of its type than it checks."""
    return value if isinstance(value, Mapping) else {}
