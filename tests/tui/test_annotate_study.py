"""An annotation study end to end: a coordinator imports six dialogues and assigns them to two
raters, each rates only their own list, blind, in their own copy of the database; one skips a dialogue with a
reason; progress per rater is right; `parley merge` of the two copies gives the full set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from parley.cli import main
from parley.store import open_store
from parley.store.annotation import Annotation
from parley.store.selection import Selection
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.annotate import AnnotateScreen
from parley.tui.screens.annotate_skip import SkipScreen
from parley.tui.screens.annotate_transcript import Transcript
from parley.tui.screens.rating import DialogueRatingScreen
from tests.tui.annotate_fixtures import study_file
from tests.tui.pilot import settle

SIZE = (100, 32)
HIDDEN = ("impolite", "original", "multiwoz", "dialogues.json", "D1", "D2", "D3", "typed:")


def cli(*args: str) -> Any:
    r = CliRunner().invoke(main, list(args))
    assert r.exit_code == 0, r.output
    return r


def seen(app: AnnotateApp) -> str:
    screen = app.screen
    assert isinstance(screen, AnnotateScreen)
    return str(screen.query_one("#ann-header").render()) + "\n" + screen.query_one(Transcript).plain()


async def rate_current(pilot: Any, app: AnnotateApp, shown: list[str], why: str) -> None:
    """Rate both turns of the open dialogue and the dialogue, noting what the rater saw."""
    for keys in (("3", "2"), ("2", "2")):
        shown.append(seen(app))
        await pilot.press(*keys)
    await pilot.press("d")
    await pilot.pause()
    assert isinstance(app.screen, DialogueRatingScreen)
    await pilot.press("3", "2", "1", "1", "4", *why, "ctrl+s")
    await settle(pilot)  # stored in a worker; the next dialogue opens then


async def test_two_raters_assigned_blind_skip_progress_merge(tmp_path: Path) -> None:
    study = tmp_path / "study.db"
    cli("import", str(study_file(tmp_path / "study.jsonl")), "--format", "jsonl", "--db", str(study))
    report = json.loads(cli("assign", "--db", str(study), "--raters", "ann,bob", "--json").output)
    assert report["selected"] == 6 and report["already_assigned"] == 0
    assert {r: sum(v.values()) for r, v in report["added"].items()} == {"ann": 3, "bob": 3}
    for per in report["added"].values():  # balanced over conditions: one or two of each
        assert set(per) == {"multiwoz / original", "multiwoz / impolite"}
    again = json.loads(cli("assign", "--db", str(study), "--raters", "ann,bob", "--json").output)
    assert again["already_assigned"] == 6 and not any(again["added"].values())  # nothing assigned twice

    copies = {r: tmp_path / "copies" / f"{r}.db" for r in ("ann", "bob")}
    r = CliRunner().invoke(main, ["assign", "--db", str(study), "--raters", "ann,bob", "--copies",
                                  str(tmp_path / "copies")])
    assert r.exit_code == 0 and all(f"wrote {p}" in r.output for p in copies.values())
    r = CliRunner().invoke(main, ["assign", "--db", str(study), "--raters", "ann,bob", "--copies",
                                  str(tmp_path / "copies")])
    assert r.exit_code == 2 and "exists already" in r.output  # a rater's copy is never overwritten
    lists = {}
    for rater, path in copies.items():
        store = open_store(path)
        ann = Annotation(store, rater)
        assert ann.blind and ann.queue == ann.assigned and len(ann.queue) == 3
        sources = [store.session(s).source for s in ann.queue]  # type: ignore[union-attr]
        assert len(set(sources)) == 3  # never the same corpus dialogue twice
        lists[rater] = ann.queue
        store.close()
    assert not set(lists["ann"]) & set(lists["bob"])

    shown: list[str] = []
    store = open_store(copies["ann"])
    app = AnnotateApp(Annotation(store, "ann"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # the instructions, first use
        for _ in range(3):
            await rate_current(pilot, app, shown, "fine")
        assert isinstance(app.screen, AnnotateScreen) and app.screen.view is None
    assert {r.session_id for r in store.dialogue_ratings()} == set(lists["ann"])
    store.close()

    store = open_store(copies["bob"])
    app = AnnotateApp(Annotation(store, "bob"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SkipScreen)
        await pilot.press("enter")  # no reason: refused
        assert isinstance(app.screen, SkipScreen)
        await pilot.press(*"too rude to judge", "enter")
        await settle(pilot)
        assert isinstance(app.screen, AnnotateScreen) and app.screen.sid == lists["bob"][1]
        for _ in range(2):
            await rate_current(pilot, app, shown, "ok")
        assert app.screen.view is None
    store.close()
    for text in shown:
        assert "dialogue" in text and not any(h in text for h in HIDDEN), text

    progress = [json.loads(line) for line in cli("progress", str(copies["ann"]), str(copies["bob"]),
                                                  "--json").output.splitlines()]
    expected = [{"rater": "ann", "assigned": 3, "done": 3, "skipped": 0, "in_progress": 0, "to_do": 0,
                 "skip_reasons": []},
                {"rater": "bob", "assigned": 3, "done": 2, "skipped": 1, "in_progress": 0, "to_do": 0,
                 "skip_reasons": ["too rude to judge"]}]
    assert progress == expected

    merged = tmp_path / "all.db"
    cli("merge", str(copies["ann"]), str(copies["bob"]), "--out", str(merged))
    out = open_store(merged, readonly=True)
    assert len(out.sessions()) == 6
    rated = Counter(r.session_id for r in out.dialogue_ratings())
    skipped = dict(out.db.execute("SELECT session_id, reason FROM annotation_skips").fetchall())
    assert skipped == {lists["bob"][0]: "too rude to judge"}
    assert set(rated) | set(skipped) == {s.id for s in out.sessions()} and set(rated.values()) == {1}
    assert len(out.turn_ratings()) == 10  # 5 dialogues x 2 system turns
    assert [json.loads(line) for line in cli("--db", str(merged), "progress", "--json").output.splitlines()] \
        == expected


async def test_progress_list_jumps_to_a_dialogue(tmp_path: Path) -> None:
    study = tmp_path / "study.db"
    cli("import", str(study_file(tmp_path / "study.jsonl")), "--format", "jsonl", "--db", str(study))
    store = open_store(study)
    ann = Annotation(store, "cy", selection=Selection(conditions=("impolite",)))
    ann.mark_instructions_seen()
    assert len(ann.queue) == 3
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.sid == ann.queue[2]
        assert "dialogue 3 of 3" in str(screen.query_one("#ann-header").render())
        await pilot.press("1", "1")
    (r,) = store.turn_ratings(rater="cy")
    assert store.turns(ann.queue[2])[1].id == r.turn_id
