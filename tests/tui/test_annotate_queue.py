"""The headless annotation queue (store.annotation) and the non-interactive paths of `parley rate`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.store.annotation import Annotation, AnnotationError, parse_turns
from parley.store.records import DialogueRating
from tests.tui.annotate_fixtures import corpus_store


def test_resume_point_comes_from_the_database(tmp_path):
    store = corpus_store(tmp_path)
    ann = Annotation(store, "ann")
    d1, d2 = ann.queue
    assert ann.current() == d1 and ann.next_turn(d1) == 0
    first, second, _ = ann.dialogue(d1).rated
    ann.rate_turn(first, None, 2)  # relevance not given: not complete
    assert ann.next_turn(d1) == 0
    ann.rate_turn(first, "n/a", 2)  # relevance not applicable completes the turn
    assert ann.next_turn(d1) == 1
    ann.rate_turn(second, 2, None)  # interestingness missing: not complete
    assert Annotation(store, "ann").next_turn(d1) == 1
    assert [p.rated_turns for p in ann.progress()] == [1, 0]


def test_lock_on_start_and_switchable(tmp_path):
    store = corpus_store(tmp_path)
    ann = Annotation(store, "ann")
    d1 = ann.queue[0]
    t = ann.dialogue(d1).rated[0]
    ann.rate_turn(t, 3, 3)
    ann.start_dialogue_rating(d1)
    with pytest.raises(AnnotationError, match="locked"):
        ann.rate_turn(t, 1, 1)
    loose = Annotation(store, "bo", lock_turn_ratings=False)
    loose.rate_turn(t, 1, 1)
    loose.start_dialogue_rating(d1)
    loose.rate_turn(t, 2, 2)  # still editable when locking is off
    loose.rate_dialogue(DialogueRating(d1, "bo", 2, 2, 2, 1, 3, "ok"))
    loose.rate_turn(t, 3, 2)
    assert {(r.rater, r.relevance) for r in store.turn_ratings()} == {("ann", 3), ("bo", 3)}


def test_scales_checked(tmp_path):
    ann = Annotation(corpus_store(tmp_path), "ann")
    t = ann.dialogue(ann.queue[0]).rated[0]
    with pytest.raises(AnnotationError, match="relevance must be 1-3"):
        ann.rate_turn(t, 4, 1)
    with pytest.raises(AnnotationError, match="overall must be 1-5"):
        ann.rate_dialogue(DialogueRating(ann.queue[0], "ann", 1, 1, 1, 1, 6))


def test_sample_and_turn_selection(tmp_path):
    store = corpus_store(tmp_path)
    a = Annotation(store, "x", sample=1, seed=5)
    assert len(a.queue) == 1 and Annotation(store, "y", sample=1, seed=5).queue == a.queue
    assert Annotation(store, "x", sample=10, seed=1).queue.__len__() == 2
    assert len(Annotation(store, "x", turns=1).dialogue(a.queue[0]).rated) == 1
    shuffled = Annotation(store, "x", shuffle=True, seed=3).queue
    assert sorted(shuffled) == sorted(Annotation(store, "x").queue)
    assert shuffled == Annotation(store, "z", shuffle=True, seed=3).queue
    assert parse_turns("all") is None and parse_turns("3") == 3
    with pytest.raises(ValueError):
        parse_turns("0")


def test_cli_rate_without_a_terminal(tmp_path):
    db = tmp_path / "empty.db"
    r = CliRunner().invoke(main, ["rate", "--db", str(db), "--rater", "ann"])
    assert r.exit_code == 2 and "no such database" in r.output
    store = corpus_store(tmp_path)
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path)])
    assert r.exit_code == 2 and "--rater" in r.output
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path), "--rater", "ann", "--turns", "x"])
    assert r.exit_code == 2 and "--turns" in r.output
    ann = Annotation(store, "ann")
    for sid in ann.queue:
        for t in ann.dialogue(sid).rated:
            ann.rate_turn(t, 2, 2)
        ann.rate_dialogue(DialogueRating(sid, "ann", 2, 2, 2, 1, 3, "fine"))
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path), "--rater", "ann"])
    assert r.exit_code == 0 and "has rated or skipped all 2" in r.output
