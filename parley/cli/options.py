"""Numeric command-line options, checked by the same layer as spec parameters (:func:`parley.params.
check_number`): finite, in range, with a unit. ``--lr nan``, ``--epochs inf`` or ``--block 100000000`` are
refused before anything runs, in one line naming the option, and ``--help`` shows each range readably
(``[default: 4; 1–128 layers]``, ``[a 64-bit whole number]``).

    @number("--threads", kind=int, ge=1, le=64, unit="threads", help="CPU threads.")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


class OptionDecorator(Protocol):
    """What ``click.option(...)`` returns: it adds the option to a command function and gives it back."""

    def __call__(self, f: F, /) -> F: ...


class Number(click.ParamType):
    """An int or float option value, checked by :func:`parley.params.check_number` against its bounds."""

    def __init__(self, kind: type = float, *, unit: str = "", shown: str = "", ge: float | None = None,
                 gt: float | None = None, le: float | None = None, lt: float | None = None,
                 clamp: bool = False) -> None:
        self.kind, self.unit, self.shown, self.clamp = kind, unit, shown, clamp
        self.bounds = {"ge": ge, "gt": gt, "le": le, "lt": lt}
        self.name = "integer" if kind is int else "number"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        from parley.params import check_number

        top = self.bounds["le"]
        try:
            if self.clamp and top is not None and isinstance(value, str) and value.strip().isdigit() \
                    and int(value) > top:  # "at most N" beyond any count: every one
                return self.kind(top)
            return check_number(value, self.kind, unit=self.unit, **self.bounds)
        except ValueError as e:
            self.fail(str(e), param, ctx)

    def describe(self) -> str:
        from parley.params import number_range

        return self.shown or number_range(unit=self.unit, **self.bounds)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str | None:
        return "N" if self.kind is int else "X"


class NumberOption(click.Option):
    """An option whose help shows its :class:`Number` range beside the default."""

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        if isinstance(self.type, Number):
            extra["range"] = self.type.describe()
        return extra


def number(*decls: str, kind: type = float, unit: str = "", shown: str = "", ge: float | None = None,
           gt: float | None = None, le: float | None = None, lt: float | None = None, clamp: bool = False,
           **kwargs: object) -> OptionDecorator:
    """``click.option`` for a checked number (see the module docstring); ``clamp``: a whole number above
    ``le`` is taken as ``le`` (a limit of "at most N" beyond any count)."""
    kind_type = Number(kind, unit=unit, shown=shown, ge=ge, gt=gt, le=le, lt=lt, clamp=clamp)
    return click.option(*decls, type=kind_type, cls=NumberOption, **kwargs)


#: seeds are stored as SQLite integers (64-bit)
SEED = Number(int, ge=-(2**63), le=2**63 - 1, shown="a 64-bit whole number")


def seed_option(help: str, default: int | None = None, show_default: bool = False) -> OptionDecorator:
    return click.option("--seed", type=SEED, cls=NumberOption, default=default, show_default=show_default,
                        help=help)
