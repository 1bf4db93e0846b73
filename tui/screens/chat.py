"""The chat screen: log, prompt, status bar; turns, turn ratings, end of dialogue, sessions and systems.

Every slow call (building/loading a system, a session turn, recording, transcribing, speaking) runs in a thread
worker that posts a typed message back (tui.messages); widgets are only touched here, on the UI thread. Turns are
queued: the tester may keep typing while the system answers, and turns run one at a time in order.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState

from parley.engine.rewrite.chain import Chain
from parley.tui import messages as M
from parley.tui.screens.chat_ratings import LOCKED_HINT, RatingMixin
from parley.tui.screens.voice import VoiceMixin
from parley.tui.widgets.chatlog import ChatLog, SystemTurnView, UserTurnView
from parley.tui.widgets.goal import GoalCard
from parley.tui.widgets.level import LevelMeter
from parley.tui.widgets.statusbar import StatusBar


class ChatScreen(RatingMixin, VoiceMixin, Screen[None]):
    """The main screen. ``app`` is a ParleyApp (store, settings, tester, seed, goal)."""

    BINDINGS = [
        Binding("escape", "rate_mode", "Rate turns", id="rate_mode"),
        Binding("ctrl+r", "end_dialogue", "End & rate dialogue", id="end_dialogue"),
        Binding("ctrl+n", "new_session", "New session", id="new_session"),
        Binding("ctrl+o,f3", "toggle_internals", "Internals", id="toggle_internals"),
        Binding("f2", "rewriters", "Rewriters", id="rewriters"),
        Binding("f5", "load_model", "Load model", id="load_model"),
        Binding("ctrl+t,f4", "voice", "Voice", id="voice"),
        Binding("f6", "toggle_speak", "Speak replies", id="toggle_speak", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.system_spec = ""
        self.system: Any = None
        self.session: Any = None
        self.chain = Chain()
        self.goal: dict[str, Any] | None = None
        self.booted = False
        self.locked = False
        self._queue: deque[tuple[int, str, str | None, dict[str, Any] | None]] = deque()
        self._busy = False
        self._ticket = 0
        self._system_count = 0
        self.voice_init()

    # -- layout ------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield ChatLog(id="log")
        yield LevelMeter(id="level")
        yield Input(placeholder="Type to the system and press enter · escape rates turns · f1 help",
                    id="prompt", select_on_focus=False)
        yield StatusBar(id="status")
        yield Footer()

    @property
    def log_view(self) -> ChatLog:
        return self.query_one(ChatLog)

    @property
    def prompt(self) -> Input:
        return self.query_one("#prompt", Input)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    def on_mount(self) -> None:
        app: Any = self.app
        bar = self.status
        bar.tester = app.tester
        bar.db = app.db_label
        bar.rewriters = self.chain.name
        bar.activity = "starting…"
        self.prompt.focus()
        # after the first frame, so the prompt is usable at once (turns typed meanwhile are queued)
        self.call_after_refresh(self.boot)

    def boot(self) -> None:
        """Settings, database, initial rewriters and goal in a worker (their imports are slow)."""
        app: Any = self.app

        def work() -> None:
            from parley.store import StoreError

            try:
                result = app.boot()
            except (StoreError, OSError) as e:
                self.post_message(M.StoreFailed(str(e)))
                return
            self.post_message(M.Booted(result))

        self.run_worker(work, name="boot", group="boot", description="start-up (settings, database)",
                        thread=True, exit_on_error=False)

    @on(M.Booted)
    def _booted(self, event: M.Booted) -> None:
        app: Any = self.app
        app.configure(event.result)
        self.booted = True
        self.chain = event.result["chain"]
        self.goal = event.result["goal"]
        if self.goal is not None:
            self.mount(GoalCard(self.goal, id="goal"), before=self.log_view)
        self.log_view.set_class(bool(app.settings.show_internals), "-internals")
        self.status.rewriters = self.chain.name
        self.status.tester = app.tester
        self.refresh_bindings()
        self.load_system(app.system_spec)
        self.warm_chain(self.chain)
        if app.settings.audio.speak_replies:
            self.warm_voice()

    def on_unmount(self) -> None:
        self.stop_voice()

    # -- systems and sessions ----------------------------------------------------------------------------
    def load_system(self, spec: str) -> None:
        """Build and load ``spec`` in a worker; the app stays usable, SystemReady/LoadFailed report back."""
        self.status.activity = f"loading {spec}…"

        def work() -> None:
            from parley.engine.spec import SpecError
            from parley.engine.systems import build_system
            from parley.engine.types import LoadError

            try:
                system = build_system(spec)
                if hasattr(system, "load"):
                    system.load(progress=lambda text: self.post_message(M.Status(f"{spec}: {text}")))
            except (SpecError, LoadError) as e:
                self.post_message(M.LoadFailed(spec, str(e)))
                return
            except ModuleNotFoundError as e:
                self.post_message(M.LoadFailed(spec, f"system {spec!r} is not available (module {e.name} missing)"))
                return
            except Exception as e:
                self.post_message(M.LoadFailed(spec, f"{type(e).__name__}: {e}"))
                return
            self.post_message(M.SystemReady(spec, system))

        self.run_worker(work, name=f"load {spec}", group="load", description=f"load system {spec}",
                        thread=True, exclusive=True, exit_on_error=False)

    @on(M.SystemReady)
    def _system_ready(self, event: M.SystemReady) -> None:
        switched = self.system is not None
        self.system, self.system_spec = event.system, event.spec
        self.status.system = event.spec
        self.status.activity = ""
        app: Any = self.app
        app.remember_model(event.spec)
        if switched:
            self.log_view.add_note(f"── system switched to {event.spec}: a new session starts ──")
        if app.tester:
            self.start_session()
        # otherwise the session starts once the tester has given a name (tester_changed)

    def tester_changed(self) -> None:
        app: Any = self.app
        self.status.tester = app.tester
        if self.session is None and self.system is not None:
            self.start_session()

    @on(M.StoreFailed)
    def _store_failed(self, event: M.StoreFailed) -> None:
        app: Any = self.app
        app.store_failed(event.error)

    @on(M.LoadFailed)
    def _load_failed(self, event: M.LoadFailed) -> None:
        self.status.activity = "" if self.system else "no system — f5 picks one"
        msg = f"Could not load {event.spec}: {event.error}"
        self.notify(msg, severity="error", timeout=10)
        self.log_view.add_note(f"✗ {msg}")

    @on(M.Status)
    def _status(self, event: M.Status) -> None:
        self.status.activity = event.text

    def start_session(self) -> None:
        """End the current session (if any) and open a new one on the loaded system."""
        from parley.engine.session import Session

        app: Any = self.app
        if self.session is not None and not self.locked:
            self.session.end()
        self.session = Session(app.store, self.system, system_spec=self.system_spec, chain=self.chain,
                               tester=app.tester, mode="live", seed=app.seed, goal=self.goal)
        self.locked = False
        self.log_view.locked = False
        self.status.session_id = self.session.id
        self.status.locked = False
        self.prompt.disabled = False
        self.prompt.placeholder = "Type to the system and press enter · escape rates turns · f1 help"
        self.refresh_bindings()
        self._pump()

    def action_new_session(self) -> None:
        if self.system is None:
            self.notify("No system is loaded yet.", severity="warning")
            return
        if self._busy or self._queue:
            self.notify("Wait for the system to answer the queued turns first.", severity="warning")
            return
        self.log_view.remove_children()
        self._system_count = 0
        self.start_session()
        self.log_view.add_note(f"── new session {self.session.id[:8]} on {self.system_spec} ──")
        self.prompt.focus()

    def action_load_model(self) -> None:
        from parley.engine.systems import SYSTEMS
        from parley.tui.screens.picker import ModelPickerScreen

        app: Any = self.app
        if not self.booted:
            self.notify("Still starting up; try again in a moment.", severity="warning")
            return
        systems = [(e.name, e.summary) for e in SYSTEMS]

        def picked(spec: str | None) -> None:
            if spec:
                if self._busy or self._queue:
                    self.notify("Wait for the queued turns to finish before switching systems.",
                                severity="warning")
                    return
                self.load_system(spec)

        self.app.push_screen(ModelPickerScreen(systems, app.settings.recent_models, self.system_spec), picked)

    # -- turns -------------------------------------------------------------------------------------------
    @on(Input.Submitted, "#prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            return
        if self.locked:
            self.notify(LOCKED_HINT, severity="warning")
            return
        event.input.clear()
        self.submit_turn(text)

    def submit_turn(self, text: str, audio_in: str | None = None, info: dict[str, Any] | None = None) -> int:
        """Show the user turn at once and queue it; turns run in order, one at a time. Returns its ticket."""
        self._ticket += 1
        self.log_view.mount(UserTurnView(self._ticket, text, spoken=audio_in is not None))
        self._queue.append((self._ticket, text, audio_in, info))
        if self.session is None:
            self.status.activity = "turn queued until the system is loaded"
        self._pump()
        return self._ticket

    def _pump(self) -> None:
        if self._busy or not self._queue or self.session is None or self.locked:
            return
        ticket, text, audio_in, info = self._queue.popleft()
        self._busy = True
        session = self.session

        def work() -> None:
            ex = session.turn(text, audio_in=audio_in, input_info=info)
            self.post_message(M.TurnDone(ticket, ex))

        self.run_worker(work, name=f"turn {ticket}", group="turn", description=f"user turn {ticket}",
                        thread=True, exit_on_error=False)

    @on(M.TurnDone)
    def _turn_done(self, event: M.TurnDone) -> None:
        ex = event.exchange
        view = self.log_view.user_view(event.ticket)
        if view is not None:
            view.show_result(ex)
        if ex.system_turn_id is not None:
            self._system_count += 1
            self.log_view.mount(SystemTurnView(self._system_count, ex))
            if ex.error:
                self.notify(f"The system failed on this turn: {ex.error}", severity="error")
            elif ex.reply is not None:
                self.maybe_speak(event.ticket, ex)
        elif ex.error:
            self.notify(f"Turn failed: {ex.error}", severity="error")
        self.refresh_bindings()
        self._busy = False
        self._pump()

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker failures become messages (workers report results by message)."""
        worker = event.worker
        if event.state == WorkerState.ERROR:
            error = f"{type(worker.error).__name__}: {worker.error}"
            if worker.group == "turn":
                ticket = int(worker.name.split()[-1])
                view = self.log_view.user_view(ticket)
                if view is not None:
                    view.show_crash(error)
                self.notify(f"Turn failed: {error}", severity="error")
                self._busy = False
                self._pump()
            elif worker.group in ("voice", "speak"):
                self.voice_failed(worker.group, error)
            else:
                self.notify(f"{worker.description} failed: {error}", severity="error")
                self.status.activity = ""
        elif event.state in (WorkerState.SUCCESS, WorkerState.CANCELLED) and worker.group == "voice":
            self.voice_finished()

    # -- panels --------------------------------------------------------------------------------------------
    def action_toggle_internals(self) -> None:
        if not self.booted:
            self.notify("Still starting up; try again in a moment.", severity="warning")
            return
        log = self.log_view
        show = not log.has_class("-internals")
        log.set_class(show, "-internals")
        app: Any = self.app
        app.save_setting(show_internals=show)

    def action_rewriters(self) -> None:
        from parley.tui.screens.rewriters import RewriterScreen

        self.app.push_screen(RewriterScreen(self.chain.specs), self._rewriters_chosen)

    def _rewriters_chosen(self, specs: list[str] | None) -> None:
        if specs is None:
            return
        try:
            chain = Chain(specs)
        except Exception as e:  # SpecError, or a rewriter that fails to build
            self.notify(f"Rewriters not changed: {e}", severity="error")
            return
        if chain.name == self.chain.name:
            self.notify("Rewriters unchanged.")
            return
        self.set_chain(chain)

    def set_chain(self, chain: Chain) -> None:
        """Replace the chain (applies from the next turn) and announce it."""
        self.chain = chain
        if self.session is not None:
            self.session.set_chain(chain)
        self.status.rewriters = chain.name
        self.warm_chain(chain)
        msg = f"Rewriters from the next turn: {chain.name}"
        self.log_view.add_note(f"── {msg} ──")
        self.notify(msg)
