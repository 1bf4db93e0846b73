"""Merging raters' databases: no duplicates, both raters' ratings kept, conflicts refused with nothing
written."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.store import StoreError, open_store
from parley.store.annotation import Annotation
from parley.store.imports import import_file
from parley.store.merge import MergeConflict, merge
from parley.store.records import DialogueRating

CORPUS = {
    "D1": {"goal": {}, "log": [{"text": "a cheap hotel please"}, {"text": "the Ash Inn is cheap ."},
                                {"text": "thanks"}, {"text": "bye ."}]},
    "D2": {"goal": {}, "log": [{"text": "train to ely"}, {"text": "what day ?"}]},
}


def rater_db(tmp_path, name, rater, ratings):
    """A rater's own database: the corpus imported from their own copy, their ratings on it."""
    f = tmp_path / f"{name}.json"
    f.write_text(json.dumps(CORPUS), encoding="utf-8")
    store = open_store(tmp_path / f"{name}.db")
    import_file(store, f, "multiwoz")
    ann = Annotation(store, rater)
    for sid, (rel, inter, overall) in zip(ann.queue, ratings, strict=False):
        for tid in ann.dialogue(sid).rated:
            ann.rate_turn(tid, rel, inter)
        ann.rate_dialogue(DialogueRating(sid, rater, 3, 2, 2, 1, overall, f"{rater} on {sid[:4]}"))
    store.close()
    return tmp_path / f"{name}.db"


def test_merge_two_raters_without_duplicates(tmp_path):
    a = rater_db(tmp_path, "ann", "ann", [(3, 2, 4), (1, 1, 2)])
    b = rater_db(tmp_path, "bob", "bob", [(2, 3, 5)])
    out = tmp_path / "all.db"
    report = merge(a, b, out)
    m = open_store(out)
    assert m.counts()["sessions"] == 2 and m.counts()["turns"] == 6
    assert report.present["sessions"] == 2 and report.added["sessions"] == 2
    assert {(r.rater, r.overall) for r in m.dialogue_ratings()} == {("ann", 4), ("ann", 2), ("bob", 5)}
    assert len(m.turn_ratings(rater="ann")) == 3 and len(m.turn_ratings(rater="bob")) == 2
    assert {r.name for r in m.raters()} == {"ann", "bob"}
    # merging the merged database with one of its parts adds nothing
    again = merge(out, a, tmp_path / "again.db")
    for t in ("sessions", "turns", "turn_ratings", "dialogue_ratings", "raters"):
        assert again.added[t] == m.counts()[t] and again.present[t] > 0


def test_conflict_is_refused_and_leaves_nothing(tmp_path):
    a = rater_db(tmp_path, "ann", "ann", [(3, 2, 4)])
    b = rater_db(tmp_path, "ann2", "ann", [(3, 2, 5)])  # same rater, same dialogue, another overall
    out = tmp_path / "all.db"
    with pytest.raises(MergeConflict) as e:
        merge(a, b, out)
    msg = str(e.value)
    assert "ann2.db" in msg and "dialogue rating" in msg and "overall" in msg and "4" in msg and "5" in msg
    assert not out.exists()


def test_refusals(tmp_path):
    a = rater_db(tmp_path, "ann", "ann", [])
    with pytest.raises(StoreError, match="exists already"):
        merge(a, a, a)
    with pytest.raises(StoreError, match="twice"):
        merge(a, a, tmp_path / "x.db")
    with pytest.raises(StoreError, match="no such database"):
        merge(a, tmp_path / "missing.db", tmp_path / "x.db")


def test_cli_merge(tmp_path):
    a = rater_db(tmp_path, "ann", "ann", [(3, 2, 4)])
    b = rater_db(tmp_path, "bob", "bob", [(1, 1, 1)])
    out = tmp_path / "all.db"
    r = CliRunner().invoke(main, ["merge", str(a), str(b), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "dialogue_ratings: +2" in r.output
    r = CliRunner().invoke(main, ["merge", str(a), str(b), "--out", str(out)])
    assert r.exit_code == 2 and "exists already" in r.output
