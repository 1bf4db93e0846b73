"""The spec syntax used everywhere: ``name[:key=value,...]``; conditions join specs with ``+``.

>>> parse_spec("impolite:scenario=2,intensity=2")
Spec(name='impolite', params={'scenario': 2, 'intensity': 2})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from parley.errors import ParleyError
from parley.jsontypes import JSONObject, JSONScalar


class SpecError(ParleyError, ValueError):
    """A spec string that cannot be parsed; the message names the offending part."""


def _coerce(key: str, raw: str) -> JSONScalar:
    low = raw.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    try:
        return int(raw)
    except ValueError:
        pass
    try:
        number = float(raw)
    except ValueError:
        return raw
    if not math.isfinite(number):
        raise SpecError(f"{key}={raw}: a parameter must be a finite number (not NaN or infinity)")
    return number


@dataclass(frozen=True)
class Spec:
    name: str
    params: dict[str, JSONScalar] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={spec_value(v)}" for k, v in self.params.items())

    def to_json(self) -> JSONObject:
        return {"name": self.name, "params": {k: v for k, v in self.params.items()}}


def spec_value(v: object) -> str:
    """A parameter value as a spec writes it (``true``/``false`` for booleans)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def parse_spec(text: str) -> Spec:
    text = text.strip()
    if not text:
        raise SpecError("empty spec")
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name or any(c.isspace() for c in name):
        raise SpecError(f"bad name in spec {text!r}")
    params: dict[str, JSONScalar] = {}
    if rest.strip():
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise SpecError(f"expected key=value in spec {text!r}, got {part!r}")
            params[key] = _coerce(key, value.strip())
    return Spec(name, params)


def parse_condition(text: str) -> tuple[Spec, ...]:
    """``original`` → no rewriters; ``disfluency+asr-sim:wer=0.2`` → two specs in that order."""
    text = text.strip()
    if text in ("", "original", "none"):
        return ()
    return tuple(parse_spec(p) for p in text.split("+"))


def condition_name(specs: tuple[Spec, ...]) -> str:
    return "+".join(str(s) for s in specs) if specs else "original"
