"""Spec parameters of systems and rewriters: one mechanism, checked by pydantic (``parley.params``).

Every registered system and rewriter declares ``PARAMS``, a frozen :class:`Params` model: one typed field per
parameter, with its default, bounds (``Field(ge=.., le=..)``), choices (``Literal``) and help text
(``description``). The component's ``__init__`` takes the spec's keywords and calls ``PARAMS.from_spec(name,
given)``, which returns the typed object or raises one ``SpecError`` line naming the bad parameter. Listings
(``parley rewrite --list``, the TUI rewriter panel) read :meth:`Params.listing`.

>>> class Demo(Params):
...     rate: float = Field(0.1, ge=0.0, le=1.0, description="share of words")
>>> Demo.from_spec("demo", {"rate": 0.5}).rate
0.5
>>> [(p.name, p.kind, p.lo, p.hi) for p in Demo.listing()]
[('rate', 'float', 0.0, 1.0)]
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal, Self, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from parley.engine.spec import SpecError
from parley.jsontypes import JSONScalar
from parley.params import CONFIG, one_line

__all__ = ["Field", "Param", "Params", "SystemParams", "params_of"]


@dataclass(frozen=True)
class Param:
    """One parameter as listings show it, read from a :class:`Params` field.

    ``kind`` is "int", "float", "bool", "str" (free text), "choice" (one of ``choices``) or "value" (a value
    only code passes, such as a function); ``choices`` may also list the allowed ints of an "int";
    ``lo``/``hi`` bound numbers.
    """

    name: str
    kind: str
    default: object
    help: str
    choices: tuple[JSONScalar, ...] = ()
    lo: float | None = None
    hi: float | None = None


def _members(annotation: object) -> list[object]:
    """The types of an annotation with ``None`` and ``Annotated`` wrappers taken off."""
    if get_origin(annotation) in (Union, types.UnionType):
        return [m for a in get_args(annotation) if a is not type(None) for m in _members(a)]
    if hasattr(annotation, "__metadata__"):
        return _members(get_args(annotation)[0])
    return [annotation]


def _kind(annotation: object, hint: tuple[JSONScalar, ...]) -> tuple[str, tuple[JSONScalar, ...]]:
    members = _members(annotation)
    if len(members) != 1:
        return "value", ()
    (t,) = members
    if get_origin(t) is Literal:
        values = tuple(v for v in get_args(t) if isinstance(v, str | int | float | bool))
        return ("int" if all(isinstance(v, int) for v in values) else "choice"), values
    kinds: dict[object, str] = {bool: "bool", int: "int", float: "float", str: "str"}
    kind = kinds.get(t, "value")
    return ("choice", hint) if kind == "str" and hint else (kind, ())


def _bound(value: object) -> float | None:
    """A bound as declared (``0`` stays an int, ``0.0`` a float, as listings show it)."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


class Params(BaseModel):
    """The parameters of one system or rewriter (subclass it; one field per parameter). Strict types, unknown
    keys refused, no NaN or infinity, frozen."""

    model_config = ConfigDict(**CONFIG, frozen=True)

    #: how an unknown key is told (``disfluency: speed: unknown key (known: …)``)
    UNKNOWN: ClassVar[str] = "unknown key"

    @classmethod
    def from_spec(cls, owner: str, given: Mapping[str, object]) -> Self:
        """The parameters of ``owner`` (defaults filled in), or a SpecError naming the bad one."""
        try:
            return cls.model_validate(dict(given))
        except ValidationError as e:
            raise SpecError(f"{owner}: {one_line(e, list(cls.model_fields), unknown=cls.UNKNOWN)}") from None

    @classmethod
    def listing(cls) -> tuple[Param, ...]:
        """Every parameter in declaration order, as ``rewrite --list`` and the rewriter panel show it."""
        out = []
        for name, f in cls.model_fields.items():
            extra = f.json_schema_extra if isinstance(f.json_schema_extra, dict) else {}
            hinted = extra.get("choices")
            hint = tuple(v for v in hinted if isinstance(v, str)) if isinstance(hinted, list) else ()
            kind, choices = _kind(f.annotation, hint)
            lo = hi = None
            for m in f.metadata:
                if isinstance(m, annotated_types.Ge | annotated_types.Gt):
                    lo = _bound(m.ge if isinstance(m, annotated_types.Ge) else m.gt)
                elif isinstance(m, annotated_types.Le | annotated_types.Lt):
                    hi = _bound(m.le if isinstance(m, annotated_types.Le) else m.lt)
            if kind == "int" and choices and lo is None and hi is None:
                numbers = [c for c in choices if isinstance(c, int)]
                lo, hi = min(numbers), max(numbers)
            out.append(Param(name, kind, f.default, f.description or "", choices, lo, hi))
        return tuple(out)

    def spec_values(self) -> dict[str, object]:
        """Every parameter's value, in declaration order."""
        return {name: getattr(self, name) for name in type(self).model_fields}

    def to_json(self) -> dict[str, JSONScalar]:
        """The values as a spec and a recorded rewrite step hold them (plain JSON scalars)."""
        out: dict[str, JSONScalar] = {}
        for name, value in self.spec_values().items():
            if value is not None and not isinstance(value, str | int | float | bool):
                raise TypeError(f"{name} is no JSON value: {type(value).__name__}")
            out[name] = value
        return out


class SystemParams(Params):
    """The parameters of a dialogue system (an unknown key is told as an unknown parameter)."""

    UNKNOWN: ClassVar[str] = "unknown parameter"


def params_of(component: object) -> type[Params]:
    """The ``PARAMS`` model a registered system or rewriter class declares (TypeError when it has none)."""
    model = getattr(component, "PARAMS", None)
    if not (isinstance(model, type) and issubclass(model, Params)):
        raise TypeError(f"{getattr(component, '__name__', component)} declares no PARAMS model "
                        "(engine.params.Params)")
    return model
