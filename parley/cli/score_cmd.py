"""``parley run`` (corpus replay under rewriter conditions) and ``parley score`` (MultiWOZ metrics of stored
sessions, satisfaction analysis of ratings). Thin layers over ``engine.scoring``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click

from parley.cli.common import db_option, fail, load_system, open_db, resolve_db, trust_option, with_trust


def _console() -> Any:
    """stdout console; wide enough for the tables when stdout is not a terminal (pipes, files)."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=140)


def _slug(name: str) -> str:
    return re.sub(r"[^\w=.+-]+", "_", name)


def _mwzeval_paths(out: Path, names: list[str]) -> dict[str, Path]:
    if len(names) == 1:
        return {names[0]: out}
    return {n: out.with_name(f"{out.stem}.{_slug(n)}{out.suffix or '.json'}") for n in names}


@click.command()
@click.option("--system", "system_spec", default="multiwoz", show_default=True, metavar="NAME[:k=v,...]",
              help="System under test (`parley systems` lists them).")
@click.option("--dialogues", "dialogues", type=click.Path(dir_okay=False), required=True,
              help="MultiWOZ-format dialogues: a .json file or a .zip holding one (e.g. ConvLab-3 test.json.zip).")
@click.option("--condition", "conditions", multiple=True, metavar="SPEC",
              help="Rewriter condition (repeatable): original, impolite:scenario=2, disfluency, wp, asr-sim, "
                   "or several joined with + (default: original).")
@click.option("--limit", type=int, default=None, help="Replay only the first N dialogues.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Run seed: each dialogue's session seed derives from it and the dialogue id.")
@db_option
@click.option("--json", "as_json", is_flag=True,
              help='Print {"conditions": {name: {inform, success, bleu, combined, n, drop, ci}}} on stdout.')
@click.option("--mwzeval-out", "mwzeval_out", type=click.Path(dir_okay=False), default=None,
              help="Write system outputs in the mwzeval input format (one file per condition when several).")
@click.option("--bootstrap", "n_boot", type=int, default=1000, show_default=True,
              help="Paired bootstrap resamples for the confidence intervals (0: none).")
@click.option("--tester", default="replay", show_default=True, help="Tester name stored with the sessions.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write a PNG bar chart (matplotlib).")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None,
              help="Write a self-contained HTML report.")
@trust_option
def run(system_spec: str, dialogues: str, conditions: tuple[str, ...], limit: int | None, seed: int,
        db_path: str | None, as_json: bool, mwzeval_out: str | None, n_boot: int, tester: str,
        plot: str | None, html_out: str | None, trust_remote_code: bool) -> None:
    """Replay corpus dialogues through a system under rewriter conditions and score them (Inform, Success,
    BLEU, Combined; drops against `original`; paired bootstrap CIs). Every dialogue is stored as a batch
    session with its condition."""
    from parley.engine.rewrite.chain import Chain
    from parley.engine.scoring.corpus import CorpusError, load_corpus, to_mwzeval
    from parley.engine.scoring.replay import replay, summarise
    from parley.engine.spec import SpecError, parse_condition

    system_spec = with_trust(system_spec, trust_remote_code)
    conds = list(conditions) or ["original"]
    try:
        for c in conds:
            Chain(parse_condition(c))
    except SpecError as e:
        fail(str(e))
    if limit is not None and limit < 1:
        fail("--limit must be at least 1")
    try:
        corpus = load_corpus(dialogues, limit=limit)
    except CorpusError as e:
        fail(str(e))
    if not corpus:
        fail(f"{dialogues}: no dialogues")
    system = load_system(system_spec)
    store = open_db(db_path)

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    err = Console(stderr=True)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=False) as bar:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        try:
            runs = replay(corpus, system, store, conditions=conds, system_spec=system_spec, seed=seed,
                          source=str(Path(dialogues).resolve()), tester=tester, progress=progress)
        except (SpecError, ValueError) as e:
            fail(str(e))
    result = summarise(runs, corpus, n_boot=n_boot, seed=seed)
    if mwzeval_out:
        paths = _mwzeval_paths(Path(mwzeval_out), [r.name for r in runs])
        for r in runs:
            data = to_mwzeval({d.dialogue_id: d.turns for d in r.dialogues})
            paths[r.name].write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
            err.print(f"mwzeval input for {r.name}: {paths[r.name]}")
    if plot or html_out:
        from parley.engine.scoring import report

        if plot:
            report.figure(result).savefig(plot, dpi=110, bbox_inches="tight")
            err.print(f"plot written to {plot}")
        if html_out:
            report.html_report(result, html_out, title=f"parley run — {system_spec} on {Path(dialogues).name}")
            err.print(f"report written to {html_out}")
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        from parley.engine.scoring.report import conditions_table

        _console().print(conditions_table(result, seconds={r.name: r.seconds for r in runs}))
    total = sum(len(r.dialogues) for r in runs)
    err.print(f"{total} session(s) stored in {store.path}")


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
@click.option("--latency", is_flag=True,
              help="Latency of the stored spoken turns per stage (end of speech → transcript → reply text → "
                   "first audio): n, median, p90, mean, max.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write a PNG plot (matplotlib).")
@click.option("--html", "html_out", type=click.Path(dir_okay=False), default=None,
              help="Write a self-contained HTML report.")
def score(db_path: str | None, satisfaction: bool, multiwoz: bool, dialogues: str | None, latency: bool,
          as_json: bool, plot: str | None, html_out: str | None) -> None:
    """Score the sessions and ratings of a database (nothing is written to it)."""

    from parley.engine.scoring import report
    from parley.store import StoreError, open_store

    if not satisfaction and not multiwoz and not latency:
        fail("say what to score: --satisfaction, --multiwoz and/or --latency")
    path = resolve_db(db_path)
    if not path.exists():
        fail(f"{path}: no such database")
    try:
        store = open_store(path, readonly=True)
    except StoreError as e:
        fail(str(e))
    result: dict[str, Any] = {}
    if multiwoz:
        from parley.engine.scoring.corpus import CorpusError, load_corpus
        from parley.engine.scoring.stored import score_stored

        try:
            corpus = load_corpus(dialogues) if dialogues else None
        except CorpusError as e:
            fail(str(e))
        result["multiwoz"] = score_stored(store, corpus=corpus)
    sat = None
    if satisfaction:
        from parley.engine.scoring.satisfaction import analyse, rows_from_store

        rows, turns = rows_from_store(store)
        if not rows:
            fail(f"{path}: no dialogue ratings to analyse")
        sat = analyse(rows, turns)
        result["satisfaction"] = sat.to_json()
    if latency:
        result["latency"] = _latency(store)
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
    if latency:
        from parley.cli.audio_cmd import latency_rich_table

        console.print(latency_rich_table(result["latency"]))


def _latency(store: Any) -> dict[str, Any]:
    """The latency table of the stored spoken turns (audio.latency)."""
    from parley.audio.latency import latency_table

    return latency_table(store)
