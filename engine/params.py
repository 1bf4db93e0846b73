"""Spec parameters of systems and rewriters, checked by pydantic (``parley.params``); errors are one
``SpecError`` line naming the parameter.

- A **system** declares its parameters in its ``__init__`` signature (types, ``Literal`` choices,
  ``Annotated[..., Field(ge=.., le=..)]`` bounds) and decorates it with :func:`checked`.
- A **rewriter** declares ``PARAMS`` (``engine.rewrite.base.Param``, which the rewriter panel also shows);
  :func:`check_params` turns them into a pydantic model once and validates against it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, ValidationError, create_model, validate_call

from parley.engine.spec import SpecError
from parley.params import CONFIG, Text, Whole, as_whole, one_line

F = TypeVar("F", bound=Callable[..., Any])


def checked(init: F) -> F:
    """Validate a system's ``__init__`` arguments against its signature; failures raise one-line
    SpecErrors."""
    validated = validate_call(config=CONFIG)(init)

    @functools.wraps(init)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return validated(self, *args, **kwargs)
        except ValidationError as e:
            known = [n for n in inspect.signature(init).parameters if n not in ("self", "args", "kwargs")]
            raise SpecError(f"{getattr(self, 'name', type(self).__name__)}: {one_line(e, known)}") from None

    return wrapper  # type: ignore[return-value]


def _annotation(p: Any) -> Any:
    if p.kind == "bool":
        return bool
    if p.choices:
        choice: Any = Literal[tuple(p.choices)]
        return Annotated[choice, BeforeValidator(as_whole)] if p.kind == "int" else choice
    number: Any = Whole if p.kind == "int" else float if p.kind == "float" else Text
    if number is not Text:
        number = Annotated[number, Field(ge=p.lo, le=p.hi)]
    return number | None if p.default is None else number


@functools.cache
def _model(name: str, spec: tuple[Any, ...]) -> type[BaseModel]:
    fields: dict[str, Any] = {p.name: (_annotation(p), p.default) for p in spec}
    return create_model(f"{name}_params", __config__=CONFIG, **fields)


def check_params(name: str, spec: tuple[Any, ...], given: Mapping[str, Any]) -> dict[str, Any]:
    """The effective params of rewriter ``name`` (defaults filled in), or a SpecError naming the bad one."""
    try:
        return dict(_model(name, spec).model_validate(dict(given)))
    except ValidationError as e:
        raise SpecError(f"{name}: {one_line(e, [p.name for p in spec])}") from None
