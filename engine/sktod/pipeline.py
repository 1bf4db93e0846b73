"""The SK-TOD pipeline: KTD → entity tracking → knowledge selection → response generation.

``Pipeline()`` works offline with bundled parts (MiniLM prototypes for KTD, MiniLM cosine for KS, VADER
templates for generation) on the embedded review KB; ``Pipeline(model_dir=...)`` loads a folder written by
``parley sktod train``; ``knowledge=`` points at any DSTC11 ``knowledge.json`` (an ``entity_mapping.json``
beside it is used for aliases).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley.engine.sktod.embed import Encoder, shared_encoder
from parley.engine.sktod.entities import EntityTracker
from parley.engine.sktod.evidence import Stance
from parley.engine.sktod.generation import Answer, ModelGenerator, Opinion, TemplateGenerator
from parley.engine.sktod.knowledge import (
    Entity,
    KnowledgeBase,
    ScoredSnippet,
    embedded_entity_mapping_path,
    load_entity_mapping,
    load_knowledge,
)
from parley.engine.sktod.ktd import Detector, KTDModel
from parley.engine.sktod.selection import SelectionModel, Selector
from parley.engine.sktod.vectors import shipped_vector_file
from parley.engine.types import LoadError
from parley.progress import Progress

#: default cosine selection (aspect boost, margin to the best, absolute floor) chosen on half of DSTC11 val
DEFAULT_ASPECT_BOOST = 0.4
DEFAULT_MARGIN = 0.20
DEFAULT_ABSOLUTE = 0.15
NO_ENTITY = "Which hotel or restaurant do you mean? I can tell you what guests say about it."
#: knowledge bases up to this many snippets are embedded when the pipeline loads (then cached on disk)
EMBED_AT_LOAD = 6000


@dataclass(frozen=True)
class Prediction:
    """Everything the pipeline decided for one user turn."""

    target: bool
    ktd_score: float
    entities: tuple[Entity, ...] = ()
    selected: tuple[ScoredSnippet, ...] = ()
    opinions: tuple[Opinion, ...] = ()
    aspects: tuple[str, ...] = ()
    response: str = ""
    stances: tuple[Stance, ...] = ()

    def to_label(self, with_entities: bool = False) -> dict[str, Any]:
        """The DSTC11 labels-format entry (knowledge ordered best first)."""
        if not self.target:
            return {"target": False}
        out: dict[str, Any] = {"target": True, "knowledge": [s.snippet.ref() for s in self.selected],
                               "response": self.response}
        if with_entities:
            out["entities"] = [e.to_json() for e in self.entities]
        return out

    def internals(self) -> dict[str, Any]:
        """JSON-able view for ``SystemTurn.internals["knowledge"]`` (the TUI shows it)."""
        sent = {o.snippet.snippet.key: o for o in self.opinions}
        snippets = []
        for s in self.selected:
            o = sent.get(s.snippet.key)
            snippets.append({**s.snippet.ref(), "entity": s.snippet.entity_name, "text": s.snippet.text,
                             "score": round(s.score, 4), "cosine": round(s.cosine, 4),
                             "sentiment": o.label if o else None,
                             "compound": round(o.compound, 3) if o else None})
        return {"ktd": {"fired": self.target, "score": round(self.ktd_score, 4)},
                "entities": [e.to_json() for e in self.entities], "aspects": list(self.aspects),
                "snippets": snippets, "evidence": [s.to_json() for s in self.stances]}


class Pipeline:
    """See module docstring. Thread-safe for one caller at a time (the lock serialises ``predict``)."""

    def __init__(self, model_dir: str | Path | None = None, knowledge: str | Path | None = None,
                 entity_mapping: str | Path | None = None, generator: str | None = None,
                 cross_encoder: str | None = None, ktd_classifier: str | None = None, seed: int = 0) -> None:
        # no model given: the default fitted model shipped in assets (model="untrained": prototypes + cosine)
        self.untrained = str(model_dir).strip().lower() in ("untrained", "none") if model_dir else False
        if model_dir and not self.untrained:
            self.model_dir: Path | None = Path(model_dir)
        else:
            self.model_dir = None if self.untrained else default_model_dir()
        self.knowledge_path = Path(knowledge) if knowledge else None
        self.mapping_path = Path(entity_mapping) if entity_mapping else None
        self.generator_ref = generator
        self.cross_encoder = cross_encoder
        self.ktd_classifier = ktd_classifier
        self.seed = seed
        self.config: dict[str, Any] = {}
        self.kb: KnowledgeBase | None = None
        self.tracker: EntityTracker | None = None
        self.detector: Detector | None = None
        self.selector: Selector | None = None
        self.generator: TemplateGenerator | ModelGenerator | None = None
        self._lock = threading.Lock()
        self._loaded = False

    # ------------------------------------------------------------------------------------------- loading
    def _read_config(self) -> tuple[KTDModel, SelectionModel, Encoder]:
        ktd = KTDModel()
        sel = SelectionModel(kind="cosine", margin=DEFAULT_MARGIN, absolute=DEFAULT_ABSOLUTE,
                             aspect_boost=DEFAULT_ASPECT_BOOST)
        enc_ref = None
        if self.model_dir is not None:
            f = self.model_dir / "config.json"
            if not f.is_file():
                raise LoadError(f"not an SK-TOD model folder (no config.json): {self.model_dir}")
            from parley.jsonfile import read_json

            self.config = read_json(f, LoadError)
            if not isinstance(self.config, dict) or self.config.get("format") != "parley-sktod":
                raise LoadError(f"{f} is not a parley SK-TOD model config")
            ktd = KTDModel.from_config(self.config.get("ktd", {}), self.model_dir)
            sel = SelectionModel.from_config(self.config.get("selection", {}), self.model_dir)
            enc_ref = self.config.get("encoder")
        if self.ktd_classifier:
            ktd = KTDModel(kind="hf", classifier=self.ktd_classifier)
        if self.cross_encoder:
            thr = sel.threshold if sel.kind == "cross" else 0.5
            sel = SelectionModel(kind="cross", cross_encoder=self.cross_encoder, threshold=thr)
        return ktd, sel, shared_encoder(enc_ref)

    def load(self, progress: Progress = None) -> None:
        """Load the knowledge, the encoder and the models (once)."""
        if self._loaded:
            return
        ktd, sel, enc = self._read_config()
        if progress:
            progress("loading review knowledge")
        self.kb = load_knowledge(self.knowledge_path)
        if not self.kb:  # ``{}``: every knowledge-seeking turn would fail; say so before loading models
            where = self.knowledge_path or "the review knowledge"
            raise LoadError(f"{where}: no reviews or FAQs to answer from")
        mp = self.mapping_path
        if mp is None:
            beside = self.knowledge_path.parent / "entity_mapping.json" if self.knowledge_path else None
            mp = beside if beside is not None and beside.is_file() else (
                None if self.knowledge_path else embedded_entity_mapping_path())
        mapping = load_entity_mapping(mp) if mp is not None and Path(mp).is_file() else {}
        self.tracker = EntityTracker(self.kb, mapping)
        self.detector = Detector(ktd, enc)
        self.selector = Selector(sel, enc)
        self.generator = (ModelGenerator(self.generator_ref, seed=self.seed) if self.generator_ref
                          else TemplateGenerator(self.seed))
        self.detector.load(progress)
        self.selector.load(progress)
        self.generator.load(progress)
        if self.selector.model.kind != "cross":
            enc = self.selector.encoder
            texts = [sn.text for sn in self.kb]
            missing = enc.attach(self.kb.sha256, texts, shipped_vector_file(enc.fingerprint, self.kb.sha256))
            if missing and len(self.kb) <= EMBED_AT_LOAD:
                # a small KB is embedded once and stored, so no turn waits for it
                if progress:
                    progress(f"embedding {missing} review sentences and FAQs once (stored for next time)")
                enc.encode(texts, progress)
        self.selector.encoder.save_cache()
        self.detector.encoder.save_cache()
        self._loaded = True

    # ------------------------------------------------------------------------------------------- predicting
    def predict(self, turns: Sequence[str], ktd_score: float | None = None) -> Prediction:
        """Decide for the last turn of ``turns`` (alternating user/system texts, last one the user's)."""
        self.load()
        assert self.detector and self.tracker and self.selector and self.generator and self.kb
        if not turns:
            return Prediction(False, 0.0)
        with self._lock:
            score = self.detector.scores([turns[-1]])[0] if ktd_score is None else ktd_score
            if not self.detector.fires(score):
                return Prediction(False, score)
            ents = tuple(self.tracker.track(turns))
            if not ents:
                return Prediction(True, score, response=NO_ENTITY)
            cands = self.kb.candidates(ents)
            ranked = self.selector.score(turns[-1], cands, len(ents))
            chosen = self.selector.select(ranked, turns[-1])
            if isinstance(self.generator, ModelGenerator):
                ans: Answer = self.generator.generate(turns[-1], chosen, turns)
            else:
                ans = self.generator.generate(turns[-1], chosen, cands, turns)
            return Prediction(True, score, ents, tuple(chosen), ans.opinions, ans.aspects, ans.text,
                              ans.stances)

    def run(self, logs: Sequence[Sequence[dict[str, Any]]], on_item: Callable[[int], None] | None = None,
            progress: Progress = None) -> list[Prediction]:
        """Predict every DSTC11 instance (KTD scored in one batch); ``on_item(i)`` after each instance."""
        self.load(progress)
        assert self.detector and self.selector
        assert self.kb is not None
        last = [str(log[-1].get("text", "")) if log else "" for log in logs]
        if len(logs) >= 100 and self.selector.model.kind != "cross":
            # embed the whole KB in large batches up front (much faster than candidate set by candidate set)
            self.selector.encoder.encode([s.text for s in self.kb], progress)
        scores = self.detector.scores(last, progress)
        out = []
        for i, log in enumerate(logs):
            out.append(self.predict([str(t.get("text", "")) for t in log], ktd_score=scores[i]))
            if on_item:
                on_item(i)
        self.selector.encoder.save_cache()
        return out


def default_model_dir() -> Path | None:
    """The selection/KTD model shipped in assets (fitted on half of DSTC11 val, see
    assets/sktod/README.md)."""
    from parley.assets import asset_path

    p = asset_path("sktod", "model")
    return p if (p / "config.json").is_file() else None


def texts(log: Iterable[dict[str, Any]]) -> list[str]:
    return [str(t.get("text", "")) for t in log]
