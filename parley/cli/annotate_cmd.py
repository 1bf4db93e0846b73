"""``parley import``, ``parley rate`` and ``parley merge``: annotation mode from the command line.

Thin layers over store.imports, store.merge and the annotation app; heavy imports stay inside the commands.
"""

from __future__ import annotations

from pathlib import Path

import click

from parley.cli.common import db_option, fail, resolve_db


def _open(db_path: str | None, *, must_exist: bool = False):  # type: ignore[no-untyped-def]
    from parley.store import StoreError, open_store

    path = resolve_db(db_path)
    if must_exist and not path.exists():
        fail(f"no database at {path} (import dialogues first: parley import FILE --format ..., or pass --db)")
    try:
        return open_store(path)
    except StoreError as e:
        fail(str(e))


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["multiwoz", "dstc11", "abredial", "jsonl"]), required=True,
              help="multiwoz: ConvLab-3/MultiWOZ JSON or zip; dstc11: track-5 logs.json; abredial: the AB-ReDial "
                   "dialogue CSV; jsonl: parley's own export.")
@db_option
@click.option("--labels", type=click.Path(dir_okay=False), default=None,
              help="dstc11: labels.json (gold answer, target, knowledge).")
@click.option("--pred", type=click.Path(dir_okay=False), default=None,
              help="dstc11: predictions in the labels format; their responses become the rated system turn.")
@click.option("--targets-only", is_flag=True, help="dstc11: import only knowledge-seeking instances.")
@click.option("--turn-file", type=click.Path(dir_okay=False), default=None,
              help="abredial: the turn CSV (annotated_turns.csv) with turn ratings.")
@click.option("--relevance-coding", type=click.Choice(["auto", "paper", "shifted"]), default=None,
              help="abredial: how the turn file's relevance values read: paper = 1-3; shifted = 2/3/4 are "
                   "no/somewhat/yes and 1 is not applicable; auto (default) = shifted when a 4 occurs.")
@click.option("--limit", type=int, default=None, help="Import only the first N dialogues.")
@click.option("-v", "--verbose", is_flag=True, help="Print every warning, not only the first ten.")
def import_(file: str, fmt: str, db_path: str | None, labels: str | None, pred: str | None, targets_only: bool,
            turn_file: str | None, relevance_coding: str | None, limit: int | None, verbose: bool) -> None:
    """Import dialogues (and their ratings) from FILE as annotation-mode sessions.

    Importing the same file again adds nothing (ids derive from the dialogues). A malformed file imports
    nothing and the error names the line or key. Ratings outside the study's scales are skipped, never clamped:
    the summary counts them.
    """
    from parley.store.imports import ImportFileError, import_file

    if limit is not None and limit < 1:
        fail("--limit must be at least 1")
    store = _open(db_path)
    try:
        report = import_file(store, Path(file), fmt, labels=labels, pred=pred, targets_only=targets_only,
                             turn_file=turn_file, relevance_coding=relevance_coding, limit=limit)
    except ImportFileError as e:
        fail(str(e))
    for w in report.warnings if verbose else report.warnings[:10]:
        click.echo(f"warning: {w}", err=True)
    if len(report.warnings) > 10 and not verbose:
        click.echo(f"... {len(report.warnings) - 10} more warning(s) (--verbose shows them all)", err=True)
    for reason, n in sorted(report.skipped.items()):
        click.echo(f"not imported: {n} x {reason}", err=True)
    click.echo(f"{report.summary()} into {store.path}")


@click.command()
@db_option
@click.option("--rater", default=None, help="Your rater name (default: the tester name in the settings).")
@click.option("--blind", is_flag=True,
              help="Hide system names, sources and rewriter conditions; dialogues come in a seeded random order.")
@click.option("--sample", type=int, default=None, help="Rate a random sample of N dialogues (same for a seed).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --sample (and of the order).")
@click.option("--turns", "turns", default=None, metavar="all|N",
              help="System turns to rate per dialogue: all, or the first N (default: settings, all).")
def rate(db_path: str | None, rater: str | None, blind: bool, sample: int | None, seed: int,
         turns: str | None) -> None:
    """Rate dialogues in the terminal: turns on relevance and interestingness, then the whole dialogue.

    Opens on the dialogues this rater has not finished and resumes where they left off. Keyboard only.
    """
    from parley.engine.settings import load_settings
    from parley.store.annotation import parse_turns

    try:
        settings = load_settings()
    except ValueError as e:
        fail(str(e))
    rater = (rater or settings.tester or "").strip()
    if not rater:
        fail("give your name with --rater NAME (or set tester in the settings)")
    try:
        n_turns = parse_turns(turns or settings.annotation.turns)
    except ValueError as e:
        fail(str(e))
    if sample is not None and sample < 1:
        fail("--sample must be at least 1")
    store = _open(db_path, must_exist=True)
    from parley.store.annotation import Annotation

    ann = Annotation(store, rater, turns=n_turns, sample=sample, seed=seed, shuffle=blind,
                     lock_turn_ratings=settings.annotation.lock_turn_ratings)
    if not ann.queue:
        fail(f"no dialogues to rate in {store.path} (import some: parley import FILE --format ...)")
    if not ann.pending():
        click.echo(f"{rater} has rated all {len(ann.queue)} dialogue(s) in {store.path}")
        return
    from parley.tui.screens.annotate import AnnotateApp

    AnnotateApp(ann, blind=blind).run()
    done = len(ann.queue) - len(ann.pending())
    click.echo(f"{rater}: {done} of {len(ann.queue)} dialogue(s) rated in {store.path}")


@click.command()
@click.argument("databases", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="The new merged database.")
def merge(databases: tuple[str, ...], out: str) -> None:
    """Merge raters' databases (two or more) into a new one, without duplicates.

    Sessions, turns and ratings are matched by their ids; a row that differs between the databases is a
    conflict: nothing is written and the message names it.
    """
    from parley.store import StoreError
    from parley.store.merge import merge as do_merge

    if len(databases) < 2:
        fail("give at least two databases to merge")
    try:
        report = do_merge(databases[0], databases[1], out, *databases[2:])
    except StoreError as e:
        fail(str(e))
    click.echo(f"merged {len(databases)} database(s) into {out}: {report.summary()}")
