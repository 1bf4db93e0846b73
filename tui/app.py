"""``ParleyApp``: the thin Textual app — settings, keymap, the store, the tester, this run's toggles, the
palette, help and quitting; the chat screen does the rest (tui/screens/chat.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from parley.tui import messages as M
from parley.tui.commands import ParleyCommands
from parley.tui.notify import tell

if TYPE_CHECKING:
    from parley.engine.settings import Settings
    from parley.store import Store
    from parley.tui.boot import BootResult, Goal
    from parley.tui.screens.chat import ChatScreen


@dataclass
class Toggles:
    """Switches that last for this run only, unless saved as defaults (palette: Save toggles as defaults)."""

    show_internals: bool = False
    speak_replies: bool = False


class ParleyApp(App[None], inherit_bindings=False):
    """The live tester. Arguments override settings (engine.settings); ``goal`` is a goal dict or a goal spec
    for ``engine.scoring.goals.make_goal`` ("random" or a MultiWOZ dialogue id). ``trust_remote_code`` (the
    command-line flag) lets the first system's checkpoint run its own code."""

    CSS_PATH = "app.tcss"
    TITLE = "parley"
    COMMANDS = App.COMMANDS | {ParleyCommands}
    HELP_GROUP: ClassVar[str] = "anywhere"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True),
        Binding("f1", "help", "Help", id="help"),
        Binding("f7", "scores", "Scores", id="scores"),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(self, db_path: str | Path | None = None, system_spec: str | None = None,
                 rewrite_specs: Sequence[str] = (), tester: str | None = None,
                 goal: str | Goal | None = None, seed: int | None = None,
                 trust_remote_code: bool = False) -> None:
        super().__init__()
        self.db_path = db_path
        self.arg_system = system_spec
        self.arg_rewriters = tuple(rewrite_specs)
        self.tester = (tester or "").strip()
        self.goal_arg = goal
        self.seed = seed
        self.trust_remote_code = trust_remote_code
        self.settings: Settings | None = None  # read by the boot worker (pydantic is slow to import)
        self.system_spec = system_spec or "multiwoz"
        self.store: Store | None = None
        self.db_file = Path(".")
        self.db_label = ""
        self.toggles = Toggles()
        self._ending = False  # quitting: the session's end time is being written
        self.fatal: str | None = None  # why the app stopped (printed by tui.launch, exit code 2)

    # -- start-up ----------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        """Show the chat at once; settings, store, rewriters, goal and system load in workers behind it."""
        from parley.engine.locations import database_path
        from parley.tui.screens.chat import ChatScreen

        self.db_file = Path(self.db_path) if self.db_path else database_path()
        self.db_label = str(self.db_file)
        self.push_screen(ChatScreen())

    def boot(self) -> BootResult:
        """Runs in the boot worker: see :func:`tui.boot.boot`."""
        from parley.tui.boot import boot

        return boot(self.db_file, self.arg_rewriters, self.goal_arg, self.seed)

    def configure(self, boot: BootResult) -> None:
        """On the UI thread, once the boot worker is done: apply settings and keymap, ask for the tester."""
        settings = self.settings = boot.settings
        self.store = boot.store
        self.seed = boot.seed
        self.system_spec = self.arg_system or settings.system or "multiwoz"
        self.tester = self.tester or (settings.tester or "").strip()
        self.toggles = Toggles(settings.show_internals, settings.audio.speak_replies)
        if settings.keymap:
            self.set_keymap(settings.keymap)
        for note in boot.notes:
            tell(self, note, severity="warning", timeout=10)
        if not self.tester:
            self.action_change_tester()

    @on(M.StoreFailed)
    def _store_failed(self, event: M.StoreFailed) -> None:
        """The database cannot be used (posted by the chat's boot worker): leave; tui.launch prints one line
        and exits with code 2."""
        self.fatal = event.error
        self.exit(return_code=2)

    @property
    def chat(self) -> ChatScreen | None:
        from parley.tui.screens.chat import ChatScreen

        return next((s for s in self.screen_stack if isinstance(s, ChatScreen)), None)

    # -- quitting ----------------------------------------------------------------------------------------
    async def action_quit(self) -> None:
        """Quit at once when no typed turn waits for the system; otherwise ask: finish them, or cancel them
        (they stay stored as cancelled)."""
        from parley.tui.screens.confirm import QuitScreen
        from parley.tui.screens.rating import DialogueRatingScreen

        if isinstance(self.screen, DialogueRatingScreen):  # its answers are not stored yet: not lost silently
            tell(self, "Submit the dialogue rating (ctrl+s) or cancel it (escape) first; then ctrl+q quits.",
                 severity="warning")
            return
        chat = self.chat
        waiting = chat.dialogue.waiting if chat is not None else 0
        if chat is None or not waiting:
            self.quit_now()
            return

        def chosen(choice: str | None) -> None:
            if choice == "cancel":
                chat.dialogue.cancel()
                self.quit_now()
            elif choice == "finish" and not chat.dialogue.waiting:  # they finished while the dialog was open
                self.quit_now()
            else:  # finish: quit when the last one is answered (Dialogue.Idle); keep working: don't
                chat.quitting = choice == "finish"
                chat.status.activity = (
                    f"finishing {waiting} waiting turn(s), then quitting (ctrl+q asks again)"
                    if chat.quitting else "")

        if not isinstance(self.screen, QuitScreen):
            self.push_screen(QuitScreen(waiting), chosen)

    def quit_now(self) -> None:
        """A clean quit: the open session gets its end time (if it was ever stored), then the app exits.
        Ratings still being written are waited for first (the chat quits once they are stored; one that
        fails stops the quit and says so); the end time is written in the same worker queue after them (an
        end time that cannot be stored is printed on exit)."""
        chat = self.chat
        if chat is None or chat.session is None:
            self.exit()
            return
        if self._ending:  # its write is queued: the app exits once it is done
            return
        chat.quitting = True
        if chat.ratings.saving:
            chat.ratings.show_status()
            return

        def failed(error: str) -> None:  # the database went away: say so, but still quit
            self.fatal = f"the session's end time was not stored: {error}"
            self.exit()

        self._ending = True  # in a worker, like the ratings: a locked database never freezes the UI
        chat.ratings.end_session(chat.session, self.exit, failed)

    # -- app-wide actions --------------------------------------------------------------------------------
    def action_help(self) -> None:
        from parley.tui.screens.help import HelpScreen, binding_rows, help_groups

        if isinstance(self.screen, HelpScreen):
            return
        keymap = self.settings.keymap if self.settings is not None else {}
        rows = binding_rows(help_groups(self), keymap)
        intro = ("Remap any key in config.toml: [keymap] <binding id> = \"keys\" "
                 "(e.g. end_dialogue = \"f9\"). Rating turns: escape enters rating mode on the latest system "
                 "turn; 1-3 rate relevance then interestingness; up/down pick another turn.")
        self.push_screen(HelpScreen(rows, intro))

    def action_scores(self) -> None:
        """The Scores screen for the open database (satisfaction statistics, MultiWOZ metrics, charts)."""
        from parley.tui.screens.scores import ScoresScreen

        if isinstance(self.screen, ScoresScreen):
            return
        if self.store is None:
            tell(self, "The database is not open yet.", severity="warning")
            return
        self.push_screen(ScoresScreen(self.store))

    def action_change_tester(self) -> None:
        from parley.tui.screens.tester import TesterScreen

        self.push_screen(TesterScreen(self.tester), self._tester_chosen)

    def _tester_chosen(self, name: str | None) -> None:
        if name:
            self.tester = name
            self.save_setting(tester=name)
        elif not self.tester:
            self.tester = "anonymous"
            tell(self, "Tester set to 'anonymous' (change it from the command palette).")
        if self.chat is not None:
            self.chat.tester_changed()

    def run_chat_action(self, action: str) -> None:
        """Run a chat-screen action (or an ``app.`` one) from the command palette."""
        if action.startswith("app."):
            self.call_later(self.run_action, action[4:])
        elif self.chat is not None and self.chat.check_action(action, ()):
            self.call_later(self.chat.run_action, action)
        elif self.chat is not None:  # hidden or greyed out (a locked session): the action says why not
            self.call_later(getattr(self.chat, f"action_{action}"))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's palette commands, except its "Keys" panel: parley's "Keys" (F1) lists every key."""
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")

    # -- settings ----------------------------------------------------------------------------------------
    def save_setting(self, **changes: Any) -> bool:
        """Change settings in memory and on disk; a write failure is reported, never fatal."""
        from parley.engine.settings import load_settings, update_settings

        if self.settings is None:
            self.settings = load_settings()
        self.settings = self.settings.model_copy(update=changes)
        try:
            update_settings(**changes)
        except Exception as e:
            tell(self, f"Settings not saved: {e}", severity="warning")
            return False
        return True

    def action_save_toggles(self) -> None:
        """Keep this run's internals and spoken-replies toggles as the defaults of later runs."""
        if self.settings is None:
            tell(self, "Still starting up; try again in a moment.", severity="warning")
            return
        t = self.toggles
        audio = self.settings.audio.model_copy(update={"speak_replies": t.speak_replies})
        if self.save_setting(show_internals=t.show_internals, audio=audio):
            tell(self, f"Saved as defaults for later runs: internals {'on' if t.show_internals else 'off'}, "
                       f"spoken replies {'on' if t.speak_replies else 'off'} (config.toml).")

    def remember_model(self, spec: str) -> None:
        if self.settings is None:
            return
        recent = [spec] + [s for s in self.settings.recent_models if s != spec]
        if recent != list(self.settings.recent_models):
            self.save_setting(recent_models=recent[:10])

    def on_unmount(self) -> None:
        if self.store is not None:
            self.store.close()
