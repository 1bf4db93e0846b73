"""Corpus replay, stored-session scoring, mwzeval export, goal cards and the ``parley run --json`` golden
output.

The corpus is tests/unit/golden/score_corpus.json: three dialogues written for these tests (facts from the
bundled MultiWOZ DB only)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from parley.engine.scoring.corpus import CorpusError, load_corpus, state_from_metadata, to_mwzeval
from parley.engine.scoring.multiwoz import EvalTurn, score_dialogue
from parley.engine.scoring.replay import dialogue_seed, replay, summarise
from parley.engine.scoring.stored import score_session, score_stored
from parley.engine.systems.echo import EchoSystem
from parley.store import open_store
from tests.unit.goldens import check_golden

GOLDEN = Path(__file__).parent / "golden"
CORPUS = GOLDEN / "score_corpus.json"


def test_load_corpus_json_and_zip(tmp_path: Path) -> None:
    dias = load_corpus(CORPUS)
    assert [d.id for d in dias] == ["AUTH0001", "AUTH0002", "AUTH0003"]
    d = dias[0]
    assert len(d.user_turns) == len(d.system_turns) == 2
    assert d.gold_states[0] == {"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap"}}
    assert d.booked == ((), ("restaurant",))
    zpath = tmp_path / "c.json.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        zf.write(CORPUS, "test.json")
    assert [x.id for x in load_corpus(zpath, limit=2)] == ["AUTH0001", "AUTH0002"]
    assert [x.id for x in load_corpus(zpath, ids=["auth0003"])] == ["AUTH0003"]
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(CorpusError, match="expected an object"):
        load_corpus(bad)
    with pytest.raises(CorpusError, match="no such file"):
        load_corpus(tmp_path / "missing.json")


def test_gold_state_mapping() -> None:
    meta = {"hotel": {"book": {"booked": [], "stay": "2", "day": ""}, "semi": {"area": "North", "type":
                                                                             "not mentioned"}},
            "train": {"book": {"booked": []}, "semi": {"leaveAt": "9:15"}}}
    assert state_from_metadata(meta) == {
        "hotel": {"area": "north", "book_stay": "2"},
        "train": {"leaveAt": "09:15"},
    }


def test_corpus_scores_itself() -> None:
    for d in load_corpus(CORPUS):
        turns = [EvalTurn(r, s) for r, s in zip(d.system_turns, d.gold_states, strict=True)]
        s = score_dialogue(d.goal, turns, booked=d.booked)
        assert s.inform and s.success, d.id


def test_replay_stores_one_batch_session_per_dialogue_and_condition(tmp_path: Path) -> None:
    store = open_store(tmp_path / "r.db")
    corpus = load_corpus(CORPUS)
    seen: list[tuple[str, int, int]] = []
    runs = replay(
        corpus,
        EchoSystem(),
        store,
        conditions=["original", "disfluency"],
        system_spec="echo",
        seed=5,
        source="corpus.json",
        progress=lambda n, k, t: seen.append((n, k, t)),
    )
    assert [r.name for r in runs] == ["original", "disfluency"]
    sessions = store.sessions(mode="batch")
    assert len(sessions) == 6
    by_cond: dict[str, list[str]] = {}
    for s in sessions:
        by_cond.setdefault(s.condition["name"], []).append(s.source or "")
        assert s.goal and s.system_name == "echo"
    assert sorted(by_cond) == ["disfluency", "original"]
    assert sorted(by_cond["original"]) == [
        "corpus.json#AUTH0001",
        "corpus.json#AUTH0002",
        "corpus.json#AUTH0003",
    ]
    # conditions are paired: the same dialogue gets the same seed
    seeds = {(s.source, s.condition["name"]): s.seed for s in sessions}
    assert seeds[("corpus.json#AUTH0001", "original")] == seeds[("corpus.json#AUTH0001", "disfluency")] == \
        dialogue_seed(5, "AUTH0001")
    assert len(store.turns(sessions[0].id)) == 2 * len(corpus[[d.id for d in corpus].index(
        sessions[0].source.split("#")[1])].user_turns)
    assert seen[-1] == ("disfluency", 3, 3)
    # the echo system never offers a venue: only the taxi dialogue informs; no phone, so nothing succeeds
    assert runs[0].metrics is not None
    assert (runs[0].metrics.inform, runs[0].metrics.success) == (pytest.approx(100 / 3), 0.0)


def test_stored_sessions_score_like_the_replay(tmp_path: Path) -> None:
    store = open_store(tmp_path / "r.db")
    corpus = load_corpus(CORPUS)
    runs = replay(corpus, EchoSystem(), store, system_spec="echo", source=str(CORPUS))
    res = score_stored(store)
    row = res["conditions"]["echo / original"]
    assert row["n"] == 3 and row["mode"] == "batch"
    assert runs[0].metrics is not None
    assert row["inform"] == round(runs[0].metrics.inform, 2)
    assert row["bleu"] == round(runs[0].metrics.bleu or 0.0, 2)  # references found through the source path
    sid = runs[0].dialogues[2].session_id
    s = score_session(store, sid)
    assert s is not None and s.inform and not s.success


def test_live_session_with_a_goal_card_is_scored(tmp_path: Path) -> None:
    from parley.engine.scoring.goals import make_goal
    from parley.engine.session import Session
    from parley.engine.types import Message, SystemTurn

    goal = {"restaurant": {"info": {"food": "chinese", "area": "centre", "pricerange": "cheap"},
                           "reqt": ["phone"]}, "message": ["find a cheap chinese place"], "id": "authored"}

    class Scripted:
        name = "scripted"

        def reset(self, seed: int | None = None) -> None:
            self.n = 0

        def respond(self, history: tuple[Message, ...]) -> SystemTurn:
            self.n += 1
            state = {"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap"}}
            text = "Rice House fits." if self.n == 1 else "Their phone is 01223367755."
            return SystemTurn(text, state=state, internals={"active_domain": "restaurant"})

    store = open_store(tmp_path / "live.db")
    s = Session(store, Scripted(), goal=goal, mode="live", seed=1)
    s.turn("a cheap chinese place in the centre please")
    s.turn("phone number?")
    score = score_session(store, s.id)
    assert score is not None and score.inform and score.success
    no_goal = Session(store, Scripted(), seed=2)
    no_goal.turn("hello")  # a session is stored with its first turn
    assert score_session(store, no_goal.id) is None
    g = make_goal("random", 7)
    assert g == make_goal("random", 7) and g["message"] and g["id"] == "random-7"


def test_random_goals_are_satisfiable() -> None:
    from parley.engine.mwdb import load_db
    from parley.engine.scoring.goals import GoalError, make_goal
    from parley.engine.scoring.multiwoz import canonical_state, goal_domains

    db = load_db()
    for seed in range(40):
        g = make_goal("random", seed)
        for d in goal_domains(g):
            if d != "taxi":
                assert db.query(d, canonical_state(d, g[d]["info"], db)), (seed, d, g[d])
            assert g[d]["reqt"]
    with pytest.raises(GoalError, match="PARLEY_MULTIWOZ"):
        make_goal("SNG0073")
    assert make_goal("AUTH0002", dialogues=CORPUS)["train"]["info"]["destination"] == "ely"
    with pytest.raises(GoalError, match="no dialogue"):
        make_goal("NOPE", dialogues=CORPUS)


def test_mwzeval_export_format() -> None:
    turns = [
        EvalTurn(
            "Charlie Chan is at Regent Street City Centre, call 01223361763.",
            {"restaurant": {"food": "chinese", "book_day": "friday"}, "train": {"leaveAt": "10:00"}},
            ("restaurant",),
        )
    ]
    out = to_mwzeval({"SNG0073.json": turns})
    assert out == {"sng0073": [{"response": "[name] is at [address], call [phone] .",
                                "state": {"restaurant": {"food": "chinese"}, "train": {"leaveat": "10:00"}},
                                "active_domains": ["restaurant"]}]}


def test_summary_drop_and_paired_ci() -> None:
    from parley.engine.scoring.replay import ConditionRun, ReplayedDialogue, score_run

    corpus = load_corpus(CORPUS)
    good = ConditionRun(
        "original",
        [
            ReplayedDialogue(
                d.id, "x", tuple(EvalTurn(r, s) for r, s in zip(d.system_turns, d.gold_states, strict=True))
            )
            for d in corpus
        ],
    )
    bad = ConditionRun(
        "noise",
        [ReplayedDialogue(d.id, "y", tuple(EvalTurn("sorry ?", {}) for _ in d.system_turns)) for d in corpus],
    )
    runs = [score_run(good, corpus), score_run(bad, corpus)]
    res = summarise(runs, corpus, n_boot=200, seed=1)["conditions"]
    assert res["original"]["combined"] == pytest.approx(200.0)
    assert res["original"]["drop"]["combined"] == 0.0
    noise = res["noise"]
    assert noise["success"] == 0.0 and noise["drop"]["success"] == 100.0
    lo, hi = noise["ci"]["delta"]["success"]
    assert lo == hi == -100.0  # every dialogue succeeds in one and fails in the other
    assert res["original"]["ci"]["inform"] == [100.0, 100.0]


def test_bootstrap_bleu_equals_sacrebleu() -> None:
    import numpy as np
    import sacrebleu

    from parley.engine.scoring.bootstrap import bleu_from_statistics, bleu_statistics

    hyps = [["the train leaves at ten", "thank you"], ["i booked it for you"]]
    refs = [["the train departs at ten", "thank you ."], ["i have booked it for you"]]
    stats = bleu_statistics(hyps, refs)
    flat_h = [h for d in hyps for h in d]
    flat_r = [r for d in refs for r in d]
    assert bleu_from_statistics(np.asarray(stats).sum(axis=0)) == pytest.approx(
        sacrebleu.corpus_bleu(flat_h, [flat_r]).score)


def test_run_cli_json_golden(tmp_path: Path) -> None:
    from parley.cli import main

    out = tmp_path / "mwz.json"
    res = CliRunner().invoke(main, ["run", "--system", "echo", "--dialogues", str(CORPUS), "--db",
                                    str(tmp_path / "r.db"), "--json", "--bootstrap", "200", "--seed", "3",
                                    "--mwzeval-out", str(out), "--html", str(tmp_path / "r.html")])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    golden = GOLDEN / "score_run.json"
    check_golden(golden, got)
    assert set(got["conditions"]["original"]) >= {"inform", "success", "bleu", "combined", "n", "drop", "ci"}
    assert sorted(json.loads(out.read_text())) == ["auth0001", "auth0002", "auth0003"]
    assert "MultiWOZ scores" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_run_cli_errors(tmp_path: Path) -> None:
    from parley.cli import main

    r = CliRunner().invoke(main, ["run", "--system", "echo", "--dialogues", str(tmp_path / "no.json")])
    assert r.exit_code == 2 and "no such file" in r.output
    r = CliRunner().invoke(
        main, ["run", "--system", "echo", "--dialogues", str(CORPUS), "--condition", "bogus"]
    )
    assert r.exit_code == 2 and "unknown rewriter" in r.output
    r = CliRunner().invoke(main, ["run", "--system", "nope", "--dialogues", str(CORPUS)])
    assert r.exit_code == 2 and "unknown system" in r.output


def test_score_multiwoz_cli_json_golden(tmp_path: Path) -> None:
    from parley.cli import main
    from parley.engine.types import Message, SystemTurn

    class Deaf:
        """Ignores what the user says, so the golden file does not depend on any rewriter's wording."""

        name = "deaf"

        def reset(self, seed: int | None = None) -> None:
            self.n = 0

        def respond(self, history: tuple[Message, ...]) -> SystemTurn:
            self.n += 1
            return SystemTurn(
                "charlie chan is cheap . the phone number is 01223361763 ."
                if self.n == 1
                else "you are welcome , goodbye .",
                state={"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap"}},
            )

    db = tmp_path / "r.db"
    store = open_store(db)
    replay(load_corpus(CORPUS), Deaf(), store, system_spec="deaf", source=str(CORPUS), seed=2,
           conditions=["original", "impolite:scenario=2"])
    store.close()
    res = CliRunner().invoke(
        main, ["score", "--db", str(db), "--multiwoz", "--json", "--dialogues", str(CORPUS)]
    )
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["multiwoz"]["conditions"]["deaf / original"]["n"] == 3
    check_golden(GOLDEN / "score_multiwoz.json", got)
