"""``parley rate``, ``parley assign``, ``parley progress`` and ``parley merge``: annotation mode and
annotation studies from the command line (``parley import`` is in ``import_cmd``). Thin layers over
store.annotation, store.assign, store.merge and the annotation app (opened through ``parley.tui.launch``);
heavy imports stay inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from parley.cli.common import CommandFn, Name, OutputPath, db_option, open_db
from parley.cli.options import SEED, NumberOption, number
from parley.display import json_text
from parley.errors import ParleyError

_NO_DB = "import dialogues first: parley import FILE --format ..., or pass --db"

if TYPE_CHECKING:
    from parley.store.selection import Selection


def selection_options(f: CommandFn) -> CommandFn:
    """``--source``, ``--mode``, ``--system``, ``--condition``, ``--session`` (each repeatable)."""
    opts = [
        click.option("--source", "sources", multiple=True, metavar="FILE",
                     help="Dialogues imported or replayed from this file (its name or path; wildcards * ? "
                          "work; FILE#ID for one dialogue). Repeatable."),
        click.option("--mode", "modes", multiple=True, type=click.Choice(["live", "batch", "annotation"]),
                     help="Sessions of this mode (live chat, batch replay, imported). Repeatable."),
        click.option("--system", "systems", multiple=True, metavar="NAME",
                     help="Sessions of this system (wildcards work). Repeatable."),
        click.option("--condition", "conditions", multiple=True, metavar="NAME",
                     help="Sessions of this rewriter condition, e.g. original or impolite (wildcards work). "
                          "Repeatable."),
        click.option("--session", "sessions", multiple=True, metavar="ID",
                     help="This session (its id or a unique prefix, as `parley sessions` shows). "
                          "Repeatable."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _selection(kw: dict[str, tuple[str, ...]]) -> Selection:
    from parley.store.selection import Selection

    keys = ("sources", "modes", "systems", "conditions", "sessions")
    return Selection(**{k: tuple(kw.pop(k)) for k in keys})


@click.command()
@db_option
@click.option("--rater", type=Name(), default=None,
              help="Your rater name (default: `parley --tester NAME`, else the tester name in the settings).")
@click.option("--blind", is_flag=True,
              help="Hide system names, sources and rewriter conditions; dialogues come in a seeded random "
                   "order (always on for a list assigned by `parley assign`).")
@number("--sample", kind=int, ge=1, le=2**63 - 1, unit="dialogues", default=None,
        help="Rate a random sample of N dialogues (same for a seed).")
@click.option("--seed", type=SEED, cls=NumberOption, default=0, show_default=True,
              help="Seed of --sample (and of the order).")
@click.option("--turns", "turns", default=None, metavar="all|N",
              help="System turns to rate per dialogue: all, or the first N (default: settings, all).")
@selection_options
def rate(db_path: str | None, rater: str | None, blind: bool, sample: int | None, seed: int,
         turns: str | None, **selection: tuple[str, ...]) -> None:
    """Rate dialogues in the terminal: turns on relevance and interestingness, then the whole dialogue.

    Opens on the dialogues this rater has neither rated nor skipped and resumes where they left off: the list
    a coordinator assigned to them (`parley assign`), or every dialogue the options select. Keyboard only.
    """
    from parley.display import visible
    from parley.engine.settings import load_settings
    from parley.store.annotation import Annotation, parse_turns

    settings = load_settings()
    group = click.get_current_context().find_root().params  # `parley --tester NAME rate`: the rater is NAME
    rater = (rater or group.get("tester") or settings.tester or "").strip()
    if not rater:
        raise ParleyError("give your name with --rater NAME (or set tester in the settings)")
    try:
        n_turns = parse_turns(turns or settings.annotation.turns)
    except ValueError as e:
        raise ParleyError(str(e)) from None
    store = open_db(db_path, must_exist=True, hint=_NO_DB)
    chosen = _selection(selection)
    ann = Annotation(store, rater, turns=n_turns, sample=sample, seed=seed, blind=blind, selection=chosen,
                     lock_turn_ratings=settings.annotation.lock_turn_ratings)
    if not ann.queue:
        what = "assigned to you" if ann.assigned else "that the options select" if chosen else "to rate"
        raise ParleyError(f"no dialogues {what} in {store.path} "
                          "(import some: parley import FILE --format ...)")
    if not ann.pending():
        click.echo(visible(f"{rater} has rated or skipped all {len(ann.queue)} dialogue(s) in {store.path}",
                           one_line=True))
        return
    from parley.tui.launch import rate as launch_rate

    launch_rate(ann, blind=blind)
    done = len(ann.queue) - len(ann.pending())
    click.echo(visible(f"{rater}: {done} of {len(ann.queue)} dialogue(s) rated or skipped in {store.path}",
                       one_line=True))


@click.command()
@db_option
@click.option("--raters", type=Name(many=True), required=True, metavar="A,B,...",
              help="The raters, comma-separated.")
@number("--per-dialogue", "per_dialogue", kind=int, ge=1, le=10_000, unit="raters", default=1,
        show_default=True, help="Raters per dialogue (2 or more give overlap for agreement statistics).")
@click.option("--seed", type=SEED, cls=NumberOption, default=0, show_default=True,
              help="Seed of the assignment and the orders.")
@click.option("--copies", type=OutputPath("folder"), default=None, metavar="DIR",
              help="Then write one copy of the database per rater for them to rate in, DIR/RATER.db.")
@click.option("--json", "as_json", is_flag=True, help="Print what was assigned as JSON.")
@selection_options
def assign(db_path: str | None, raters: str, per_dialogue: int, seed: int, copies: str | None, as_json: bool,
           **selection: tuple[str, ...]) -> None:
    """Assign the selected dialogues to raters: a list per rater, balanced over systems and conditions, in a
    random order, rated blind.

    Each rater gets as many dialogues of each system and condition as the others (within one), and where
    possible never two versions of the same source dialogue. Running it again assigns only dialogues that
    still lack raters. Give each rater a copy of the database (--copies writes them); they run
    `parley --db COPY rate --rater NAME`, you follow them with `parley progress COPY ...` and join their
    copies with `parley merge`.
    """
    from rich.console import Console
    from rich.table import Table

    from parley.display import literal, visible
    from parley.store.assign import assign as do_assign
    from parley.store.assign import copy_paths, write_copies

    store = open_db(db_path, must_exist=True, hint=_NO_DB)
    names = raters.split(",")
    written = list(copy_paths(names, Path(copies)).values()) if copies is not None else []  # checked first
    report = do_assign(store, names, _selection(selection), per_dialogue=per_dialogue, seed=seed)
    write_copies(store, written)
    store.close()
    if as_json:
        click.echo(json_text({"selected": report.selected, "already_assigned": report.already,
                               "added": report.added, "copies": [str(p) for p in written]}))
        return
    strata = sorted({s for per in report.added.values() for s in per})
    table = Table(title=literal(f"{report.total} assignment(s) added in {store.path} ({report.selected} "
                                f"dialogue(s) selected, {report.already} had their raters already)"))
    table.add_column("rater")
    for s in strata:
        table.add_column(literal(s, one_line=True), justify="right")
    table.add_column("new", justify="right")
    for rater, per in report.added.items():
        table.add_row(literal(rater, one_line=True), *(str(per.get(s, 0)) for s in strata),
                      str(sum(per.values())))
    Console().print(table)
    for p in written:
        click.echo(visible(f"wrote {p}", one_line=True))


@click.command()
@click.argument("databases", nargs=-1, type=click.Path(dir_okay=False))
@db_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per rater.")
def progress(databases: tuple[str, ...], db_path: str | None, as_json: bool) -> None:
    """How far each rater is with their assigned dialogues: assigned, rated, skipped (with the reasons), in
    progress, to do.

    Reads the database (--db) or the raters' copies given as arguments (a dialogue counts as rated when it is
    rated in any of them).
    """
    from rich.console import Console
    from rich.table import Table

    from parley.display import literal
    from parley.store.assign import rater_progress

    paths = list(databases)
    for p in paths:
        if not Path(p).is_file():
            raise ParleyError(f"{p}: no such database file")
    # read-only opens, each refused when it lacks migrations (an older or empty database is not upgraded)
    stores = [open_db(p, readonly=True) for p in paths] or [open_db(db_path, readonly=True, hint=_NO_DB)]
    rows = rater_progress(stores)
    if not rows:
        raise ParleyError("no assignments in " + ", ".join(str(s.path) for s in stores)
                          + " (a coordinator makes them with parley assign)")
    if as_json:
        for r in rows:
            click.echo(json_text(r.to_json()))
        return
    table = Table(title=literal("progress per rater: " + ", ".join(str(s.path) for s in stores)))
    for col in ("rater", "assigned", "rated", "skipped", "in progress", "to do"):
        table.add_column(col, justify="left" if col == "rater" else "right")
    table.add_column("skip reasons", overflow="fold")
    for r in rows:
        table.add_row(literal(r.rater, one_line=True), str(r.assigned), str(r.done), str(r.skipped),
                      str(r.in_progress), str(r.to_do), literal("; ".join(r.reasons), one_line=True))
    Console().print(table)


@click.command()
@click.argument("databases", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=OutputPath(), help="The new merged database.")
def merge(databases: tuple[str, ...], out: str) -> None:
    """Merge raters' databases (two or more) into a new one, without duplicates.

    Sessions, turns, ratings, assignments and skips are matched by their ids; a row that differs between the
    databases is a conflict: nothing is written and the message names it.
    """
    from parley.store.merge import merge as do_merge

    if len(databases) < 2:
        raise ParleyError("give at least two databases to merge")
    report = do_merge(databases[0], databases[1], out, *databases[2:])
    click.echo(f"merged {len(databases)} database(s) into {out}: {report.summary()}")
