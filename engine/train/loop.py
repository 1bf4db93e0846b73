"""Training a causal LM on format-file sequences: a small GPT-2 from scratch, or any causal base model.

The recipe is deterministic for a seed on a given device: the data order, the tokenizer, the initial weights
and every update depend only on the seed, the data file and the options. The model is written as a Hugging
Face folder (safetensors, tokenizer, ``parley-format.toml``) that ``hf-causal:model=DIR`` loads, with a
``manifest.json`` (:mod:`engine.train.manifest`).
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley.engine.train.data import DataError, Example, dialogue_examples, iter_dialogues

#: progress(step, total_steps, loss, tokens_per_s)
StepProgress = Callable[[int, int, float, float], None] | None


@dataclass(frozen=True)
class TrainConfig:
    """Everything a run depends on (recorded in the manifest)."""

    data: str
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


def _examples(cfg: TrainConfig, fmt: Any, db: Any) -> tuple[list[Example], list[Example], int, int]:
    """``(train sequences, dev sequences, train dialogues, dev dialogues)``: the data file is read one
    dialogue at a time and only its sequences are kept; ``dev_dialogues`` of the first ``limit`` are held
    out by seed."""
    per: dict[str, list[Example]] = {}
    for n, (did, dialogue) in enumerate(iter_dialogues(cfg.data)):
        if cfg.limit and n >= cfg.limit:
            break
        per[did] = list(dialogue_examples(did, dialogue, fmt, db))
    ids = list(per)
    n_dev = min(cfg.dev_dialogues, max(0, len(ids) - 1))
    dev_ids = set(random.Random(cfg.seed).sample(ids, n_dev)) if n_dev else set()
    train = [e for i in ids if i not in dev_ids for e in per[i]]
    dev = [e for i in ids if i in dev_ids for e in per[i]]
    return train, dev, len(ids) - len(dev_ids), len(dev_ids)


def check_scratch_size(cfg: TrainConfig, fmt: Any) -> None:
    """Refuse (LoadError, one line) a GPT-2 from scratch whose training would not fit in memory: 16 bytes a
    parameter (weights, gradients, AdamW's two moments) and the logits of a batch, counted on ``meta``."""
    from transformers import AutoModelForCausalLM, GPT2Config

    from parley.engine.sizing import check_size

    conf = GPT2Config(vocab_size=cfg.vocab + len(fmt.special_tokens) + 1, n_positions=cfg.block,
                      n_embd=cfg.dim, n_layer=cfg.layers, n_head=cfg.heads)
    logits = 12 * cfg.batch_size * cfg.block * conf.vocab_size  # logits, their softmax and gradient
    check_size("the model to train", None, conf, AutoModelForCausalLM, bytes_per_value=16, extra=logits,
               use="to train (weights, gradients, optimizer state, a batch's logits)")


def _tokenizer_and_model(cfg: TrainConfig, fmt: Any, texts: list[str]) -> tuple[Any, Any]:
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
        model.to(torch.float32)
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


def _encode(tok: Any, examples: list[Example], block: int) -> list[list[int]]:
    if not examples:
        return []
    ids = tok([f"{e.text} {tok.eos_token}" for e in examples], add_special_tokens=False)["input_ids"]
    return [list(x[-block:]) for x in ids]


def _batches(lengths: list[int], batch_size: int, rng: random.Random) -> list[list[int]]:
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


def _tensors(seqs: list[list[int]], pad: int, device: str) -> tuple[Any, Any, Any]:
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


def evaluate(model: Any, seqs: list[list[int]], pad: int, device: str, batch_size: int = 16) -> float | None:
    """Mean token loss of ``seqs`` (None when there are none)."""
    import torch

    if not seqs:
        return None
    model.eval()
    total, count = 0.0, 0
    with torch.inference_mode():
        for k in range(0, len(seqs), batch_size):
            ids, mask, labels = _tensors(seqs[k:k + batch_size], pad, device)
            n = int((labels[:, 1:] != -100).sum())
            total += float(model(input_ids=ids, attention_mask=mask, labels=labels).loss) * n
            count += n
    model.train()
    return total / max(count, 1)


def train(cfg: TrainConfig, progress: StepProgress = None, log: Callable[[str], None] | None = None
          ) -> TrainResult:
    """Train as ``cfg`` says and write the model folder and its manifest to ``cfg.out``."""
    import torch

    from parley.engine.mwdb import load_db
    from parley.engine.systems.hf_common import load_format
    from parley.engine.train.manifest import write_checkpoint

    say = log or (lambda _m: None)
    fmt = dataclasses.replace(load_format(cfg.format, kind="causal"), max_turns=cfg.context_turns)
    if not cfg.base:  # before the data is read: a model that cannot fit is refused at once
        check_scratch_size(cfg, fmt)
    examples, dev_examples, n_train, n_dev = _examples(cfg, fmt, load_db())
    if not n_train:
        raise DataError(f"{cfg.data}: no dialogues to train on")
    say(f"{n_train} dialogues → {len(examples)} sequences ({n_dev} dev dialogues)")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    device = pick_device(cfg.device)
    tok, model = _tokenizer_and_model(cfg, fmt, [e.text for e in examples])
    block = min(cfg.block, int(getattr(model.config, "n_positions", 0) or getattr(
        model.config, "max_position_embeddings", cfg.block)))
    seqs, dev_seqs = _encode(tok, examples, block), _encode(tok, dev_examples, block)
    model.to(device)
    model.train()
    per_epoch = math.ceil(len(seqs) / cfg.batch_size)
    total = cfg.steps or max(1, round(cfg.epochs * per_epoch))
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest,
                            "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.95))

    def lr_at(step: int) -> float:
        if step < cfg.warmup:
            return (step + 1) / cfg.warmup
        frac = (step - cfg.warmup) / max(1, total - cfg.warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    lengths = [len(s) for s in seqs]
    pad = int(tok.pad_token_id)
    step, tokens, t0, ema = 0, 0, time.perf_counter(), float("nan")
    stopped = False
    epoch = 0
    while step < total and not stopped:
        for batch in _batches(lengths, cfg.batch_size, random.Random(cfg.seed * 1000 + epoch)):
            ids, mask, labels = _tensors([seqs[i] for i in batch], pad, device)
            with torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=cfg.bf16):
                loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            tokens += int(mask.sum())
            value = float(loss.detach())
            ema = value if math.isnan(ema) else 0.98 * ema + 0.02 * value
            elapsed = time.perf_counter() - t0
            if progress is not None:
                progress(step, total, ema, tokens / max(elapsed, 1e-9))
            if cfg.max_minutes is not None and elapsed > cfg.max_minutes * 60:
                stopped = True
            if step >= total or stopped:
                break
        epoch += 1
    seconds = time.perf_counter() - t0
    dev_loss = evaluate(model, dev_seqs, pad, device)
    model.to("cpu")
    n_params = sum(p.numel() for p in model.parameters())
    result = TrainResult(Path(cfg.out), step, step / per_epoch, len(seqs), tokens, seconds,
                         tokens / max(seconds, 1e-9), ema, dev_loss, n_params, device, stopped)
    write_checkpoint(model, tok, fmt, cfg, result)
    say(f"wrote {cfg.out}")
    return result
