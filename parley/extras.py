"""The optional parts of parley: which extra installs what, and one message when a feature's extra is missing.

``pip install parley-tod`` is the core (the chat, the store, the rule system ``multiwoz``, the rule rewriters,
annotation and export). Everything else comes with an extra; a feature that needs one that is not installed
says so in one line (a :class:`MissingExtra`, a ``ParleyError``: exit code 2 on the command line, a
notification in the TUI)::

    parley: error: the `llm` system needs the `models` extra: pip install 'parley-tod[models]'

A leaf module: whether an extra is installed is found with :func:`importlib.util.find_spec`, nothing is
imported.
"""

from __future__ import annotations

import importlib.util

from parley.errors import ParleyError

#: extra → the modules it brings that parley imports (an extra is installed when all of them are found); a
#: module missing on the way of a feature with no extra of its own is told as the first extra listing it
EXTRAS: dict[str, tuple[str, ...]] = {
    "models": ("torch", "transformers", "safetensors", "tokenizers", "gguf", "accelerate", "numpy",
               "sentence_transformers", "xllamacpp"),
    "stats": ("numpy", "scipy", "statsmodels", "matplotlib", "krippendorff", "sacrebleu", "rouge_score",
              "nltk", "sacremoses"),
    "audio": ("numpy", "scipy", "soundfile", "sounddevice", "faster_whisper", "piper", "jiwer",
              "whisper_normalizer"),
    "sktod": ("numpy", "scipy", "sklearn", "threadpoolctl", "safetensors", "tokenizers", "rouge_score",
              "sacrebleu"),
    "ray": ("ray",),
    "serve": ("fastapi", "uvicorn"),
}

#: registered systems and rewriters that need an extra (the rest run on the core)
SYSTEMS: dict[str, str] = {"llm": "models", "hf-seq2seq": "models", "hf-causal": "models", "neural": "models",
                           "sktod": "sktod"}
REWRITERS: dict[str, str] = {"asr-real": "audio"}

#: commands whose work needs an extra, for a module missing on their way (``parley score`` → stats)
COMMANDS: dict[str, str] = {"score": "stats", "assign": "stats", "sktod": "sktod", "speak": "audio",
                            "transcribe": "audio", "train": "models", "serve-bundled": "models"}


class MissingExtra(ParleyError, ImportError):
    """A feature's extra is not installed; the message names the extra and the command that installs it."""

    def __init__(self, feature: str, extra: str, missing: str | None = None) -> None:
        self.feature, self.extra, self.missing = feature, extra, missing
        super().__init__(f"{feature} needs the `{extra}` extra: pip install 'parley-tod[{extra}]'")


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that are not installed (empty: the extra is there)."""
    return [m for m in EXTRAS[extra] if not _found(m)]


def require(extra: str | None, feature: str) -> None:
    """Raise :class:`MissingExtra` for ``feature`` unless ``extra`` (None: the core) is installed."""
    if extra is None:
        return
    gone = missing(extra)
    if gone:
        raise MissingExtra(feature, extra, gone[0])


def extra_for_module(module: str | None) -> str | None:
    """The extra that brings top-level module ``module`` (the first that lists it), or None."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, mods in EXTRAS.items() if top in mods), None)


def explain(e: ModuleNotFoundError, feature: str, extra: str | None = None) -> MissingExtra | None:
    """The :class:`MissingExtra` to raise for ``e`` met while running ``feature``, or None when the missing
    module belongs to no extra (a bug, kept as it is). ``extra`` names the feature's own extra when known."""
    own = extra_for_module(e.name)
    if own is None:
        return None
    top = (e.name or "").partition(".")[0]
    return MissingExtra(feature, extra if extra is not None and top in EXTRAS[extra] else own, e.name)
