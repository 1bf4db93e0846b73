"""``parley import``: a thin layer over ``store.imports``. Its ``--format`` choices and the per-format options
are derived from the importer registry (``store.imports.IMPORTERS``) when the command is used or its help
shown, so ``parley --help`` stays fast and a new importer needs no change here."""

from __future__ import annotations

import types
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Union, get_args, get_origin

import click

from parley.cli.common import db_option, open_db

_HELP = "Import dialogues (and their ratings) from FILE as annotation-mode sessions."

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo


def _click_type(annotation: object) -> tuple[click.ParamType | type[str] | None, bool]:
    """(click type, is_flag) for an ``Options`` field annotation."""
    args = [a for a in get_args(annotation) if a is not type(None)] \
        if get_origin(annotation) in (Union, types.UnionType) else [annotation]
    tp = args[0] if len(args) == 1 else annotation
    bounds: dict[str, float] = {}
    while get_args(tp) and get_origin(tp) is not Literal:  # Annotated[X, Field(ge=1)] → X, {"ge": 1}
        for meta in get_args(tp)[1:]:
            for m in [*getattr(meta, "metadata", ()), meta]:
                bounds.update({k: getattr(m, k) for k in ("ge", "gt", "le", "lt") if hasattr(m, k)})
        tp = get_args(tp)[0]
    if tp is bool:
        return None, True
    if get_origin(tp) is Literal:
        return click.Choice([str(a) for a in get_args(tp)]), False
    if tp is Path:
        return click.Path(dir_okay=False), False
    if tp in (int, float):  # checked like every numeric option (parley.cli.options)
        from parley.cli.options import Number

        ge, gt, le, lt = (bounds.get(k) for k in ("ge", "gt", "le", "lt"))
        return Number(int if tp is int else float, ge=ge, gt=gt, le=le, lt=lt), False
    return str, False


def registry_params() -> list[click.Parameter]:
    """``--format`` and one option per field of every format's ``Options`` (the help says which formats)."""
    from parley.store.imports import IMPORTERS, ImportOptions

    fmt_help = "; ".join(f"{name}: {imp.summary}" for name, imp in IMPORTERS.items())
    params: list[click.Parameter] = [click.Option(["--format", "fmt"], type=click.Choice(list(IMPORTERS)),
                                                  required=True, help=fmt_help + ".")]
    shared = set(ImportOptions.model_fields)
    fields: dict[str, tuple[FieldInfo, list[str]]] = {
        f: (info, []) for f, info in ImportOptions.model_fields.items()}
    for name, imp in IMPORTERS.items():
        for field, info in imp.options.model_fields.items():
            if field not in shared:
                fields.setdefault(field, (info, []))[1].append(name)
    for field, (info, formats) in fields.items():
        kind, flag = _click_type(info.annotation)
        where = "" if field in shared else f"{', '.join(formats)}: "
        opt = "--" + field.replace("_", "-")
        from parley.cli.options import NumberOption

        params.append(NumberOption([opt, field], is_flag=flag, type=None if flag else kind,
                                   default=False if flag else None, help=where + (info.description or "")))
    return params


class ImportCommand(click.Command):
    """A command whose registry-derived options are added on first use."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        from parley.store.imports import IMPORTERS

        key = tuple(IMPORTERS)
        if getattr(self, "_registry_key", None) != key:  # first use, or an importer registered since
            derived = getattr(self, "_derived", [])
            self.params = [p for p in self.params if p not in derived]
            self._derived = registry_params()
            self.params[1:1] = self._derived
            self._registry_key = key
        return super().get_params(ctx)


@click.command("import", cls=ImportCommand, help=_HELP + """

    Importing the same file again adds nothing (ids derive from the dialogues). A malformed file imports
    nothing and the error names the line or key. Ratings outside the study's scales are skipped, never
    clamped: the summary counts them.""")
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
@click.option("-v", "--verbose", is_flag=True, help="Print every warning, not only the first ten.")
def import_(file: str, fmt: str, db_path: str | None, verbose: bool, **options: object) -> None:
    from parley.display import visible
    from parley.store.imports import import_file

    store = open_db(db_path)
    report = import_file(store, Path(file), fmt, **options)
    for w in report.warnings if verbose else report.warnings[:10]:
        click.echo(f"warning: {visible(w, one_line=True)}", err=True)
    if len(report.warnings) > 10 and not verbose:
        click.echo(f"... {len(report.warnings) - 10} more warning(s) (--verbose shows them all)", err=True)
    for reason, n in sorted(report.skipped.items()):
        click.echo(f"not imported: {n} x {visible(reason, one_line=True)}", err=True)
    click.echo(visible(f"{report.summary()} into {store.path}", one_line=True))
