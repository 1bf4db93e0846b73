"""Untrusted text in `parley rate`: imported corpus text, dialogue ids and rater names are
shown literally — markup not parsed, control characters and escape sequences made visible — and stored
unchanged; a crash of the annotation app ends `parley rate` with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.app import App
from textual.widgets import DataTable

from parley.cli import main
from parley.store import open_store
from parley.store.annotation import Annotation
from parley.store.imports import import_file
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.annotate import AnnotateScreen
from parley.tui.screens.annotate_progress import ProgressScreen
from parley.tui.screens.annotate_transcript import Transcript
from tests.tui.pilot import settle

HOSTILE = "\x1b]0;TITLE\x07 \x1b[2J hello [red]there[/red] [/bold]"
ID = "BAD[/bold]1"


def hostile_store(tmp_path: Path) -> Any:
    f = tmp_path / "evil[i].json"
    log = [{"text": HOSTILE}, {"text": "ok [/bold] " + HOSTILE}]
    f.write_text(json.dumps({ID: {"goal": {}, "log": log}}), encoding="utf-8")
    store = open_store(tmp_path / "evil.db")
    import_file(store, f, "multiwoz")
    return store


async def test_markup_and_escape_sequences_are_shown_literally(tmp_path: Path) -> None:
    store = hostile_store(tmp_path)
    ann = Annotation(store, "rater[/bold]\x1b[31m")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann, blind=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        header = str(screen.query_one("#ann-header").render())
        assert "evil[i].json#BAD[/bold]1" in header and "rater[/bold]␛[31m" in header
        text = screen.query_one(Transcript).plain()
        assert "␛]0;TITLE␇ ␛[2J hello [red]there[/red] [/bold]" in text and "\x1b" not in text
        await pilot.press("1", "3", "s", *"[/bold] x", "enter")
        await settle(pilot)  # the skip is stored in a worker
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, ProgressScreen)
        row = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert row[1] == "evil[i].json#BAD[/bold]1" and row[3] == "skipped: [/bold] x"
    assert app.return_code in (None, 0)
    assert ann.skipped() == {store.sessions()[0].id: "[/bold] x"}
    turns = store.turns(store.sessions()[0].id)
    assert [t.text for t in turns] == [HOSTILE, "ok [/bold] " + HOSTILE]  # stored unchanged
    assert store.sessions()[0].source == f"evil[i].json#{ID}"


def headless(keys: tuple[str, ...]) -> Any:
    """AnnotateApp.run without a terminal: headless, pressing ``keys``."""

    def run(self: App[Any], **kw: Any) -> Any:
        async def auto(pilot: Any) -> None:
            await pilot.pause()
            await pilot.press(*keys)

        return App.run(self, headless=True, auto_pilot=auto, size=(100, 30))

    return run


def test_cli_rate_on_hostile_text_exits_0_and_a_crash_exits_2(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    store = hostile_store(tmp_path)
    monkeypatch.setattr(AnnotateApp, "run", headless(("enter", "3", "3", "q")))
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path), "--rater", "ann"])
    assert r.exit_code == 0 and "ann: 0 of 1 dialogue(s) rated or skipped" in r.output, r.output
    assert [(x.relevance, x.interestingness) for x in store.turn_ratings()] == [(3, 3)]

    def boom(self: AnnotateScreen) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(AnnotateScreen, "on_mount", boom)
    r = CliRunner().invoke(main, ["rate", "--db", str(store.path), "--rater", "ann"])
    assert r.exit_code == 2
