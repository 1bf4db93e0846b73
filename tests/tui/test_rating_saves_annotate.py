"""The annotation screen writes in a worker: a database another process holds locked never freezes it, what it
shows as rated is stored, and q waits for the writes still pending."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parley.store import db as store_db
from parley.store.annotation import Annotation
from parley.tui.annotate_app import AnnotateApp
from tests.tui.annotate_fixtures import corpus_store
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
            await pilot.press("2")  # the next turn takes keys meanwhile
            assert screen.pending == {"relevance": 2}
            assert other.execute("SELECT count(*) FROM turn_ratings").fetchone() == (0,)
            await pilot.press("q")  # waits for the write
            await pilot.pause()
            assert app.return_code is None and "quitting" in str(screen.query_one("#panel").render())
        for _ in range(200):  # the write goes through once the lock is released, then the app quits
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
    assert app.return_code == 0
    (r,) = store.turn_ratings()
    assert (r.turn_id, r.relevance, r.interestingness) == (first, 3, 2)
