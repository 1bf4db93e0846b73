"""Knowledge loading, entity tracking and sentiment-aware generation on the embedded KB (no models)."""

from __future__ import annotations

import json
import re

import pytest

from parley.engine.mwdb import load_db
from parley.engine.sktod.entities import EntityTracker, name_variants, normalise
from parley.engine.sktod.generation import Opinion, Sentiment, TemplateGenerator
from parley.engine.sktod.knowledge import (
    KnowledgeBase,
    ScoredSnippet,
    Snippet,
    load_entity_mapping,
    load_knowledge,
)
from parley.engine.types import LoadError


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge()


@pytest.fixture(scope="module")
def tracker(kb: KnowledgeBase) -> EntityTracker:
    return EntityTracker(kb, load_entity_mapping())


def test_embedded_kb_shape(kb: KnowledgeBase) -> None:
    db = load_db()
    ents = kb.entities()
    assert len(ents) >= 10
    assert {e.domain for e in ents} == {"hotel", "restaurant"}
    for e in ents:
        assert db.find(e.domain, e.name.lower()) is not None, e.name
        reviews = {s.doc_id for s in kb.snippets(e.domain, e.entity_id) if s.doc_type == "review"}
        assert len(reviews) >= 5
    text = " ".join(s.text.lower() for s in kb)
    for word in ("wifi", "parking", "breakfast", "noisy", "clean", "staff", "food", "atmosphere", "price"):
        assert word in text, word


def test_ids_are_ints_and_refs_round_trip(kb: KnowledgeBase) -> None:
    s = next(iter(kb))
    assert isinstance(s.entity_id, int) and isinstance(s.doc_id, int)
    assert kb.get(s.ref()) == s
    faq = next(x for x in kb if x.doc_type == "faq")
    assert "sent_id" not in faq.ref()
    assert kb.get({**faq.ref(), "sent_id": 3}) == faq  # FAQs ignore sent_id
    assert faq.answer and faq.answer in faq.text


def test_loader_errors(tmp_path) -> None:
    with pytest.raises(LoadError, match="not found"):
        KnowledgeBase.load(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(LoadError, match="expected a JSON object"):
        KnowledgeBase.load(bad)
    bad.write_text(json.dumps({"hotel": {"x": {"name": "A"}}}))
    with pytest.raises(LoadError, match="not a DSTC11 knowledge file"):
        KnowledgeBase.load(bad)


def test_any_knowledge_file_loads(tmp_path) -> None:
    data = {"hotel": {"7": {"name": "TEST HOUSE",
                            "reviews": {"0": {"sentences": {"0": "Nice.", "1": "Loud."}}},
                            "faqs": {"3": {"question": "Pets?", "answer": "No."}}}}}
    f = tmp_path / "k.json"
    f.write_text(json.dumps(data))
    kb = KnowledgeBase.load(f)
    assert len(kb) == 3
    assert [s.key for s in kb.snippets("hotel", 7)] == [("hotel", 7, "review", 0, 0),
                                                        ("hotel", 7, "review", 0, 1),
                                                       ("hotel", 7, "faq", 3, None)]


def test_normalisation() -> None:
    assert normalise("Rosa's B & B") == "rosas bed and breakfast"
    assert normalise("Arbury Lodge Guesthouse") == "arbury lodge guest house"
    assert "lensfield" in name_variants("THE LENSFIELD HOTEL")
    assert "the" not in name_variants("THE HOTEL")


def test_tracks_last_turn_with_entities(tracker: EntityTracker) -> None:
    turns = ["I need a hotel in the north.", "The Acorn Guest House is a nice place.", "Is the wifi good?"]
    assert [e.name for e in tracker.track(turns)] == ["ACORN GUEST HOUSE"]
    turns = ["Tell me about the ashley hotel", "It is in the north.",
             "Also, how about the golden curry and meze bar?", "Sure.", "Which has the better food?"]
    assert {e.name for e in tracker.track(turns)} == {"THE GOLDEN CURRY", "MEZE BAR"}
    assert tracker.track(["hello", "hi, how can I help?"]) == []


def test_tracking_is_fuzzy_but_strict(tracker: EntityTracker) -> None:
    # one wrong letter in a long name still matches (ratio ≥ 0.95); in a short name it does not
    assert [e.name
            for e in tracker.track(["is the univercity arms hotel quiet?"])] == ["UNIVERSITY ARMS HOTEL"]
    assert tracker.track(["is gonvile quiet?"]) == []
    assert [e.name for e in tracker.track(["what do people say about nando's?"])] == ["NANDOS"]
    assert [e.name for e in tracker.track(["is the Lensfield noisy?"])] == ["THE LENSFIELD HOTEL"]
    assert tracker.track(["I like gardens"]) == []  # "yu garden" needs both words


def _ops(texts: list[str], question: str) -> list[Opinion]:
    gen = TemplateGenerator()
    snips = [ScoredSnippet(Snippet("hotel", 1, "review", i, 0, t, "TEST HOUSE"), 0.9) for i,
             t in enumerate(texts)]
    return gen.opinions(question, snips)[0]


NEGATIVE = ["The wifi kept dropping all evening.", "Internet was painfully slow and unreliable.",
            "The wifi did not work in our room, which was frustrating.",
            "Terrible connection, I gave up on it."]


def _snips(texts: list[str]) -> list[ScoredSnippet]:
    return [ScoredSnippet(Snippet("hotel", 1, "review", i, 0, t, "TEST HOUSE"), 0.9)
            for i, t in enumerate(texts)]


def test_all_negative_never_claims_positive_majority() -> None:
    ops = _ops(NEGATIVE, "Is the wifi good?")
    assert all(o.label == "negative" for o in ops), [(o.clause, o.compound) for o in ops]
    for seed in range(30):
        text = TemplateGenerator(seed).generate("Is the wifi good?", _snips(NEGATIVE)).text
        assert text.startswith("No, "), text
        for word in ("positive", "happy", "praise", "liked", "good", "most guests"):
            assert not re.search(rf"\b{word}\b", text.lower()), text


def test_mixed_opinions_state_majority_and_minority() -> None:
    texts = ["The wifi was fast and reliable.", "Great internet, I streamed films.", "Wifi worked perfectly.",
             "The wifi kept dropping."]
    ops = _ops(texts, "How is the wifi?")
    assert [o.label for o in ops] == ["positive", "positive", "positive", "negative"]
    out = {TemplateGenerator(s).generate("Is the wifi good at Test House?", _snips(texts)).text
           for s in range(30)}
    assert len(out) >= 2  # varied wording
    for t in out:
        assert re.search(r"\b(?:most(?:ly)?|majority)\b", t.lower()), t
        assert re.search(r"\bone (?:guest|person)\b", t.lower()), t
        assert t.startswith("Yes, "), t


def test_aspect_aware_clause() -> None:
    s = Sentiment()
    label, _, clause = s.score("The breakfast was lovely, but the wifi was painfully slow.",
                               frozenset({"wifi"}))
    assert label == "negative" and "wifi" in clause
    label, _, _ = s.score("The breakfast was lovely, but the wifi was painfully slow.",
                          frozenset({"breakfast"}))
    assert label == "positive"


def test_generate_mentions_entities_and_faq() -> None:
    gen = TemplateGenerator()
    snips = [ScoredSnippet(Snippet("hotel", 1, "faq", 0, None, "Pets? No, pets are not allowed.",
                                   "TEST HOUSE", "No, pets are not allowed."), 0.9)]
    ans = gen.generate("Can I bring my dog?", snips)
    assert ans.text.startswith("No, pets are not allowed.")  # one venue: its answer as it is
    other = ScoredSnippet(Snippet("hotel", 2, "faq", 0, None, "Pets? Yes, dogs are welcome.", "PEAR LODGE",
                                  "Yes, dogs are welcome."), 0.8)
    both = gen.generate("Can I bring my dog?", [*snips, other]).text
    assert "Test House: No, pets are not allowed." in both and "Pear Lodge: Yes, dogs are welcome." in both


def test_embedded_kb_has_no_repeated_sentences_and_is_rebuilt_exactly(kb: KnowledgeBase) -> None:
    import importlib.util

    from parley.assets import asset_path

    reviews = [s.text for s in kb if s.doc_type == "review"]
    assert len(reviews) > 3000 and len(set(reviews)) == len(reviews)
    spec = importlib.util.spec_from_file_location("build_kb", asset_path("sktod", "build_kb.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    on_disk = json.loads(asset_path("sktod", "knowledge.json").read_text(encoding="utf-8"))
    assert module.build() == on_disk  # knowledge.json is what build_kb.py writes, nothing edited by hand


def test_embedded_kb_agrees_with_the_database(kb: KnowledgeBase) -> None:
    from parley.engine.sktod.aspects import aspects_of

    db = load_db()
    for e in kb.entities():
        texts = [s.text for s in kb.snippets(e.domain, e.entity_id) if s.doc_type == "review"]
        if e.domain == "restaurant":
            assert any("food" in aspects_of(t) for t in texts), e.name  # every restaurant's food is reviewed
        row = db.find(e.domain, e.name.lower())
        if e.domain == "hotel" and row.get("internet") == "no":
            ops = Sentiment()
            praise = [t for t in texts if "wifi" in aspects_of(t) and ops.score(t, frozenset({"wifi"}))[0]
                      == "positive"]
            assert not praise, (e.name, praise)
