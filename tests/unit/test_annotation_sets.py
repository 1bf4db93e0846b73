"""Pointing `parley rate` at a set (selection by source, mode, system, condition, session), skipping with a
reason, and balanced assignments (store.selection, store.annotation, store.assign)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.cli import main
from parley.store import open_store
from parley.store.annotation import Annotation, AnnotationError
from parley.store.assign import AssignError, assign, rater_progress
from parley.store.imports import import_file
from parley.store.records import DialogueRating, SessionRecord, TurnRecord
from parley.store.selection import Selection, SelectionError, select
from tests.tui.annotate_fixtures import corpus_store, study_file


def study(tmp_path: Path):  # type: ignore[no-untyped-def]
    store = open_store(tmp_path / "s.db")
    import_file(store, study_file(tmp_path / "study.jsonl"), "jsonl")
    import_file(store, tmp_path / "mini.json", "multiwoz") if (tmp_path / "mini.json").exists() else None
    return store


def test_selection_by_each_field(tmp_path: Path) -> None:
    corpus_store(tmp_path)  # mini.json: 2 dialogues, mode annotation, system multiwoz-corpus
    store = study(tmp_path)
    ids = lambda **kw: [c.id for c in select(store, Selection(**kw))]  # noqa: E731
    assert len(ids()) == 8
    assert len(ids(sources=("mini.json",))) == 2 and len(ids(sources=("dialogues.json",))) == 6
    assert len(ids(sources=("dialogues.json#D2",))) == 2 and len(ids(sources=("*.json#D?",))) == 6
    assert len(ids(modes=("annotation",))) == 2 and len(ids(modes=("batch", "annotation"))) == 8
    assert len(ids(systems=("multiwoz",))) == 6 and len(ids(systems=("multiwoz*",))) == 8
    assert len(ids(conditions=("impolite",))) == 3 and len(ids(conditions=("original",))) == 5
    assert len(ids(conditions=("impolite",), sources=("dialogues.json#D1",))) == 1
    one, mine = ids()[3], ids(sources=("mini.json",))[0]
    assert ids(sessions=(one,)) == [one] and ids(sessions=(mine[:8], one)) == sorted(
        [one, mine], key=ids().index)
    with pytest.raises(SelectionError, match="no session"):
        ids(sessions=("nope",))
    with pytest.raises(SelectionError, match="several"):
        ids(sessions=("5e55",))
    ann = Annotation(store, "x", selection=Selection(conditions=("impolite",)))
    assert ann.queue == ids(conditions=("impolite",)) and not ann.blind


def test_sessions_without_a_rateable_turn_are_never_selected(tmp_path: Path) -> None:
    store = open_store(tmp_path / "e.db")
    s = store.add_session(SessionRecord(mode="live"))
    store.add_turn(TurnRecord(s.id, 0, "user", "hello"))
    store.add_turn(TurnRecord(s.id, 1, "system", " \n "))
    assert select(store, Selection()) == []


def test_rate_options_select_and_say_so_when_nothing_matches(tmp_path: Path) -> None:
    store = study(tmp_path)
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path), "--rater", "a", "--condition", "nothing"])
    assert r.exit_code == 2 and "no dialogues that the options select" in r.output
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path), "--rater", "a", "--session", "zz"])
    assert r.exit_code == 2 and "--session 'zz': no session" in r.output
    ann = Annotation(store, "a", selection=Selection(sources=("dialogues.json#D3",)))
    for sid in ann.queue:
        for t in ann.dialogue(sid).rated:
            ann.rate_turn(t, 1, 1)
        ann.rate_dialogue(DialogueRating(sid, "a", 1, 1, 1, 0, 1, "poor"))
    r = CliRunner().invoke(main, ["--db", str(store.path), "rate", "--rater", "a", "--source",
                                  "dialogues.json#D3", "--mode", "batch", "--system", "multiwoz"])
    assert r.exit_code == 0 and "rated or skipped all 2 dialogue(s)" in r.output


def test_skip_with_a_reason_is_stored_and_leaves_the_queue(tmp_path: Path) -> None:
    store = study(tmp_path)
    ann = Annotation(store, "a")
    first, second = ann.queue[:2]
    with pytest.raises(AnnotationError, match="say why"):
        ann.skip(first, "  ")
    ann.skip(first, "the user turns are not English")
    assert Annotation(store, "a").current() == second
    assert ann.skipped() == {first: "the user turns are not English"}
    rows = {r.session_id: r for r in ann.progress()}
    assert rows[first].skipped == "the user turns are not English" and rows[second].skipped is None
    assert (rows[first].total_turns, rows[first].rated_turns) == (2, 0)
    for t in ann.dialogue(second).rated:
        ann.rate_turn(t, 2, 2)
    ann.rate_dialogue(DialogueRating(second, "a", 2, 2, 2, 1, 3, "ok"))
    with pytest.raises(AnnotationError, match="rated already"):
        ann.skip(second, "changed my mind")
    assert [r.rated_turns for r in Annotation(store, "a", turns=1).progress()][:2] == [0, 1]


def test_assign_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    store = study(tmp_path)
    with pytest.raises(AssignError, match="give the raters"):
        assign(store, [" ", ""])
    with pytest.raises(AssignError, match="--per-dialogue"):
        assign(store, ["a", "b"], per_dialogue=3)
    assert rater_progress([store]) == []


def test_assign_with_overlap_and_appending(tmp_path: Path) -> None:
    store = study(tmp_path)
    first = assign(store, ["a", "b", "c"], Selection(conditions=("original",)), per_dialogue=2, seed=4)
    assert first.total == 6 and sorted(sum(v.values()) for v in first.added.values()) == [2, 2, 2]
    later = assign(store, ["a", "b", "c"], per_dialogue=2, seed=4)  # the impolite ones are added
    assert later.already == 3 and later.total == 6
    rows = store.db.execute("SELECT rater, session_id, position FROM assignments").fetchall()
    per_session = Counter(s for _, s, _ in rows)
    assert set(per_session.values()) == {2} and len(per_session) == 6
    for rater in "abc":
        positions = sorted(p for r, _, p in rows if r == rater)
        assert positions == list(range(1, len(positions) + 1)) and len(positions) == 4


def _synthetic(tmp_path: Path, strata: list[int]):  # type: ignore[no-untyped-def]
    store = open_store(tmp_path / f"syn{'-'.join(map(str, strata))}-{len(list(tmp_path.iterdir()))}.db")
    for k, n in enumerate(strata):
        for i in range(n):
            s = store.add_session(SessionRecord(mode="batch", system_name="sys", condition={"name": f"c{k}"},
                                                source=f"corpus.json#d{i}"))
            store.add_turn(TurnRecord(s.id, 0, "user", "hi"))
            store.add_turn(TurnRecord(s.id, 1, "system", "hello"))
    return store


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(strata=st.lists(st.integers(min_value=0, max_value=7), min_size=1, max_size=4)
       | st.tuples(st.integers(min_value=1, max_value=7), st.integers(min_value=1, max_value=4)).map(
           lambda nk: [nk[0]] * nk[1]),
       raters=st.integers(min_value=1, max_value=4), seed=st.integers(min_value=0, max_value=10),
       overlap=st.integers(min_value=1, max_value=3))
def test_assignments_are_balanced_per_condition_and_in_all(tmp_path: Path, strata: list[int], raters: int,
                                                           seed: int, overlap: int) -> None:
    folder = tmp_path / f"{seed}-{raters}"
    folder.mkdir(exist_ok=True)
    store = _synthetic(folder, strata)
    names = [f"r{i}" for i in range(raters)]
    per_dialogue = min(overlap, raters)
    report = assign(store, names, seed=seed, per_dialogue=per_dialogue)
    assert report.total == per_dialogue * sum(strata)
    held = Counter(r[0] for r in store.db.execute("SELECT session_id FROM assignments"))
    assert set(held.values()) <= {per_dialogue}  # every dialogue has its raters, all different (primary key)
    totals = [sum(report.added[r].values()) for r in names]
    assert max(totals) - min(totals) <= 1
    for k in range(len(strata)):
        per = [report.added[r].get(f"sys / c{k}", 0) for r in names]
        assert max(per) - min(per) <= 1
    if raters >= len(strata) and per_dialogue == 1 and len(set(strata)) == 1:
        # a paired design (each corpus dialogue under every condition) and enough raters: nobody gets two
        # versions of one corpus dialogue
        rows = store.db.execute("SELECT a.rater, s.source FROM assignments a JOIN sessions s "
                                "ON s.id = a.session_id").fetchall()
        assert len(rows) == len(set(rows))
    assert assign(store, names, seed=seed, per_dialogue=per_dialogue).total == 0
    store.close()


def test_tester_given_before_rate_is_the_rater(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_TESTER", "ann")  # the settings' tester
    store = study(tmp_path)
    zed = Annotation(store, "zed")
    for sid in zed.queue:
        zed.skip(sid, "not mine to judge")
    store.close()
    import parley.tui.launch

    def launch(ann: Annotation, **_: object) -> None:
        raise AssertionError(f"the rating screen opened for {ann.rater!r}")

    monkeypatch.setattr(parley.tui.launch, "rate", launch)
    r = CliRunner().invoke(main, ["--tester", "zed", "--db", str(tmp_path / "s.db"), "rate"],
                           catch_exceptions=False)
    assert r.exit_code == 0 and "zed has rated or skipped all 6 dialogue(s)" in r.output, r.output
