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


def json_object(value: object) -> Mapping[str, object]:
    """``value`` when it is a mapping (a JSON object), else an empty one: how a reader takes an optional
    part of JSON-shaped data (missing or null) without assuming more of its type than it checks."""
    return value if isinstance(value, Mapping) else {}
