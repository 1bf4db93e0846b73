"""Knowledge-seeking turn detection (KTD): does the last user turn ask for subjective knowledge (reviews)?

Detectors, all on the last user turn:

- ``prototype`` (default, offline, no training): all-MiniLM-L6-v2 embeddings compared with team-written
  example turns (assets/sktod/ktd_prototypes.json): mean cosine of the 3 nearest knowledge-seeking examples
  minus that of the 3 nearest ordinary ones, plus a small bonus when the turn names a review aspect;
- ``logreg`` (fitted by ``parley sktod train``): logistic regression on the embedding, weights in ``ktd.npz``;
- ``hf``: a fine-tuned sequence classifier (folder or hub id; label 1 = knowledge-seeking).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parley.engine.loading import load_pretrained, pretrained_kwargs, resolve
from parley.engine.sktod.aspects import aspects_of
from parley.engine.sktod.embed import Encoder
from parley.engine.types import LoadError
from parley.progress import Progress


def prototypes_path() -> Path:
    from parley.assets import asset_path

    return asset_path("sktod", "ktd_prototypes.json")


@dataclass
class KTDModel:
    kind: str = "prototype"
    threshold: float = 0.0
    aspect_bonus: float = 0.03
    weights: dict[str, Any] = field(default_factory=dict)
    classifier: str | None = None

    def to_config(self) -> dict[str, Any]:
        return {"kind": self.kind, "threshold": self.threshold, "aspect_bonus": self.aspect_bonus,
                "classifier": self.classifier}

    def save(self, folder: Path) -> None:
        import numpy as np

        if self.weights:
            np.savez(folder / "ktd.npz", **self.weights)

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], folder: Path | None = None) -> KTDModel:
        import numpy as np

        m = cls(kind=str(cfg.get("kind", "prototype")), threshold=float(cfg.get("threshold", 0.0)),
                aspect_bonus=float(cfg.get("aspect_bonus", 0.03)), classifier=cfg.get("classifier"))
        if m.kind == "logreg":
            f = (folder or Path(".")) / "ktd.npz"
            if not f.is_file():
                raise LoadError(f"KTD weights missing: {f}")
            with np.load(f, allow_pickle=False) as z:
                m.weights = {k: z[k] for k in z.files}
        return m


class Detector:
    """Scores last user turns; ``fires(score)`` when the score is above the model's threshold."""

    def __init__(self, model: KTDModel | None = None, encoder: Encoder | None = None) -> None:
        self.model = model or KTDModel()
        self.encoder = encoder or Encoder()
        self._proto: tuple[Any, Any] | None = None
        self._hf: tuple[Any, Any] | None = None

    def load(self, progress: Progress = None) -> None:
        m = self.model
        if m.kind == "hf":
            if self._hf is None:
                if progress:
                    progress(f"loading KTD classifier {m.classifier}")
                from transformers import AutoModelForSequenceClassification

                try:  # the shared loader: safetensors preferred, offline hub ids fail fast
                    src = resolve(str(m.classifier))
                    mod, tok = load_pretrained(src.ref, pretrained_kwargs(src),
                                               AutoModelForSequenceClassification)
                except LoadError as e:
                    raise LoadError(f"cannot load KTD classifier {m.classifier!r}: {e}") from None
                self._hf = (tok, mod)
            return
        self.encoder.load(progress)
        if m.kind == "prototype" and self._proto is None:
            data = json.loads(prototypes_path().read_text(encoding="utf-8"))
            pos = self.encoder.encode(data["knowledge_seeking"])
            neg = self.encoder.encode(data["other"])
            self._proto = (pos, neg)

    def scores(self, turns: Sequence[str], progress: Progress = None) -> list[float]:
        """One score per last-user-turn text (higher = more knowledge-seeking)."""
        import numpy as np

        self.load(progress)
        if not turns:
            return []
        m = self.model
        if m.kind == "hf":
            import torch

            assert self._hf is not None
            tok, mod = self._hf
            out: list[float] = []
            for i in range(0, len(turns), 32):
                enc = tok(list(turns[i: i + 32]), return_tensors="pt", padding=True, truncation=True,
                          max_length=128)
                with torch.no_grad():
                    logits = mod(**enc).logits
                if logits.shape[-1] == 1:
                    out += logits[:, 0].tolist()
                else:
                    out += (logits[:, 1] - logits[:, 0]).tolist()
            return out
        x = self.encoder.encode(list(turns))
        if m.kind == "logreg":
            z = x @ m.weights["coef"].reshape(-1) + float(m.weights["intercept"].reshape(-1)[0])
            return [float(v) for v in z]
        assert self._proto is not None
        pos, neg = self._proto
        sp = np.sort(x @ pos.T, axis=1)[:, -3:].mean(axis=1)
        sn = np.sort(x @ neg.T, axis=1)[:, -3:].mean(axis=1)
        bonus = np.array([m.aspect_bonus if aspects_of(t) else 0.0 for t in turns])
        return [float(v) for v in sp - sn + bonus]

    def fires(self, score: float) -> bool:
        return score > self.model.threshold

    def detect(self, turn: str) -> tuple[bool, float]:
        s = self.scores([turn])[0]
        return self.fires(s), s
