"""``ParleyApp``: the thin Textual app — settings, keymap, the store, the tester, the palette; the chat screen does
the rest (tui/screens/chat.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding

from tui.commands import ParleyCommands


class ParleyApp(App[None], inherit_bindings=False):
    """The live tester. Arguments override settings (engine.settings); ``goal`` is a goal dict or a goal spec
    for ``engine.scoring.goals.make_goal`` ("random" or a MultiWOZ dialogue id)."""

    CSS_PATH = "app.tcss"
    TITLE = "parley"
    COMMANDS = App.COMMANDS | {ParleyCommands}
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1", "help", "Help", id="help"),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(self, db_path: str | Path | None = None, system_spec: str | None = None,
                 rewrite_specs: Sequence[str] = (), tester: str | None = None,
                 goal: str | dict[str, Any] | None = None, seed: int | None = None) -> None:
        super().__init__()
        from engine.settings import Settings, load_settings

        self._startup_notes: list[str] = []
        try:
            self.settings = load_settings()
        except ValueError as e:
            self.settings = Settings()
            self._startup_notes.append(f"{e} — using defaults")
        self.db_path = db_path
        self.system_spec = system_spec or self.settings.system or "multiwoz"
        self.rewrite_specs = tuple(rewrite_specs) or tuple(self.settings.rewriters)
        self.tester = (tester or self.settings.tester or "").strip()
        self.goal_arg = goal
        self.seed = seed if seed is not None else self.settings.seed
        self.store: Any = None
        self.db_label = ""

    # -- start-up ----------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        from engine.locations import database_path
        from store import StoreError, open_store
        from tui.screens.chat import ChatScreen

        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        path = Path(self.db_path) if self.db_path else database_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.store = open_store(path)
        except (StoreError, OSError) as e:
            self.exit(return_code=2, message=f"parley: error: {e}")
            return
        self.db_label = str(path)
        chain = self._initial_chain()
        goal = self._resolve_goal()
        self.push_screen(ChatScreen(system_spec=self.system_spec, chain=chain, goal=goal))
        for note in self._startup_notes:
            self.notify(note, severity="warning", timeout=10)
        if not self.tester:
            self.action_change_tester()

    def _initial_chain(self) -> Any:
        from engine.rewrite.chain import Chain

        try:
            return Chain(self.rewrite_specs)
        except Exception as e:  # a bad spec or a rewriter that cannot be built: start without rewriters
            self._startup_notes.append(f"Rewriters off: {e}")
            return Chain()

    def _resolve_goal(self) -> dict[str, Any] | None:
        goal = self.goal_arg
        if goal is None or isinstance(goal, dict):
            return goal
        try:
            from engine.scoring.goals import make_goal
        except ImportError:
            self._startup_notes.append("Goal cards need engine.scoring.goals, which is not available yet.")
            return None
        try:
            made = make_goal(str(goal), self.seed)
        except Exception as e:
            self._startup_notes.append(f"No goal card: {e}")
            return None
        return dict(made) if made else None

    # -- app-wide actions --------------------------------------------------------------------------------
    def action_help(self) -> None:
        from tui.screens.chat import ChatScreen
        from tui.screens.help import HelpScreen, binding_rows
        from tui.screens.rating import DialogueRatingScreen
        from tui.screens.rewriters import RewriterScreen
        from tui.widgets.chatlog import ChatLog

        if isinstance(self.screen, HelpScreen):
            return
        groups = [("anywhere", self.BINDINGS + [Binding("ctrl+p", "command_palette", "Command palette",
                                                        id="command_palette")]),
                  ("chat", ChatScreen.BINDINGS), ("rating turns", ChatLog.BINDINGS),
                  ("dialogue rating", DialogueRatingScreen.BINDINGS), ("rewriter panel", RewriterScreen.BINDINGS)]
        rows = [r for r in binding_rows(groups, self.settings.keymap) if r[2] != "help_quit"]
        intro = ("Remap any key in config.toml: [keymap] <binding id> = \"keys\" (e.g. end_dialogue = \"f9\"). "
                 "Rating turns: escape enters rating mode on the latest system turn; 1-3 rate relevance then "
                 "interestingness; up/down pick another turn.")
        self.push_screen(HelpScreen(rows, intro))

    def action_change_tester(self) -> None:
        from tui.screens.tester import TesterScreen

        self.push_screen(TesterScreen(self.tester), self._tester_chosen)

    def _tester_chosen(self, name: str | None) -> None:
        from tui.screens.chat import ChatScreen

        if name:
            self.tester = name
            self.save_setting(tester=name)
        elif not self.tester:
            self.tester = "anonymous"
            self.notify("Tester set to 'anonymous' (change it from the command palette).")
        for screen in self.screen_stack:
            if isinstance(screen, ChatScreen):
                screen.tester_changed()

    def run_chat_action(self, action: str) -> None:
        """Run a chat-screen action (or an ``app.`` one) from the command palette."""
        from tui.screens.chat import ChatScreen

        if action.startswith("app."):
            self.call_later(self.run_action, action[4:])
            return
        chat = next((s for s in self.screen_stack if isinstance(s, ChatScreen)), None)
        if chat is not None:
            self.call_later(chat.run_action, action)

    # -- settings ----------------------------------------------------------------------------------------
    def save_setting(self, **changes: Any) -> None:
        """Change settings in memory and on disk; a write failure is reported, never fatal."""
        from engine.settings import update_settings

        self.settings = self.settings.model_copy(update=changes)
        try:
            update_settings(**changes)
        except Exception as e:
            self.notify(f"Settings not saved: {e}", severity="warning")

    def remember_model(self, spec: str) -> None:
        recent = [spec] + [s for s in self.settings.recent_models if s != spec]
        if recent != list(self.settings.recent_models):
            self.save_setting(recent_models=recent[:10])

    def on_unmount(self) -> None:
        if self.store is not None:
            self.store.close()
