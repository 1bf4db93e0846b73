"""Dialogue systems under test, one per module, registered by name.

Build one with ``build_system("multiwoz")`` or ``build_system("hf-seq2seq:model=path/to/ckpt")``.
"""

from __future__ import annotations

from typing import Any

from parley import extras
from parley.engine.params import params_of
from parley.engine.registry import Registry
from parley.engine.spec import Spec, SpecError, parse_spec
from parley.engine.types import DialogueSystem

SYSTEMS = Registry("system")
SYSTEMS.register("multiwoz", "parley.engine.systems.multiwoz:MultiwozSystem",
                 "embedded MultiWOZ pipeline: rule NLU, DST, DB query, policy, template NLG (default, "
                 "offline)")
SYSTEMS.register("llm", "parley.engine.systems.llm:LLMSystem",
                 "MultiWOZ pipeline reworded by a small chat LLM on llama.cpp (bundled Qwen2.5-Coder-0.5B, "
                 "offline)")
SYSTEMS.register("hf-seq2seq", "parley.engine.systems.hf_seq2seq:Seq2SeqSystem",
                 "PPTOD/MinTL-style T5/BART checkpoint (model=PATH|HUB_ID)")
SYSTEMS.register("hf-causal", "parley.engine.systems.hf_causal:CausalSystem",
                 "UBAR/SimpleTOD/AuGPT-style GPT-2 checkpoint (model=PATH|HUB_ID)")
SYSTEMS.register("neural", "parley.engine.systems.neural:NeuralSystem",
                 "small SimpleTOD GPT-2 trained here on MultiWOZ val (bundled, through hf-causal)")
SYSTEMS.register("remote", "parley.engine.systems.remote:RemoteSystem",
                 "a bot behind HTTP: parley JSON protocol or OpenAI-compatible chat (url=...)")
SYSTEMS.register("sktod", "parley.engine.systems.sktod:SKTODSystem",
                 "MultiWOZ pipeline + subjective-knowledge answers from reviews (DSTC11 track 5)")
SYSTEMS.register("echo", "parley.engine.systems.echo:EchoSystem", "repeats the user (tests and demos)")

DEFAULT_SYSTEM = "multiwoz"


def build_system(spec: str | Spec, *, trust_remote_code: bool = False, **extra: Any) -> DialogueSystem:
    """Instantiate a registered system from a spec; ``extra`` keyword arguments are passed through. Not loaded
    yet: call ``load(progress)`` (slow) before the first turn.

    A checkpoint's own code runs only when the caller passes ``trust_remote_code=True`` (the command line's
    ``--trust-remote-code``); a spec (typed, or from config.toml) that sets it is refused.
    """
    s = parse_spec(spec) if isinstance(spec, str) else spec
    if "trust_remote_code" in s.params:
        raise SpecError("trust_remote_code cannot be set in a system spec or the config file: pass "
                        "--trust-remote-code on the command line (only for checkpoints you trust)")
    try:
        entry = SYSTEMS.get(s.name)
    except KeyError as e:
        raise SpecError(str(e.args[0])) from None
    extras.require(extras.SYSTEMS.get(s.name), f"the `{s.name}` system")
    cls = entry.load()
    if trust_remote_code:
        if "trust_remote_code" not in params_of(cls).model_fields:
            raise SpecError(f"--trust-remote-code applies to checkpoint systems, not {s.name!r}")
        extra["trust_remote_code"] = True
    try:
        system = cls(**{**s.params, **extra})
    except TypeError as e:
        raise SpecError(f"bad parameters for system {s.name!r}: {e}") from None
    if not isinstance(system, DialogueSystem):
        raise SpecError(f"system {s.name!r} does not implement DialogueSystem (name, load, reset, respond)")
    return system
