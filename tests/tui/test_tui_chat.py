"""Pilot tests of the chat screen: a full rated dialogue on the default system, queueing, refusals, panels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

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


async def rate_dialogue(pilot: Any, keys: list[str], justification: str = "it found and booked a place") -> None:
    await pilot.press("ctrl+r")
    await pilot.pause()
    assert isinstance(pilot.app.screen, DialogueRatingScreen)
    for k in keys:  # one digit per scale, tab to the next
        await pilot.press(k, "tab")
    pilot.app.screen.query_one("#justification", Input).value = justification
    await pilot.press("ctrl+s")
    await settle(pilot)


async def test_full_rated_dialogue_lands_in_the_database(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    turns = ["I need a cheap restaurant in the centre", "italian food please", "book it for 2 people on friday at 18:00"]
    wanted = [(3, 2), (2, 1), (1, 3)]
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        for text in turns:
            await say(pilot, text)
        log = app.screen.query_one(ChatLog)
        views = log.system_views()
        assert len(views) == 3 and all(v.reply.text for v in views)
        # rating mode starts on the latest turn; up moves to earlier ones
        await pilot.press("escape")
        assert log.has_focus
        for i in (2, 1, 0):
            rel, intr = wanted[i]
            await pilot.press(str(rel), str(intr))
            if i:
                await pilot.press("up")
        await pilot.press("escape")
        assert app.screen.query_one("#prompt", Input).has_focus
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
    assert (dr.understanding, dr.task_completion, dr.interest_arousal, dr.efficiency, dr.overall) == (3, 2, 1, 0, 4)
    assert dr.justification == "it found and booked a place" and dr.rater == "ana"


async def test_turns_typed_while_the_system_answers_are_queued_in_order(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        screen: Any = app.screen
        screen._busy = True  # as if a turn were in flight: the next ones must wait in the queue
        for text in ("one", "two", "three"):
            screen.query_one("#prompt", Input).value = text
            await pilot.press("enter")
        await pilot.pause()
        assert len(screen.query(UserTurnView)) == 3 and not screen.query(SystemTurnView)
        screen._busy = False
        screen._pump()
        await settle(pilot)
        assert [v.reply.text for v in screen.query_one(ChatLog).system_views()] == list(fakes.REPLIES[:3])
    store = open_store(tmp_path / "t.db")
    (sess,) = store.sessions()
    assert [t.text for t in store.turns(sess.id) if t.role == "user"] == ["one", "two", "three"]


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
        await pilot.press("2", "tab", "3", "tab", "9")  # 9 is not on the interest-arousal scale
        await pilot.pause()
        assert "9 is not on the scale" in notes(app)[-1]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        msg = notes(app)[-1]
        assert "still missing" in msg and "Interest arousal" in msg and "Efficiency" in msg
        assert "justification" in msg and "Understanding" not in msg
        await pilot.press("escape")  # cancel: nothing stored, the session stays open
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


async def test_rewriter_panel_applies_a_new_chain_from_the_next_turn(tmp_path: Path) -> None:
    from textual.widgets import Checkbox

    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        await say(pilot, "I want a cheap restaurant please")
        await pilot.press("f2")
        await pilot.pause()
        app.screen.query_one("#rw-asr-sim", Checkbox).value = True
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Rewriters from the next turn: asr-sim" in notes(app)[-1]
        assert app.screen.query_one("#status").rewriters == "asr-sim"
        await say(pilot, "I want a cheap restaurant for 3 people at 13:45 please")
    store = open_store(tmp_path / "t.db")
    user = [t for t in store.turns(store.sessions()[0].id) if t.role == "user"]
    assert user[0].internals["condition"]["name"] == "original"
    assert user[1].internals["condition"]["name"] == "asr-sim"
    assert user[1].rewrite_steps[0]["name"] == "asr-sim" and user[1].text_final != user[1].text


async def test_model_picker_switches_system_and_reports_failures(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(pilot)
        chat: Any = app.screen
        first = chat.session.id
        await pilot.press("f5")
        await pilot.pause()
        spec = app.screen.query_one("#spec", Input)
        spec.focus()
        spec.value = "tui-missing"
        await pilot.press("enter")
        await settle(pilot)
        assert "Could not load tui-missing" in notes(app)[-1]
        assert chat.session.id == first and chat.system_spec == "tui-fake"
        await pilot.press("f5")
        await pilot.pause()
        # the highlighted list entry loads with enter too; here the free field does
        spec = app.screen.query_one("#spec", Input)
        spec.focus()
        spec.value = "tui-slow"
        await pilot.press("enter")
        await settle(pilot)
        assert chat.system_spec == "tui-slow" and chat.session.id != first
        assert app.settings.recent_models[:2] == ["tui-slow", "tui-fake"]


async def test_tester_is_asked_once_and_kept_in_settings(tmp_path: Path) -> None:
    from parley.engine.settings import load_settings
    from parley.tui.screens.tester import TesterScreen

    app = ParleyApp(db_path=str(tmp_path / "t.db"), system_spec="tui-fake", seed=1)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TesterScreen)
        await pilot.press("enter")  # empty name refused
        assert isinstance(app.screen, TesterScreen)
        await pilot.press(*"zoe", "enter")
        await settle(pilot)
        chat: Any = app.screen
        assert chat.session is not None and chat.query_one("#status").tester == "zoe"
    assert load_settings().tester == "zoe"
    assert open_store(tmp_path / "t.db").sessions()[0].tester == "zoe"
    app2 = ParleyApp(db_path=str(tmp_path / "t.db"), system_spec="tui-fake", seed=1)
    async with app2.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not isinstance(app2.screen, TesterScreen) and app2.tester == "zoe"


async def test_keymap_from_settings_remaps_bindings(tmp_path: Path) -> None:
    from parley.engine.settings import update_settings

    update_settings(keymap={"end_dialogue": "f9"})
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 45)) as pilot:
        await settle(pilot)
        await say(pilot, "hi")
        await pilot.press("f9")
        await pilot.pause()
        assert isinstance(app.screen, DialogueRatingScreen)


async def test_palette_commands_run_chat_actions(tmp_path: Path) -> None:
    from parley.tui.commands import COMMANDS, ParleyCommands

    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chat: Any = app.screen
        names = {a for _, _, a in COMMANDS}
        for action in names:
            if action.startswith("app."):
                assert hasattr(app, f"action_{action[4:]}"), action
            else:
                assert hasattr(chat, f"action_{action}"), action
        provider = ParleyCommands(chat)
        hits = [h async for h in provider.search("internals")]
        assert hits
        log = chat.query_one(ChatLog)
        before = log.has_class("-internals")
        app.run_chat_action("toggle_internals")
        await settle(pilot)
        assert log.has_class("-internals") != before


@pytest.mark.parametrize("spec", ["impolite:scenario=2", "nosuch"])
async def test_bad_or_good_start_rewriters_never_stop_the_app(tmp_path: Path, spec: str) -> None:
    app = make_app(tmp_path, "tui-fake", rewrite_specs=(spec,))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "find me a hotel")
        bar = app.screen.query_one("#status")
        if spec == "nosuch":
            assert bar.rewriters == "original" and any("Rewriters off" in n for n in notes(app))
        else:
            assert bar.rewriters == spec


async def test_goal_card_shows_the_goal_sentences(tmp_path: Path) -> None:
    from parley.tui.widgets.goal import GoalCard

    app = make_app(tmp_path, "tui-fake", goal="random")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        card = app.screen.query_one(GoalCard)
        assert card.goal["message"] and "Your goal" in str(card.render())
        await say(pilot, "hi")
    store = open_store(tmp_path / "t.db")
    assert store.sessions()[0].goal["message"] == card.goal["message"]


async def test_goal_as_a_dict_and_a_missing_goal_module(tmp_path: Path, monkeypatch: Any) -> None:
    import sys

    from parley.tui.widgets.goal import GoalCard

    app = make_app(tmp_path, "tui-fake", goal={"message": ["Find a <span>cheap</span> hotel."]})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "Find a cheap hotel." in str(app.screen.query_one(GoalCard).render())
    monkeypatch.setitem(sys.modules, "parley.engine.scoring.goals", None)  # import fails as if not written yet
    app = make_app(tmp_path, "tui-fake", goal="random")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query(GoalCard)
        assert any("Goal cards need" in n for n in notes(app))


async def test_unusable_database_exits_with_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db"
    bad.write_text("hello, I am a text file and not a database at all")
    app = ParleyApp(db_path=str(bad), system_spec="tui-fake", tester="ana")
    async with app.run_test(size=(100, 30)) as pilot:
        # no settle(): the app exits from its boot worker, which cancels the workers settle() would wait on
        for _ in range(400):
            if app.return_code is not None:
                break
            await pilot.pause(0.05)
    assert app.return_code == 2


async def test_typing_in_rating_mode_goes_back_to_the_prompt(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        await pilot.press("escape", "1")
        log = app.screen.query_one(ChatLog)
        assert log.has_focus and log.aspect.key == "interestingness"
        await pilot.press("t", "h", "x")
        prompt = app.screen.query_one("#prompt", Input)
        assert prompt.has_focus and prompt.value == "thx"


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


async def test_rewriter_panel_works_from_the_keyboard_alone(tmp_path: Path) -> None:
    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("space")  # the first rewriter toggle has focus on open
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen.query_one("#status").rewriters == "impolite"


async def test_scores_screen_opens_from_the_chat(tmp_path: Path) -> None:
    from parley.tui.screens.scores import ScoresScreen

    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        await say(pilot, "I want a cheap restaurant please")
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, ScoresScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ScoresScreen)
