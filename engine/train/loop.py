"""Training a causal LM on format-file sequences: a small GPT-2 from scratch, or any causal base model.

The recipe is deterministic for a seed on a given device: the data order, the tokenizer, the initial weights
and every update depend only on the seed, the data file and the options. The model is written as a Hugging
Face folder (safetensors, tokenizer, ``parley-format.toml``) that ``hf-causal:model=DIR`` loads, with a
``manifest.json`` (:mod:`engine.train.manifest`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from parley.engine.systems.hf_common import Format
    from parley.engine.train.data import TrainDialogue
    from parley.engine.train.sources import TrainingData
    from parley.engine.train.stages import StageJSON

from parley.engine.train.data import DataError, build_examples

#: progress(step, total_steps, loss, tokens_per_s)
StepProgress = Callable[[int, int, float, float], None] | None


@dataclass(frozen=True)
class TrainConfig:
    """Everything a run depends on (recorded in the manifest)."""

    data: str | tuple[str, ...]  # MultiWOZ-layout or IC-DST files (engine.train.sources), fine-tuned on
    out: str
    format: str = "simpletod-db"
    base: str | None = None  # None: a GPT-2 built from the options below; else a causal LM folder / hub id
    layers: int = 4
    dim: int = 256
    heads: int = 4
    vocab: int = 4000
    block: int = 512
    context_turns: int = 3
    epochs: float = 3.0
    steps: int | None = None  # overrides epochs
    batch_size: int = 16
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.01
    dropout: float = 0.1
    seed: int = 0
    device: str = "auto"
    dev_dialogues: int = 0
    limit: int | None = None
    max_minutes: float | None = None
    threads: int | None = None
    half: bool = True  # store weights as float16 (loaded back as float32)
    bf16: bool = False  # bfloat16 autocast (fast on CPUs with AMX / AVX512-BF16 and recent GPUs)
    pretrain: tuple[str, ...] = ()  # dialogue text files learnt first (engine.train.sources)
    pretrain_epochs: float = 1.0
    pretrain_steps: int | None = None  # overrides pretrain_epochs
    pretrain_lr: float | None = None  # default: lr
    exclude: tuple[str, ...] = ()  # held-out splits: overlapping training dialogues are dropped
    checkpoint_every: int = 100  # steps between checkpoints (0: only at the end of each stage)

    @property
    def data_files(self) -> tuple[str, ...]:
        return (self.data,) if isinstance(self.data, str) else tuple(self.data)


@dataclass(frozen=True)
class TrainResult:
    out: Path
    steps: int
    epochs: float
    examples: int
    tokens: int
    seconds: float
    tokens_per_s: float
    train_loss: float
    dev_loss: float | None
    parameters: int
    device: str
    stopped_early: bool
    stages: dict[str, StageJSON] = dataclasses.field(default_factory=dict)
    sources: dict[str, object] = dataclasses.field(default_factory=dict)


def pick_device(choice: str = "auto") -> str:
    """``cuda`` when available, then Apple ``mps``, else ``cpu`` (``choice`` other than auto is used as is).
    """
    import torch

    if choice != "auto":
        return choice
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else "cpu"


def _split(dialogues: dict[str, TrainDialogue], cfg: TrainConfig
           ) -> tuple[dict[str, TrainDialogue], dict[str, TrainDialogue]]:
    ids = list(dialogues)[: cfg.limit] if cfg.limit else list(dialogues)
    n_dev = min(cfg.dev_dialogues, max(0, len(ids) - 1))
    dev_ids = set(random.Random(cfg.seed).sample(ids, n_dev)) if n_dev else set()
    kept = {i: dialogues[i] for i in ids if i not in dev_ids}
    return kept, {i: dialogues[i] for i in ids if i in dev_ids}


def check_scratch_size(cfg: TrainConfig, fmt: Format) -> None:
    """Refuse (LoadError, one line) a GPT-2 from scratch whose training would not fit in memory: 16 bytes a
    parameter (weights, gradients, AdamW's two moments) and the logits of a batch, counted on ``meta``."""
    from transformers import AutoModelForCausalLM, GPT2Config

    from parley.engine.sizing import check_size

    conf = GPT2Config(vocab_size=cfg.vocab + len(fmt.special_tokens) + 1, n_positions=cfg.block,
                      n_embd=cfg.dim, n_layer=cfg.layers, n_head=cfg.heads)
    logits = 12 * cfg.batch_size * cfg.block * conf.vocab_size  # logits, their softmax and gradient
    check_size("the model to train", None, conf, AutoModelForCausalLM, bytes_per_value=16, extra=logits,
               use="to train (weights, gradients, optimizer state, a batch's logits)")


def _tokenizer_and_model(cfg: TrainConfig, fmt: Format, texts: list[str]
                         ) -> tuple[PreTrainedTokenizerBase, PreTrainedModel]:
    import torch

    if cfg.base:
        import copy

        from parley.engine.smollm import load_causal_lm

        shared_model, shared_tok = load_causal_lm(cfg.base)  # cached per process: train a copy
        model, tok = copy.deepcopy(shared_model), copy.deepcopy(shared_tok)
        added = [t for t in fmt.special_tokens if t not in tok.get_vocab()]
        tok.add_tokens(added, special_tokens=True)
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        torch.manual_seed(cfg.seed)
        model.resize_token_embeddings(len(tok))
        model.float()
        return tok, model
    from transformers import GPT2Config, GPT2LMHeadModel

    from parley.engine.train.tokenizer import train_tokenizer

    tok = train_tokenizer(texts, fmt.special_tokens, cfg.vocab)
    torch.manual_seed(cfg.seed)
    eos = tok.eos_token_id
    conf = GPT2Config(vocab_size=len(tok), n_positions=cfg.block, n_embd=cfg.dim, n_layer=cfg.layers,
                      n_head=cfg.heads, resid_pdrop=cfg.dropout, embd_pdrop=cfg.dropout,
                      attn_pdrop=cfg.dropout, bos_token_id=eos, eos_token_id=eos,
                      pad_token_id=tok.pad_token_id)
    return tok, GPT2LMHeadModel(conf)


def _encode(tok: PreTrainedTokenizerBase, texts: list[str], block: int, split: bool = False
            ) -> list[list[int]]:
    """Token ids of ``texts`` (each ending with the end-of-text token); longer than ``block``: the last
    ``block`` tokens, or with ``split`` consecutive pieces of ``block`` tokens."""
    if not texts:
        return []
    ids = tok([f"{t} {tok.eos_token}" for t in texts], add_special_tokens=False)["input_ids"]
    if not split:
        return [list(x[-block:]) for x in ids]
    return [list(x[k:k + block]) for x in ids for k in range(0, len(x), block) if len(x[k:k + block]) > 1]


def _stage_steps(steps: int | None, epochs: float, n_seqs: int, batch_size: int) -> int:
    return steps or max(1, round(epochs * math.ceil(n_seqs / batch_size)))


def train(cfg: TrainConfig, progress: StepProgress = None, log: Callable[[str], None] | None = None,
          resume: bool = False) -> TrainResult:
    """Train as ``cfg`` says and write the model folder and its manifest to ``cfg.out``.

    With ``pretrain`` files the model first learns their dialogue text (``pretrain_steps``), then the format
    sequences of ``data``. ``resume`` continues the interrupted run whose checkpoint is in ``cfg.out`` (same
    configuration, apart from the run's budget, threads and device)."""
    import torch

    from parley.engine.mwdb import load_db
    from parley.engine.systems.hf_common import load_format
    from parley.engine.train.delex import text_sequence
    from parley.engine.train.manifest import write_checkpoint
    from parley.engine.train.overlap import HeldOut
    from parley.engine.train.sources import load
    from parley.engine.train.stages import Checkpoints, Stage, StageResult, moved, run_stage

    say = log or (lambda _m: None)
    fmt = dataclasses.replace(load_format(cfg.format, kind="causal"), max_turns=cfg.context_turns)
    if not cfg.base:  # before the data is read: a model that cannot fit is refused at once
        check_scratch_size(cfg, fmt)
    held = [HeldOut.from_file(p) for p in cfg.exclude]
    data = load([*cfg.data_files, *cfg.pretrain], held)
    annotated = {k: v for k, v in data.dialogues.items()}
    train_d, dev_d = _split(annotated, cfg)
    if not train_d:
        raise DataError(f"{', '.join(cfg.data_files)}: no dialogues to train on")
    db = load_db()
    examples, dev_examples = build_examples(train_d, fmt, db), build_examples(dev_d, fmt, db)
    texts = [text_sequence(u, fmt, db) for u in data.texts.values()]
    dropped = len(data.dropped)
    say(f"{len(train_d)} dialogues → {len(examples)} sequences ({len(dev_d)} dev dialogues)"
        + (f"; {len(texts)} dialogue texts to pre-train on" if texts else "")
        + (f"; {dropped} dialogues dropped for overlapping {', '.join(h.name for h in held)}"
           if held else ""))
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    device = pick_device(cfg.device)
    ckpt = Checkpoints(cfg.out, _identity(cfg))
    saved = ckpt.load() if resume else None
    if resume and saved is None:
        raise DataError(f"{cfg.out}: no interrupted run to resume there")
    if saved is not None and ckpt.saved_config() != ckpt.config:
        raise DataError(f"{cfg.out}: the interrupted run there was started with other options or data; "
                        "run it with the same ones, or train into a new folder")
    tok, model = _tokenizer_and_model(cfg, fmt, [e.text for e in examples] + texts)
    if saved is not None:
        model.load_state_dict(saved["model"])
    else:
        ckpt.start()
    block = min(cfg.block, int(getattr(model.config, "n_positions", 0) or getattr(
        model.config, "max_position_embeddings", cfg.block)))
    seqs = _encode(tok, [e.text for e in examples], block)
    dev_seqs = _encode(tok, [e.text for e in dev_examples], block)
    text_seqs = _encode(tok, texts, block, split=True)
    moved(model, device)
    model.train()
    steps = _stage_steps(cfg.steps, cfg.epochs, len(seqs), cfg.batch_size)
    stages = [Stage("finetune", seqs, steps, cfg.lr, min(cfg.warmup, max(1, steps // 5)), dev_seqs)]
    if text_seqs:
        steps = _stage_steps(cfg.pretrain_steps, cfg.pretrain_epochs, len(text_seqs), cfg.batch_size)
        stages.insert(0, Stage("pretrain", text_seqs, steps, cfg.pretrain_lr or cfg.lr,
                               min(cfg.warmup, max(1, steps // 5))))
    done: dict[str, StageResult] = {}
    if saved is not None:
        done = {k: StageResult.from_json(k, v) for k, v in json.loads(saved["done"]).items()}
    pad = int(tok.pad_token_id)

    def stage_progress(stage: str, step: int, total: int, loss: float, tps: float) -> None:
        if stage == "finetune" and progress is not None:
            progress(step, total, loss, tps)
        elif stage != "finetune" and (step == 1 or step % 25 == 0 or step == total):
            say(f"{stage} step {step}/{total}  loss {loss:.3f}  {tps:,.0f} tokens/s")

    budget = cfg.max_minutes * 60 if cfg.max_minutes is not None else None
    for stage in stages:
        if stage.name in done:
            continue
        again = saved if saved is not None and saved["stage"] == stage.name else None
        result = run_stage(model, stage, cfg, device, pad, ckpt, done, stage_progress, say, again, budget)
        if result.stopped_early:
            break
    moved(model, "cpu")
    last = done.get("finetune") or StageResult("finetune")
    seconds = sum(r.seconds for r in done.values())
    tokens = sum(r.tokens for r in done.values())
    per_epoch = math.ceil(len(seqs) / cfg.batch_size)
    n_params = sum(p.numel() for p in model.parameters())
    result_ = TrainResult(Path(cfg.out), last.steps, last.steps / per_epoch, len(seqs), tokens, seconds,
                          tokens / max(seconds, 1e-9), last.loss, last.dev_loss, n_params, device,
                          any(r.stopped_early for r in done.values()) or "finetune" not in done,
                          {k: v.to_json() for k, v in done.items()}, sources_json(data, len(text_seqs)))
    write_checkpoint(model, tok, fmt, cfg, result_)
    ckpt.remove()
    say(f"wrote {cfg.out}")
    return result_


def sources_json(data: TrainingData, text_seqs: int) -> dict[str, object]:
    from parley.engine.train.sources import summary

    return {"files": summary(data), "dialogues": len(data.dialogues), "texts": len(data.texts),
            "text_sequences": text_seqs,
            "dropped": [{"file": d.source, "dialogue": d.dialogue, "reason": d.reason} for d in data.dropped]}


def _identity(cfg: TrainConfig) -> dict[str, object]:
    """What a resumed run must share with the interrupted one: every option but budget, threads, device."""
    raw = dataclasses.asdict(cfg)
    for key in ("max_minutes", "threads", "device", "out", "checkpoint_every"):
        raw.pop(key, None)
    return json.loads(json.dumps(raw))
