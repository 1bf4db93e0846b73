"""Safe loading of user-supplied checkpoints (local folders, ``.gguf`` files or Hugging Face hub ids).

Rules every model loader in parley follows:

- **safetensors preferred.** A local folder with ``*.safetensors`` weights loads as is. A folder whose weights
  are only pickle files (``pytorch_model.bin``, ``*.pt``, ``*.ckpt``, ``*.pth``) is refused with a clear
  message unless the tester passes ``allow_pickle=true``; even then pickles are read with
  ``torch.load(weights_only=True)`` (transformers' behaviour, and :func:`safe_torch_load` for our own code).
  Hub ids load with ``use_safetensors=True`` unless pickles are allowed.
- **no remote code** unless ``trust_remote_code=True`` (``--trust-remote-code``).
- **offline hub failures are one clear message, fast.** When ``HF_HUB_OFFLINE`` is set, or the hub does not
  answer a TCP connect within about a second, hub ids are looked up in the local Hugging Face cache only
  (``local_files_only=True``); a miss raises :class:`~engine.types.LoadError` naming the id and what to do.

Heavy imports (torch, transformers, huggingface_hub) happen inside the functions.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator, Mapping, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from parley.engine.types import LoadError
from parley.progress import Progress

if TYPE_CHECKING:
    from transformers import GenerationMixin, PreTrainedModel, PreTrainedTokenizerBase

    from parley.engine.sizing import AutoClass

PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")
_TRUE = {"1", "true", "yes", "on"}

_probe_lock = threading.Lock()
_probe_cache: tuple[float, bool] | None = None
_PROBE_TTL_S = 60.0


def say(progress: Progress, message: str) -> None:
    """Report a short status string to an optional progress callback (never raises)."""
    if progress is not None:
        with contextlib.suppress(Exception):  # a broken progress callback must not break loading
            progress(message)


def _hub_host() -> tuple[str, int]:
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    from urllib.parse import urlparse

    u = urlparse(endpoint)
    return (u.hostname or "huggingface.co", u.port or (80 if u.scheme == "http" else 443))


def hub_reachable(timeout_s: float = 1.0) -> bool:
    """Whether the Hugging Face hub answers a TCP connect (cached for a minute; bounded even if DNS hangs)."""
    global _probe_cache
    with _probe_lock:
        if _probe_cache and time.monotonic() - _probe_cache[0] < _PROBE_TTL_S:
            return _probe_cache[1]
    result: list[bool] = [False]

    def probe() -> None:
        try:
            with socket.create_connection(_hub_host(), timeout=timeout_s):
                result[0] = True
        except OSError:
            result[0] = False

    t = threading.Thread(target=probe, daemon=True, name="parley-hub-probe")
    t.start()
    t.join(timeout_s + 0.3)
    ok = result[0] and not t.is_alive()
    with _probe_lock:
        _probe_cache = (time.monotonic(), ok)
    return ok


def hub_offline() -> bool:
    """True when hub ids must be resolved from the local cache only."""
    if os.environ.get("HF_HUB_OFFLINE", "").lower() in _TRUE or os.environ.get(
            "TRANSFORMERS_OFFLINE", "").lower() in _TRUE:
        return True
    return not hub_reachable()


def _short_hub_timeouts() -> None:
    """Short hub timeouts unless the user set their own (also patched in if huggingface_hub is imported)."""
    import sys

    for name, value in (("HF_HUB_ETAG_TIMEOUT", 3), ("HF_HUB_DOWNLOAD_TIMEOUT", 20)):
        if name in os.environ:
            continue
        os.environ[name] = str(value)
        constants = sys.modules.get("huggingface_hub.constants")
        if constants is not None and hasattr(constants, name):
            setattr(constants, name, value)


@dataclass(frozen=True)
class Source:
    """Where a checkpoint comes from, resolved: ``ref`` is what to hand ``from_pretrained``."""

    ref: str
    local: bool
    local_files_only: bool = False
    gguf_file: str | None = None
    folder: Path | None = None


def weight_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """``(safetensors files, pickle files)`` directly in ``folder``."""
    safe = sorted(folder.glob("*.safetensors"))
    pick = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in PICKLE_SUFFIXES
                  and not p.name.startswith("training_args"))
    return safe, pick


def check_weights(folder: Path, allow_pickle: bool = False, what: str | None = None) -> None:
    """Refuse a folder whose weights are pickle-only (unless allowed) or that has no weights at all."""
    what = what or str(folder)
    safe, pick = weight_files(folder)
    if safe or list(folder.glob("*.gguf")):
        return
    if pick:
        if allow_pickle:
            return
        names = ", ".join(p.name for p in pick[:3])
        raise LoadError(
            f"{what} has only pickle weights ({names}); pickle files can run code when loaded, so parley "
            "refuses them. Convert the checkpoint to safetensors, or pass allow_pickle=true if you trust it "
            "(it is then read with torch.load(weights_only=True)).")
    raise LoadError(f"{what} has no model weights (*.safetensors)")


def resolve(path_or_id: str | os.PathLike[str], allow_pickle: bool = False) -> Source:
    """Resolve a local folder, a local ``.gguf`` file or a hub id, applying the safety rules above.

    Raises :class:`LoadError` with a user-facing message on any problem.
    """
    raw = str(path_or_id).strip()
    if not raw:
        raise LoadError("no model given (model=PATH or a Hugging Face id)")
    p = Path(raw).expanduser()
    if p.is_file():
        if p.suffix == ".gguf":
            return Source(str(p.parent), True, True, gguf_file=p.name, folder=p.parent)
        raise LoadError(f"{p} is a file; give the checkpoint folder (with config.json) or a .gguf file")
    if p.is_dir():
        if not (p / "config.json").is_file() and not list(p.glob("*.gguf")):
            raise LoadError(f"{p} is not a model folder (no config.json)")
        check_weights(p, allow_pickle)
        return Source(str(p), True, True, folder=p)
    looks_like_path = raw.startswith((".", "/", "~")) or raw.count("/") > 1 or "\\" in raw
    if looks_like_path:
        raise LoadError(f"model path {raw} does not exist")
    return _resolve_hub(raw, allow_pickle)


def _resolve_hub(repo_id: str, allow_pickle: bool) -> Source:
    _short_hub_timeouts()
    if hub_offline():
        folder = _cached_snapshot(repo_id)
        if folder is None:
            raise LoadError(
                f"{repo_id!r} is not a local folder and not in the Hugging Face cache, and the hub is "
                "unreachable (offline). Download it on a machine with a network and pass "
                "model=/path/to/folder.")
        check_weights(folder, allow_pickle, what=f"{repo_id} (cached)")
        return Source(repo_id, False, True, folder=folder)
    return Source(repo_id, False, False)


def _cached_snapshot(repo_id: str) -> Path | None:
    """The already-downloaded snapshot of ``repo_id`` in the local Hugging Face cache, or None.

    ``local_files_only=True`` makes this a cache lookup: it never touches the network.
    """
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id, local_files_only=True))
    except Exception:
        return None


def pretrained_kwargs(
    src: Source, allow_pickle: bool = False, trust_remote_code: bool = False
) -> dict[str, bool | str]:
    """Keyword arguments for ``from_pretrained`` that enforce the rules for ``src``."""
    kw: dict[str, bool | str] = {
        "trust_remote_code": bool(trust_remote_code),
        "local_files_only": src.local_files_only,
    }
    if src.gguf_file:
        kw["gguf_file"] = src.gguf_file
    elif not allow_pickle:
        kw["use_safetensors"] = True
    return kw


def load_pretrained(ref: str, kwargs: Mapping[str, object], model_class: AutoClass, progress: Progress = None,
                    what: str | None = None, folder: Path | None = None
                    ) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """``(model, tokenizer)`` from ``ref`` with ``kwargs`` from :func:`pretrained_kwargs`, in fp32 and eval
    mode.

    ``model_class`` is a transformers auto class (``AutoModelForCausalLM``, ``AutoModelForSeq2SeqLM``, ...).
    The one place checkpoints are read, so every system and rewriter obeys the same rules; failures become one
    :class:`LoadError` (see :func:`explain`). The checkpoint is sized first (:mod:`engine.sizing`: config
    against weight files against memory), and transformers' load report becomes one line (in full with
    ``parley --verbose``).
    """
    import torch
    from transformers import AutoTokenizer

    what = what or ref
    if folder is None and Path(ref).is_dir():
        folder = Path(ref)
    try:
        if "gguf_file" not in kwargs:
            say(progress, f"sizing {what}")
            _size(ref, kwargs, model_class, what, folder)
        say(progress, f"loading tokenizer of {what}")
        tok = AutoTokenizer.from_pretrained(
            ref, **{k: v for k, v in kwargs.items() if k != "use_safetensors"}
        )
        say(progress, f"loading weights of {what}")
        with _load_report() as reports:
            loaded = model_class.from_pretrained(ref, dtype=torch.float32, output_loading_info=True, **kwargs)
        model, info = loaded if isinstance(loaded, tuple) else (loaded, {})
    except LoadError:
        raise
    except Exception as e:
        _verbose(progress, reports_of(e))
        raise explain(e, what, reports_of(e)) from e
    line = report_line(info)
    if line:
        say(progress, f"warning: {what}: {line}")
        _verbose(progress, reports)
    model.eval()
    return model, tok


def generating(model: PreTrainedModel, what: str) -> GenerationMixin:
    """``model`` as a text generator (a class with ``generate``: causal and seq2seq LMs); a LoadError naming
    ``what`` for any other model."""
    from transformers import GenerationMixin

    if not isinstance(model, GenerationMixin):
        raise LoadError(f"{what} cannot generate text (a {type(model).__name__})")
    return model


def _size(ref: str, kwargs: Mapping[str, object], model_class: AutoClass, what: str,
          folder: Path | None) -> None:
    from transformers import AutoConfig

    from parley.engine.sizing import check_size
    from parley.limits import RECORD
    from parley.limits import check_size as check_file

    for f in sorted(folder.glob("*.json")) if folder is not None else ():  # config, tokenizer: read whole
        check_file(f, str(f), LoadError, RECORD)
    remote = bool(kwargs.get("trust_remote_code"))
    config = AutoConfig.from_pretrained(ref, trust_remote_code=remote,
                                        local_files_only=bool(kwargs.get("local_files_only")))
    check_size(what, folder, config, model_class, trust_remote_code=remote)


@contextlib.contextmanager
def _load_report() -> Iterator[list[str]]:
    """Keep transformers' multi-line LOAD REPORT (MISSING / UNEXPECTED / MISMATCH tables) off stderr while a
    model loads; the reports are collected for one parley line (and ``--verbose``)."""
    import logging

    reports: list[str] = []

    class Catch(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            text = record.getMessage()
            if "LOAD REPORT" in text:
                reports.append(text)
                return False
            return True

    catch = Catch()
    logger = logging.getLogger("transformers.modeling_utils")
    logger.addFilter(catch)
    try:
        yield reports
    except BaseException as e:
        e.__dict__.setdefault("parley_reports", list(reports))
        raise
    finally:
        logger.removeFilter(catch)


def reports_of(exc: BaseException) -> list[str]:
    return list(getattr(exc, "__dict__", {}).get("parley_reports", []))


def report_line(info: Mapping[str, object]) -> str:
    """transformers' loading info (``output_loading_info``) as one line, or "" when all weights loaded."""
    parts = []
    for key, said in (("missing_keys", "not in the checkpoint, initialised at random"),
                      ("mismatched_keys", "of another shape in the checkpoint, initialised at random"),
                      ("unexpected_keys", "in the checkpoint but not in the model, ignored")):
        got = info.get(key)
        n = len(got) if isinstance(got, Sized) else 0
        if n:
            parts.append(f"{n} weight(s) {said}")
    if not parts:
        return ""
    return "; ".join(parts) + " (parley --verbose lists them)"


def _verbose(progress: Progress, texts: list[str]) -> None:
    from parley.engine.sizing import env_verbose

    if env_verbose():
        for text in texts:
            for line in text.splitlines():
                say(progress, line)


def explain(exc: BaseException, what: str, reports: list[str] | None = None) -> LoadError:
    """Turn a transformers / hub / OS exception into one clear :class:`LoadError` (``reports``: the load
    reports transformers logged before it raised)."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = str(exc).lower()
    if reports:
        text = "\n".join(reports)
        shapes = text.count("MISMATCH") - text.count("MISMATCH:")
        if shapes > 0:
            return LoadError(f"could not load {what}: {shapes} weight(s) in the checkpoint have another "
                             "shape than its config.json gives (parley --verbose lists them)")
    if isinstance(exc, MemoryError):
        return LoadError(f"could not load {what}: not enough memory")
    if "trust_remote_code" in low:
        return LoadError(f"{what} needs custom code from its repository; pass trust_remote_code=true "
                         "(--trust-remote-code) only if you trust it")
    if "safetensors" in low and ("not found" in low or "does not appear" in low or "no file named" in low):
        return LoadError(
            f"{what} has no safetensors weights; pass allow_pickle=true if you trust its pickle files"
        )
    if any(k in low for k in ("offline", "connection", "timed out", "resolve", "couldn't connect")):
        return LoadError(
            f"could not fetch {what} from the Hugging Face hub ({msg}); pass a local folder instead"
        )
    return LoadError(f"could not load {what}: {msg}")


def safe_torch_load(path: str | os.PathLike[str], allow_pickle: bool = False) -> object:
    """``torch.load`` with ``weights_only=True`` (tensors and plain containers only); refused unless
    allowed."""
    if not allow_pickle:
        raise LoadError(f"{path} is a pickle file; pass allow_pickle=true if you trust it")
    import torch

    try:
        return torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as e:  # UnpicklingError for anything that is not plain weights
        raise LoadError(f"{path} is not a plain weights file (refused by torch.load weights_only=True): "
                        f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
