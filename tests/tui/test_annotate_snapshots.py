"""Snapshots of the annotation screen, the progress view and the instructions (pytest-textual-snapshot).

Baselines live in __snapshots__/; regenerate with ``pytest tests/tui/test_annotate_snapshots.py
--snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

from parley.store.annotation import Annotation
from parley.tui.annotate_app import AnnotateApp
from tests.tui.annotate_fixtures import corpus_store

SIZE = (100, 30)


def app_for(tmp_path, *, blind: bool = True, seen: bool = True) -> AnnotateApp:
    ann = Annotation(corpus_store(tmp_path), "snap")
    if seen:
        ann.mark_instructions_seen()
    return AnnotateApp(ann, blind=blind)


def test_annotation_screen_mid_dialogue(snap_compare, tmp_path):
    # turn 1 rated, relevance of turn 2 picked: context up to turn 2, interestingness active
    assert snap_compare(app_for(tmp_path), press=["3", "2", "2"], terminal_size=SIZE)


def test_annotation_screen_ready_for_dialogue_rating(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path, blind=False), press=["3", "2", "2", "1", "0", "3"],
                        terminal_size=SIZE)


def test_progress_view(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path), press=["3", "2", "g"], terminal_size=SIZE)


def test_instructions_on_first_use(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path, seen=False), terminal_size=(100, 44))
