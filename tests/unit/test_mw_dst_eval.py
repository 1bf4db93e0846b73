"""Gold-state mapping and JGA / slot F1 of engine.systems.mw.dst_eval."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from parley.engine.mwdb import load_db
from parley.engine.systems.mw.dst_eval import (
    DstScores,
    evaluate,
    gold_state,
    iter_turns,
    load_multiwoz,
    name_mapper,
    normalise_state,
    normalise_value,
)

META = {
    "restaurant": {"book": {"booked": [{"name": "x", "reference": "ABC"}], "time": "18:30", "day": "",
                            "people": "4"},
                   "semi": {"food": "not mentioned", "pricerange": "cheap", "name": "The Lucky Star",
                            "area": "center"}},
    "hotel": {"book": {"booked": [], "stay": "", "day": "", "people": ""},
              "semi": {"parking": "free", "type": "guest house", "internet": "do n't care", "stars": ""}},
    "attraction": {"book": {"booked": []}, "semi": {"type": "swimming pool", "name": "", "area": "none"}},
    "police": {"book": {"booked": []}, "semi": {}},
}


def test_gold_state_mapping() -> None:
    assert gold_state(META) == {
        "restaurant": {"pricerange": "cheap", "name": "lucky star", "area": "centre", "book_time": "18:30",
                       "book_people": "4"},
        "hotel": {"parking": "yes", "type": "guesthouse", "internet": "dontcare"},
        "attraction": {"type": "swimmingpool"},
    }


def test_values_normalised_alike() -> None:
    assert normalise_value("train", "leaveAt", "5:15") == "05:15"
    assert normalise_value("hotel", "area", "not mentioned") is None
    assert normalise_value("attraction", "type", "multiple sports") == normalise_value("attraction", "type",
                                                                                      "mutliple sports")
    names = name_mapper(load_db())
    assert normalise_value("hotel", "name", "the gonvile hotel", names) == normalise_value(
        "hotel", "name", "gonville hotel", names)


def test_scores() -> None:
    s = DstScores()
    gold = gold_state(META)
    assert s.add(normalise_state({"restaurant": dict(gold["restaurant"]), "hotel": dict(gold["hotel"]),
                                  "attraction": {"type": "swimming pool"}}), gold)
    wrong = {"restaurant": {"pricerange": "expensive"}}
    assert not s.add(wrong, gold)
    assert s.turns == 2 and s.jga == 0.5
    n = sum(len(v) for v in gold.values())
    assert s.tp == n and s.fp == 1 and s.fn == n
    assert s.precision == pytest.approx(n / (n + 1))
    assert s.recall == pytest.approx(0.5)
    assert 0 < s.f1 < 1


def test_evaluate_on_a_tiny_corpus(tmp_path: Path) -> None:
    dia = {"log": [
        {"text": "a cheap place to eat in the centre", "metadata": {}},
        {"text": "what food?", "metadata": {"restaurant": {"book": {"booked": []},
                                                           "semi": {"pricerange": "cheap",
                                                                    "area": "centre"}}}},
        {"text": "italian", "metadata": {}},
        {"text": "ok", "metadata": {"restaurant": {"book": {"booked": []},
                                                   "semi": {"pricerange": "cheap", "area": "centre",
                                                            "food": "italian"}}}},
    ]}
    path = tmp_path / "t.json.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("t.json", json.dumps({"D1": dia}))
    data = load_multiwoz(path)
    assert [u for _, u, _, _ in iter_turns(data["D1"])] == ["a cheap place to eat in the centre", "italian"]

    def tracker(did: str, history: tuple[tuple[str, str], ...]) -> dict:
        state = {"restaurant": {"pricerange": "cheap", "area": "centre"}}
        if len(history) > 1:
            state["restaurant"]["food"] = "italian"
        return state

    scores = evaluate(tracker, data)
    assert scores.turns == 2 and scores.jga == 1.0 and scores.f1 == 1.0


def test_real_corpus_loads(shared_data: Path) -> None:
    data = load_multiwoz(shared_data / "multiwoz" / "convlab3" / "test.json.zip")
    assert len(data) == 1000
    first = next(iter(data.values()))
    assert all(isinstance(g, dict) for _, _, _, g in iter_turns(first))
