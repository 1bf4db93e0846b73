"""The Scores screen shows the open database's MultiWOZ scores by condition and the satisfaction analysis."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import ProgressBar, Static
from textual_plotext import PlotextPlot

from parley.engine.scoring.corpus import load_corpus
from parley.engine.scoring.replay import replay
from parley.engine.scoring.summary import compute
from parley.engine.systems.echo import EchoSystem
from parley.store import open_store
from parley.tui.screens.scores import ScoresScreen
from tests.unit.test_score_satisfaction import build_store

CORPUS = Path(__file__).resolve().parents[1] / "unit" / "golden" / "score_corpus.json"


class ScoresApp(App[None]):
    def __init__(self, store: Any) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(ScoresScreen(self.store))


def _text(app: App[Any], selector: str) -> str:
    import io

    from rich.console import Console

    content = app.screen.query_one(selector, Static).content
    if isinstance(content, str):
        return content
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


async def test_scores_screen_shows_conditions_and_ratings(tmp_path: Path) -> None:
    store = build_store(tmp_path / "s.db")  # 4 rated dialogues, 3 raters
    replay(load_corpus(CORPUS), EchoSystem(), store, system_spec="echo", source=str(CORPUS))
    app = ScoresApp(store)
    async with app.run_test(size=(120, 60)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ScoresScreen) and screen.data is not None
        assert "echo / original" in screen.data.multiwoz["conditions"]
        assert screen.data.satisfaction is not None and screen.data.satisfaction["n_ratings"] == 12
        assert "original" in _text(app, "#mwz-table")
        sat = _text(app, "#sat-table")
        assert "interest_arousal" in sat and "Spearman" in sat
        assert "3 sessions" not in _text(app, "#scores-status")  # 4 annotation + 3 batch sessions
        assert "7 sessions" in _text(app, "#scores-status")
        assert len(screen.query(PlotextPlot)) == 2
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ScoresScreen)


async def test_scores_screen_on_an_empty_database(tmp_path: Path) -> None:
    app = ScoresApp(open_store(tmp_path / "empty.db"))
    async with app.run_test(size=(100, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "No sessions with a MultiWOZ goal" in _text(app, "#mwz-table")
        assert "No dialogue ratings" in _text(app, "#sat-table")


def test_scores_screen_snapshot(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    store = build_store(tmp_path / "s.db")
    replay(load_corpus(CORPUS), EchoSystem(), store, system_spec="echo", source=str(CORPUS))

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(ScoresApp(store), run_before=run_before, terminal_size=(120, 50))


async def test_scores_screen_shows_what_it_computes_and_how_far(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's progress reaches the screen: the stage, "n of N" and a progress bar; hidden when done."""
    from parley.tui.screens import scores

    store = build_store(tmp_path / "s.db")
    gate, reached = threading.Event(), threading.Event()
    seen: list[tuple[str, int, int | None]] = []

    def gated(store_: Any, progress: Any) -> Any:
        def step(what: str, done: int, total: int | None) -> None:
            seen.append((what, done, total))
            progress(what, done, total)
            if what.startswith("satisfaction: ratings") and done == 2:
                reached.set()
                gate.wait(30)

        return compute(store_, step)

    monkeypatch.setattr(scores, "compute", gated)
    app = ScoresApp(store)
    async with app.run_test(size=(100, 40)) as pilot:
        try:
            assert await asyncio.to_thread(reached.wait, 30)
            await pilot.pause(0.2)
            status = _text(app, "#scores-status")
            assert status.startswith("computing — satisfaction: ratings read, by session: 2 of 4"), status
            bar = app.screen.query_one(ProgressBar)
            assert bar.display and (bar.progress, bar.total) == (2, 4)
        finally:
            gate.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.screen.query_one(ProgressBar).display
        assert "4 sessions" in _text(app, "#scores-status")
    assert [s for s in seen if s[0].startswith("MultiWOZ")][-1] == ("MultiWOZ scores: sessions read", 4, 4)


class FrozenScores(ScoresScreen):
    """A Scores screen caught half-way (the worker replaced by one progress step), for the snapshot."""

    def _compute(self) -> None:  # type: ignore[override]
        self.post_message(self.Step("MultiWOZ scores: sessions read", 1_200, 2_200))


class FrozenApp(App[None]):
    def __init__(self, store: Any) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(FrozenScores(self.store))


def test_scores_screen_in_progress_snapshot(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(FrozenApp(open_store(tmp_path / "p.db")), terminal_size=(100, 24))
