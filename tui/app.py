"""``ParleyApp``: the thin Textual app — settings, keymap, the store, the tester, the palette; the chat screen does
the rest (tui/screens/chat.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding

from parley.tui.commands import ParleyCommands


class ParleyApp(App[None], inherit_bindings=False):
    """The live tester. Arguments override settings (engine.settings); ``goal`` is a goal dict or a goal spec
    for ``engine.scoring.goals.make_goal`` ("random" or a MultiWOZ dialogue id)."""

    CSS_PATH = "app.tcss"
    TITLE = "parley"
    COMMANDS = App.COMMANDS | {ParleyCommands}
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1", "help", "Help", id="help"),
        Binding("f7", "scores", "Scores", id="scores"),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(self, db_path: str | Path | None = None, system_spec: str | None = None,
                 rewrite_specs: Sequence[str] = (), tester: str | None = None,
                 goal: str | dict[str, Any] | None = None, seed: int | None = None,
                 trust_remote_code: bool = False) -> None:
        super().__init__()
        self.db_path = db_path
        self.arg_system = system_spec
        #: --trust-remote-code: the checkpoint named by --system (only it) may run its own code
        self.trust_remote_code = trust_remote_code
        self.arg_rewriters = tuple(rewrite_specs)
        self.tester = (tester or "").strip()
        self.goal_arg = goal
        self.seed = seed
        self.settings: Any = None  # engine.settings.Settings, read by the boot worker (pydantic is slow to import)
        self.system_spec = system_spec or "multiwoz"
        self.store: Any = None
        self.db_file = Path(".")
        self.db_label = ""

    # -- start-up ----------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        """Show the chat at once; settings, store, rewriters, goal and system load in workers behind it."""
        from parley.engine.locations import database_path
        from parley.tui.screens.chat import ChatScreen

        self.db_file = Path(self.db_path) if self.db_path else database_path()
        self.db_label = str(self.db_file)
        self.push_screen(ChatScreen())

    def boot(self) -> dict[str, Any]:
        """Runs in the boot worker (no widgets touched): settings, database, initial chain, goal.

        Returns what the chat screen needs; ``notes`` are warnings to show. Raises store.StoreError / OSError
        when the database cannot be used."""
        from parley.engine.settings import Settings, load_settings

        notes: list[str] = []
        try:
            settings = load_settings()
        except ValueError as e:
            settings = Settings()
            notes.append(f"{e} — using defaults")
        self.ensure_store()
        specs = self.arg_rewriters or tuple(settings.rewriters)
        seed = self.seed if self.seed is not None else settings.seed
        return {"settings": settings, "chain": self._initial_chain(specs, notes),
                "goal": self._resolve_goal(seed, notes), "notes": notes, "seed": seed}

    def configure(self, boot: dict[str, Any]) -> None:
        """On the UI thread, once the boot worker is done: apply settings and keymap, ask for the tester."""
        settings = boot["settings"]
        self.settings = settings
        self.seed = boot["seed"]
        self.system_spec = self.arg_system or settings.system or "multiwoz"
        self.tester = self.tester or (settings.tester or "").strip()
        if settings.keymap:
            self.set_keymap(settings.keymap)
        for note in boot["notes"]:
            self.notify(note, severity="warning", timeout=10)
        if not self.tester:
            self.action_change_tester()

    def _initial_chain(self, specs: Sequence[str], notes: list[str]) -> Any:
        from parley.engine.rewrite.chain import Chain

        try:
            return Chain(specs)
        except Exception as e:  # a bad spec or a rewriter that cannot be built: start without rewriters
            notes.append(f"Rewriters off: {e}")
            return Chain()

    def _resolve_goal(self, seed: int | None, notes: list[str]) -> dict[str, Any] | None:
        goal = self.goal_arg
        if goal is None or isinstance(goal, dict):
            return goal
        try:
            from parley.engine.scoring.goals import make_goal
        except ImportError:
            notes.append("Goal cards need engine.scoring.goals, which is not available yet.")
            return None
        try:
            made = make_goal(str(goal), seed)
        except Exception as e:
            notes.append(f"No goal card: {e}")
            return None
        return dict(made) if made else None

    def ensure_store(self) -> Any:
        """Open the database (from a worker: importing the store is slow).

        Raises store.StoreError / OSError with a message for the user."""
        if self.store is None:
            from parley.store import open_store

            self.db_file.parent.mkdir(parents=True, exist_ok=True)
            self.store = open_store(self.db_file)
        return self.store

    def store_failed(self, error: str) -> None:
        """The database cannot be used: leave with one clear line (exit code 2)."""
        self.exit(return_code=2, message=f"parley: error: {error}")

    # -- app-wide actions --------------------------------------------------------------------------------
    def action_help(self) -> None:
        from parley.tui.screens.chat import ChatScreen
        from parley.tui.screens.help import HelpScreen, binding_rows
        from parley.tui.screens.rating import DialogueRatingScreen
        from parley.tui.screens.rewriters import RewriterScreen
        from parley.tui.widgets.chatlog import ChatLog

        if isinstance(self.screen, HelpScreen):
            return
        groups = [("anywhere", self.BINDINGS + [Binding("ctrl+p", "command_palette", "Command palette",
                                                        id="command_palette")]),
                  ("chat", ChatScreen.BINDINGS), ("rating turns", ChatLog.BINDINGS),
                  ("dialogue rating", DialogueRatingScreen.BINDINGS), ("rewriter panel", RewriterScreen.BINDINGS)]
        keymap = self.settings.keymap if self.settings is not None else {}
        rows = [r for r in binding_rows(groups, keymap) if r[2] != "help_quit"]
        intro = ("Remap any key in config.toml: \\[keymap] <binding id> = \"keys\" (e.g. end_dialogue = \"f9\"). "
                 "Rating turns: escape enters rating mode on the latest system turn; 1-3 rate relevance then "
                 "interestingness; up/down pick another turn.")
        self.push_screen(HelpScreen(rows, intro))

    def action_scores(self) -> None:
        """The Scores screen for the open database (satisfaction statistics, MultiWOZ metrics, charts)."""
        from parley.tui.screens.scores import ScoresScreen

        if isinstance(self.screen, ScoresScreen):
            return
        if self.store is None:
            self.notify("The database is not open yet.", severity="warning")
            return
        self.push_screen(ScoresScreen(self.store))

    def action_change_tester(self) -> None:
        from parley.tui.screens.tester import TesterScreen

        self.push_screen(TesterScreen(self.tester), self._tester_chosen)

    def _tester_chosen(self, name: str | None) -> None:
        from parley.tui.screens.chat import ChatScreen

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
        from parley.tui.screens.chat import ChatScreen

        if action.startswith("app."):
            self.call_later(self.run_action, action[4:])
            return
        chat = next((s for s in self.screen_stack if isinstance(s, ChatScreen)), None)
        if chat is not None:
            self.call_later(chat.run_action, action)

    # -- settings ----------------------------------------------------------------------------------------
    def save_setting(self, **changes: Any) -> None:
        """Change settings in memory and on disk; a write failure is reported, never fatal."""
        from parley.engine.settings import load_settings, update_settings

        if self.settings is None:
            self.settings = load_settings()
        self.settings = self.settings.model_copy(update=changes)
        try:
            update_settings(**changes)
        except Exception as e:
            self.notify(f"Settings not saved: {e}", severity="warning")

    def remember_model(self, spec: str) -> None:
        if self.settings is None:
            return
        recent = [spec] + [s for s in self.settings.recent_models if s != spec]
        if recent != list(self.settings.recent_models):
            self.save_setting(recent_models=recent[:10])

    def on_unmount(self) -> None:
        if self.store is not None:
            self.store.close()
