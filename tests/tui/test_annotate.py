"""Annotation mode end to end with Pilot: two raters, quit half-way, resume, locks, instructions."""

from __future__ import annotations

from parley.store.annotation import Annotation
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.annotate import AnnotateScreen
from parley.tui.screens.annotate_help import InstructionsScreen
from parley.tui.screens.rating import DialogueRatingScreen
from tests.tui.annotate_fixtures import corpus_store
from tests.tui.pilot import settle

SIZE = (100, 32)


async def rate_dialogue(pilot, values: tuple[int, int, int, int, int], why: str) -> None:
    """In the open DialogueRatingScreen: a digit per scale (each moves on), the justification, ctrl+s."""
    assert isinstance(pilot.app.screen, DialogueRatingScreen)
    for v in values:
        await pilot.press(str(v))
    await pilot.press(*why)
    await pilot.press("ctrl+s")
    await settle(pilot)  # stored in a worker; the next dialogue opens then


async def test_two_raters_quit_resume_exact_values(tmp_path):
    store = corpus_store(tmp_path)
    d1, d2 = (s.id for s in store.sessions())

    # rater 1 rates both dialogues completely
    app = AnnotateApp(Annotation(store, "ann"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, InstructionsScreen)  # first use
        await pilot.press("enter")
        await pilot.press("3", "2", "2", "1", "0", "3")  # D1: (3,2) (2,1) (n/a,3)
        await pilot.press("d")
        await pilot.pause()
        await rate_dialogue(pilot, (3, 3, 2, 1, 5), "fast")
        await pilot.press("1", "1", "2", "2", "d")      # D2: (1,1) (2,2)
        await pilot.pause()
        await rate_dialogue(pilot, (2, 1, 1, 0, 2), "slow")
        assert app.screen.view is None  # queue finished

    # rater 2: D1 complete, D2 half-way, quit
    app = AnnotateApp(Annotation(store, "bob"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter", "1", "1", "1", "2", "1", "3", "d")
        await pilot.pause()
        await rate_dialogue(pilot, (1, 1, 1, 0, 1), "poor")
        await pilot.press("2", "3", "q")
        await pilot.pause()

    # resume: no instructions again, straight to D2's second turn
    app = AnnotateApp(Annotation(store, "bob"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        assert screen.sid == d2 and screen.cursor == 1
        assert "dialogue 2 of 2" in str(screen.query_one("#ann-header").render())
        await pilot.press("3", "3", "d")
        await pilot.pause()
        await rate_dialogue(pilot, (3, 3, 3, 1, 4), "better")

    turns = {s: [t.id for t in store.turns(s) if t.role == "system"] for s in (d1, d2)}
    got = {(r.rater, r.turn_id): (r.relevance, r.interestingness) for r in store.turn_ratings()}
    assert got == {
        ("ann", turns[d1][0]): (3, 2), ("ann", turns[d1][1]): (2, 1), ("ann", turns[d1][2]): ("n/a", 3),
        ("ann", turns[d2][0]): (1, 1), ("ann", turns[d2][1]): (2, 2),
        ("bob", turns[d1][0]): (1, 1), ("bob", turns[d1][1]): (1, 2), ("bob", turns[d1][2]): (1, 3),
        ("bob", turns[d2][0]): (2, 3), ("bob", turns[d2][1]): (3, 3),
    }
    dialogue = {(r.rater, r.session_id): (r.understanding, r.task_completion, r.interest_arousal,
                                          r.efficiency, r.overall, r.justification)
                for r in store.dialogue_ratings()}
    assert dialogue == {
        ("ann", d1): (3, 3, 2, 1, 5, "fast"), ("ann", d2): (2, 1, 1, 0, 2, "slow"),
        ("bob", d1): (1, 1, 1, 0, 1, "poor"), ("bob", d2): (3, 3, 3, 1, 4, "better"),
    }


async def test_turns_lock_once_dialogue_rating_starts_even_after_quit(tmp_path):
    store = corpus_store(tmp_path)
    ann = Annotation(store, "cy")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d")  # refused: turns not rated yet
        await pilot.pause()
        assert not isinstance(app.screen, DialogueRatingScreen)
        assert "Rate every marked turn first" in str(app.screen.query_one("#panel").render())
        await pilot.press("2", "2", "2", "2", "2", "2", "d")
        await pilot.pause()
        assert isinstance(app.screen, DialogueRatingScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("p", "1")  # no going back
        await pilot.pause()
        assert "final" in str(app.screen.query_one("#panel").render())
    first = store.turns(store.sessions()[0].id)[1].id
    assert store.turn_ratings(rater="cy")[0].turn_id == first
    assert {(r.relevance, r.interestingness) for r in store.turn_ratings(rater="cy")} == {(2, 2)}
    again = Annotation(store, "cy")
    assert again.turns_locked(again.current() or "")
    app = AnnotateApp(again)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.cursor is None and app.screen.locked


async def test_editing_a_turn_before_the_dialogue_rating(tmp_path):
    store = corpus_store(tmp_path)
    ann = Annotation(store, "di")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann, blind=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "3", "p", "i", "1")  # rate turn 1, go back, change interestingness only
        await pilot.pause()
        header = str(app.screen.query_one("#ann-header").render())
        assert "multiwoz-corpus" not in header and "mini.json" not in header  # blind
    assert [(r.relevance, r.interestingness) for r in store.turn_ratings(rater="di")] == [(3, 1)]


async def test_a_dialogue_rating_that_cannot_be_stored_keeps_the_answers(tmp_path):
    """A failed write (a locked database) used to drop the rater's answers with the dialog; it opens again
    holding them and enter stores them."""
    from parley.store import StoreError

    store = corpus_store(tmp_path)
    d1 = store.sessions()[0].id
    ann = Annotation(store, "ann")
    real = store.rate_dialogue
    calls = []

    def locked_once(rating, **kw):
        calls.append(1)
        if len(calls) == 1:
            raise StoreError(f"cannot write {store.path}: database is locked")
        return real(rating, **kw)

    store.rate_dialogue = locked_once
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter", "3", "2", "2", "1", "0", "3", "d")
        await pilot.pause()
        await rate_dialogue(pilot, (3, 3, 2, 1, 5), "fast")
        screen = app.screen
        assert isinstance(screen, DialogueRatingScreen)
        assert screen.values()["overall"] == 5
        assert screen.justification.text == "fast"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, DialogueRatingScreen)
    (dr,) = store.dialogue_ratings(d1)
    assert (dr.understanding, dr.overall, dr.justification) == (3, 5, "fast")
