"""SK-TOD with the bundled MiniLM (slow): selection, the pipeline, training a model folder, the system, the
CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from parley.engine.sktod.aspects import aspects_of
from parley.engine.sktod.knowledge import load_knowledge
from parley.engine.types import Message, SystemTurn

pytestmark = pytest.mark.slow

ASPECT_QUESTIONS = {
    "wifi": "Is the wifi reliable at {n}?",
    "breakfast": "How good is the breakfast at {n}?",
    "parking": "Is parking easy at {n}?",
    "staff": "Are the staff at {n} friendly?",
    "food": "Is the food tasty at {n}?",
    "price": "Is {n} good value for money?",
}
ORDINARY = ["I need a train to London on friday.", "Book a table for two at 19:00 please.",
            "What is the postcode?", "Thanks, that is all.", "I want a cheap hotel in the north.",
            "Can you get me a taxi to the station?"]


@pytest.fixture(scope="module")
def pipeline():
    from parley.engine.sktod.pipeline import Pipeline

    p = Pipeline()
    p.load()
    return p


def synthetic_data() -> tuple[list, list]:
    """DSTC11-format logs/labels over the embedded KB: aspect questions with gold = sentences on that
    aspect."""
    kb = load_knowledge()
    logs, labels = [], []
    for e in kb.entities():
        title = e.name.title()
        for aspect, q in ASPECT_QUESTIONS.items():
            gold = [s.ref() for s in kb.snippets(e.domain, e.entity_id)
                    if s.doc_type == "review" and aspect in aspects_of(s.text)]
            if not gold:
                continue
            logs.append([{"speaker": "U", "text": f"Tell me about {title}."},
                         {"speaker": "S", "text": f"{title} is a lovely place."},
                         {"speaker": "U", "text": q.format(n="it")}])
            labels.append({"target": True, "knowledge": gold, "response": f"Guests talk about the {aspect}."})
        for t in ORDINARY:
            logs.append([{"speaker": "U", "text": f"I am staying at {title}."},
                         {"speaker": "S", "text": "OK."}, {"speaker": "U", "text": t}])
            labels.append({"target": False})
    return logs, labels


def test_cosine_selection_on_embedded_kb(pipeline) -> None:
    kb = load_knowledge()
    acorn = next(e for e in kb.entities() if e.name == "ACORN GUEST HOUSE")
    ranked = pipeline.selector.score("Is the wifi reliable?", kb.candidates([acorn]))
    chosen = pipeline.selector.select(ranked)
    assert chosen and len(chosen) < len(ranked)
    wifi = [s for s in chosen if "wifi" in aspects_of(s.snippet.text)]
    assert len(wifi) >= len(chosen) / 2
    assert ranked[0].score >= ranked[-1].score


def test_pipeline_answers_review_questions(pipeline) -> None:
    pred = pipeline.predict(["Tell me about the Acorn Guest House.", "It is a guesthouse in the north.",
                             "Is the wifi reliable there?"])
    assert pred.target
    assert [e.name for e in pred.entities] == ["ACORN GUEST HOUSE"]
    assert pred.selected and "Acorn Guest House" in pred.response
    label = pred.to_label()
    assert label["target"] is True and label["knowledge"][0]["entity_id"] == pred.entities[0].entity_id
    info = pred.internals()
    assert info["snippets"][0]["sentiment"] in {"positive", "negative", "neutral"}
    assert info["entities"][0]["name"] == "ACORN GUEST HOUSE"


def test_pipeline_leaves_ordinary_turns(pipeline) -> None:
    for t in ("I need a train from Cambridge to London on saturday.", "Please book it for 3 people.",
              "What is the phone number?"):
        assert not pipeline.predict([t]).target, t


def test_train_writes_loadable_model(tmp_path: Path, pipeline) -> None:
    from parley.engine.sktod.pipeline import Pipeline
    from parley.engine.sktod.train import train

    logs, labels = synthetic_data()
    out = tmp_path / "model"
    cfg = train(logs, labels, load_knowledge(), out, dev_fraction=0.3, hidden=16)
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "ktd.npz", "selection.npz"]
    assert cfg["selection"]["kind"] == "mlp" and 0 < cfg["selection"]["threshold"] < 1
    assert json.loads((out / "config.json").read_text())["format"] == "parley-sktod"
    p = Pipeline(model_dir=out)
    p.load()
    pred = p.predict(["Tell me about Meze Bar.", "Sure.", "Is the food tasty?"])
    assert pred.target and pred.entities[0].name == "MEZE BAR"
    assert not p.predict(["I need a train to London on friday."]).target


def test_bad_model_dir_is_a_load_error(tmp_path: Path) -> None:
    from parley.engine.sktod.pipeline import Pipeline
    from parley.engine.types import LoadError

    with pytest.raises(LoadError, match="config.json"):
        Pipeline(model_dir=tmp_path).load()


class StubBase:
    name = "stub"

    def __init__(self, seed=None) -> None:
        self.calls = 0

    def reset(self, seed=None) -> None:
        self.calls = 0

    def respond(self, history):
        self.calls += 1
        return SystemTurn(text="stub answer", state={"hotel": {"area": "north"}}, internals={"db": 3})


def test_system_branches(pipeline) -> None:
    from parley.engine.systems import build_system
    from parley.engine.systems.sktod import SKTODSystem

    sys_ = SKTODSystem(base=StubBase)
    sys_.reset(1)
    h = (Message("user", "I want a cheap hotel in the north."),)
    t = sys_.respond(h)
    assert t.text == "stub answer" and t.internals["branch"] == "multiwoz"
    assert t.internals["knowledge"]["ktd"]["fired"] is False
    h = h + (Message("system", t.text), Message("user", "Does the Ashley Hotel have good parking?"))
    t2 = sys_.respond(h)
    assert t2.internals["branch"] == "sktod"
    k = t2.internals["knowledge"]
    assert k["entities"][0]["name"] == "ASHLEY HOTEL" and k["snippets"]
    assert all({"text", "score", "sentiment"} <= set(s) for s in k["snippets"])
    assert t2.state == {"hotel": {"area": "north"}}
    json.dumps(t2.to_json())  # storable
    assert isinstance(build_system("sktod"), SKTODSystem)


def test_system_with_the_real_multiwoz_pipeline() -> None:
    from parley.engine.systems.sktod import SKTODSystem

    s = SKTODSystem(seed=0)
    s.reset(0)
    t = s.respond((Message("user", "I am looking for a cheap restaurant in the centre."),))
    assert t.text and t.internals["branch"] == "multiwoz"


def test_cli_run_and_train(tmp_path: Path) -> None:
    from parley.cli import main

    logs, labels = synthetic_data()
    lf, yf = tmp_path / "logs.json", tmp_path / "labels.json"
    lf.write_text(json.dumps(logs))
    yf.write_text(json.dumps(labels))
    kb_file = Path(load_knowledge().source)
    runner = CliRunner()
    res = runner.invoke(main, ["sktod", "train", "--logs", str(lf), "--labels", str(yf), "--knowledge",
                               str(kb_file), "--out", str(tmp_path / "m"), "--hidden", "8"])
    assert res.exit_code == 0, res.output
    out = tmp_path / "pred.json"
    res = runner.invoke(main, ["sktod", "run", "--logs", str(lf), "--out", str(out), "--limit", "12",
                               "--model", str(tmp_path / "m"), "--with-entities"])
    assert res.exit_code == 0, res.output
    preds = json.loads(out.read_text())
    assert len(preds) == 12 and any(p["target"] for p in preds)
    for p in preds:
        if p["target"]:
            assert {"knowledge", "response", "entities"} <= set(p)
            assert all(isinstance(k["entity_id"], int) for k in p["knowledge"])
        else:
            assert p == {"target": False}
    res = runner.invoke(main, ["sktod", "score", "--labels", str(yf), "--pred", str(out)])
    assert res.exit_code == 2  # 12 predictions for more labels: a clear error
    res = runner.invoke(main, ["sktod", "run", "--logs", str(tmp_path / "nope.json"), "--out", str(out)])
    assert res.exit_code == 2 and "not found" in res.output


def _tiny_checkpoint(tmp_path: Path, kind: str) -> Path:
    """A random-weight T5 or GPT-2 with the bundled MiniLM's tokenizer (exercises the real loading code)."""
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel, T5Config, T5ForConditionalGeneration

    from parley.engine.sktod.embed import bundled_minilm

    tok = AutoTokenizer.from_pretrained(str(bundled_minilm()))
    out = tmp_path / kind
    if kind == "t5":
        cfg = T5Config(vocab_size=tok.vocab_size, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                       decoder_start_token_id=tok.pad_token_id, pad_token_id=tok.pad_token_id,
                       eos_token_id=tok.sep_token_id)
        model = T5ForConditionalGeneration(cfg)
    else:
        cfg = GPT2Config(vocab_size=tok.vocab_size, n_embd=16, n_layer=1, n_head=2, n_positions=600,
                         eos_token_id=tok.sep_token_id, pad_token_id=tok.pad_token_id)
        model = GPT2LMHeadModel(cfg)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.mark.parametrize("kind", ["t5", "gpt2"])
def test_model_generator_by_path(tmp_path: Path, kind: str) -> None:
    from parley.engine.sktod.generation import ModelGenerator, absa_input
    from parley.engine.sktod.knowledge import ScoredSnippet

    path = _tiny_checkpoint(tmp_path, kind)
    gen = ModelGenerator(str(path), max_new_tokens=5)
    gen.load()
    kb = load_knowledge()
    snips = [ScoredSnippet(s, 0.9) for s in list(kb)[:3]]
    ans = gen.generate("Is the wifi good?", snips, ["Is the wifi good?"])
    assert isinstance(ans.text, str) and ans.text
    ops, asp = gen.templates.opinions("Is the wifi good?", snips)
    assert " is great." in absa_input(["hi"], ops, asp) or " is bad." in absa_input(["hi"], ops, asp) \
        or " is ok." in absa_input(["hi"], ops, asp)


def test_missing_generator_is_a_load_error(tmp_path: Path) -> None:
    from parley.engine.sktod.generation import ModelGenerator
    from parley.engine.types import LoadError

    with pytest.raises(LoadError, match="cannot load generator"):
        ModelGenerator(str(tmp_path / "nothing")).load()


def test_system_says_when_a_venue_has_no_reviews(pipeline) -> None:
    from parley.engine.systems.sktod import SKTODSystem

    class AvalonBase(StubBase):
        def respond(self, history):
            return SystemTurn(text="How about a guesthouse in the north?",
                              state={"hotel": {"name": "avalon"}})

    s = SKTODSystem(base=AvalonBase)
    s.reset(0)
    h = (Message("user", "I need a guesthouse in the north."),)
    t = s.respond(h)
    h = h + (Message("system", t.text), Message("user", "Is the wifi reliable there?"))
    t2 = s.respond(h)
    assert t2.internals["branch"] == "sktod"
    assert "reviews" in t2.text and "Avalon" in t2.text


def _tiny_classifier(tmp_path: Path, num_labels: int) -> Path:
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from parley.engine.sktod.embed import bundled_minilm

    tok = AutoTokenizer.from_pretrained(str(bundled_minilm()))
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, num_labels=num_labels)
    out = tmp_path / f"cls{num_labels}"
    BertForSequenceClassification(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


def test_ktd_classifier_and_cross_encoder_by_path(tmp_path: Path, pipeline) -> None:
    from parley.engine.sktod.pipeline import Pipeline

    p = Pipeline(ktd_classifier=str(_tiny_classifier(tmp_path, 2)),
                 cross_encoder=str(_tiny_classifier(tmp_path, 1)))
    p.load()
    assert p.detector.model.kind == "hf" and p.selector.model.kind == "cross"
    scores = p.detector.scores(["Is the wifi good?", "Book a taxi."])
    assert len(scores) == 2
    pred = p.predict(["Tell me about the Acorn Guest House.", "Sure.", "Is the wifi good?"], ktd_score=1.0)
    assert pred.target and pred.selected  # keep_best guarantees at least one snippet
    assert all(0.0 <= s.score <= 1.0 for s in pred.selected)


def test_train_tunes_a_cross_encoder_threshold(tmp_path: Path, pipeline) -> None:
    from parley.engine.sktod.pipeline import Pipeline
    from parley.engine.sktod.train import train

    ce = _tiny_classifier(tmp_path, 1)
    logs, labels = synthetic_data()
    cfg = train(logs[:60], labels[:60], load_knowledge(), tmp_path / "m", dev_fraction=0.5,
                cross_encoder=str(ce))
    assert cfg["selection"]["kind"] == "cross" and cfg["selection"]["cross_encoder"] == str(ce)
    assert not (tmp_path / "m" / "selection.npz").exists()
    p = Pipeline(model_dir=tmp_path / "m")
    p.load()
    assert p.selector.model.kind == "cross" and p.selector.model.threshold == cfg["selection"]["threshold"]


def test_system_says_when_no_review_mentions_the_asked_aspect(pipeline) -> None:
    """Arbury Lodge's reviews in the embedded KB never mention the wifi: no unrelated FAQ as the answer."""
    from parley.engine.sktod.aspects import aspects_of
    from parley.engine.systems.sktod import SKTODSystem

    class ArburyBase(StubBase):
        def respond(self, history):
            return SystemTurn(text="How about Arbury Lodge Guesthouse?",
                              state={"hotel": {"name": "arbury lodge"}})

    s = SKTODSystem(base=ArburyBase)
    s.reset(0)
    h = (Message("user", "I need a guesthouse in the north."),)
    t = s.respond(h)
    h = h + (Message("system", t.text), Message("user", "Is the wifi at Arbury Lodge Guesthouse reliable?"))
    t2 = s.respond(h)
    assert t2.internals["branch"] == "sktod"
    snippets = [x["text"] for x in t2.internals["knowledge"]["snippets"]]
    if not any("wifi" in aspects_of(x) for x in snippets):
        assert "mention the wifi" in t2.text
    else:  # the KB changed and now has wifi opinions: the answer must then be about the wifi
        assert "wifi" in t2.text.lower()
