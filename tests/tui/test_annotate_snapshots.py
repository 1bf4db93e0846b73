"""Snapshots of the annotation screen, the progress view, the skip dialog and the instructions
(pytest-textual-snapshot).

Baselines live in __snapshots__/; regenerate with ``pytest tests/tui/test_annotate_snapshots.py
--snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

from parley.store.annotation import Annotation
from parley.store.records import DialogueRating
from parley.tui.annotate_app import AnnotateApp
from tests.tui.annotate_fixtures import corpus_store, escaped_store
from tests.tui.pilot import settle

SIZE = (100, 30)


def keys(*pressed: str):
    """Press keys, then wait for the writes they started (ratings are stored in a worker)."""
    async def run(pilot) -> None:
        await pilot.pause()
        await pilot.press(*pressed)
        await settle(pilot)  # also stops the cursors blinking: let the screen draw them still
        await pilot.pause()

    return run


def app_for(tmp_path, *, blind: bool = True, seen: bool = True) -> AnnotateApp:
    ann = Annotation(corpus_store(tmp_path), "snap")
    if seen:
        ann.mark_instructions_seen()
    return AnnotateApp(ann, blind=blind)


def test_annotation_screen_mid_dialogue(snap_compare, tmp_path):
    # turn 1 rated, relevance of turn 2 picked: context up to turn 2, interestingness active
    assert snap_compare(app_for(tmp_path), run_before=keys("3", "2", "2"), terminal_size=SIZE)


def test_annotation_screen_ready_for_dialogue_rating(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path, blind=False), run_before=keys("3", "2", "2", "1", "0", "3"),
                        terminal_size=SIZE)


def test_progress_view(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path), run_before=keys("3", "2", "g"), terminal_size=SIZE)


def test_instructions_on_first_use(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path, seen=False), terminal_size=(100, 44))


def test_skip_dialog(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path), run_before=keys("s", *"not in English"), terminal_size=SIZE)


def _finish_first(ann: Annotation) -> None:
    first = ann.queue[0]
    for tid in ann.dialogue(first).rated:
        ann.rate_turn(tid, 3, 2)
    ann.rate_dialogue(DialogueRating(first, ann.rater, 3, 3, 2, 1, 4, "it found a place"))


def test_rated_dialogue_opened_from_the_progress_list(snap_compare, tmp_path):
    ann = Annotation(corpus_store(tmp_path), "snap")
    ann.mark_instructions_seen()
    _finish_first(ann)
    ann.skip(ann.queue[1], "too short to judge")
    # g, then enter on the first row (a rated dialogue): it opens read-only
    assert snap_compare(AnnotateApp(ann, blind=True), run_before=keys("g", "enter"), terminal_size=SIZE)


def test_skipped_dialogue_and_progress(snap_compare, tmp_path):
    ann = Annotation(corpus_store(tmp_path), "snap")
    ann.mark_instructions_seen()
    _finish_first(ann)
    ann.skip(ann.queue[1], "too short to judge")
    assert snap_compare(AnnotateApp(ann, blind=True), run_before=keys("g", "down", "enter", "3"),
                        terminal_size=SIZE)


def test_everything_rated_or_skipped(snap_compare, tmp_path):
    ann = Annotation(corpus_store(tmp_path), "snap")
    ann.mark_instructions_seen()
    _finish_first(ann)
    ann.skip(ann.queue[1], "too short to judge")
    assert snap_compare(AnnotateApp(ann, blind=True), run_before=keys("g"), terminal_size=SIZE)


def test_dialogue_form_beside_the_transcript(snap_compare, tmp_path):
    # every turn rated (one not applicable), d: the form on the right half, the whole dialogue on the left
    assert snap_compare(app_for(tmp_path), run_before=keys("3", "2", "2", "1", "0", "3", "d", "3", "2"),
                        terminal_size=SIZE)


def test_dialogue_form_beside_the_transcript_at_80_columns(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path), run_before=keys("3", "2", "2", "1", "0", "3", "d", "3", "2",
                                                           *"it was quick"),
                        terminal_size=(80, 24))


def test_discarding_the_dialogue_form_asks_first(snap_compare, tmp_path):
    assert snap_compare(app_for(tmp_path), run_before=keys("3", "2", "2", "1", "0", "3", "d", "3", "escape"),
                        terminal_size=SIZE)


def test_half_rated_turn_resumes_at_its_interestingness(snap_compare, tmp_path):
    ann = Annotation(corpus_store(tmp_path), "snap")
    ann.mark_instructions_seen()
    first = ann.dialogue(ann.queue[0]).rated[0]
    ann.rate_turn(first, "n/a", None)  # stored by a rater who quit after relevance
    assert snap_compare(AnnotateApp(ann, blind=True), run_before=keys(), terminal_size=SIZE)


def test_imported_text_is_shown_with_html_entities_decoded(snap_compare, tmp_path):
    ann = Annotation(escaped_store(tmp_path), "snap")
    ann.mark_instructions_seen()
    assert snap_compare(AnnotateApp(ann, blind=True), run_before=keys(), terminal_size=(100, 16))
