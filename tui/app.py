"""``ParleyApp``: the thin Textual app — settings, keymap, the store, the tester, this run's toggles, the
palette, help and quitting (also on SIGTERM/SIGHUP, from tui.launch); the chat screen does the rest
(tui/screens/chat.py)."""

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
    from parley.engine.session import Session
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
    command-line flag) lets the first system's checkpoint run its own code. ``settings``: as the command line
    read them (a broken file stops it before the screen opens); None: read in the boot worker, where a broken
    file stops the app (exit code 2, one line)."""

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
                 trust_remote_code: bool = False, settings: Settings | None = None) -> None:
        super().__init__()
        self.db_path = db_path
        self.arg_system = system_spec
        self.arg_rewriters = tuple(rewrite_specs)
        self.tester = (tester or "").strip()
        self.goal_arg = goal
        self.seed = seed
        self.trust_remote_code = trust_remote_code
        self.settings: Settings | None = settings  # else read by the boot worker (pydantic is slow to import)
        self.system_spec = system_spec or "multiwoz"
        self.store: Store | None = None
        self.db_file = Path(".")
        self.db_label = ""
        self.toggles = Toggles()
        self._ending = False  # quitting: the session's end time is being written
        self._after_answers = False  # quitting once the waiting turns are answered ("finish")
        self.fatal: str | None = None  # why the app stopped (printed by tui.launch, exit code 2)
        self.signalled: int | None = None  # the SIGTERM/SIGHUP that ended it (tui.launch: its exit code)
        self._cancelled_on_signal = 0
        self._ended_session: Session | None = None

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

        return boot(self.db_file, self.arg_rewriters, self.goal_arg, self.seed, self.settings)

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
        """The database or the settings cannot be used (posted by the chat's boot worker): leave; tui.launch
        prints one line (saying how many turns typed meanwhile, shown "saving…", were not stored) and exits
        with code 2."""
        lost = self.chat.dialogue.unstored if self.chat is not None else 0
        self.fatal = event.error + (f" ({lost} typed turn(s) not stored)" if lost else "")
        self.exit(return_code=2)

    @property
    def chat(self) -> ChatScreen | None:
        from parley.tui.screens.chat import ChatScreen

        return next((s for s in self.screen_stack if isinstance(s, ChatScreen)), None)

    # -- quitting ----------------------------------------------------------------------------------------
    async def action_quit(self) -> None:
        """Quit at once when no typed turn waits for the system; otherwise ask: finish them (when a system is
        loaded or loading), or cancel them (they stay stored as cancelled). Asked again while quitting waits
        for typed turns the database does not take: quit without them, or keep waiting."""
        from parley.tui.screens.confirm import QuitScreen, UnstoredScreen
        from parley.tui.screens.rating import DialogueRatingScreen

        if isinstance(self.screen, DialogueRatingScreen):  # its answers are not stored yet: not lost silently
            tell(self, "Submit the dialogue rating (ctrl+s) or cancel it (escape) first; then ctrl+q quits.",
                 severity="warning")
            return
        chat = self.chat
        if chat is None:
            self.exit()
            return
        dialogue = chat.dialogue
        if chat.quitting and not self._after_answers and dialogue.unstored:
            if not isinstance(self.screen, UnstoredScreen):
                def anyway(lose: bool | None) -> None:
                    if lose and dialogue.unstored:
                        self.fatal = f"{dialogue.unstored} typed turn(s) not stored: {dialogue.problem}"
                        self.exit()

                self.push_screen(UnstoredScreen(dialogue.unstored, dialogue.problem), anyway)
            return
        waiting = dialogue.waiting
        if not waiting:
            self.quit_now()
            return
        can_finish = dialogue.has_system or chat.loader.loading_spec is not None

        def chosen(choice: str | None) -> None:
            self._after_answers = choice == "finish"
            if choice == "cancel":
                dialogue.cancel()
                self.quit_now()
            elif choice == "finish" and not dialogue.waiting:  # they finished while the dialog was open
                self.quit_now()
            else:  # finish: quit when the last one is answered (Dialogue.Idle); keep working: don't
                chat.quitting = self._after_answers
                chat.status.activity = (
                    f"finishing {waiting} waiting turn(s), then quitting (ctrl+q asks again)"
                    if chat.quitting else "")

        if not isinstance(self.screen, QuitScreen):
            self.push_screen(QuitScreen(waiting, dialogue.unstored, can_finish=can_finish), chosen)

    def quit_when_idle(self) -> None:
        """The chat's writes or turns went idle while quitting: quit now, unless the waiting turns are to be
        answered first and some still wait."""
        chat = self.chat
        if chat is not None and (not self._after_answers or not chat.dialogue.waiting):
            self.quit_now()

    def quit_now(self) -> None:
        """A clean quit: the open session gets its end time (if it was ever stored), then the app exits.
        Typed turns still being saved, then ratings still being written, are waited for first (the chat quits
        once they are stored; a rating that fails stops the quit and says so); the end time is written in the
        same worker queue after them (an end time that cannot be stored is printed on exit)."""
        chat = self.chat
        if chat is None or (chat.session is None and not chat.dialogue.unstored):
            self.exit()
            return
        if self._ending:  # its write is queued: the app exits once it is done
            return
        chat.quitting = True
        if chat.dialogue.saving or chat.dialogue.unstored:  # typed turns first: quit once they are stored
            chat.status.activity = "storing the typed turns, then quitting"
            return
        if chat.ratings.saving:
            chat.ratings.show_status()
            return
        session = chat.session
        if session is None:
            self.exit()
            return

        def failed(error: str) -> None:  # the database went away: say so, but still quit
            self.fatal = f"the session's end time was not stored: {error}"
            self.exit()

        self._ending = True  # in a worker, like the ratings: a locked database never freezes the UI
        chat.ratings.end_session(session, self.exit, failed)

    def end_on_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP (installed by tui.launch): end as ctrl+c ends a command, without asking — the
        turns still waiting are cancelled (stored so, the signal as the reason), the session gets its end
        time, the app exits (tui.launch: one line, exit code 128 + the signal). A second signal exits at
        once."""
        from parley import signals

        if self.signalled is not None:
            self.exit()
            return
        self.signalled = signum
        self._after_answers = False
        chat = self.chat
        self._ended_session = chat.session if chat is not None else None
        if chat is not None and chat.dialogue.waiting:
            why = f"never sent: parley was {signals.describe(signum)}"
            self._cancelled_on_signal = chat.dialogue.cancel(why)
        self.quit_now()

    def ended_line(self) -> str:
        """What tui.launch prints after a signal ended the app."""
        from parley import signals

        assert self.signalled is not None
        said = signals.describe(self.signalled)
        if self._ended_session is not None and self._ended_session.stored:
            said += f": session {self._ended_session.id[:8]} ended, stored in {self.db_label}"
        if self._cancelled_on_signal:
            said += f"; {self._cancelled_on_signal} waiting turn(s) stored as cancelled"
        return said

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

        try:
            if self.settings is None:
                self.settings = load_settings()
            self.settings = self.settings.model_copy(update=changes)
            update_settings(**changes)  # re-reads the file: one broken since the start is never overwritten
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
