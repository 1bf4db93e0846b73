"""``parley train tod``: train an end-to-end TOD model on MultiWOZ-format dialogues. A thin layer over
``engine.train``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from parley.cli.common import OutputPath, refuse_nonempty_dir
from parley.cli.options import SEED, NumberOption, number


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
@number("--pretrain-epochs", gt=0, le=10_000, unit="epochs", default=1.0, show_default=True,
        help="Passes over the --pretrain-text dialogues.")
@number("--pretrain-steps", kind=int, ge=1, le=100_000_000, unit="steps", default=None,
        help="Pre-training optimizer steps (overrides --pretrain-epochs).")
@number("--pretrain-lr", gt=0, le=10, default=None,
        help="Peak learning rate of pre-training (default: --lr).")
@click.option("--exclude", multiple=True, type=click.Path(dir_okay=False),
              help="A split to keep out, e.g. test.json.zip (repeatable): training dialogues with its ids or "
                   "a copy of its dialogues are dropped (the manifest lists them).")
@click.option("--out", required=True, type=OutputPath("folder"),
              help="Folder for the model (must not exist, or be empty); load it with hf-causal:model=DIR.")
@click.option("--resume", is_flag=True,
              help="Continue the interrupted run in --out from its last checkpoint (same options and data).")
@number("--checkpoint-every", kind=int, ge=0, le=100_000_000, unit="steps", default=100, show_default=True,
        help="Steps between checkpoints in OUT/.parley-train (0: only at the end of each stage).")
@click.option("--format", "fmt", default="simpletod-db", show_default=True,
              help="Causal format file (bundled name or .toml path): simpletod-db, simpletod-delta, "
                   "simpletod, ubar, augpt.")
@click.option("--base", default=None, metavar="PATH|HUB_ID|smollm2",
              help="Fine-tune this causal LM (its tokenizer gets the format's markers) instead of a GPT-2 "
                   "built from scratch with a tokenizer trained on the data.")
@number("--layers", kind=int, ge=1, le=256, unit="layers",
        default=4, show_default=True, help="From scratch: transformer layers.")
@number("--dim", kind=int, ge=8, le=16384, unit="units",
        default=256, show_default=True, help="From scratch: hidden size.")
@number("--heads", kind=int, ge=1, le=256, unit="heads",
        default=4, show_default=True, help="From scratch: attention heads.")
@number("--vocab", kind=int, ge=300, le=1_000_000, unit="tokens",
        default=4000, show_default=True, help="From scratch: BPE vocabulary size.")
@number("--block", kind=int, ge=16, le=65_536, unit="tokens",
        default=512, show_default=True, help="Longest sequence in tokens.")
@number("--context-turns", kind=int, ge=1, le=100, unit="exchanges", default=3, show_default=True,
        help="Earlier exchanges kept in the context (also written to the model's format file).")
@number("--epochs", gt=0, le=10_000, unit="epochs", default=3.0, show_default=True,
        help="Passes over the data.")
@number("--steps", kind=int, ge=1, le=100_000_000, unit="steps",
        default=None, help="Optimizer steps (overrides --epochs).")
@number("--batch-size", kind=int, ge=1, le=65_536, unit="sequences", default=16, show_default=True)
@number("--lr", gt=0, le=10, default=1e-3, show_default=True,
        help="Peak learning rate (use ~5e-5 with --base).")
@click.option("--seed", type=SEED, cls=NumberOption, default=0, show_default=True,
              help="Seed of the data order, tokenizer and weights.")
@click.option("--device", default="auto", show_default=True,
              help="auto (cuda, then mps, then cpu), cpu, cuda, ...")
@click.option("--bf16", is_flag=True, help="bfloat16 autocast (fast on recent GPUs and CPUs with AMX).")
@number("--dev-dialogues", kind=int, ge=0, le=1_000_000_000, unit="dialogues", default=0, show_default=True,
        help="Dialogues held out (by seed) to report a dev loss.")
@number("--limit", kind=int, ge=1, le=2**63 - 1, unit="dialogues", default=None,
        help="Use only the first N dialogues.")
@number("--max-minutes", gt=0, le=1_000_000, unit="minutes", default=None,
        help="Stop early after this many minutes (the manifest records the steps done).")
@number("--threads", kind=int, ge=1, le=64, unit="threads", default=None,
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
