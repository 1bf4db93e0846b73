"""Sizing a checkpoint before anything of it is allocated.

A model folder's ``config.json`` says how big the model is; its weight files say what was trained. Both are
read without loading a tensor — the config instantiated on PyTorch's ``meta`` device (shapes, no memory), the
safetensors headers read as the JSON they are — and compared before ``from_pretrained`` allocates anything:

- a config asking for more layers than any real model has is refused before it is even instantiated;
- a config describing far more (or far fewer) parameters than the weight files hold is refused: transformers
  would fill the difference with random weights (a ``config.json`` asking for ``n_embd=16384`` beside a
  56-byte weights file had it allocate 21 GB until the kernel killed it);
- a model whose float32 weights do not fit in the memory available (``MemAvailable``, the address-space limit
  and the cgroup's limit, whichever is least) is refused.

Each refusal is one :class:`~engine.types.LoadError` line naming both numbers.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from parley.engine.types import LoadError
from parley.limits import size

if TYPE_CHECKING:
    from transformers import PretrainedConfig, PreTrainedModel


class AutoClass(Protocol):
    """A transformers auto class (``AutoModelForCausalLM``, ``AutoModelForSeq2SeqLM``, ...): what
    :func:`check_size` and ``engine.loading.load_pretrained`` call."""

    def from_config(self, config: PretrainedConfig, **kwargs: object) -> PreTrainedModel: ...

    def from_pretrained(self, pretrained_model_name_or_path: str, *args: object, **kwargs: object) -> object:
        """The model; with ``output_loading_info=True``, ``(model, loading report)``."""
        ...

#: a safetensors header is JSON of at most this many bytes (the format's own limit)
MAX_HEADER = 100_000_000
#: more layers than any released checkpoint has; instantiating more on ``meta`` could itself take minutes
MAX_LAYERS = 1024
#: the weight files may hold this much less or more than the config describes (tied embeddings stored
#: twice, buffers, a head the task adds) before the two are said not to match
LOW, HIGH = 0.5, 2.0
_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "num_decoder_layers", "encoder_layers",
               "decoder_layers", "n_layers")


@dataclass(frozen=True)
class Sizing:
    """What a checkpoint folder holds: parameters its config describes, values its weight files store."""

    parameters: int
    stored: int | None
    files: tuple[str, ...]


def safetensors_values(path: Path) -> int:
    """How many values the tensors of a safetensors file hold, read from its header (never the tensors);
    a header that is not the format's or tensors that reach past the end of the file raise LoadError."""
    from parley import jsonfile

    try:
        with path.open("rb") as fh:
            head = fh.read(8)
            n = int.from_bytes(head, "little") if len(head) == 8 else -1
            if not 0 < n <= MAX_HEADER:
                raise LoadError(f"{path}: not a safetensors file (no valid header)")
            raw = fh.read(n)
    except OSError as e:
        raise LoadError(f"cannot read {path}: {e.strerror or e}") from None
    header = jsonfile.loads(raw, str(path), LoadError)
    if not isinstance(header, dict):
        raise LoadError(f"{path}: not a safetensors file (the header is not an object)")
    total, end = 0, 0
    for name, t in header.items():
        if name == "__metadata__":
            continue
        shape = t.get("shape") if isinstance(t, dict) else None
        offsets = t.get("data_offsets") if isinstance(t, dict) else None
        if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)
                and isinstance(offsets, list) and len(offsets) == 2
                and all(isinstance(o, int) and o >= 0 for o in offsets)):
            raise LoadError(f"{path}: tensor {name!r} has no valid shape and offsets")
        total += math.prod(shape)
        end = max(end, offsets[1])
    have = path.stat().st_size - 8 - n
    if end > have:
        raise LoadError(f"{path}: truncated: its header describes {size(end)} of tensors, the file holds "
                        f"{size(max(have, 0))}")
    return total


def stored_values(folder: Path) -> tuple[int | None, tuple[str, ...]]:
    """Values in the folder's safetensors files (None when it has none: pickles cannot be counted unread)."""
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        return None, ()
    return sum(safetensors_values(f) for f in files), tuple(f.name for f in files)


def config_parameters(config: PretrainedConfig, model_class: AutoClass, trust_remote_code: bool = False,
                      what: str = "the model") -> int:
    """The parameters ``config`` describes for ``model_class``, counted on the ``meta`` device (no memory)."""
    import torch

    raw = config.to_dict() if hasattr(config, "to_dict") else {}
    for key in _LAYER_KEYS:
        value = raw.get(key)
        if isinstance(value, int) and value > MAX_LAYERS:
            raise LoadError(f"{what}: config.json asks for {value:,} layers ({key}); more than "
                            f"{MAX_LAYERS:,} is not a real checkpoint")
    kwargs = {"trust_remote_code": True} if trust_remote_code else {}
    with torch.device("meta"):
        model = model_class.from_config(config, **kwargs)
    return sum(p.numel() for p in model.parameters())


def available_memory() -> int | None:
    """Bytes this process may still allocate: the least of the kernel's ``MemAvailable``, the address-space
    limit (``ulimit -v``) less what is mapped already, and the cgroup's memory limit less its usage."""
    import resource

    found: list[int] = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        mapped = 0
        try:
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("VmSize:"):
                    mapped = int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            pass
        found.append(max(0, soft - mapped))
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit.isdigit() and used.isdigit():
            found.append(max(0, int(limit) - int(used)))
    except OSError:
        pass
    return min(found) if found else None


def check_size(what: str, folder: Path | None, config: PretrainedConfig, model_class: AutoClass, *,
               trust_remote_code: bool = False, bytes_per_value: int = 4, extra: int = 0,
               use: str = "in float32") -> Sizing:
    """Refuse (LoadError, one line naming both numbers) a checkpoint whose config and weights disagree, or
    whose ``bytes_per_value`` bytes a parameter (float32: 4) and ``extra`` bytes do not fit in the memory
    available (``use`` says what for)."""
    params = config_parameters(config, model_class, trust_remote_code, what)
    stored, files = stored_values(folder) if folder is not None else (None, ())
    if stored is not None and not LOW * params <= stored <= HIGH * params + 1024:
        raise LoadError(f"{what}: config.json describes {params:,} parameters but the weight files "
                        f"({', '.join(files)}) hold {stored:,} values; the checkpoint does not match its "
                        "config, so it is not loaded")
    need, free = params * bytes_per_value + extra, available_memory()
    if free is not None and need > free:
        raise LoadError(f"{what}: {params:,} parameters need {size(need)} of memory {use}, but "
                        f"{size(free)} is available")
    return Sizing(params, stored, files)


def env_verbose() -> bool:
    """``parley --verbose`` (``PARLEY_VERBOSE=1``): show transformers' own load reports in full."""
    return os.environ.get("PARLEY_VERBOSE", "").lower() in {"1", "true", "yes", "on"}
