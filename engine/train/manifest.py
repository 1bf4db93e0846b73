"""Writing a trained checkpoint folder and its ``manifest.json``, and checking a folder against its manifest.

The manifest records what the model was trained on (data file name and SHA-256, dialogue and sequence counts),
the recipe (every :class:`~engine.train.loop.TrainConfig` field, the seed), what it cost (steps, epochs,
tokens, seconds, tokens/s, device, load average) and the SHA-256 and size of every file in the folder, so a
shipped model can be verified (:func:`verify`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import platform
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from parley.engine.systems.hf_common import Format
    from parley.engine.train.loop import TrainConfig, TrainResult

MANIFEST = "manifest.json"
FORMAT_FILE = "parley-format.toml"
#: the progress log a run may keep beside its model (not part of the model)
TRAINING_LOG = "train.log"


def format_toml(fmt_ref: str, max_turns: int) -> str:
    """The format file ``fmt_ref`` (bundled name or path) with ``[context] max_turns`` set; its header kept.
    """
    import tomli_w

    from parley.engine.systems.hf_common import FORMATS_DIR

    p = Path(fmt_ref).expanduser()
    if not p.is_file():
        p = FORMATS_DIR / f"{fmt_ref}.toml"
    text = p.read_text(encoding="utf-8")
    raw = tomllib.loads(text)
    raw.setdefault("context", {})["max_turns"] = max_turns
    header = list(itertools.takewhile(lambda line: line.startswith("#"), text.splitlines()))
    header.append(f"# written by parley train: the context keeps the last {max_turns} earlier turns")
    return "\n".join(header) + "\n\n" + tomli_w.dumps(raw)


def file_table(folder: Path) -> dict[str, dict[str, int | str]]:
    from parley.engine.smollm import sha256_file

    return {p.name: {"size": p.stat().st_size, "sha256": sha256_file(p)}
            for p in sorted(folder.iterdir()) if p.is_file() and p.name not in (MANIFEST, TRAINING_LOG)}


def write_checkpoint(model: PreTrainedModel, tok: PreTrainedTokenizerBase, fmt: Format, cfg: TrainConfig,
                     result: TrainResult) -> Path:
    """Save model (safetensors), tokenizer, format file and manifest into ``cfg.out`` (created if needed)."""
    import torch
    import transformers

    from parley import __version__
    from parley.engine.smollm import sha256_file

    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    if cfg.half:
        from parley.engine.train.stages import moved

        model = moved(model, torch.float16)
    model.save_pretrained(str(out), safe_serialization=True)
    tok.save_pretrained(str(out))
    (out / FORMAT_FILE).write_text(format_toml(cfg.format, fmt.max_turns), encoding="utf-8")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    manifest = {
        "format": fmt.name,
        "data": {"file": Path(cfg.data_files[0]).name, "sha256": sha256_file(Path(cfg.data_files[0])),
                 "sequences": result.examples, **(result.sources or {})},
        "seed": cfg.seed,
        "steps": result.steps,
        "epochs": round(result.epochs, 3),
        "figures": {"train_seconds": round(result.seconds, 1), "tokens": result.tokens,
                    "tokens_per_s": round(result.tokens_per_s, 1), "train_loss": round(result.train_loss, 4),
                    "dev_loss": None if result.dev_loss is None else round(result.dev_loss, 4),
                    "parameters": result.parameters, "stopped_early": result.stopped_early},
        "stages": result.stages or {},
        "base": _base(cfg.base),
        "config": dataclasses.asdict(cfg) | {"data": [Path(p).name for p in cfg.data_files],
                                              "pretrain": [Path(p).name for p in cfg.pretrain],
                                              "exclude": [Path(p).name for p in cfg.exclude],
                                              "out": Path(cfg.out).name},
        "machine": {"device": result.device, "cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_avg": [round(x, 2) for x in load] if load else None},
        "versions": {"parley": __version__, "torch": torch.__version__,
                     "transformers": transformers.__version__},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "files": file_table(out),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return out


def _base(ref: str | None) -> dict[str, object] | None:
    """The model training started from: its reference and, for a folder, the SHA-256 of its weights."""
    from parley.engine.smollm import sha256_file

    if not ref:
        return None
    weights = sorted(Path(ref).expanduser().glob("*.safetensors")) if Path(ref).expanduser().is_dir() else []
    return {"ref": ref, "weights_sha256": {p.name: sha256_file(p) for p in weights}}


def verify(folder: str | Path) -> list[str]:
    """Problems with ``folder`` against its manifest (missing, extra or changed files); empty when it matches.
    """
    folder = Path(folder)
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        return [f"{folder / MANIFEST}: {e}"]
    want = manifest.get("files") or {}
    have = file_table(folder)
    problems = [f"missing {n}" for n in sorted(set(want) - set(have))]
    problems += [f"not in the manifest: {n}" for n in sorted(set(have) - set(want))]
    problems += [f"changed: {n}" for n in sorted(set(want) & set(have)) if want[n] != have[n]]
    return problems
