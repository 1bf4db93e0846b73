"""Knowledge selection (KS): score every review sentence and FAQ of the tracked entities, keep those above a
threshold (not a top-k), as in the SK-TOD paper.

Scorers:

- ``cosine`` (default, no training): bi-encoder cosine with the bundled MiniLM, plus ``aspect_boost`` when the
  snippet names the aspect the question asks about; a candidate is kept when its score is within ``margin`` of
  the best candidate and above ``absolute``;
- ``mlp`` (fitted by ``parley sktod train``): a small numpy MLP over the element-wise product of the question
  and snippet embeddings plus signals (cosine, distance to the best cosine, z-score and rank in the candidate
  set, aspect-keyword match, word overlap, FAQ flag, number of entities); its threshold is tuned on held-out
  data and stored with the model;
- ``cross`` : a sentence-transformers cross-encoder checkpoint by path, with a stored threshold.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parley.engine.sktod.aspects import aspects_of, named_aspects, snippet_aspects
from parley.engine.sktod.embed import Encoder
from parley.engine.sktod.knowledge import ScoredSnippet, Snippet
from parley.engine.types import LoadError
from parley.progress import Progress
from parley.text import fold

SCALAR_FEATURES = ("cos", "cos_minus_best", "cos_z", "rank_frac", "is_top", "aspect_match", "aspect_miss",
                   "q_has_aspect", "overlap", "overlap_q", "is_faq", "inv_entities", "inv_candidates")

_STOP_TEXT = ("a an the and or but if of to in on at for with by from is are was were be been being do does "
                   "did have has had i me my we our you your they them their it its this that these those "
                   "there here what which who how any some can could would should will just so very too also "
                   "not no as about into than then out up more most place hotel restaurant guests guest")
_STOP = frozenset(_STOP_TEXT.split())


def _words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP and len(w) > 2}


def scalar_features(question: str, cands: Sequence[Snippet], cos: Any, n_entities: int) -> Any:
    """The hand-made signals for every candidate (rows) — see ``SCALAR_FEATURES``."""
    import numpy as np

    n = len(cands)
    out = np.zeros((n, len(SCALAR_FEATURES)), dtype="float32")
    if n == 0:
        return out
    best = float(cos.max())
    mu, sd = float(cos.mean()), float(cos.std()) + 1e-6
    order = np.argsort(-cos)
    rank = np.empty(n, dtype="float32")
    rank[order] = np.arange(n, dtype="float32")
    qa = aspects_of(question)
    qw = _words(question)
    for i, s in enumerate(cands):
        sa = snippet_aspects(s.text, s.entity_name)
        sw = _words(s.text)
        inter = len(qw & sw)
        out[i] = (
            cos[i], cos[i] - best, (cos[i] - mu) / sd, rank[i] / max(n - 1, 1), float(rank[i] == 0),
            float(bool(qa & sa)), float(bool(qa) and not (qa & sa)), float(bool(qa)),
            inter / max(len(qw | sw), 1), inter / max(len(qw), 1), float(s.doc_type == "faq"),
            1.0 / max(n_entities, 1), 1.0 / n,
        )
    return out


@dataclass
class SelectionModel:
    """A fitted scorer: kind, threshold(s) and (for ``mlp``) the numpy weights."""

    kind: str = "cosine"
    threshold: float = 0.5
    relative: float = 0.0  # keep candidates scoring ≥ relative × best score as well (0 = off)
    keep_best: bool = True  # a knowledge-seeking turn always gets at least its best candidate
    absolute: float = 0.3  # cosine scorer only
    margin: float = 0.12  # cosine scorer only: keep cos ≥ best − margin
    aspect_boost: float = 0.0  # cosine scorer only: added when the snippet names the question's aspect
    weights: dict[str, Any] = field(default_factory=dict)
    cross_encoder: str | None = None
    aspect_filter: bool = True  # prefer snippets on the asked aspect (Selector.select)

    def to_config(self) -> dict[str, Any]:
        return {"kind": self.kind, "threshold": self.threshold, "relative": self.relative,
                "keep_best": self.keep_best, "absolute": self.absolute, "margin": self.margin,
                "aspect_boost": self.aspect_boost, "cross_encoder": self.cross_encoder,
                "aspect_filter": self.aspect_filter}

    def save(self, folder: Path) -> None:
        import numpy as np

        if self.weights:
            np.savez(folder / "selection.npz", **self.weights)

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], folder: Path | None = None) -> SelectionModel:
        import numpy as np

        m = cls(kind=str(cfg.get("kind", "cosine")), threshold=float(cfg.get("threshold", 0.5)),
                relative=float(cfg.get("relative", 0.0)), keep_best=bool(cfg.get("keep_best", True)),
                absolute=float(cfg.get("absolute", 0.3)), margin=float(cfg.get("margin", 0.12)),
                aspect_boost=float(cfg.get("aspect_boost", 0.0)), cross_encoder=cfg.get("cross_encoder"),
                aspect_filter=bool(cfg.get("aspect_filter", True)))
        if m.kind == "mlp":
            f = (folder or Path(".")) / "selection.npz"
            if not f.is_file():
                raise LoadError(f"selection weights missing: {f}")
            with np.load(f, allow_pickle=False) as z:
                m.weights = {k: z[k] for k in z.files}
        return m


def mlp_forward(weights: Mapping[str, Any], x: Any) -> Any:
    """Probabilities from the stored MLP: standardise, then ReLU hidden layers, then a sigmoid unit."""
    import numpy as np

    h = (x - weights["mean"]) / weights["std"]
    i = 0
    while f"W{i}" in weights:
        h = h @ weights[f"W{i}"] + weights[f"b{i}"]
        if f"W{i + 1}" in weights:
            h = np.maximum(h, 0.0)
        i += 1
    z = np.clip(h.reshape(-1), -30, 30)
    return 1.0 / (1.0 + np.exp(-z))


class Selector:
    """Scores the candidates of one turn and selects by threshold."""

    def __init__(self, model: SelectionModel | None = None, encoder: Encoder | None = None) -> None:
        self.model = model or SelectionModel()
        self.encoder = encoder or Encoder()
        self._cross: Any = None

    def load(self, progress: Progress = None) -> None:
        self.encoder.load(progress)
        if self.model.kind == "cross" and self._cross is None:
            if progress:
                progress(f"loading cross-encoder {self.model.cross_encoder}")
            try:
                from sentence_transformers import CrossEncoder

                self._cross = CrossEncoder(str(self.model.cross_encoder), device="cpu")
            except Exception as e:
                raise LoadError(f"cannot load cross-encoder {self.model.cross_encoder!r}: {e}") from None

    def features(self, question: str, cands: Sequence[Snippet], n_entities: int) -> tuple[Any, Any]:
        """(model input rows, cosines) for the candidates of one question."""
        import numpy as np

        q = self.encoder.encode([question])[0]
        s = self.encoder.encode([c.text for c in cands])
        cos = s @ q
        sc = scalar_features(question, cands, cos, n_entities)
        return np.hstack([s * q[None, :], sc]).astype("float32"), cos

    def score(self, question: str, cands: Sequence[Snippet], n_entities: int = 1) -> list[ScoredSnippet]:
        """Every candidate with its score, best first."""
        import numpy as np

        if not cands:
            return []
        x, cos = self.features(question, cands, n_entities)
        m = self.model
        if m.kind == "mlp":
            p = mlp_forward(m.weights, x)
        elif m.kind == "cross":
            self.load()
            logits = np.asarray(self._cross.predict([(question, c.text) for c in cands]), dtype="float64")
            p = logits.reshape(len(cands), -1)[:, -1]
            if p.min() < 0 or p.max() > 1:
                p = 1 / (1 + np.exp(-p))
        else:
            p = cos + m.aspect_boost * x[:, -len(SCALAR_FEATURES) + SCALAR_FEATURES.index("aspect_match")]
        out = [ScoredSnippet(c, float(pi), float(ci)) for c, pi, ci in zip(cands, p, cos, strict=True)]
        return sorted(out, key=lambda s: -s.score)

    def select(self, scored: Sequence[ScoredSnippet], question: str = "") -> list[ScoredSnippet]:
        """Apply the stored threshold(s) to scored candidates (best first); with ``question``, prefer snippets
        on the asked aspect (see :func:`on_aspect`) and never keep the same sentence twice."""
        chosen = apply_threshold(scored, self.model)
        if question and self.model.aspect_filter:
            chosen = on_aspect(question, chosen, scored)
        return dedupe_text(chosen)


#: a question about what people think (answered by reviews, not by the venue's FAQ)
OPINION = re.compile(r"\b(people|guests?|reviews?|reviewers?|customers?|visitors?|say|says|think|thought|"
                     r"opinions?|good|bad|nice|great|decent|worth|like|liked|how (is|was|are|were))\b", re.I)


def on_aspect(question: str, chosen: Sequence[ScoredSnippet], ranked: Sequence[ScoredSnippet],
             limit: int = 5) -> list[ScoredSnippet]:
    """Snippets about the asked aspect win over those about a neighbouring one ("is the food good?": the
    reviews of the food, not the FAQ about vegetarian options). Without a known aspect in the question,
    unchanged."""
    asked = named_aspects(question)
    if not asked:
        return list(chosen)
    hits = [s for s in chosen if snippet_aspects(s.snippet.text, s.snippet.entity_name) & asked]
    if hits:  # an FAQ about something else goes; reviews stay (the lexicon does not know every phrasing)
        kept = [s for s in chosen if s in hits or s.snippet.doc_type == "review"]
        if OPINION.search(question) and any(s.snippet.doc_type == "review" for s in hits):
            # "do people say the food is good?" asks what reviewers say: an FAQ that merely names the food
            # ("no takeaway, they only serve food in the restaurant") does not answer it
            kept = [s for s in kept if s.snippet.doc_type == "review"]
        return kept
    reviews = [s for s in ranked[: 4 * limit] if s.snippet.doc_type == "review"
               and snippet_aspects(s.snippet.text, s.snippet.entity_name) & asked]
    return reviews[:limit] or list(chosen)


def dedupe_text(chosen: Sequence[ScoredSnippet]) -> list[ScoredSnippet]:
    """The best-scored copy of each sentence of an entity (knowledge bases repeat sentences across
    reviews)."""
    seen: set[tuple[str, int, str]] = set()
    out = []
    for s in chosen:
        key = (s.snippet.domain, s.snippet.entity_id, fold(s.snippet.text))
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def apply_threshold(scored: Sequence[ScoredSnippet], m: SelectionModel) -> list[ScoredSnippet]:
    if not scored:
        return []
    best = scored[0].score
    if m.kind == "cosine":
        keep = [s for s in scored if s.score >= best - m.margin and s.score >= m.absolute]
    else:
        keep = [s for s in scored if s.score >= m.threshold
                or (m.relative > 0 and s.score >= m.relative * best)]
    if not keep and m.keep_best:
        keep = [scored[0]]
    return keep


def instance_f(selected: Sequence[ScoredSnippet], gold: set[Any]) -> float:
    keys = {s.snippet.key for s in selected}
    tp = len(keys & gold)
    if not tp:
        return 0.0
    p, r = tp / len(keys), tp / len(gold)
    return 2 * p * r / (p + r)


def tune(scored_sets: Sequence[Sequence[ScoredSnippet]], golds: Sequence[set[Any]], base: SelectionModel,
         ) -> tuple[SelectionModel, float]:
    """Grid-search the threshold(s) of ``base`` for the best mean instance F on held-out instances."""
    import copy

    best_m, best_f = base, -1.0
    if base.kind == "cosine":
        grid = [{"margin": mg, "absolute": ab} for mg in [x / 100 for x in range(2, 31, 2)]
                for ab in [x / 100 for x in range(0, 61, 5)]]
    else:
        grid = [{"threshold": t, "relative": r} for t in [x / 40 for x in range(1, 40)]
                for r in (0.0, 0.5, 0.6, 0.7, 0.8, 0.9)]
    for g in grid:
        m = copy.copy(base)
        for k, v in g.items():
            setattr(m, k, v)
        f = sum(instance_f(apply_threshold(s, m), g_) for s, g_ in zip(scored_sets, golds, strict=True))
        f /= max(len(golds), 1)
        if f > best_f + 1e-9:
            best_m, best_f = m, f
    return best_m, best_f


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))
