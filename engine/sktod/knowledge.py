"""Subjective knowledge in the DSTC11 track 5 format: loading, snippets, and the embedded review KB.

``knowledge.json`` is ``domain → entity_id → {name, reviews: {doc_id: {sentences: {sent_id: str}, ...}},
faqs: {doc_id: {question, answer}}}`` with string ids; labels and predictions refer to snippets with integer
ids (``{"domain", "entity_id", "doc_type", "doc_id", "sent_id"?}``). A *snippet* is one review sentence or one
FAQ.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley import jsonfile
from parley.engine.types import LoadError


@dataclass(frozen=True)
class Entity:
    """A hotel or restaurant of the knowledge base (``name`` as written there, e.g. upper case)."""

    domain: str
    entity_id: int
    name: str

    @property
    def key(self) -> tuple[str, int]:
        return (self.domain, self.entity_id)

    def to_json(self) -> dict[str, Any]:
        return {"domain": self.domain, "entity_id": self.entity_id, "name": self.name}


@dataclass(frozen=True)
class Snippet:
    """One review sentence (``sent_id`` set) or one FAQ (``sent_id`` None; ``text`` is "question answer")."""

    domain: str
    entity_id: int
    doc_type: str  # "review" | "faq"
    doc_id: int
    sent_id: int | None
    text: str
    entity_name: str = ""
    answer: str = ""  # FAQs only: the answer alone

    @property
    def key(self) -> tuple[str, int, str, int, int | None]:
        return (self.domain, self.entity_id, self.doc_type, self.doc_id, self.sent_id)

    def ref(self) -> dict[str, Any]:
        """The DSTC11 label form of this snippet (integer ids; FAQs without ``sent_id``)."""
        out: dict[str, Any] = {"domain": self.domain, "entity_id": self.entity_id, "doc_type": self.doc_type,
                               "doc_id": self.doc_id}
        if self.sent_id is not None:
            out["sent_id"] = self.sent_id
        return out


@dataclass(frozen=True)
class ScoredSnippet:
    """A candidate snippet with its selection score (probability-like, higher is more relevant)."""

    snippet: Snippet
    score: float
    cosine: float = 0.0


def ref_key(ref: Mapping[str, Any]) -> tuple[str, int, str, int, int | None]:
    """Hashable key of a label/prediction reference (FAQs ignore ``sent_id``, as the official scorer does)."""
    doc_type = str(ref.get("doc_type", "review"))
    sent = None if doc_type == "faq" else ref.get("sent_id")
    return (str(ref["domain"]), int(ref["entity_id"]), doc_type, int(ref["doc_id"]),
            None if sent is None else int(sent))


class KnowledgeBase:
    """All entities and snippets of one ``knowledge.json`` (read-only, thread-safe once built)."""

    def __init__(self, data: Mapping[str, Any], source: str = "<memory>", sha256: str | None = None) -> None:
        self.source = source
        #: the content hash its stored vectors are filed under (the file's bytes when loaded from one)
        self.sha256 = sha256 or _data_sha256(data)
        self._entities: dict[tuple[str, int], Entity] = {}
        self._snippets: dict[tuple[str, int], list[Snippet]] = {}
        self._by_key: dict[tuple[str, int, str, int, int | None], Snippet] = {}
        try:
            self._build(data)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise LoadError(f"{source}: not a DSTC11 knowledge file ({type(e).__name__}: {e})") from None

    def _build(self, data: Mapping[str, Any]) -> None:
        for domain, entities in data.items():
            for eid_s, ent in entities.items():
                eid = int(eid_s)
                name = str(ent.get("name") or "")
                self._entities[(domain, eid)] = Entity(domain, eid, name)
                snips: list[Snippet] = []
                for did_s, review in (ent.get("reviews") or {}).items():
                    for sid_s, sent in (review.get("sentences") or {}).items():
                        snips.append(Snippet(domain, eid, "review", int(did_s), int(sid_s), str(sent), name))
                for did_s, faq in (ent.get("faqs") or {}).items():
                    text = f"{faq.get('question', '')} {faq.get('answer', '')}".strip()
                    snips.append(Snippet(domain, eid, "faq", int(did_s), None, text, name,
                                         str(faq.get("answer", ""))))
                self._snippets[(domain, eid)] = snips
                for s in snips:
                    self._by_key[s.key] = s

    @classmethod
    def load(cls, path: str | Path) -> KnowledgeBase:
        """Read a ``knowledge.json`` file; raises ``LoadError`` with a readable message."""
        p = Path(path)
        data = read_json(p, "knowledge file", dict, "a JSON object domain → entity → ...")
        from parley.engine.sktod.vectors import file_sha256

        return cls(data, source=str(p), sha256=file_sha256(p))

    def entities(self, domain: str | None = None) -> list[Entity]:
        return [e for e in self._entities.values() if domain is None or e.domain == domain]

    def entity(self, domain: str, entity_id: int) -> Entity | None:
        return self._entities.get((domain, int(entity_id)))

    def snippets(self, domain: str, entity_id: int) -> list[Snippet]:
        """Every review sentence and FAQ of one entity (empty for an unknown entity)."""
        return list(self._snippets.get((domain, int(entity_id)), ()))

    def candidates(self, entities: Iterable[Entity]) -> list[Snippet]:
        out: list[Snippet] = []
        for e in entities:
            out.extend(self._snippets.get(e.key, ()))
        return out

    def get(self, ref: Mapping[str, Any]) -> Snippet | None:
        """The snippet a label reference points at, or None."""
        try:
            return self._by_key.get(ref_key(ref))
        except (KeyError, TypeError, ValueError):
            return None

    def __iter__(self) -> Iterator[Snippet]:
        for snips in self._snippets.values():
            yield from snips

    def __len__(self) -> int:
        return len(self._by_key)


def _data_sha256(data: Mapping[str, Any]) -> str:
    import hashlib
    import json

    try:
        raw = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        raw = repr(data)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def embedded_knowledge_path() -> Path:
    """The team-written review KB shipped in assets (hotels and restaurants of the MultiWOZ DB)."""
    from parley.assets import asset_path

    return asset_path("sktod", "knowledge.json")


def embedded_entity_mapping_path() -> Path:
    from parley.assets import asset_path

    return asset_path("sktod", "entity_mapping.json")


_lock = threading.Lock()
_cache: dict[str, KnowledgeBase] = {}


def load_knowledge(path: str | Path | None = None) -> KnowledgeBase:
    """The cached knowledge base at ``path`` (the embedded one by default)."""
    p = Path(path) if path else embedded_knowledge_path()
    key = str(p.resolve())
    with _lock:
        if key not in _cache:
            _cache[key] = KnowledgeBase.load(p)
        return _cache[key]


def load_entity_mapping(path: str | Path | None = None) -> dict[str, list[str]]:
    """Canonical term → variants (DSTC11 ``entity_mapping.json`` format); the embedded one by default."""
    p = Path(path) if path else embedded_entity_mapping_path()
    data = read_json(p, "entity mapping", dict, "a JSON object term → [variants]")
    return {str(k).lower(): [str(v).lower() for v in vs] for k, vs in data.items() if isinstance(vs, list)}


def load_json_list(path: str | Path, what: str) -> list[Any]:
    """Read a DSTC11 ``logs.json`` / ``labels.json`` (a JSON list) with a readable error."""
    return read_json(Path(path), f"{what} file", list, f"a JSON list of {what}")


def read_json(p: Path, what: str, kind: type, shape: str) -> Any:
    """The JSON value in ``p``, which must be a ``kind``; every failure is one readable ``LoadError``."""
    if not p.exists():
        raise LoadError(f"{what} not found: {p}")
    data = jsonfile.read_json(p, LoadError, what)
    if not isinstance(data, kind):
        raise LoadError(f"{p}: expected {shape}")
    return data
