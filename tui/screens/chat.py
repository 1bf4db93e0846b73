"""The chat screen: log, prompt, status bar; systems, sessions, turn and dialogue ratings, toggles, quitting.

Behaviour lives in widgets that post messages: :class:`Prompt` (where every key lands: text, ratings,
commands, in order), :class:`Dialogue` (the session and its queue of accepted turns), :class:`ChatLog` (the
conversation and the rating cursor), :class:`VoiceInput` (voice mode, spoken replies).
This screen wires them together; every slow call (building/loading a system, a turn, recording) runs in a
thread worker that posts a typed message back, and widgets are only touched here, on the UI thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from parley.engine.rewrite.chain import Chain
from parley.engine.session import Session
from parley.engine.types import Closable, DialogueSystem
from parley.tui import messages as M
from parley.tui.notify import tell
from parley.tui.screens.rewriters import RewriterScreen
from parley.tui.screens.voice import VoiceInput
from parley.tui.widgets.chatlog import ChatLog, SystemTurnView, UserTurnView
from parley.tui.widgets.dialogue import Dialogue
from parley.tui.widgets.goal import GoalCard
from parley.tui.widgets.jobbar import show_job
from parley.tui.widgets.loader import SystemLoader
from parley.tui.widgets.prompt import Prompt
from parley.tui.widgets.ratings import ENDING_HINT, LOCKING, Ratings
from parley.tui.widgets.statusbar import StatusBar

if TYPE_CHECKING:
    from parley.audio.ahead import AheadReply
    from parley.tui.app import ParleyApp
    from parley.tui.boot import Goal

PLACEHOLDER = "Type to the system and press enter · escape rates turns · f1 help"
LOCKED_HINT = "Session locked (dialogue rated) — ctrl+n starts a new session"
STARTING = "Still starting up; try again in a moment."


class ChatScreen(Screen[None]):
    """The main screen of :class:`ParleyApp` (store, settings, tester, seed, toggles)."""

    HELP_GROUP: ClassVar[str] = "chat"
    AUTO_FOCUS = "#prompt"  # back from a dialog: the prompt (it decides where every key lands, rating too)
    BINDINGS = [
        Binding("escape", "rate_mode", "Rate turns", id="rate_mode"),
        Binding("ctrl+r", "end_dialogue", "End & rate dialogue", id="end_dialogue"),
        Binding("ctrl+n", "new_session", "New session", id="new_session"),
        Binding("ctrl+o,f3", "toggle_internals", "Internals", id="toggle_internals"),
        Binding("f2", "rewriters", "Rewriters", id="rewriters"),
        Binding("f5", "load_model", "Load model", id="load_model"),
        Binding("ctrl+t,f4", "voice", "Voice", id="voice"),
        Binding("f6", "toggle_speak", "Speak replies", id="toggle_speak", show=False),
        Binding("ctrl+end", "follow_log", "Jump to the latest turn", id="follow_log", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.system_spec = ""
        self.system: DialogueSystem | None = None
        self.chain = Chain()
        self.goal: Goal | None = None
        self.booted = False
        self.quitting = False  # the tester chose "finish, then quit" (ParleyApp.action_quit)
        self._system_count = 0

    @property
    def parley(self) -> ParleyApp:
        return cast("ParleyApp", self.app)

    # -- layout ------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        log = ChatLog(id="log")
        yield log
        yield Static(Text("▼ new turns below · ctrl+end jumps to them"), id="new-below")
        yield VoiceInput(id="voice")
        yield Prompt(log, self.submit_turn, placeholder=PLACEHOLDER, id="prompt")
        yield StatusBar(id="status")
        yield Dialogue()
        yield Ratings()
        yield SystemLoader()
        yield Footer()

    @property
    def log_view(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def prompt(self) -> Prompt:
        return self.query_one(Prompt)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def dialogue(self) -> Dialogue:
        return self.query_one(Dialogue)

    @property
    def loader(self) -> SystemLoader:
        return self.query_one(SystemLoader)

    @property
    def session(self) -> Session | None:
        return self.dialogue.session

    @property
    def locked(self) -> bool:
        return self.dialogue.locked

    def on_mount(self) -> None:
        bar = self.status
        bar.tester = self.parley.tester
        bar.db = self.parley.db_label
        bar.rewriters = self.chain.name
        bar.activity = "starting…"
        self.prompt.focus()
        # after the first frame, so the prompt is usable at once (turns typed meanwhile are queued)
        self.call_after_refresh(self._boot)

    @work(thread=True, group="boot", exit_on_error=False, description="start-up (settings, database)")
    def _boot(self) -> None:
        """Settings, database, initial rewriters and goal (their imports are slow)."""
        from parley.engine.settings import SettingsError
        from parley.store import StoreError

        try:
            result = self.parley.boot()
        except (StoreError, OSError, SettingsError) as e:
            self.post_message(M.StoreFailed(str(e)))
            return
        except Exception as e:  # never a silent "starting…" forever
            self.post_message(M.StoreFailed(f"parley could not start: {type(e).__name__}: {e}"))
            return
        self.post_message(M.Booted(result))

    @on(M.Booted)
    def _booted(self, event: M.Booted) -> None:
        app = self.parley
        app.configure(event.result)
        self.booted = True
        self.chain = event.result.chain
        self.goal = event.result.goal
        if self.goal is not None:
            self.mount(GoalCard(self.goal, id="goal"), before=self.log_view)
        self.log_view.set_class(app.toggles.show_internals, "-internals")
        self.status.rewriters = self.chain.name
        self.status.tester = app.tester
        self.start_session()  # before any system is loaded: every turn typed from now on is stored at once
        # --trust-remote-code covers only the checkpoint named by --system
        self.load_system(app.system_spec, trust=app.trust_remote_code and app.system_spec == app.arg_system)
        self.query_one(VoiceInput).warm(self.chain)  # asr-real, spoken replies: loaded now, not on a turn

    def on_unmount(self) -> None:
        if isinstance(self.system, Closable):  # a remote bot's request in flight ends now
            self.system.close()

    # -- systems and sessions ----------------------------------------------------------------------------
    def load_system(self, spec: str, *, trust: bool = False) -> None:
        """Build and load ``spec`` in a worker (SystemLoader); the app stays usable meanwhile."""
        self.loader.load(spec, trust=trust)

    @on(M.SystemReady)
    def _system_ready(self, event: M.SystemReady) -> None:
        self.system, self.system_spec = event.system, event.spec
        self.status.system = event.spec
        self.status.activity = ""
        self.parley.remember_model(event.spec)
        if not self.dialogue.attach(event.system, event.spec):  # the session has its system: a new one
            self.log_view.add_note(f"── system switched to {event.spec}: a new session starts ──")
            self.start_session()

    @on(M.LoadFailed)
    def _load_failed(self, event: M.LoadFailed) -> None:
        self.status.activity = "" if self.system else "no system — f5 picks one"
        msg = f"Could not load {event.spec}: {event.error}"
        if not self.dialogue.has_system and self.dialogue.waiting:
            msg += f". Typed turns wait, stored ({self.dialogue.waiting}): f5 picks a system or cancels them"
        tell(self, msg, severity="error", timeout=10)
        self.log_view.add_note(f"✗ {msg}")

    @on(M.Status)
    def _status(self, event: M.Status) -> None:
        self.status.activity = event.text
        show_job(self, event.text, before=self.prompt)  # a one-time job's fraction: a bar above the prompt

    def tester_changed(self) -> None:
        """A new tester name: shown, and written into the open session's record (in a worker)."""
        tester = self.parley.tester
        self.status.tester = tester
        if self.session is not None:
            self.ratings.set_tester(self.session, tester)

    def start_session(self) -> None:
        """End the current session (if any) and open a new one on the loaded system, or (at start) on the one
        being loaded, which answers its turns once loaded (stored at its first turn, so one nobody types into
        leaves nothing)."""
        app = self.parley
        assert app.store is not None
        spec = self.system_spec if self.system is not None else app.system_spec
        session = Session(app.store, self.system, system_spec=spec, chain=self.chain, tester=app.tester,
                          mode="live", seed=app.seed, goal=dict(self.goal) if self.goal is not None else None)
        self.log_view.locked = self.status.locked = False
        self.status.session_id = session.id
        self.prompt.disabled = False
        self.prompt.set_placeholder(PLACEHOLDER)
        self.dialogue.start(session)
        self.refresh_bindings()

    def action_new_session(self) -> None:
        if self.system is None or self.session is None:
            tell(self, "No system is loaded yet.", severity="warning")
            return
        if self.dialogue.waiting:
            tell(self, "Wait for the system to answer the queued turns first.", severity="warning")
            return
        if self.ratings.locking:
            tell(self, LOCKING, severity="warning")
            return
        self.log_view.remove_children()
        self._system_count = 0
        self.start_session()
        self.log_view.add_note(f"── new session {self.session.id[:8]} on {self.system_spec} ──")
        self.prompt.focus()

    def action_load_model(self) -> None:
        if not self.booted or self.parley.settings is None:
            tell(self, STARTING, severity="warning")
            return
        recent, d = self.parley.settings.recent_models, self.dialogue  # turns waiting for no system: no hold
        self.loader.choose(self.system_spec, recent, lambda: d.waiting if d.has_system else 0,
                          waiting=0 if d.has_system else d.waiting, cancel=d.cancel)

    # -- turns (typed ones come from the prompt, each the moment its enter is read) -----------------------
    @on(M.VoiceTranscript)
    def _voice_transcript(self, event: M.VoiceTranscript) -> None:
        ticket = self.submit_turn(event.text, event.audio_path, event.info, event.ahead)
        if ticket is not None:
            self.query_one(VoiceInput).heard(ticket, event.spoken)

    @on(M.ReplySpoken)
    def _reply_spoken(self, event: M.ReplySpoken) -> None:
        self.log_view.show_voice_timings(event.turn_id, event.timings)

    def submit_turn(self, text: str, audio_in: str | None = None,
                    info: dict[str, object] | None = None, ahead: AheadReply | None = None) -> int | None:
        """Show the user turn and queue it and its commit as pending (widgets/dialogue.py: "saving…" until it
        landed; turns run in order, one at a time); its ticket. None when the session is locked."""
        if self.locked or self.ratings.locking or self.ratings.ending:
            hint = LOCKED_HINT if self.locked else LOCKING if self.ratings.locking else ENDING_HINT
            tell(self, hint, severity="warning")
            return None
        ticket = self.dialogue.submit(text, audio_in, info, ahead)
        self.log_view.follow()
        self.log_view.add(UserTurnView(ticket, text, spoken=audio_in is not None))
        return ticket

    @on(Dialogue.Done)
    def _turn_done(self, event: Dialogue.Done) -> None:
        ex = event.exchange
        view = self.log_view.user_view(event.ticket)
        if view is not None:
            view.show_result(ex)
        if ex.system_turn_id is not None:
            self._system_count += 1
            self.log_view.add(SystemTurnView(self._system_count, ex))
            if ex.error:
                tell(self, f"The system failed on this turn: {ex.error}", severity="error")
            elif ex.reply is not None and self.session is not None:
                self.query_one(VoiceInput).reply(event.ticket, ex, self.session)
        elif ex.error:
            tell(self, f"Turn failed: {ex.error}", severity="error")
        self.refresh_bindings()

    @on(Dialogue.Crashed)
    def _turn_crashed(self, event: Dialogue.Crashed) -> None:
        view = self.log_view.user_view(event.ticket)
        if view is not None:
            view.show_crash(event.error)
        tell(self, f"Turn failed: {event.error}", severity="error")

    @on(Dialogue.Idle)
    @on(Ratings.Idle)  # any Writes queue: the dialogue's turns, too
    def _idle(self) -> None:
        if self.quitting:
            self.parley.quit_when_idle()

    @on(ChatLog.NewBelow)
    def _new_below(self, event: ChatLog.NewBelow) -> None:
        self.query_one("#new-below").display = event.below

    def action_follow_log(self) -> None:
        self.log_view.follow()

    # -- ratings (tui/widgets/ratings.py) -------------------------------------------------------------
    @property
    def ratings(self) -> Ratings:
        return self.query_one(Ratings)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Once the session is locked, its rating keys leave the footer; while the dialogue rating is being
        saved, they and ctrl+n are greyed out."""
        if action in ("rate_mode", "end_dialogue") and self.is_mounted and self.locked:
            return False
        if action in ("rate_mode", "end_dialogue", "new_session") and self.is_mounted:
            return None if self.ratings.locking else True
        return True

    def action_rate_mode(self) -> None:
        self.ratings.rate_mode()

    @on(ChatLog.Rate)
    def _rate(self, event: ChatLog.Rate) -> None:
        self.ratings.rate_turn(event, self.parley.tester)

    def action_end_dialogue(self) -> None:
        self.ratings.end_dialogue(self.parley.tester)

    # -- toggles and panels ----------------------------------------------------------------------------------
    def action_toggle_internals(self) -> None:
        """Show/hide internals for this run (the palette's "Save toggles as defaults" keeps the choice)."""
        if not self.booted:
            tell(self, STARTING, severity="warning")
            return
        toggles = self.parley.toggles
        toggles.show_internals = not toggles.show_internals
        self.log_view.set_class(toggles.show_internals, "-internals")

    def action_toggle_speak(self) -> None:
        self.query_one(VoiceInput).toggle_speaking()

    def action_voice(self) -> None:
        voice = self.query_one(VoiceInput)
        if self.locked and not voice.listening:
            tell(self, LOCKED_HINT, severity="warning")
        else:
            voice.toggle()

    def action_rewriters(self) -> None:
        self.app.push_screen(RewriterScreen(self.chain.specs), self._rewriters_chosen)

    def _rewriters_chosen(self, chain: Chain | None) -> None:
        if chain is None:
            return
        if chain.name == self.chain.name:
            tell(self, "Rewriters unchanged.")
            return
        self.set_chain(chain)

    def set_chain(self, chain: Chain) -> None:
        """Replace the chain (applies from the next turn) and announce it."""
        self.chain = chain
        if self.session is not None:
            self.session.set_chain(chain)
        self.status.rewriters = chain.name
        self.query_one(VoiceInput).warm_chain(chain)
        msg = f"Rewriters from the next turn: {chain.name}"
        self.log_view.add_note(f"── {msg} ──")
        tell(self, msg)
