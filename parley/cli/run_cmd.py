"""``parley run``: replay corpus dialogues under rewriter conditions — N in flight, resumable, on threads,
processes or Ray — and score them. A thin layer over :mod:`engine.batch`."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from parley.cli.common import (
    Interrupted,
    Name,
    OutputPath,
    check_trust,
    db_option,
    force_option,
    load_system,
    open_db,
    refuse_database,
    refuse_existing,
    trust_option,
)
from parley.cli.options import SEED, NumberOption, number
from parley.display import json_text
from parley.errors import ParleyError

#: the options that define a run (with --resume they must agree with the stored run, or be left out)
RUN_DEFINING = ("system_spec", "dialogues", "conditions", "limit", "seed", "tester")

if TYPE_CHECKING:
    from rich.progress import Progress, Task, TaskID


def _slug(name: str) -> str:
    return re.sub(r"[^\w=.+-]+", "_", name)


def _mwzeval_paths(out: Path, names: list[str]) -> dict[str, Path]:
    if len(names) == 1:
        return {names[0]: out}
    return {n: out.with_name(f"{out.stem}.{_slug(n)}{out.suffix or '.json'}") for n in names}


def _check_resumable(db_path: str | None, run_id: str) -> None:
    """``--resume RUN_ID`` names a run stored in the database, checked read-only before anything is opened
    for writing: a mistyped id or database creates, migrates or changes no file."""
    from parley.cli.common import resolve_db
    from parley.engine.batch.run import RunError
    from parley.store.runs import peek_run

    path = resolve_db(db_path)
    if not path.exists():
        raise RunError(f"no run {run_id}: {path} does not exist")
    if peek_run(path, run_id) is None:
        raise RunError(f"no run {run_id} in {path}")


def _progress_bar() -> Progress:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Speed(ProgressColumn):
        def render(self, task: Task) -> Text:
            return Text(f"{task.speed:.2f} dialogues/s" if task.speed else "– dialogues/s")

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), Speed(),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=False)


def _check_system(spec: str, trust_remote_code: bool, batch: int = 1) -> None:
    """The system spec is valid (its name, parameters, ``--trust-remote-code``, ``--batch``) without loading
    anything."""
    from parley.engine.spec import parse_spec
    from parley.engine.systems import build_system

    if trust_remote_code:
        check_trust(parse_spec(spec).name)
    system = build_system(spec, trust_remote_code=trust_remote_code)  # a system loads in load()
    if batch > 1 and not hasattr(system, "batch_group"):
        raise ParleyError(f"--batch: {parse_spec(spec).name} does not decode in batches "
                          "(hf-causal and neural do)")


@click.command()
@click.option("--system", "system_spec", default="multiwoz", show_default=True, metavar="NAME[:k=v,...]",
              help="System under test (`parley systems` lists them).")
@click.option(
    "--dialogues",
    "dialogues",
    type=click.Path(dir_okay=False),
    default=None,
    help="MultiWOZ-format dialogues: a .json file or a .zip holding one (e.g. ConvLab-3 test.json.zip); "
    "read one dialogue at a time.",
)
@click.option(
    "--condition",
    "conditions",
    multiple=True,
    metavar="SPEC",
    help="Rewriter condition (repeatable): original, impolite:scenario=2, disfluency, wp, asr-sim, "
    "or several joined with + (default: original).",
)
@number("--limit", kind=int, ge=1, le=2**63 - 1, unit="dialogues", default=None,
        help="Replay only the first N dialogues.")
@click.option(
    "--seed",
    type=SEED,
    cls=NumberOption,
    default=0,
    show_default=True,
    help="Run seed: each dialogue's session seed derives from it and the dialogue id.",
)
@number(
    "--workers",
    kind=int, ge=1, le=256, unit="workers",
    default=1,
    show_default=True,
    help="Dialogues in flight at once; with --batch N, worker processes each playing N (stored sessions are "
    "the same for any number).",
)
@number(
    "--batch",
    kind=int, ge=1, le=256, unit="dialogues",
    default=1,
    show_default=True,
    help="hf-causal/neural: play N dialogues in lockstep, decoding their turns in one batch per step "
    "(one model per process; with --workers W, W processes each play N; stored sessions are the same as "
    "with 1).",
)
@click.option(
    "--backend",
    type=click.Choice(["auto", "thread", "process", "ray"]),
    default="auto",
    show_default=True,
    help="Where dialogues run: threads (remote bots), processes (local models, each loading its model "
    "once), or a Ray cluster; auto picks threads for remote/echo or one worker, else processes.",
)
@click.option(
    "--address",
    default=None,
    metavar="ADDR",
    help="--backend ray: the cluster to join (auto, or ray://HEAD:10001); default: a local Ray instance.",
)
@click.option(
    "--resume",
    "resume",
    default=None,
    metavar="RUN_ID",
    help="Continue this interrupted run (its settings are stored; options that define the run may be "
    "left out). Without it, an unfinished run of the same command continues by itself.",
)
@click.option(
    "--new",
    "new_run",
    is_flag=True,
    help="Start a new run even when an unfinished run of the same command exists.",
)
@db_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"conditions": {name: {inform, success, bleu, combined, n, drop, ci}}} on stdout.',
)
@click.option(
    "--mwzeval-out",
    "mwzeval_out",
    type=OutputPath(),
    default=None,
    help="Write system outputs in the mwzeval input format (one file per condition when several).",
)
@number(
    "--bootstrap",
    "n_boot",
    kind=int, ge=0, le=100_000, unit="resamples",  # checked before the run (scipy refused -5 only at the end)
    default=1000,
    show_default=True,
    help="Paired bootstrap resamples for the confidence intervals (0: none; at most 100,000).",
)
@click.option("--tester", type=Name(), default="replay", show_default=True,
              help="Tester name stored with the sessions.")
@click.option(
    "--plot", type=OutputPath(), default=None, help="Write a PNG bar chart (matplotlib)."
)
@click.option(
    "--html",
    "html_out",
    type=OutputPath(),
    default=None,
    help="Write a self-contained HTML report.",
)
@trust_option
@force_option
@click.pass_context
def run(
    ctx: click.Context,
    system_spec: str,
    dialogues: str | None,
    conditions: tuple[str, ...],
    limit: int | None,
    seed: int,
    workers: int,
    batch: int,
    backend: str,
    address: str | None,
    resume: str | None,
    new_run: bool,
    db_path: str | None,
    as_json: bool,
    mwzeval_out: str | None,
    n_boot: int,
    tester: str,
    plot: str | None,
    html_out: str | None,
    trust_remote_code: bool,
    force: bool,
) -> None:
    """Replay corpus dialogues through a system under rewriter conditions and score them (Inform, Success,
    BLEU, Combined; drops against `original`; paired bootstrap CIs). Every dialogue is stored as a batch
    session with its condition; an interrupted run continues where it stopped."""
    from parley.engine.batch.backends import choose, make_backend
    from parley.engine.batch.play import WorkerSpec, build_chains
    from parley.engine.batch.run import RunError, RunInterrupted, RunParams, execute, open_run
    from parley.engine.scoring.replay import summary
    from parley.store.runs import count_done, get_run

    refuse_database(db_path, plot, html_out, mwzeval_out)
    refuse_existing(plot, html_out, force=force)
    if resume and new_run:
        raise ParleyError("--resume and --new exclude each other")
    if batch > 1 and backend == "ray":
        raise ParleyError("--batch does not run on Ray actors: use --backend process --workers N")
    if batch > 1 and workers > 1 and backend == "thread":
        raise ParleyError("--batch on threads runs in one process: --workers N needs --backend process")
    if not resume:
        # the system and every condition checked before the corpus is read or the database touched
        _check_system(system_spec, trust_remote_code, batch)
        chains = build_chains(list(conditions) or ["original"])
        if mwzeval_out:
            refuse_existing(*_mwzeval_paths(Path(mwzeval_out), list(chains)).values(), force=force)
    else:
        _check_resumable(db_path, resume)
    store = open_db(db_path)
    try:
        if resume:
            stored = get_run(store, resume)
            if stored is None:
                raise RunError(f"no run {resume} in {store.path}")
            params = RunParams.from_json(stored.params)
            given = {k for k in RUN_DEFINING if ctx.get_parameter_source(k) == ParameterSource.COMMANDLINE}
            if given:
                mine = RunParams.make(
                    system_spec,
                    dialogues or params.dialogues,
                    list(conditions) or ["original"],
                    limit=limit,
                    seed=seed,
                    tester=tester,
                )
                differ = [
                    k
                    for k in ("system_spec", "dialogues", "conditions", "limit", "seed", "tester")
                    if k in given and getattr(mine, k) != getattr(params, k)
                ]
                if differ or mine.digest != params.digest:
                    raise RunError(
                        f"run {resume} was started with other settings "
                        f"({', '.join(differ) or 'the dialogue file changed'}); leave them out to resume it"
                    )
        else:
            if not dialogues:
                raise ParleyError("--dialogues FILE is required (or --resume RUN_ID)")
            params = RunParams.make(
                system_spec,
                dialogues,
                list(conditions) or ["original"],
                limit=limit,
                seed=seed,
                tester=tester,
            )
        names = list(build_chains(params.conditions))
        paths = _mwzeval_paths(Path(mwzeval_out), names) if mwzeval_out else {}
        refuse_existing(*paths.values(), force=force)
        kind = choose(backend, params.system_spec, workers)
        if resume:
            _check_system(params.system_spec, trust_remote_code, batch)
        local = None
        if kind == "thread" and workers == 1:
            local = load_system(params.system_spec, trust_remote_code)
        run_rec, continued = open_run(store, params, resume=resume, new=new_run)
        done = count_done(store, run_rec.id)
        if continued:
            click.echo(
                f"resuming run {run_rec.id}: {done} of {run_rec.total} dialogues already stored", err=True
            )
        else:
            click.echo(
                f"run {run_rec.id}: {run_rec.total} dialogues ({len(names)} condition(s)), "
                + (f"{batch} in lockstep (--batch)" if batch > 1 and kind == "thread"
                   else f"{workers} worker process(es), {batch} in lockstep each (--batch)" if batch > 1
                   else f"{workers} worker(s) on {kind}"),
                err=True,
            )
        spec = WorkerSpec(params.system_spec, params.conditions, params.tester,
                          {"trust_remote_code": True} if trust_remote_code else {})
        with _progress_bar() as bar:
            tasks: dict[str, TaskID] = {}

            def progress(name: str, k: int, total: int, fresh: bool) -> None:
                if name not in tasks:
                    tasks[name] = bar.add_task(name, total=total)
                if fresh:
                    bar.update(tasks[name], completed=k)
                else:
                    bar.reset(tasks[name], total=total, completed=k)

            pool = make_backend(kind, spec, workers, address=address, system=local, batch=batch)
            outcome = execute(store, run_rec, pool, progress=progress, mwzeval=paths)
    except RunInterrupted as e:  # ctrl+c, SIGTERM, SIGHUP: one line and the signal's exit code (parley.cli)
        raise Interrupted(e.message) from None
    result = summary(
        [(t.name, t.metrics(), t.stats(), t.failed_turns) for t in outcome.tallies],
        n_boot=n_boot,
        seed=params.seed,
    )
    for name, path in outcome.mwzeval.items():
        click.echo(f"mwzeval input for {name}: {path}", err=True)
    if plot or html_out:
        from parley.engine.scoring import report

        if plot:
            report.figure(result).savefig(plot, dpi=110, bbox_inches="tight")
            click.echo(f"plot written to {plot}", err=True)
        if html_out:
            report.html_report(
                result, html_out, title=f"parley run — {params.system_spec} on {Path(params.dialogues).name}"
            )
            click.echo(f"report written to {html_out}", err=True)
    if as_json:
        click.echo(json_text(result, indent=2, allow_nan=False))
    else:
        from rich.console import Console

        from parley.engine.scoring.report import conditions_table

        console = Console() if sys.stdout.isatty() else Console(width=140)
        console.print(conditions_table(result, seconds={t.name: t.seconds for t in outcome.tallies}))
    click.echo(
        f"run {run_rec.id}: {outcome.played} dialogue(s) played now, {outcome.resumed_from} stored before; "
        f"{run_rec.total} session(s) in {store.path} ({outcome.seconds:.1f} s)",
        err=True,
    )
