"""``parley sktod run|score|train``: the SK-TOD pipeline on DSTC11 track 5 files (thin layer over
engine.sktod)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from parley.cli.common import OutputPath, force_option, refuse_existing, refuse_nonempty_dir
from parley.cli.options import SEED, NumberOption, number
from parley.errors import ParleyError


def _status(msg: str) -> None:
    click.echo(f"· {msg}", err=True)


def _load_list(path: str, what: str) -> list[Any]:
    """A DSTC11 logs (``what="logs"``) or labels-format file, its shape checked: a list of dialogues (lists of
    turns with a speaker and a text), or a list of objects with a boolean ``target``."""
    from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

    from parley.engine.sktod.knowledge import load_json_list
    from parley.params import one_line

    class Turn(BaseModel):
        model_config = ConfigDict(strict=True, extra="allow")
        speaker: str
        text: str

    class Label(BaseModel):
        model_config = ConfigDict(strict=True, extra="allow")
        target: bool
        response: str | None = None
        knowledge: list[dict[str, object]] | None = None

    data = load_json_list(path, what)
    try:
        if what == "logs":
            TypeAdapter(list[list[Turn]]).validate_python(data)
        else:
            TypeAdapter(list[Label]).validate_python(data)
    except ValidationError as e:
        kind = "logs (dialogues of turns)" if what == "logs" else "labels-format"
        raise ParleyError(f"{path}: not a DSTC11 {kind} file: key {one_line(e)}") from None
    return data


@click.group()
def sktod() -> None:
    """Subjective-knowledge answers from reviews (DSTC11 track 5): run, score, train."""


@sktod.command()
@click.option("--logs", "logs_path", required=True, type=click.Path(dir_okay=False),
              help="DSTC11 logs.json (list of dialogues; the last turn is answered).")
@click.option("--knowledge", "knowledge_path", default=None, type=click.Path(dir_okay=False),
              help="DSTC11 knowledge.json (default: the embedded review KB).")
@click.option("--out", "out_path", required=True, type=OutputPath(),
              help="Where to write predictions (DSTC11 labels format).")
@number("--limit", kind=int, ge=1, le=2**63 - 1, unit="instances", default=None,
        help="Only the first N instances.")
@click.option("--model", "model_dir", default=None, type=click.Path(file_okay=False),
              help="Model folder from `parley sktod train` (default: bundled MiniLM prototypes + cosine).")
@click.option("--entity-mapping", default=None, type=click.Path(dir_okay=False),
              help="Alias file (default: entity_mapping.json beside the knowledge file, if any).")
@click.option("--generator", default=None, metavar="PATH|HUB_ID",
              help="Seq2seq/causal checkpoint for responses (default: VADER-aware templates).")
@click.option("--cross-encoder", default=None, metavar="PATH", help="Cross-encoder checkpoint for selection.")
@click.option("--with-entities", is_flag=True, help="Also write the tracked entities of each turn.")
@force_option
def run(logs_path: str, knowledge_path: str | None, out_path: str, limit: int | None,
        model_dir: str | None, entity_mapping: str | None, generator: str | None, cross_encoder: str | None,
        with_entities: bool, force: bool) -> None:
    """Predict KTD, knowledge and responses for every instance of a DSTC11 logs file (an existing --out is
    refused unless --force)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from parley.engine.sktod.pipeline import Pipeline
    from parley.store.export import replacing

    logs = _load_list(logs_path, "logs")
    if not logs:
        raise ParleyError(f"{logs_path}: no dialogues to answer")
    refuse_existing(out_path, force=force)
    if limit is not None:
        logs = logs[:limit]
    pipe = Pipeline(model_dir=model_dir, knowledge=knowledge_path, entity_mapping=entity_mapping,
                    generator=generator, cross_encoder=cross_encoder)
    pipe.load(_status)  # an empty knowledge file is a LoadError (one line, exit 2)
    with Progress(TextColumn("sktod run"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True) as bar:
        task = bar.add_task("run", total=len(logs))
        preds = pipe.run(logs, on_item=lambda i: bar.advance(task), progress=_status)
    out = [p.to_label(with_entities=with_entities) for p in preds]
    with replacing(Path(out_path), overwrite=True) as fh:
        fh.write(json.dumps(out, indent=1, ensure_ascii=False, allow_nan=False))
    n_t = sum(1 for p in preds if p.target)
    click.echo(f"wrote {len(out)} predictions ({n_t} knowledge-seeking) to {out_path}")


def _fmt(v: object) -> str:
    return "null" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v)


@sktod.command()
@click.option("--labels", "labels_path", required=True, type=click.Path(dir_okay=False),
              help="Reference DSTC11 labels.json.")
@click.option("--pred", "pred_path", required=True, type=click.Path(dir_okay=False),
              help="Predictions in the same format.")
@click.option("--json", "as_json", is_flag=True, help="Print the score dict as JSON.")
@click.option("--report", is_flag=True, help="Add KTD/ET/KS breakdowns and mAP.")
@click.option("--no-meteor", is_flag=True, help="Skip METEOR (it is the slowest metric).")
def score(labels_path: str, pred_path: str, as_json: bool, report: bool, no_meteor: bool) -> None:
    """Score predictions with the official DSTC11 track 5 definitions."""
    from parley.engine.sktod.scoring import official_scores
    from parley.engine.sktod.scoring import report as make_report

    labels = _load_list(labels_path, "labels")
    preds = _load_list(pred_path, "predictions")
    if len(labels) != len(preds):
        raise ParleyError(f"{labels_path} has {len(labels)} entries but {pred_path} has {len(preds)}")
    try:
        res = official_scores(labels, preds, meteor=not no_meteor)
        if report:
            res["report"] = make_report(labels, preds)
    except (KeyError, TypeError, ValueError) as e:  # e.g. a knowledge entry without doc_id
        raise ParleyError(f"malformed labels or predictions: {type(e).__name__}: {e}") from None
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    for part in ("detection", "selection", "generation"):
        shown = (f"{k}={_fmt(v)}" for k, v in res[part].items() if k != "meteor_note")
        click.echo(f"{part:<11}" + "  ".join(shown))
    if res["generation"].get("meteor_note") and res["generation"]["meteor"] is None:
        click.echo(f"            meteor: {res['generation']['meteor_note']}")
    if report:
        for part, vals in res["report"].items():
            click.echo(f"{part:<11}" + "  ".join(f"{k}={_fmt(v)}" for k, v in vals.items()))


@sktod.command()
@click.option("--logs", "logs_path", required=True, type=click.Path(dir_okay=False), help="DSTC11 logs.json.")
@click.option("--labels", "labels_path", required=True, type=click.Path(dir_okay=False),
              help="DSTC11 labels.json.")
@click.option("--knowledge", "knowledge_path", required=True, type=click.Path(dir_okay=False),
              help="DSTC11 knowledge.json the labels refer to.")
@click.option("--out", "out_dir", required=True, type=OutputPath("folder"), help="Model folder to write.")
@number("--dev-fraction", gt=0, lt=1, default=0.2,
        show_default=True,
        help="Share of dialogues held out to tune the selection threshold.")
@number("--hidden", kind=int, ge=1, le=16_384, unit="units", default=64, show_default=True,
        help="Hidden units of the selection scorer.")
@click.option("--encoder", default=None, metavar="PATH|HUB_ID",
              help="Sentence encoder (default: bundled all-MiniLM-L6-v2).")
@click.option("--cross-encoder", default=None, metavar="PATH|HUB_ID",
              help="Select with this cross-encoder instead of fitting a scorer "
              "(only its threshold is tuned).")
@click.option("--seed", type=SEED, cls=NumberOption, default=0, show_default=True,
              help="Seed of the dev split and the fit.")
def train(logs_path: str, labels_path: str, knowledge_path: str, out_dir: str, dev_fraction: float,
          hidden: int, encoder: str | None, cross_encoder: str | None, seed: int) -> None:
    """Fit KTD and the knowledge-selection scorer + threshold on DSTC11-format data; save a model folder
    (a new or empty one: a model already there is never replaced)."""
    from parley.engine.sktod.embed import shared_encoder
    from parley.engine.sktod.knowledge import KnowledgeBase
    from parley.engine.sktod.train import train as fit

    refuse_nonempty_dir(out_dir)
    logs = _load_list(logs_path, "logs")
    labels = _load_list(labels_path, "labels")
    kb = KnowledgeBase.load(knowledge_path)
    try:
        cfg = fit(logs, labels, kb, out_dir, encoder=shared_encoder(encoder), dev_fraction=dev_fraction,
                  seed=seed, hidden=hidden, cross_encoder=cross_encoder, progress=_status)
    except ValueError as e:  # e.g. too few knowledge-seeking turns to fit
        raise ParleyError(str(e)) from None
    sel = cfg["selection"]
    scorer = "cross-encoder" if sel["kind"] == "cross" else "selection MLP"
    click.echo(f"saved {out_dir}: KTD logistic regression, {scorer} (threshold {sel['threshold']:.3f}, "
               f"relative {sel['relative']:.2f}); held-out instance F {cfg['heldout_instance_f1']:.3f}")
