"""``parley score``: MultiWOZ metrics of stored sessions, satisfaction analysis of ratings. A thin layer over
``engine.scoring`` (``parley run`` lives in ``run_cmd``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from parley.cli.common import OutputPath, db_option, force_option, open_db, refuse_database, refuse_existing
from parley.display import json_text
from parley.errors import ParleyError

if TYPE_CHECKING:
    from rich.console import Console

    from parley.store import Store


def _console() -> Console:
    """stdout console; wide enough for the tables when stdout is not a terminal (pipes, files)."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=140)


@click.command()
@db_option
@click.option("--satisfaction", is_flag=True,
              help="Six-aspect satisfaction analysis of the stored ratings (distributions, Spearman/Pearson "
                   "with overall impression, OLS R², Fleiss κ / Krippendorff α).")
@click.option("--rater", "raters", multiple=True, metavar="NAME",
              help="--satisfaction: only the ratings of this rater (wildcards * ? [...] work). Repeatable.")
@click.option("--source", "sources", multiple=True, metavar="FILE",
              help="--satisfaction: only the dialogues imported or replayed from this file (its name or "
                   "path; wildcards work; FILE#ID for one dialogue), as `parley rate --source` selects them. "
                   "Repeatable.")
@click.option("--multiwoz", is_flag=True,
              help="MultiWOZ Inform/Success (BLEU when the reference dialogues are found) of stored sessions "
                   "that have a goal, by system and condition.")
@click.option("--abredial", "abredial", type=click.Path(dir_okay=False), default=None,
              help="--satisfaction: read the AB-ReDial dialogue CSV itself (values outside the study's "
                   "scales included) instead of the database.")
@click.option("--turn-file", "turn_file", type=click.Path(dir_okay=False), default=None,
              help="--abredial: the AB-ReDial turn CSV (relevance, interestingness per rated turn).")
@click.option("--relevance-coding", type=click.Choice(["auto", "paper", "shifted"]), default="auto",
              show_default=True,
              help="--abredial: paper = relevance as written; shifted = 2/3/4 → 1/2/3, 1 = not applicable; "
                   "auto = shifted when a 4 occurs.")
@click.option("--mwzeval-file", "mwzeval_file", type=click.Path(dir_okay=False), default=None,
              help="Score model outputs in mwzeval's input format ({id: [{response, state, "
                   "active_domains?}]}, as `parley run --mwzeval-out` writes) against --dialogues; no "
                   "database needed.")
@click.option("--references", type=click.Path(dir_okay=False), default=None,
              help="--mwzeval-file: mwzeval's delexicalised BLEU references (its "
                   "data/references/mwz22.json).")
@click.option("--dialogues", type=click.Path(dir_okay=False), default=None,
              help="--multiwoz: reference dialogue file for BLEU (default: the file each session came from); "
                   "--mwzeval-file: the MultiWOZ-format dialogues holding the goals (required).")
@click.option("--latency", is_flag=True,
              help="Latency of the stored spoken turns per stage (end of speech → transcript → reply text → "
                   "first audio): n, median, p90, mean, max.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
@click.option("--plot", type=OutputPath(), default=None, help="Write a PNG plot (matplotlib).")
@click.option("--html", "html_out", type=OutputPath(), default=None,
              help="Write a self-contained HTML report.")
@force_option
def score(db_path: str | None, satisfaction: bool, raters: tuple[str, ...], sources: tuple[str, ...],
          multiwoz: bool, abredial: str | None,
          turn_file: str | None, relevance_coding: str, mwzeval_file: str | None, references: str | None,
          dialogues: str | None, latency: bool, as_json: bool, plot: str | None,
          html_out: str | None, force: bool) -> None:
    """Score the sessions and ratings of a database (nothing is written to it), or a file of model outputs.
    An existing --plot or --html file is refused unless --force."""
    if mwzeval_file:
        given = [o for o, v in (("--plot", plot), ("--html", html_out), ("--satisfaction", satisfaction),
                                ("--multiwoz", multiwoz), ("--latency", latency), ("--abredial", abredial))
                 if v]
        if given:  # --plot/--html draw stored conditions and ratings, not one file's three figures
            raise ParleyError(f"{given[0]} does not go with --mwzeval-file, which scores one file of model "
                              "outputs (--json prints its figures)")
    elif references:
        raise ParleyError("--references goes with --mwzeval-file")
    if turn_file and not abredial:
        raise ParleyError("--turn-file goes with --abredial")
    if (raters or sources) and (not satisfaction or abredial):
        raise ParleyError(f"{'--rater' if raters else '--source'} selects stored ratings: it goes with "
                          "--satisfaction (not with --abredial, whose files name no raters)")
    refuse_database(db_path, plot, html_out)
    refuse_existing(plot, html_out, force=force)
    if mwzeval_file:
        _score_mwzeval_file(mwzeval_file, dialogues, references, as_json)
        return
    if not satisfaction and not multiwoz and not latency:
        raise ParleyError("say what to score: --satisfaction, --multiwoz, --latency or --mwzeval-file")
    if abredial:
        if not satisfaction or multiwoz:
            raise ParleyError("--abredial goes with --satisfaction alone (it reads ratings from CSV files)")
        from_csv = {"satisfaction": _abredial_satisfaction(abredial, turn_file, relevance_coding)}
        _emit(from_csv, as_json, plot, html_out, title=f"parley scores — {Path(abredial).name}")
        return
    store = open_db(db_path, readonly=True)
    path = store.path
    result: dict[str, Any] = {}
    if multiwoz:
        from parley.engine.scoring.corpus import load_corpus
        from parley.engine.scoring.stored import score_stored

        corpus = load_corpus(dialogues) if dialogues else None
        result["multiwoz"] = score_stored(store, corpus=corpus)
    if satisfaction:
        result["satisfaction"] = _stored_satisfaction(store, raters, sources)
    if latency:
        from parley.audio.latency import latency_table

        result["latency"] = latency_table(store)
    _emit(result, as_json, plot, html_out, title=f"parley scores — {Path(path).name}")


def _stored_satisfaction(store: Store, raters: tuple[str, ...], sources: tuple[str, ...]) -> dict[str, Any]:
    """The satisfaction analysis of the stored ratings, kept to the raters and sources asked for (the
    selection is named in the result)."""
    from parley.engine.scoring.satisfaction import analyse, rows_from_store

    sessions = None
    if sources:
        from parley.store.selection import Selection, select

        sessions = {c.id for c in select(store, Selection(sources=sources))}
    rows, turns = rows_from_store(store, raters=raters, sessions=sessions)
    chosen = [f"{opt} {p}" for opt, given in (("--rater", raters), ("--source", sources)) for p in given]
    if not rows:
        which = f" matching {', '.join(chosen)}" if chosen else ""
        raise ParleyError(f"{store.path}: no dialogue ratings{which} to analyse")
    out = analyse(rows, turns).to_json()
    if chosen:
        out["selection"] = {"raters": list(raters), "sources": list(sources)}
    return out


def _abredial_satisfaction(path: str, turn_file: str | None, coding: str) -> dict[str, Any]:
    from parley.engine.scoring.abredial import read_ratings
    from parley.engine.scoring.satisfaction import analyse

    ratings = read_ratings(path, turn_file, coding)
    return {**analyse(ratings.rows, ratings.turns).to_json(), "source": ratings.summary()}


def _emit(result: dict[str, Any], as_json: bool, plot: str | None, html_out: str | None, *,
          title: str) -> None:
    from parley.engine.scoring import report

    if plot:
        fig = report.figure(result)
        fig.savefig(plot, dpi=110, bbox_inches="tight")
        click.echo(f"plot written to {plot}", err=True)
    if html_out:
        report.html_report(result, html_out, title=title)
        click.echo(f"report written to {html_out}", err=True)
    if as_json:
        click.echo(json_text(result, indent=2))
        return
    console = _console()
    if "multiwoz" in result:
        if result["multiwoz"]["conditions"]:
            console.print(report.conditions_table(result["multiwoz"]))
        else:
            console.print("no stored sessions with a MultiWOZ goal")
    if "satisfaction" in result:
        for table in report.satisfaction_tables(result["satisfaction"]):
            console.print(table)
    if "latency" in result:
        from parley.cli.audio_cmd import latency_rich_table

        console.print(latency_rich_table(result["latency"]))


def _score_mwzeval_file(path: str, dialogues: str | None, references: str | None, as_json: bool) -> None:
    """``parley score --mwzeval-file``: Inform/Success (and mwzeval's BLEU with references) of a
    predictions file."""
    from parley.engine.scoring import mwzeval_file
    from parley.engine.scoring.corpus import load_corpus

    if not dialogues:
        raise ParleyError("--mwzeval-file needs --dialogues: the MultiWOZ-format dialogues holding the goals "
                          "(test.json.zip)")
    preds = mwzeval_file.read(path)
    refs = mwzeval_file.load_references(references) if references else None
    result = mwzeval_file.score(preds, load_corpus(dialogues), refs)
    if as_json:
        click.echo(json_text(result, indent=2))
        return
    bleu = "–" if result["bleu"] is None else f"{result['bleu']:.2f}"
    click.echo(f"{result['n']} dialogues  Inform {result['inform']:.1f}  Success {result['success']:.1f}  "
               f"BLEU {bleu}")
    click.echo(f"BLEU: {result['bleu_kind']}")
