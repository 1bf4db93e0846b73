"""Sentence vectors on disk: one file per knowledge base and encoder, one for everything else (questions).

A knowledge base's file is named after the SHA-256 of its ``knowledge.json`` and the encoder's fingerprint
(``<cache dir>/sktod/kb-<kb hash>-<encoder>.npz``), and records both inside, so a file is only ever used for
the knowledge and the encoder it was computed from. The embedded review KB's vectors ship in assets
(``assets/sktod/embeddings-<encoder>.npz``, built by ``bench/sktod_embeddings.py``): a fresh install embeds
nothing at start-up.

Files are written atomically (a uniquely named temporary file in the same folder, then ``os.replace``) and a
writer merges what is on disk first, so a reader sees either the old or the new file, never half of one, and a
cache rewritten by another process still holds what this one needs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

FORMAT = "parley-sktod-vectors/1"
#: the questions file keeps at most this many vectors (the newest)
MAX_QUERIES = 50_000


def text_key(text: str) -> str:
    """The key of one sentence's vector."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def folder_fingerprint(folder: Path) -> str:
    """A short hash identifying a model folder's contents: every file's name and size, its small files whole
    and samples of its large ones (hashing ~90 MB of weights at every start would cost more than the rest);
    documentation files do not count."""
    h = hashlib.sha256()
    files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")
             and p.suffix.lower() not in (".md", ".pyc")]
    for f in sorted(files):
        size = f.stat().st_size
        h.update(f"{f.relative_to(folder).as_posix()}\0{size}\0".encode())
        with f.open("rb") as fh:
            if size <= 4 << 20:
                h.update(fh.read())
                continue
            for pos in (0, size // 3, 2 * size // 3, size - (64 << 10)):
                fh.seek(pos)
                h.update(fh.read(64 << 10))
    return h.hexdigest()[:12]


class VectorFile:
    """One ``.npz`` of text key → float32 vector, tied to ``meta`` (format, encoder, knowledge hash)."""

    def __init__(self, path: Path, encoder: str, kb_sha256: str = "", limit: int | None = None) -> None:
        self.path = path
        self.meta = {"format": FORMAT, "encoder": encoder, "kb_sha256": kb_sha256}
        self.limit = limit

    def read(self) -> dict[str, Any]:
        """The vectors in the file; empty when it is missing, broken or made for other knowledge or another
        encoder."""
        import numpy as np

        try:
            with np.load(self.path, allow_pickle=False) as z:
                if any(str(z[k]) != v for k, v in self.meta.items()):
                    return {}
                keys = z["keys"].tolist()
                vecs = z["vecs"]
                if len(keys) != len(vecs):
                    return {}
                return dict(zip(keys, vecs, strict=True))
        except (OSError, ValueError, KeyError, EOFError):  # missing, truncated or not an npz: rebuilt
            return {}
        except Exception:  # zipfile.BadZipFile and the like from a foreign file
            return {}

    def write(self, vectors: Mapping[str, Any], merge: bool = True) -> None:
        """Write ``vectors`` (merged with what the file holds now) atomically."""
        import numpy as np

        allv: dict[str, Any] = self.read() if merge else {}
        allv.update(vectors)
        keys = list(allv)
        if self.limit is not None and len(keys) > self.limit:
            keys = keys[-self.limit:]
        if not keys:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                arrays: dict[str, Any] = {k: np.array(v) for k, v in self.meta.items()}
                arrays["keys"] = np.array(keys)
                arrays["vecs"] = np.stack([allv[k] for k in keys]).astype("float32")
                np.savez(f, **arrays)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)  # as any cache file (mkstemp makes it private)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def kb_vector_file(folder: Path, kb_sha256: str, encoder: str) -> VectorFile:
    return VectorFile(folder / f"kb-{kb_sha256[:16]}-{encoder}.npz", encoder, kb_sha256)


def query_vector_file(folder: Path, encoder: str) -> VectorFile:
    return VectorFile(folder / f"queries-{encoder}.npz", encoder, limit=MAX_QUERIES)


def shipped_vector_file(encoder: str, kb_sha256: str) -> VectorFile | None:
    """The vectors shipped in assets for ``encoder``, if there are any: they are read only for the knowledge
    they were built from (the embedded review KB), i.e. when ``kb_sha256`` is that file's hash."""
    from parley.assets import asset_path

    p = asset_path("sktod", shipped_name(encoder))
    return VectorFile(p, encoder, kb_sha256) if p.is_file() else None


def shipped_name(encoder: str) -> str:
    return f"embeddings-{encoder}.npz"


def covers(vectors: Mapping[str, Any], texts: Iterable[str]) -> bool:
    return all(text_key(t) in vectors for t in texts)
