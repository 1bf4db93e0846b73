"""Keys pressed with no pause on the annotation screen and the dialogue rating form (chat and annotation), on
an idle machine and with every core busy: a turn half rated is kept when the rater quits, ``escape`` in
the form asks before the answers go, text typed on a rating scale lands in the justification, and each digit
of a fast burst lands on its own scale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from parley.store.annotation import Annotation
from parley.tui.annotate_app import AnnotateApp
from parley.tui.screens.annotate import AnnotateScreen
from parley.tui.screens.rating import DialogueRatingScreen
from parley.tui.widgets.scale import Scale
from tests.load import load  # noqa: F401  (the fixture)
from tests.tui.annotate_fixtures import corpus_store
from tests.tui.pilot import burst_keys, say, settle

pytestmark = pytest.mark.usefixtures("load")  # each test idle, then with every core busy

SIZE = (100, 32)
ALL_TURNS = ("3", "2", "2", "1", "0", "3")  # the three turns of the first dialogue, the last not applicable


def queue(tmp_path: Path, rater: str = "ann") -> tuple[Any, Annotation]:
    store = corpus_store(tmp_path)
    ann = Annotation(store, rater)
    ann.mark_instructions_seen()
    return store, ann


def shown(app: App[Any]) -> str:
    """What is in front: the screen's class name."""
    return type(app.screen).__name__


def reason(screen: DialogueRatingScreen) -> str:
    """The justification as typed so far (whatever widget holds it)."""
    field: Any = screen.query_one("#justification")
    return str(getattr(field, "text", None) or getattr(field, "value", ""))


def form(app: App[Any]) -> DialogueRatingScreen:
    screen = app.screen
    assert isinstance(screen, DialogueRatingScreen), shown(app)
    return screen


class FormHost(App[None]):
    """The dialogue rating form on its own, as the chat opens it."""

    CSS_PATH = str(Path(__file__).resolve().parents[2] / "tui" / "app.tcss")

    def __init__(self) -> None:
        super().__init__()
        self.result: Any = "open"

    def on_mount(self) -> None:
        self.push_screen(DialogueRatingScreen("s1", "ann"), self._done)

    def _done(self, rating: Any) -> None:
        self.result = rating


async def test_quit_in_the_middle_of_a_rated_turn_keeps_its_relevance(tmp_path: Path) -> None:
    store, ann = queue(tmp_path)
    first, second, _ = ann.dialogue(ann.queue[0]).rated
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await burst_keys(pilot, "3", "2", "1", "q")  # turn 1 rated, turn 2's relevance given, quit at once
        for _ in range(100):
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
    assert app.return_code == 0
    got = {r.turn_id: (r.relevance, r.interestingness) for r in store.turn_ratings(rater="ann")}
    assert got == {first: (3, 2), second: (1, None)}
    # and the rater resumes at turn 2's interestingness
    app = AnnotateApp(Annotation(store, "ann"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        assert screen.cursor == 1 and screen.aspect == "interestingness"
        assert "relevance no · interestingness –" in str(screen.query_one("#panel").render()) + \
            screen.query_one("#transcript").plain()  # type: ignore[attr-defined]
        await burst_keys(pilot, "3")
    got = {r.turn_id: (r.relevance, r.interestingness) for r in store.turn_ratings(rater="ann")}
    assert got[second] == (1, 3)


async def test_escape_in_the_annotation_form_asks_before_discarding(tmp_path: Path) -> None:
    store, ann = queue(tmp_path)
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await burst_keys(pilot, *ALL_TURNS, "d")
        form(app)
        await burst_keys(pilot, "3", "2", *"too slow", "escape")  # two answers and a reason, then escape
        assert shown(app) == "DiscardScreen"  # asked, nothing gone yet
        await burst_keys(pilot, "n")  # back to the form: everything still there
        assert form(app).values() == {"understanding": 3, "task_completion": 2, "interest_arousal": None,
                                      "efficiency": None, "overall": None}
        assert reason(form(app)) == "too slow"
        await burst_keys(pilot, "escape", "y")  # asked again; y discards
        assert isinstance(app.screen, AnnotateScreen)
        assert "cancelled" in str(app.screen.query_one("#panel").render())
    assert store.dialogue_ratings() == []


async def test_escape_in_the_chat_form_asks_before_discarding(tmp_path: Path) -> None:
    from tests.tui.test_tui_chat import make_app

    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "a table for two please")
        await burst_keys(pilot, "ctrl+r")
        form(app)
        await burst_keys(pilot, "3", "2", "1", *"it asked twice", "escape")
        assert shown(app) == "DiscardScreen"
        await burst_keys(pilot, "escape")  # escape on the question keeps the form
        assert form(app).values()["interest_arousal"] == 1
        assert reason(form(app)) == "it asked twice"
        await burst_keys(pilot, "escape", "y")
        assert not isinstance(app.screen, DialogueRatingScreen)
        assert not app.screen.locked  # type: ignore[attr-defined]  # nothing rated, nothing locked
    from parley.store import open_store

    assert open_store(tmp_path / "t.db").dialogue_ratings() == []


async def test_escape_with_nothing_given_closes_at_once() -> None:
    app = FormHost()
    async with app.run_test(size=(110, 46)) as pilot:
        await pilot.pause()
        await burst_keys(pilot, "escape")
    assert app.result is None


async def test_text_typed_while_a_scale_has_focus_goes_to_the_justification() -> None:
    app = FormHost()
    async with app.run_test(size=(110, 46)) as pilot:
        await pilot.pause()
        screen = form(app)
        assert isinstance(screen.focused, Scale)  # a radio group: the first scale
        await burst_keys(pilot, *"slow, but it found one")
        assert reason(screen) == "slow, but it found one"
        assert screen.focused is screen.query_one("#justification")
        assert all(v is None for v in screen.values().values())
        await burst_keys(pilot, "shift+tab", "4", "shift+tab", "shift+tab", "é")  # on a scale: é is text too
        assert screen.values()["overall"] == 4 and reason(screen).endswith("oneé")


async def test_a_fast_digit_burst_lands_one_digit_per_scale() -> None:
    app = FormHost()
    async with app.run_test(size=(110, 46)) as pilot:
        await pilot.pause()
        await burst_keys(pilot, "3", "2", "1", "0", "4", *"it booked", "enter", *"a table", "ctrl+s")
    assert app.result is not None and app.result != "open"
    r = app.result
    given = (r.understanding, r.task_completion, r.interest_arousal, r.efficiency, r.overall)
    assert given == (3, 2, 1, 0, 4)
    assert r.justification == "it booked\na table"


async def test_dialogue_rating_typed_in_one_burst_with_d(tmp_path: Path) -> None:
    """d and the whole dialogue rating in one burst: the keys typed while the form opens reach it in order."""
    store, ann = queue(tmp_path)
    app = AnnotateApp(ann)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await burst_keys(pilot, *ALL_TURNS, "d", "3", "3", "2", "1", "5", *"quick", "ctrl+s")
    (dr,) = store.dialogue_ratings()
    assert (dr.understanding, dr.task_completion, dr.interest_arousal, dr.efficiency, dr.overall,
            dr.justification) == (3, 3, 2, 1, 5, "quick")
    turns = sorted((r.relevance, r.interestingness) for r in store.turn_ratings() if r.relevance != "n/a")
    assert turns == [(2, 1), (3, 2)]
    assert [r.interestingness for r in store.turn_ratings() if r.relevance == "n/a"] == [3]
