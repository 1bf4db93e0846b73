"""A rating costs the same whatever the dialogue's length: the shape, not the time.

Per rating, the annotation screen must render a constant number of turns, keep a constant number of widgets
and issue a constant number of SQL statements (on every connection: the writes run in a worker), at turn 3
of a long dialogue as at turn 150.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from parley.store import open_store
from parley.store.annotation import Annotation
from parley.store.imports import import_file
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.annotate import AnnotateScreen
from parley.tui.screens.annotate_transcript import Transcript
from tests.tui.annotate_fixtures import long_dialogue
from tests.tui.pilot import settle

TURNS = 400


async def per_rating(tmp_path: Path, start: int, n: int = 4) -> list[tuple[int, int, int]]:
    """(turns rendered, widgets on screen, SQL statements) of each of ``n`` ratings made from rated turn
    ``start`` on."""
    store = open_store(tmp_path / f"long{start}.db")
    import_file(store, long_dialogue(tmp_path / "long.json", TURNS), "multiwoz")
    ann = Annotation(store, "r")
    ann.mark_instructions_seen()
    sid = ann.queue[0]
    for tid in ann.dialogue(sid).rated[:start]:
        ann.rate_turn(tid, 2, 2)
    statements: list[str] = []
    store.db.conn.set_trace_callback(statements.append)
    connect = store._connect

    def traced() -> Any:  # the worker threads' own connections
        conn = connect()
        conn.set_trace_callback(statements.append)
        return conn

    store._connect = traced  # type: ignore[method-assign]
    out = []
    app = AnnotateApp(ann)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.cursor == start
        transcript = screen.query_one(Transcript)
        await pilot.press("3", "3")  # the first rating after opening may lay out more: not counted
        await settle(pilot)
        for _ in range(n):
            renders, sql = transcript.renders, len(statements)
            await pilot.press("2", "3")
            await settle(pilot)
            widgets = len(list(screen.walk_children()))
            out.append((transcript.renders - renders, widgets, len(statements) - sql))
        assert screen.cursor == start + n + 1
    store.db.conn.set_trace_callback(None)
    assert len(store.turn_ratings(sid, "r")) == start + n + 1
    return out


async def test_a_rating_costs_the_same_at_turn_3_and_at_turn_150(tmp_path: Path) -> None:
    early: list[Any] = await per_rating(tmp_path, 3)
    late: list[Any] = await per_rating(tmp_path, 150)
    assert early == late, (early, late)
    assert len(set(early)) == 1  # and from one rating to the next
    renders, widgets, sql = early[0]
    # the rated turn (as the cursor leaves it, and once its rating is stored), the next user and system turns
    assert renders <= 4
