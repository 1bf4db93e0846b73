"""User-side rewriters, applied by ``engine.rewrite.chain.Chain`` in the fixed order of ``ORDER``.

One rewriter per module; each is registered here by name with a ``module:Class`` target so listing them
imports nothing heavy. Build one from a spec string with ``build_rewriter("impolite:scenario=2")``.
"""

from __future__ import annotations

from parley import extras
from parley.engine.registry import Registry
from parley.engine.rewrite.base import Rewriter
from parley.engine.spec import Spec, SpecError, parse_spec

REWRITERS = Registry("rewriter")
REWRITERS.register("impolite", "parley.engine.rewrite.impolite:ImpoliteRewriter",
                   "impolite users: six role-play scenarios, intensity 1-3 (rules; optional seq2seq/LLM)")
REWRITERS.register("disfluency", "parley.engine.rewrite.disfluency:DisfluencyRewriter",
                   "speech disfluency (LAUG SD): filled pauses, repeats, restarts, repairs")
REWRITERS.register("wp", "parley.engine.rewrite.wp:WordPerturbation",
                   "word perturbation (LAUG SC-EDA): synonyms, insertion, swap, deletion, slot replacement")
REWRITERS.register("asr-sim", "parley.engine.rewrite.asr_sim:SimulatedASR",
                   "simulated speech-recognition noise in text (LAUG SR-like)")
REWRITERS.register("asr-real", "parley.audio.channel:RealASRChannel",
                   "real TTS -> ASR round trip (piper/espeak -> faster-whisper)")

#: the order a chain applies enabled rewriters in, whatever order they were given
ORDER: tuple[str, ...] = ("impolite", "disfluency", "wp", "asr-sim", "asr-real")


def build_rewriter(spec: str | Spec) -> Rewriter:
    """Instantiate a registered rewriter from a spec (``SpecError`` for an unknown name or bad parameters)."""
    s = parse_spec(spec) if isinstance(spec, str) else spec
    try:
        entry = REWRITERS.get(s.name)
    except KeyError as e:
        raise SpecError(str(e.args[0])) from None
    extras.require(extras.REWRITERS.get(s.name), f"the `{s.name}` rewriter")
    cls = entry.load()
    try:
        rewriter = cls(**s.params)
    except TypeError as e:
        raise SpecError(f"bad parameters for rewriter {s.name!r}: {e}") from None
    if not isinstance(rewriter, Rewriter):
        raise SpecError(f"rewriter {s.name!r} does not implement Rewriter (name, params, rewrite)")
    return rewriter
