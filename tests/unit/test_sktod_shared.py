"""Checks on the real DSTC11 track 5 data in ../shared (skipped when it is absent). No models are loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parley.engine.sktod.entities import EntityTracker
from parley.engine.sktod.knowledge import KnowledgeBase, load_entity_mapping
from parley.engine.sktod.scoring import official_scores


@pytest.fixture
def dstc(shared_data: Path) -> Path:
    d = shared_data / "dstc11-track5"
    if not (d / "knowledge.json").is_file():
        pytest.skip("dstc11-track5 is absent")
    return d


def test_real_knowledge_counts(dstc: Path) -> None:
    kb = KnowledgeBase.load(dstc / "knowledge.json")
    assert len(kb.entities()) == 143
    assert sum(1 for s in kb if s.doc_type == "review") == 8013
    assert sum(1 for s in kb if s.doc_type == "faq") == 2869


def test_gold_refs_resolve_and_score_perfectly(dstc: Path) -> None:
    kb = KnowledgeBase.load(dstc / "knowledge.json")
    labels = json.loads((dstc / "val" / "labels.json").read_text())[:400]
    for lab in labels:
        for k in lab.get("knowledge", []):
            assert kb.get(k) is not None, k
    s = official_scores(labels, labels, meteor=False)
    assert s["detection"]["f1"] == pytest.approx(1.0) and s["selection"]["f1"] == pytest.approx(1.0)


def test_entity_tracking_accuracy_on_val_sample(dstc: Path) -> None:
    kb = KnowledgeBase.load(dstc / "knowledge.json")
    tracker = EntityTracker(kb, load_entity_mapping(dstc / "entity_mapping.json"))
    logs = json.loads((dstc / "val" / "logs.json").read_text())
    labels = json.loads((dstc / "val" / "labels.json").read_text())
    n = ok = 0
    for log, lab in zip(logs[:600], labels[:600], strict=True):
        if not lab["target"]:
            continue
        gold = {(k["domain"], k["entity_id"]) for k in lab["knowledge"]}
        ok += gold == {e.key for e in tracker.track([t["text"] for t in log])}
        n += 1
    assert n > 100 and ok / n >= 0.9  # the paper reports 92.2 % on the whole set
