"""``parley train tod``: train an end-to-end TOD model on MultiWOZ-format dialogues. A thin layer over
``engine.train``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from parley.cli.common import SEED, OutputPath, refuse_nonempty_dir


@click.group()
def train() -> None:
    """Train models here (end-to-end TOD: `parley train tod`)."""


@train.command("tod")
@click.option("--data", required=True, multiple=True, type=click.Path(dir_okay=False),
              help="Dialogues to fine-tune on (repeatable): MultiWOZ layout (ConvLab-3 / MultiWOZ 2.x / DAMD "
                   ".json or .zip, e.g. val.json.zip) or IC-DST turn records (.json or a .zip of them).")
@click.option("--pretrain-text", "pretrain", multiple=True, type=click.Path(dir_okay=False),
              help="Dialogue text to pre-train on first (repeatable): one utterance a line, a blank line "
                   "between dialogues (.txt or a .zip of them); needs --exclude.")
@click.option("--pretrain-epochs", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True,
              help="Passes over the --pretrain-text dialogues.")
@click.option("--pretrain-steps", type=click.IntRange(min=1), default=None,
              help="Pre-training optimizer steps (overrides --pretrain-epochs).")
@click.option("--pretrain-lr", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Peak learning rate of pre-training (default: --lr).")
@click.option("--exclude", multiple=True, type=click.Path(dir_okay=False),
              help="A split to keep out, e.g. test.json.zip (repeatable): training dialogues with its ids or "
                   "a copy of its dialogues are dropped (the manifest lists them).")
@click.option("--out", required=True, type=OutputPath("folder"),
              help="Folder for the model (must not exist, or be empty); load it with hf-causal:model=DIR.")
@click.option("--resume", is_flag=True,
              help="Continue the interrupted run in --out from its last checkpoint (same options and data).")
@click.option("--checkpoint-every", type=click.IntRange(min=0), default=100, show_default=True,
              help="Steps between checkpoints in OUT/.parley-train (0: only at the end of each stage).")
@click.option("--format", "fmt", default="simpletod-db", show_default=True,
              help="Causal format file (bundled name or .toml path): simpletod-db, simpletod, ubar, augpt.")
@click.option("--base", default=None, metavar="PATH|HUB_ID|smollm2",
              help="Fine-tune this causal LM (its tokenizer gets the format's markers) instead of a GPT-2 "
                   "built from scratch with a tokenizer trained on the data.")
@click.option("--layers", type=click.IntRange(min=1),
              default=4, show_default=True, help="From scratch: transformer layers.")
@click.option("--dim", type=click.IntRange(min=1),
              default=256, show_default=True, help="From scratch: hidden size.")
@click.option("--heads", type=click.IntRange(min=1),
              default=4, show_default=True, help="From scratch: attention heads.")
@click.option("--vocab", type=click.IntRange(min=300),
              default=4000, show_default=True, help="From scratch: BPE vocabulary size.")
@click.option("--block", type=click.IntRange(min=16),
              default=512, show_default=True, help="Longest sequence in tokens.")
@click.option("--context-turns", type=click.IntRange(min=1), default=3, show_default=True,
              help="Earlier exchanges kept in the context (also written to the model's format file).")
@click.option("--epochs", type=click.FloatRange(min=0, min_open=True), default=3.0, show_default=True,
              help="Passes over the data.")
@click.option("--steps", type=click.IntRange(min=1),
              default=None, help="Optimizer steps (overrides --epochs).")
@click.option("--batch-size", type=click.IntRange(min=1), default=16, show_default=True)
@click.option("--lr", type=click.FloatRange(min=0, min_open=True), default=1e-3, show_default=True,
              help="Peak learning rate (use ~5e-5 with --base).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed of the data order, tokenizer and weights.")
@click.option("--device", default="auto", show_default=True,
              help="auto (cuda, then mps, then cpu), cpu, cuda, ...")
@click.option("--bf16", is_flag=True, help="bfloat16 autocast (fast on recent GPUs and CPUs with AMX).")
@click.option("--dev-dialogues", type=click.IntRange(min=0), default=0, show_default=True,
              help="Dialogues held out (by seed) to report a dev loss.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Use only the first N dialogues.")
@click.option("--max-minutes", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop early after this many minutes (the manifest records the steps done).")
@click.option("--threads", type=click.IntRange(min=1, max=64), default=None,
              help="CPU threads for torch (default: torch's choice; 1 is fastest on a busy machine).")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest's figures as JSON.")
def tod(data: tuple[str, ...], out: str, fmt: str, as_json: bool, resume: bool, pretrain: tuple[str, ...],
        exclude: tuple[str, ...], **options: Any) -> None:
    """Train a causal LM in a format file's syntax (SimpleTOD by default: context → belief state → DB → acts →
    delexicalised response), deterministic for a seed, and write a checkpoint folder with a manifest."""
    from parley.engine.train.loop import TrainConfig, train
    from parley.engine.train.stages import CHECKPOINT_DIR

    if not resume:
        refuse_nonempty_dir(out)
    elif not (Path(out) / CHECKPOINT_DIR).is_dir():
        raise click.BadParameter(f"{out} holds no interrupted run", param_hint="--resume")
    if options["dim"] % options["heads"]:
        raise click.BadParameter("--dim must be a multiple of --heads", param_hint="--dim")

    def progress(step: int, total: int, loss: float, tps: float) -> None:
        if step == 1 or step % 25 == 0 or step == total:
            click.echo(f"step {step}/{total}  loss {loss:.3f}  {tps:,.0f} tokens/s", err=True)

    cfg = TrainConfig(data=data[0] if len(data) == 1 else tuple(data), out=out, format=fmt,
                      pretrain=tuple(pretrain), exclude=tuple(exclude), **options)
    result = train(cfg, progress, log=lambda m: click.echo(m, err=True), resume=resume)
    manifest = json.loads((result.out / "manifest.json").read_text(encoding="utf-8"))
    if as_json:
        json.dump({"out": str(result.out), "steps": result.steps, "epochs": manifest["epochs"],
                   **manifest["figures"]}, sys.stdout)
        click.echo()
    else:
        click.echo(f"trained {result.parameters:,} parameters for {result.steps} steps "
                   f"({result.epochs:.2f} epochs) in {result.seconds / 60:.1f} min on {result.device}: "
                   f"{result.tokens_per_s:,.0f} tokens/s, loss {result.train_loss:.3f}; "
                   f"load it with hf-causal:model={result.out}")
