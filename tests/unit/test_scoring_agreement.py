"""One scoring of system mentions: ``parley run``'s Inform/Success and ``parley score --mwzeval-file`` on the
run's own ``--mwzeval-out`` give every dialogue the same verdict — also when replies hold placeholders a
system left unfilled (``[train_id]``, ``[restaurant_phone]``: shown to the user, they give nothing).

The corpus is tests/unit/golden/score_corpus.json (written for the tests); the replies below are our own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.engine.scoring import mwzeval_file
from parley.engine.scoring.corpus import load_corpus, to_mwzeval
from parley.engine.scoring.multiwoz import EvalTurn, score_dialogue
from parley.engine.types import Message, SystemTurn

CORPUS = Path(__file__).parent / "golden" / "score_corpus.json"
TRAIN = {"train": {"departure": "cambridge", "destination": "ely", "day": "friday", "leaveAt": "21:00"}}
FOOD = {"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap"}}
#: first user words → (reply, state) per turn; every reply leaves a placeholder unfilled
SCRIPTS: dict[str, list[tuple[str, dict[str, dict[str, str]]]]] = {
    "hello": [("[restaurant_name] is a cheap chinese place, I have [value_count] of them.", FOOD),
              ("Booked at Charlie Chan, reference [restaurant_reference], phone [restaurant_phone].",
               {"restaurant": {**FOOD["restaurant"], "book_people": "2"}})],
    "i need": [("[train_id] leaves at 21:50, shall I book it?", TRAIN),
               ("Goodbye, your train is [value_id].", TRAIN)],
    "please": [("A [taxi_car] will pick you up, call [taxi_phone].", {"taxi": {"leaveAt": "17:00"}})],
}


class Leftovers:
    """A scripted system whose replies keep raw placeholders (registered for the CLI below)."""

    name = "leftovers"

    def __init__(self, **_: Any) -> None:
        self.loaded = True

    def load(self, progress: Any = None) -> None:
        return None

    def reset(self, seed: int | None = None) -> None:
        return None

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        users = [m.text for m in history if m.role == "user"]
        script = next(v for k, v in SCRIPTS.items() if users[0].startswith(k))
        text, state = script[min(len(users), len(script)) - 1]
        return SystemTurn(text=text, state=state)


def _file_verdicts(outputs: dict[str, Any], tmp: Path) -> dict[str, Any]:
    path = tmp / "pred.json"
    path.write_text(json.dumps(outputs), encoding="utf-8")
    return mwzeval_file.score(mwzeval_file.read(path), load_corpus(CORPUS))


def test_run_and_mwzeval_file_agree_on_a_run_with_leftover_placeholders(tmp_path: Path,
                                                                         monkeypatch: Any) -> None:
    from parley.cli import main
    from parley.engine.registry import Entry
    from parley.engine.scoring.stored import score_session
    from parley.engine.systems import SYSTEMS
    from parley.store import open_store

    entry = Entry("leftovers", f"{__name__}:Leftovers", "scripted replies with unfilled placeholders")
    monkeypatch.setitem(SYSTEMS._entries, "leftovers", entry)
    out, db = tmp_path / "out.json", tmp_path / "r.db"
    res = CliRunner().invoke(main, ["run", "--system", "leftovers", "--dialogues", str(CORPUS), "--db",
                                    str(db), "--json", "--bootstrap", "0", "--mwzeval-out", str(out),
                                    "--workers", "1", "--backend", "thread"])
    assert res.exit_code == 0, res.output
    run = json.loads(res.stdout)["conditions"]["original"]
    res = CliRunner().invoke(main, ["score", "--mwzeval-file", str(out), "--dialogues", str(CORPUS),
                                    "--json"])
    assert res.exit_code == 0, res.output
    scored = json.loads(res.stdout)
    assert (scored["inform"], scored["success"]) == (run["inform"], run["success"])
    store = open_store(db)
    per_session = {}
    for rec in store.sessions(mode="batch"):
        s = score_session(store, rec.id)
        assert s is not None
        per_session[(rec.source or "").rsplit("#", 1)[1].lower()] = (s.inform, s.success)
    assert per_session == {k: (v["inform"], v["success"]) for k, v in scored["dialogues"].items()}
    # the train was never named (only "[train_id]"): not offered, so no Inform for the train goal
    assert per_session["auth0002"] == (False, False)
    assert "[train_id]" not in out.read_text(encoding="utf-8")  # an unfilled placeholder is no mention


_WORDS = ["[train_id]", "[value_count]", "[restaurant_phone]", "[name]", "[hotel_name]s", "[value_reference]",
          "TR9842", "charlie chan", "01223361763", "QX12TY34", "cb21ab", "reference", "is", "the", "[", "]",
          "82 arbury road", "rice house", "at", "21:50", "[[phone]]", "[ref]erence"]
_STATES = st.sampled_from([{}, TRAIN, FOOD, {"restaurant": {"book_people": "2"}},
                           {"train": {"destination": "Ely ", "day": "friday"}}, {**TRAIN, **FOOD}])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(_WORDS), max_size=8), _STATES), min_size=1, max_size=4),
       st.sampled_from(["AUTH0001", "AUTH0002", "AUTH0003"]))
def test_lexicalised_and_exported_scoring_agree(turns: Sequence[tuple[list[str], dict[str, Any]]],
                                                 did: str) -> None:
    """Any reply text and state: scoring the lexicalised turns and scoring their mwzeval export (through a
    JSON file) give the same verdict."""
    import tempfile

    ref = next(c for c in load_corpus(CORPUS) if c.id == did)
    evals = [EvalTurn(" ".join(words), state) for words, state in turns]
    direct = score_dialogue(ref.goal, evals, booked=ref.booked or None).to_json()
    with tempfile.TemporaryDirectory() as tmp:
        exported = _file_verdicts(to_mwzeval({did: evals}), Path(tmp))["dialogues"][did.lower()]
    assert (direct["inform"], direct["success"]) == (exported["inform"], exported["success"])
    assert direct["domains"] == exported["domains"]
