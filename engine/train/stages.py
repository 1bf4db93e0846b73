"""One training stage (pre-training on dialogue text, fine-tuning on format sequences): batches, the update
loop, the learning-rate schedule, and checkpoints that let an interrupted run resume where it stopped.

A checkpoint (``OUT/.parley-train/``) holds the model, optimizer, scheduler and RNG states, the stage and
step, the counters and the loss curve, and the configuration it belongs to; :func:`run_stage` saves one every
``checkpoint_every`` steps and at the end of each stage. Resuming replays the same batch order (it depends
only on the seed, the stage and the epoch) from the saved step, so a resumed run makes the same updates as an
uninterrupted one.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    import torch
    from torch import Tensor
    from transformers import PreTrainedModel

    from parley.engine.train.loop import TrainConfig

#: progress(stage, step, total_steps, loss, tokens_per_s)
StageProgress = Callable[[str, int, int, float, float], None] | None
CHECKPOINT_DIR = ".parley-train"
CURVE_EVERY = 25


@dataclass
class Stage:
    """What one stage trains on and how long."""

    name: str
    seqs: list[list[int]]
    steps: int
    lr: float
    warmup: int
    dev: list[list[int]] = field(default_factory=list)


class StageJSON(TypedDict):
    """A stage's figures as the manifest and the checkpoint keep them."""

    steps: int
    tokens: int
    seconds: float
    tokens_per_s: float
    train_loss: float | None
    dev_loss: float | None
    stopped_early: bool
    curve: list[list[float]]


class TrainState(TypedDict):
    """The resumable state of a run: the stage under way, the weights, optimizer, schedule and random state,
    and the figures so far (JSON text)."""

    stage: str
    model: dict[str, Tensor]
    opt: dict[str, object]
    sched: dict[str, object]
    rng: Tensor
    result: str
    done: str


@dataclass
class StageResult:
    name: str
    steps: int = 0
    tokens: int = 0
    seconds: float = 0.0
    loss: float = float("nan")
    dev_loss: float | None = None
    stopped_early: bool = False
    curve: list[list[float]] = field(default_factory=list)  # [step, smoothed loss, minutes, dev loss or -1]

    def to_json(self) -> StageJSON:
        return {"steps": self.steps, "tokens": self.tokens, "seconds": round(self.seconds, 1),
                "tokens_per_s": round(self.tokens / max(self.seconds, 1e-9), 1),
                "train_loss": None if math.isnan(self.loss) else round(self.loss, 4),
                "dev_loss": None if self.dev_loss is None else round(self.dev_loss, 4),
                "stopped_early": self.stopped_early, "curve": self.curve}

    @classmethod
    def from_json(cls, name: str, raw: StageJSON) -> StageResult:
        loss = raw.get("train_loss")
        return cls(name, int(raw["steps"]), int(raw["tokens"]), float(raw["seconds"]),
                   float("nan") if loss is None else float(loss), raw.get("dev_loss"),
                   bool(raw.get("stopped_early")), [list(p) for p in raw.get("curve") or []])


def moved(model: PreTrainedModel, where: str | torch.dtype) -> PreTrainedModel:
    """``model.to(where)``, called through the class: transformers wraps ``to`` with ``functools.wraps``,
    whose type mypy cannot bind to an instance."""
    moved_model: PreTrainedModel = type(model).to(model, where)
    return moved_model


def batches(lengths: list[int], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Index batches of similar lengths (shuffled pools of 50 batches sorted by length), in random order."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    pool = batch_size * 50
    out: list[list[int]] = []
    for k in range(0, len(order), pool):
        chunk = sorted(order[k:k + pool], key=lambda i: lengths[i])
        out += [chunk[j:j + batch_size] for j in range(0, len(chunk), batch_size)]
    rng.shuffle(out)
    return out


def tensors(seqs: list[list[int]], pad: int, device: str) -> tuple[Tensor, Tensor, Tensor]:
    """Right-padded ids, attention mask and labels (padding ignored). The width is rounded up to a multiple of
    64: a few distinct shapes keep the CPU allocator's and oneDNN's caches bounded (with every width
    different, a run's memory grew by gigabytes)."""
    import torch

    width = -(-max(len(s) for s in seqs) // 64) * 64
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return ids.to(device), mask.to(device), labels.to(device)


def evaluate(model: PreTrainedModel, seqs: list[list[int]], pad: int, device: str,
             batch_size: int = 16) -> float | None:
    """Mean token loss of ``seqs`` (None when there are none)."""
    import torch

    if not seqs:
        return None
    model.eval()
    total, count = 0.0, 0
    with torch.inference_mode():
        for k in range(0, len(seqs), batch_size):
            ids, mask, labels = tensors(seqs[k:k + batch_size], pad, device)
            n = int((labels[:, 1:] != -100).sum())
            total += float(model(input_ids=ids, attention_mask=mask, labels=labels).loss) * n
            count += n
    model.train()
    return total / max(count, 1)


class Checkpoints:
    """Save and load the resumable state of a run in ``OUT/.parley-train``."""

    def __init__(self, out: str | Path, config: dict[str, object]) -> None:
        self.dir = Path(out) / CHECKPOINT_DIR
        self.config = config

    def saved_config(self) -> dict[str, object] | None:
        try:
            return dict(json.loads((self.dir / "config.json").read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "config.json").write_text(json.dumps(self.config, indent=1), encoding="utf-8")

    def save(self, state: TrainState) -> None:
        import torch

        tmp = self.dir / "state.pt.tmp"
        torch.save(state, tmp)
        tmp.replace(self.dir / "state.pt")  # an interrupted save leaves the previous checkpoint whole

    def load(self) -> TrainState | None:
        import torch

        p = self.dir / "state.pt"
        if not p.is_file():
            return None
        state: TrainState = torch.load(p, map_location="cpu", weights_only=True)  # what save() wrote
        return state

    def remove(self) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)


def run_stage(model: PreTrainedModel, stage: Stage, cfg: TrainConfig, device: str, pad: int,
              ckpt: Checkpoints, done: dict[str, StageResult], progress: StageProgress = None,
              say: Callable[[str], None] = lambda _m: None, resume: TrainState | None = None,
              budget_s: float | None = None) -> StageResult:
    """Train ``model`` on ``stage`` (AdamW, warm-up then cosine decay to a tenth), checkpointing as it goes;
    ``resume`` is the saved state of this stage when continuing. ``done`` holds the finished stages (saved
    with each checkpoint). Stops early when ``budget_s`` seconds of training (all stages) are used up."""
    import torch

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": rest, "weight_decay": 0.0}], lr=stage.lr, betas=(0.9, 0.95))
    total = stage.steps

    def lr_at(step: int) -> float:
        if step < stage.warmup:
            return (step + 1) / stage.warmup
        frac = (step - stage.warmup) / max(1, total - stage.warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    res = StageResult(stage.name)
    ema = float("nan")
    if resume is not None:
        opt.load_state_dict(resume["opt"])
        sched.load_state_dict(resume["sched"])
        torch.set_rng_state(resume["rng"])
        res = StageResult.from_json(stage.name, json.loads(resume["result"]))
        ema = res.loss
        say(f"{stage.name}: resuming at step {res.steps} of {total}")
    lengths = [len(s) for s in stage.seqs]
    per_epoch = max(1, math.ceil(len(stage.seqs) / cfg.batch_size))
    spent_before = sum(r.seconds for r in done.values())
    t0 = time.perf_counter() - res.seconds

    def checkpoint() -> None:
        res.loss = ema
        ckpt.save({"stage": stage.name, "model": model.state_dict(), "opt": opt.state_dict(),
                   "sched": sched.state_dict(), "rng": torch.get_rng_state(),
                   "result": json.dumps(res.to_json()),
                   "done": json.dumps({k: v.to_json() for k, v in done.items()})})

    seed = cfg.seed * 1000 + (0 if stage.name == "finetune" else 500)
    while res.steps < total and not res.stopped_early:
        epoch, skip = divmod(res.steps, per_epoch)
        for batch in batches(lengths, cfg.batch_size, random.Random(seed + epoch))[skip:]:
            ids, mask, labels = tensors([stage.seqs[i] for i in batch], pad, device)
            with torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=cfg.bf16):
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            res.steps += 1
            res.tokens += int(mask.sum())
            value = float(loss.detach())
            ema = value if math.isnan(ema) else 0.98 * ema + 0.02 * value
            res.seconds = time.perf_counter() - t0
            if progress is not None:
                progress(stage.name, res.steps, total, ema, res.tokens / max(res.seconds, 1e-9))
            if res.steps % CURVE_EVERY == 0 or res.steps == total:
                res.curve.append([res.steps, round(ema, 4), round(res.seconds / 60, 2), -1.0])
            if budget_s is not None and spent_before + res.seconds > budget_s:
                res.stopped_early = True
            if cfg.checkpoint_every and res.steps % cfg.checkpoint_every == 0 and res.steps < total:
                checkpoint()
            if res.steps >= total or res.stopped_early:
                break
    res.loss = ema
    res.dev_loss = evaluate(model, stage.dev, pad, device)
    if res.curve and res.dev_loss is not None:
        res.curve[-1][3] = round(res.dev_loss, 4)
    say(f"{stage.name}: {res.steps} steps, {res.tokens:,} tokens in {res.seconds / 60:.1f} min, loss "
        f"{res.loss:.3f}" + (f", dev loss {res.dev_loss:.3f}" if res.dev_loss is not None else ""))
    done[stage.name] = res
    checkpoint()
    return res
