"""``neural``: the small end-to-end TOD model trained here, bundled in ``assets/neural/``.

A 4-layer GPT-2 (a few million parameters, its own BPE tokenizer) trained by ``parley train tod`` on the
MultiWOZ validation dialogues in the SimpleTOD format with DB search (``simpletod-db``): context → belief
state → DB match counts → system acts → delexicalised response. It is loaded exactly as a user's checkpoint is
— through the ``hf-causal`` adapter and the ``parley-format.toml`` in its folder;
``assets/neural/manifest.json`` records the data hash, seed, steps and training figures. Its scores are far
below published models (see bench/results).

``neural[:model=DIR][,max_new_tokens=N]`` — ``model`` points at another folder written by ``parley train
tod``.
"""

from __future__ import annotations

from parley.engine.systems.hf_causal import CausalSystem


def bundled_model() -> str:
    from parley.assets import asset_path

    return str(asset_path("neural"))


class NeuralSystem(CausalSystem):
    """The bundled model through the ``hf-causal`` adapter."""

    name = "neural"

    def __init__(self, **given: object) -> None:
        super().__init__(**{**given, "model": given.get("model") or bundled_model()})
