"""``parley rate`` and ``parley merge``: annotation mode from the command line (``parley import`` is in
``import_cmd``). Thin layers over store.annotation, store.merge and the annotation app; heavy imports stay
inside the commands.
"""

from __future__ import annotations

import click

from parley.cli.common import SEED, OutputPath, db_option, open_db
from parley.errors import ParleyError


@click.command()
@db_option
@click.option("--rater", default=None, help="Your rater name (default: the tester name in the settings).")
@click.option("--blind", is_flag=True,
              help="Hide system names, sources and rewriter conditions; dialogues come in a seeded random order.")
@click.option("--sample", type=click.IntRange(min=1), default=None,
              help="Rate a random sample of N dialogues (same for a seed).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of --sample (and of the order).")
@click.option("--turns", "turns", default=None, metavar="all|N",
              help="System turns to rate per dialogue: all, or the first N (default: settings, all).")
def rate(db_path: str | None, rater: str | None, blind: bool, sample: int | None, seed: int,
         turns: str | None) -> None:
    """Rate dialogues in the terminal: turns on relevance and interestingness, then the whole dialogue.

    Opens on the dialogues this rater has not finished and resumes where they left off. Keyboard only.
    """
    from parley.display import visible
    from parley.engine.settings import load_settings
    from parley.store.annotation import parse_turns

    settings = load_settings()
    rater = (rater or settings.tester or "").strip()
    if not rater:
        raise ParleyError("give your name with --rater NAME (or set tester in the settings)")
    try:
        n_turns = parse_turns(turns or settings.annotation.turns)
    except ValueError as e:
        raise ParleyError(str(e)) from None
    store = open_db(db_path, must_exist=True, hint="import dialogues first: parley import FILE --format ..., "
                                                   "or pass --db")
    from parley.store.annotation import Annotation

    ann = Annotation(store, rater, turns=n_turns, sample=sample, seed=seed, shuffle=blind,
                     lock_turn_ratings=settings.annotation.lock_turn_ratings)
    if not ann.queue:
        raise ParleyError(f"no dialogues to rate in {store.path} "
                          "(import some: parley import FILE --format ...)")
    if not ann.pending():
        click.echo(visible(f"{rater} has rated all {len(ann.queue)} dialogue(s) in {store.path}",
                           one_line=True))
        return
    from parley.tui.screens.annotate import AnnotateApp

    AnnotateApp(ann, blind=blind).run()
    done = len(ann.queue) - len(ann.pending())
    click.echo(visible(f"{rater}: {done} of {len(ann.queue)} dialogue(s) rated in {store.path}",
                       one_line=True))


@click.command()
@click.argument("databases", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=OutputPath(), help="The new merged database.")
def merge(databases: tuple[str, ...], out: str) -> None:
    """Merge raters' databases (two or more) into a new one, without duplicates.

    Sessions, turns and ratings are matched by their ids; a row that differs between the databases is a
    conflict: nothing is written and the message names it.
    """
    from parley.store.merge import merge as do_merge

    if len(databases) < 2:
        raise ParleyError("give at least two databases to merge")
    report = do_merge(databases[0], databases[1], out, *databases[2:])
    click.echo(f"merged {len(databases)} database(s) into {out}: {report.summary()}")
