"""Types for JSON-shaped data: what ``json.loads`` returns and ``json.dumps`` takes.

Use :data:`JSONValue` / :data:`JSONObject` for data parley builds and writes; take read-only inputs as
``Mapping[str, object]`` (a ``dict[str, int]`` is not a ``dict[str, JSONValue]``: dicts are invariant) and
narrow with ``isinstance``. A leaf module: every package may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject: TypeAlias = dict[str, JSONValue]


def as_json(value: object) -> JSONValue:
    """``value`` as JSON data (a TypedDict, a tuple of mappings, ...): mappings with text keys become dicts,
    lists and tuples lists, scalars stay; anything else is a TypeError naming its type.

    >>> as_json({"counts": {"uh": 2}, "moves": ("a", "b")})
    {'counts': {'uh': 2}, 'moves': ['a', 'b']}
    """
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Mapping):
        out: JSONObject = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"a JSON key must be text, got {type(k).__name__}")
            out[k] = as_json(v)
        return out
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    raise TypeError(f"not JSON data: {type(value).__name__}")


def as_json_object(value: Mapping[str, object]) -> JSONObject:
    """A mapping as a JSON object (:func:`as_json` of each value)."""
    return {k: as_json(v) for k, v in value.items()}


def json_object(value: object) -> Mapping[str, object]:
    """``value`` when it is a mapping (a JSON object), else an empty one: how a reader takes an optional
    part of JSON-shaped data (missing or null) without assuming more of its type than it checks."""
    return value if isinstance(value, Mapping) else {}
