"""``parley score``: MultiWOZ metrics of stored sessions, satisfaction analysis of ratings. A thin layer over
``engine.scoring`` (``parley run`` lives in ``run_cmd``)."""

from __future__ import annotations

import json
from typing import Any

import click

from parley.cli.common import OutputPath, db_option, open_db
from parley.errors import ParleyError


def _console() -> Any:
    """stdout console; wide enough for the tables when stdout is not a terminal (pipes, files)."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=140)


@click.command()
@db_option
@click.option("--satisfaction", is_flag=True,
              help="Six-aspect satisfaction analysis of the stored ratings (distributions, Spearman/Pearson with "
                   "overall impression, OLS R², Fleiss κ / Krippendorff α).")
@click.option("--multiwoz", is_flag=True,
              help="MultiWOZ Inform/Success (BLEU when the reference dialogues are found) of stored sessions "
                   "that have a goal, by system and condition.")
@click.option("--dialogues", type=click.Path(dir_okay=False), default=None,
              help="--multiwoz: reference dialogue file for BLEU (default: the file each session came from).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
@click.option("--plot", type=OutputPath(), default=None, help="Write a PNG plot (matplotlib).")
@click.option("--html", "html_out", type=OutputPath(), default=None,
              help="Write a self-contained HTML report.")
def score(db_path: str | None, satisfaction: bool, multiwoz: bool, dialogues: str | None, as_json: bool,
          plot: str | None, html_out: str | None) -> None:
    """Score the sessions and ratings of a database (nothing is written to it)."""

    from parley.engine.scoring import report

    if not satisfaction and not multiwoz:
        raise ParleyError("say what to score: --satisfaction and/or --multiwoz")
    store = open_db(db_path, readonly=True)
    path = store.path
    result: dict[str, Any] = {}
    if multiwoz:
        from parley.engine.scoring.corpus import load_corpus
        from parley.engine.scoring.stored import score_stored

        corpus = load_corpus(dialogues) if dialogues else None
        result["multiwoz"] = score_stored(store, corpus=corpus)
    sat = None
    if satisfaction:
        from parley.engine.scoring.satisfaction import analyse, rows_from_store

        rows, turns = rows_from_store(store)
        if not rows:
            raise ParleyError(f"{path}: no dialogue ratings to analyse")
        sat = analyse(rows, turns)
        result["satisfaction"] = sat.to_json()
    if plot:
        fig = report.figure(result)
        fig.savefig(plot, dpi=110, bbox_inches="tight")
        click.echo(f"plot written to {plot}", err=True)
    if html_out:
        report.html_report(result, html_out, title=f"parley scores — {path.name}")
        click.echo(f"report written to {html_out}", err=True)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    console = _console()
    if multiwoz:
        if result["multiwoz"]["conditions"]:
            console.print(report.conditions_table(result["multiwoz"]))
        else:
            console.print("no stored sessions with a MultiWOZ goal")
    if sat is not None:
        for table in report.satisfaction_tables(result["satisfaction"]):
            console.print(table)
