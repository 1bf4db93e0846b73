"""The annotation screen writes in a worker: a database another process holds locked never freezes it, what it
shows as rated is stored, and q waits for the writes still pending."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from parley.store import StoreError
from parley.store import db as store_db
from parley.store.annotation import Annotation
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.rating import DialogueRatingScreen
from tests.tui.annotate_fixtures import corpus_store
from tests.tui.pilot import notes, settle
from tests.tui.test_tui_rating_saves import write_lock

SIZE = (100, 32)


@pytest.fixture(autouse=True)
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write waits on a lock up to 10 s in all (the test holds it well under that), not 30 s."""
    monkeypatch.setattr(store_db, "BUSY_TIMEOUT_MS", 10_000)


async def test_rating_turns_while_the_database_is_locked(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    ann = Annotation(store, "ann")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen: Any = app.screen
        first = screen.view.rated[0]
        with write_lock(tmp_path / "rate.db") as other:
            await pilot.press("3", "2")
            await pilot.pause(0.2)
            assert screen.cursor == 1 and first in screen.saving and first not in screen.ratings
            assert "saving…" in str(screen.query_one("#panel").render())
            await pilot.press("2")  # the next turn takes keys meanwhile (its relevance is queued too)
            assert screen.values_of(screen.view.rated[1]) == {"relevance": 2, "interestingness": None}
            assert other.execute("SELECT count(*) FROM turn_ratings").fetchone() == (0,)
            await pilot.press("q")  # waits for the write
            await pilot.pause()
            assert app.return_code is None and "quitting" in str(screen.query_one("#panel").render())
        for _ in range(200):  # the write goes through once the lock is released, then the app quits
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
    assert app.return_code == 0
    r, half = store.turn_ratings()  # the second turn's relevance is kept: it resumes at interestingness
    assert (r.turn_id, r.relevance, r.interestingness) == (first, 3, 2)
    assert (half.relevance, half.interestingness) == (2, None)


async def test_a_dialogue_rating_given_while_a_turn_rating_fails_does_not_lock_and_keeps_the_answers(
        tmp_path: Path) -> None:
    """d while the last turn rating is still being written: that write fails, so the dialogue rating neither
    starts (the turns stay open) nor is stored; the linguist is told which turn, and the answers come back."""
    store = corpus_store(tmp_path)
    ann = Annotation(store, "ann")
    ann.mark_instructions_seen()
    release = threading.Event()
    real = ann.rate_turn
    third: list[str] = []

    def rate_turn(tid: str, relevance: int | None, interestingness: int | None) -> Any:
        if tid in third:
            release.wait(120)  # held until the test releases it (a loaded machine is slow)
            raise StoreError(f"cannot write {store.path}: disk I/O error")
        return real(tid, relevance, interestingness)

    ann.rate_turn = rate_turn  # type: ignore[method-assign]
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen: Any = app.screen
        sid = screen.sid
        third.append(screen.view.rated[2])
        await pilot.press("3", "2", "2", "1")
        await settle(pilot)
        await pilot.press("1", "3", "d")  # turn 3's write waits (then fails); the form opens at once
        await pilot.pause()
        assert isinstance(app.screen, DialogueRatingScreen)
        for v in (3, 3, 2, 1, 5):
            await pilot.press(str(v))
        await pilot.press(*"fast", "ctrl+s")
        await pilot.pause(0.1)
        # turn 3 (its relevance, then both aspects), the start, the dialogue rating: in that order
        assert screen.writes.pending == 4
        release.set()
        await settle(pilot)
        panel = str(screen.query_one("#panel").render())
        assert "turn 3 was not stored" in panel.replace("\n", " ")
        assert "disk I/O error" in panel
        assert not screen.locked and screen.cursor == 2 and not ann.turns_locked(sid)
        assert store.dialogue_ratings(sid) == []
        third.clear()  # the disk is back: turn 3 is rated again, and d brings the answers back
        await pilot.press("1", "3")
        await settle(pilot)
        await pilot.press("d")
        await pilot.pause()
        form: Any = app.screen
        assert isinstance(form, DialogueRatingScreen)
        assert form.values()["understanding"] == 3 and form.justification.text == "fast"
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert ann.turns_locked(sid) and ann.done(sid)
    (dr,) = store.dialogue_ratings(sid)
    assert (dr.understanding, dr.overall, dr.justification) == (3, 5, "fast")
    assert sorted((r.relevance, r.interestingness) for r in store.turn_ratings()) == [(1, 3), (2, 1), (3, 2)]


async def test_a_turn_rating_failing_while_the_dialogue_form_is_open_is_told_over_it(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    ann = Annotation(store, "ann")
    ann.mark_instructions_seen()
    release = threading.Event()

    def rate_turn(tid: str, relevance: int | None, interestingness: int | None) -> Any:
        release.wait(10)
        raise StoreError(f"cannot write {store.path}: disk I/O error")

    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen: Any = app.screen
        sid = screen.sid
        ann.rate_turn = rate_turn  # type: ignore[method-assign]
        await pilot.press("3", "2", "2", "1", "1", "3", "d")  # all three wait, then fail
        await pilot.pause()
        assert isinstance(app.screen, DialogueRatingScreen)
        release.set()
        await settle(pilot)
        assert isinstance(app.screen, DialogueRatingScreen)  # the form stays: answers being typed go on
        assert any("turn 1" in n and "dialogue rating did not start" in n for n in notes(app))
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.locked and screen.cursor == 0 and not ann.turns_locked(sid)
    assert store.turn_ratings() == []
