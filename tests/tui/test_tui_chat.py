"""Pilot tests of the chat screen: a full rated dialogue on the default system, queueing, refusals, locking
(panels, settings and start-up: test_tui_chat_panels.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, TextArea

from parley.store import open_store
from parley.tui.app import ParleyApp
from parley.tui.screens.rating import DialogueRatingScreen
from parley.tui.widgets.chatlog import ChatLog, SystemTurnView, UserTurnView
from tests.tui import fakes
from tests.tui.pilot import notes, say, settle

fakes.register()


def make_app(tmp_path: Path, system: str = "multiwoz", **kw: Any) -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester=kw.pop("tester", "ana"),
                     seed=kw.pop("seed", 7), **kw)


async def rate_dialogue(pilot: Any, keys: list[str],
                        justification: str = "it found and booked a place") -> None:
    await pilot.press("ctrl+r")
    await pilot.pause()
    assert isinstance(pilot.app.screen, DialogueRatingScreen)
    await pilot.press(*keys)  # one digit per scale: each moves on to the next
    pilot.app.screen.query_one("#justification", TextArea).text = justification
    await pilot.press("ctrl+s")
    await settle(pilot)


async def test_full_rated_dialogue_lands_in_the_database(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    turns = ["I need a cheap restaurant in the centre", "italian food please",
             "book it for 2 people on friday at 18:00"]
    wanted = [(3, 2), (2, 1), (1, 3)]
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        for text in turns:
            await say(pilot, text)
        log = app.screen.query_one(ChatLog)
        views = log.system_views()
        assert len(views) == 3 and all(v.reply.text for v in views)
        # rating mode starts on the latest turn; up moves to earlier ones (the prompt keeps the focus)
        await pilot.press("escape")
        assert log.rating and app.screen.query_one("#prompt", Input).has_focus
        for i in (2, 1, 0):
            rel, intr = wanted[i]
            await pilot.press(str(rel), str(intr))
            if i:
                await pilot.press("up")
        await pilot.press("escape")
        assert not log.rating and app.screen.query_one("#prompt", Input).value == ""
        await rate_dialogue(pilot, ["3", "2", "1", "0", "4"])
        assert app.screen.locked
        assert app.screen.query_one("#prompt", Input).disabled
    store = open_store(tmp_path / "t.db")
    sess = store.sessions()
    assert len(sess) == 1 and sess[0].locked and sess[0].tester == "ana" and sess[0].system_name == "multiwoz"
    rows = store.turns(sess[0].id)
    assert [t.role for t in rows] == ["user", "system"] * 3
    assert [t.text for t in rows if t.role == "user"] == turns
    by_turn = {r.turn_id: (r.relevance, r.interestingness) for r in store.turn_ratings(sess[0].id)}
    system_ids = [t.id for t in rows if t.role == "system"]
    assert [by_turn[i] for i in system_ids] == wanted
    (dr,) = store.dialogue_ratings(sess[0].id)
    given = (dr.understanding, dr.task_completion, dr.interest_arousal, dr.efficiency, dr.overall)
    assert given == (3, 2, 1, 0, 4)
    assert dr.justification == "it found and booked a place" and dr.rater == "ana"


async def test_turns_typed_while_the_system_answers_are_queued_in_order(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-gate")
    fakes.GATE.clear()  # the system holds its answers: the turns typed meanwhile wait in the queue
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            screen: Any = app.screen
            for text in ("one", "two", "three"):
                screen.query_one("#prompt", Input).value = text
                await pilot.press("enter")
            await pilot.pause()
            assert len(screen.query(UserTurnView)) == 3 and not screen.query(SystemTurnView)
            store = open_store(tmp_path / "t.db")  # every typed turn is stored already, as pending
            (sess,) = store.sessions()
            assert [(t.text, t.status) for t in store.turns(sess.id)] == [
                ("one", "pending"), ("two", "pending"), ("three", "pending")]
            fakes.GATE.set()
            await settle(pilot)
            assert [v.reply.text for v in screen.query_one(ChatLog).system_views()] == list(fakes.REPLIES[:3])
    finally:
        fakes.GATE.set()
    turns = store.turns(sess.id)
    assert [t.text for t in turns if t.role == "user"] == ["one", "two", "three"]
    assert [t.status for t in turns] == ["ok"] * 6


async def test_invalid_and_impossible_ratings_are_refused_visibly(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("escape")  # nothing to rate yet
        assert "Nothing to rate yet" in notes(app)[-1]
        assert app.screen.query_one("#prompt", Input).has_focus
        await pilot.press("ctrl+r")  # no dialogue to rate either
        assert "Nothing to rate yet" in notes(app)[-1]
        await say(pilot, "cheap food in the centre")
        await pilot.press("escape", "7")
        await pilot.pause()
        assert "1-3" in notes(app)[-1] and "7" in notes(app)[-1]
        await pilot.press("0")
        await pilot.pause()
        assert "0 is not a rating" in notes(app)[-1]
        view = app.screen.query_one(ChatLog).system_views()[0]
        assert view.ratings == {"relevance": None, "interestingness": None}
        await pilot.press("2")
        assert view.ratings["relevance"] == 2
    store = open_store(tmp_path / "t.db")
    (r,) = store.turn_ratings()
    assert (r.relevance, r.interestingness) == (2, None)


async def test_incomplete_dialogue_rating_is_refused_and_nothing_lands(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 45)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        await pilot.press("ctrl+r")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DialogueRatingScreen)
        await pilot.press("2", "3", "9")  # 9 is not on the interest-arousal scale
        await pilot.pause()
        assert "9 is not on the scale" in notes(app)[-1]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        msg = notes(app)[-1]
        assert "still missing" in msg and "Interest arousal" in msg and "Efficiency" in msg
        assert "justification" in msg and "Understanding" not in msg
        await pilot.press("escape", "y")  # cancel (answers given: asked first): nothing stored, session open
        await settle(pilot)
        assert not app.screen.locked
    store = open_store(tmp_path / "t.db")
    assert store.dialogue_ratings() == []
    assert not store.sessions()[0].locked


async def test_locked_session_refuses_turns_and_ratings_and_offers_a_new_one(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 45)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        await rate_dialogue(pilot, ["1", "1", "1", "1", "1"], "short")
        chat: Any = app.screen
        await pilot.press("escape")
        assert "locked" in notes(app)[-1]
        first = chat.session.id
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert chat.session.id != first and not chat.locked
        await say(pilot, "again")
        assert len(chat.query_one(ChatLog).system_views()) == 1
    store = open_store(tmp_path / "t.db")
    assert len(store.sessions()) == 2


async def test_failed_turn_is_shown_and_the_session_goes_on(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake:fail_on=boom")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "boom")
        await say(pilot, "fine now")
        views = list(app.screen.query(SystemTurnView))
        assert views[0].has_class("-failed") and "fake system was told to fail" in str(views[0].error)
        assert not views[1].has_class("-failed")
        assert "failed" in " ".join(notes(app))


async def test_typing_in_rating_mode_goes_back_to_the_prompt(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        await pilot.press("escape", "1")
        log = app.screen.query_one(ChatLog)
        assert log.rating and log.aspect is not None and log.aspect.key == "interestingness"
        await pilot.press("t", "h", "x")
        prompt = app.screen.query_one("#prompt", Input)
        assert prompt.has_focus and prompt.value == "thx" and not log.rating


async def test_turns_typed_before_the_system_is_loaded_wait_for_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-slow")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        prompt = app.screen.query_one("#prompt", Input)
        assert prompt.has_focus  # usable at once, while settings/store/system load in workers
        prompt.value = "early bird"
        await pilot.press("enter")
        await settle(pilot)
        views = app.screen.query_one(ChatLog).system_views()
        assert [v.reply.text for v in views] == [fakes.REPLIES[0]]
        assert app.screen.query_one("#status").activity == ""


async def test_a_dialogue_rating_that_cannot_be_stored_keeps_the_answers(tmp_path: Path) -> None:
    """The rating dialog closed before the store was asked: when the write failed (a database locked past the
    busy timeout, a full disk) the five answers and the justification were gone and the tester had to type
    them all again. The dialog now opens again holding them; ctrl+s stores them once the database is back."""
    from parley.store import StoreError

    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 45)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        chat: Any = app.screen
        store = chat.session.store
        real = store.rate_dialogue
        calls: list[int] = []

        def locked_once(rating: Any, **kw: Any) -> Any:
            calls.append(1)
            if len(calls) == 1:
                raise StoreError(f"cannot write {store.path}: database is locked")
            return real(rating, **kw)

        store.rate_dialogue = locked_once
        await rate_dialogue(pilot, ["3", "2", "1", "0", "4"], "a long reason typed with care")
        assert "not stored" in notes(app)[-1] and "kept" in notes(app)[-1]
        screen = app.screen
        assert isinstance(screen, DialogueRatingScreen) and not chat.locked
        assert screen.values() == {"understanding": 3, "task_completion": 2, "interest_arousal": 1,
                                   "efficiency": 0, "overall": 4}
        assert screen.query_one("#justification", TextArea).text == "a long reason typed with care"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert chat.locked and not isinstance(app.screen, DialogueRatingScreen)
        sid = chat.session.id
    (dr,) = open_store(tmp_path / "t.db").dialogue_ratings(sid)
    assert (dr.understanding, dr.overall, dr.justification) == (3, 4, "a long reason typed with care")


async def test_the_dialogue_form_leaves_the_latest_turns_readable_and_takes_every_key(tmp_path: Path) -> None:
    """ctrl+r and the whole rating pressed with no pause: the form opens on the right half, the transcript
    narrows to the left half showing its latest system turn, and every key lands in the stored rating."""
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for text in ("a cheap place in the centre", "italian food, please", "book it for two"):
            await say(pilot, text)
        await pilot.press("ctrl+r", "3", "2", "1", "0", "4", *"it booked", "enter", *"a table")
        assert isinstance(app.screen, DialogueRatingScreen)
        form, log = app.screen.query_one("#dialog"), app.screen_stack[-2].query_one(ChatLog)
        latest = log.system_views()[-1]
        assert log.region.right <= form.region.x and log.region.width >= 45  # side by side, not under it
        assert latest.region.area and log.region.contains_region(latest.region)  # the latest turn in view
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not isinstance(app.screen, DialogueRatingScreen) and app.screen.locked
        assert log.region.width == 100  # the transcript takes the whole width again
    (r,) = open_store(tmp_path / "t.db").dialogue_ratings()
    given = (r.understanding, r.task_completion, r.interest_arousal, r.efficiency, r.overall, r.justification)
    assert given == (3, 2, 1, 0, 4, "it booked\na table")
