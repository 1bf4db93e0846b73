"""What the annotation screen shows around the ratings: a rated dialogue reopened shows the rater's own
dialogue rating and justification, the note about one dialogue is not left over the next, imported text is
shown with its HTML entities decoded while the database keeps it as the file had it, and the form leaves the
transcript readable beside it."""

from __future__ import annotations

from pathlib import Path

from parley.store.annotation import Annotation
from parley.store.records import DialogueRating
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.annotate import AnnotateScreen
from parley.tui.screens.annotate_transcript import Transcript
from tests.tui.annotate_fixtures import corpus_store, escaped_store
from tests.tui.pilot import notes, settle

SIZE = (100, 32)


def _seen(ann: Annotation) -> Annotation:
    ann.mark_instructions_seen()
    return ann


async def _opened(app: AnnotateApp) -> str:
    """The transcript as the app opens."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        return app.screen.query_one(Transcript).plain()


def panel(app: AnnotateApp) -> str:
    screen = app.screen
    assert isinstance(screen, AnnotateScreen)
    return " ".join(str(screen.query_one("#panel").render()).split())


async def test_a_rated_dialogue_shows_the_raters_own_rating_and_justification(tmp_path: Path) -> None:
    ann = Annotation(corpus_store(tmp_path), "ann")
    ann.mark_instructions_seen()
    first = ann.queue[0]
    for tid in ann.dialogue(first).rated:
        ann.rate_turn(tid, 2, 2)
    ann.rate_dialogue(DialogueRating(first, "ann", 3, 2, 1, 0, 4, "it booked\nbut slowly"))
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("g", "up", "enter")  # the progress list (on dialogue 2), up: the rated one
        await settle(pilot)
        text = panel(app)
        assert "understanding 3 yes" in text and "overall impression 4 satisfied" in text
        assert "efficiency 0 no" in text and "it booked" in text and "but slowly" in text


async def test_the_note_about_a_dialogue_does_not_stay_over_the_next(tmp_path: Path) -> None:
    ann = Annotation(corpus_store(tmp_path), "ann")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("3", "2", "2", "1", "0", "3", "d")
        await pilot.pause()
        await pilot.press("3", "3", "2", "1", "5", *"fine", "ctrl+s")
        await settle(pilot)
        assert app.screen.sid == ann.queue[1]  # type: ignore[attr-defined]
        assert not [n for n in notes(app) if "Dialogue 1" in n]  # no toast over dialogue 2
        assert "Dialogue 1 rated and stored." in panel(app)
        await pilot.press("1")  # and the note goes with the next key
        assert "Dialogue 1" not in panel(app)


async def test_imported_entities_are_shown_decoded_and_stored_as_written(tmp_path: Path) -> None:
    store = escaped_store(tmp_path)
    sid = store.sessions()[0].id
    shown = await _opened(AnnotateApp(_seen(Annotation(store, "ann"))))
    assert 'is "The Copper Kettle" open > 9 pm ?' in shown
    assert '"The Copper Kettle" closes at 10 pm & takes cards .' in shown
    assert [t.text for t in store.turns(sid)] == [
        "is &quot;The Copper Kettle&quot; open &gt; 9 pm ?",
        "&quot;The Copper Kettle&quot; closes at 10 pm &amp; takes cards ."]


async def test_the_transcript_stays_readable_beside_the_form_at_80_columns(tmp_path: Path) -> None:
    ann = Annotation(corpus_store(tmp_path), "ann")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("3", "2", "2", "1", "0", "3", "d")
        await settle(pilot)
        form = app.screen.query_one("#dialog")
        screen = app.screen_stack[-2]
        transcript = screen.query_one(Transcript)
        # side by side, not over each other; the whole dialogue is in the transcript
        assert transcript.region.right <= form.region.x and transcript.region.width >= 30
        assert "you are welcome , goodbye ." in " ".join(transcript.plain().split())


async def test_progress_asked_while_a_rating_is_stored_shows_that_rating(tmp_path: Path, monkeypatch) -> None:
    """``3 2 g`` typed at once: the view waits for the turn's rating to be stored and counts it."""
    import threading

    from parley.tui.screens.annotate_progress import ProgressScreen

    ann = Annotation(corpus_store(tmp_path), "fast")
    ann.mark_instructions_seen()
    release = threading.Event()
    rate_turn = Annotation.rate_turn

    def slow(self: Annotation, *args: object, **kwargs: object) -> object:
        release.wait(10)  # the database is slow (a loaded machine, a lock held elsewhere)
        return rate_turn(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Annotation, "rate_turn", slow)
    app = AnnotateApp(ann)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("3", "2", "g")
        await pilot.pause()
        assert not isinstance(app.screen, ProgressScreen)  # not before the rating is stored
        release.set()
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ProgressScreen)
        first = screen.rows[0]
        assert (first.rated_turns, first.total_turns) == (1, 3)
