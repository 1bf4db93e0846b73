"""Pilot tests of the chat screen's panels, settings and start-up: rewriters, model picker, tester, keymap,
palette, goal card, an unusable database, scores, toggles (turns and ratings: test_tui_chat.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from parley.store import open_store
from parley.tui.app import ParleyApp
from parley.tui.screens.rating import DialogueRatingScreen
from parley.tui.widgets.chatlog import ChatLog
from tests.tui import fakes
from tests.tui.pilot import notes, say, settle

fakes.register()


def make_app(tmp_path: Path, system: str = "multiwoz", **kw: Any) -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester=kw.pop("tester", "ana"),
                     seed=kw.pop("seed", 7), **kw)


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
        await say(pilot, "hello")  # the session is stored with its first turn
    assert load_settings().tester == "zoe"
    assert open_store(tmp_path / "t.db").sessions()[0].tester == "zoe"
    app2 = ParleyApp(db_path=str(tmp_path / "t.db"), system_spec="tui-fake", seed=1)
    async with app2.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not isinstance(app2.screen, TesterScreen) and app2.tester == "zoe"
        await say(pilot, "hi")
        app2.action_change_tester()  # mid-session: the session record follows
        await pilot.pause()
        assert isinstance(app2.screen, TesterScreen)
        app2.screen.query_one(Input).value = ""
        await pilot.press(*"yan", "enter")
        await settle(pilot)
        assert app2.screen.query_one("#status").tester == "yan"
    sessions = open_store(tmp_path / "t.db").sessions()
    assert [s.tester for s in sessions] == ["zoe", "yan"]


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
    # the import fails as if the module were not written yet
    monkeypatch.setitem(sys.modules, "parley.engine.scoring.goals", None)
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


async def test_rewriter_panel_keeps_the_openai_backend_of_a_chain_it_applies(tmp_path: Path) -> None:
    spec = "impolite:backend=openai,url=http://127.0.0.1:9/v1,model=tester-llm,timeout=5.0"
    app = make_app(tmp_path, "tui-fake", rewrite_specs=(spec,))
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("ctrl+s")  # applied unchanged: the endpoint must survive the round trip
        await settle(pilot)
        shown = app.screen.query_one("#status").rewriters
        assert "backend=openai" in shown and "url=http://127.0.0.1:9/v1" in shown
        assert "model=tester-llm" in shown and "timeout=5.0" in shown


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


async def test_toggles_last_for_the_run_unless_saved_as_defaults(tmp_path: Path) -> None:
    from parley.engine.settings import load_settings

    app = make_app(tmp_path, "tui-fake")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+o", "f6")
        await settle(pilot)
        assert app.screen.query_one(ChatLog).has_class("-internals") and app.toggles.speak_replies
        assert not load_settings().show_internals and not load_settings().audio.speak_replies
    app = make_app(tmp_path, "tui-fake")  # the next run starts from the defaults again
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one(ChatLog).has_class("-internals")
        await pilot.press("ctrl+o")
        app.run_chat_action("app.save_toggles")  # the palette's "Save toggles as defaults"
        await settle(pilot)
        assert "Saved as defaults for later runs: internals on, spoken replies off" in notes(app)[-1]
    assert load_settings().show_internals and not load_settings().audio.speak_replies
