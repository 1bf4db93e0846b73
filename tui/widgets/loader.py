"""Building and loading a dialogue system in a thread worker, without a face.

``SystemLoader.load(spec)`` builds the system from its spec and calls its ``load(progress)`` (weights,
knowledge bases: slow) in a worker; progress lines arrive as ``messages.Status``, the result as
``messages.SystemReady`` or ``messages.LoadFailed`` (one line for the tester). A newer load replaces one still
running: what the older one loads is dropped, never announced. ``f5`` (``choose``) switches systems unless
turns wait for the loaded one (they finish first); turns waiting for a system that failed to load, or is still
loading, never hold it back: the system picked answers them, or the picker cancels them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on
from textual.widget import Widget
from textual.worker import get_current_worker

from parley.engine.types import Closable
from parley.tui import messages as M
from parley.tui.notify import tell


class SystemLoader(Widget):
    """Never displayed; its messages bubble up to the screen."""

    DEFAULT_CSS = "SystemLoader { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self.loading_spec: str | None = None  # the spec being loaded
        self.failed: str | None = None  # the last load, when it failed: "SPEC failed to load: why"

    def load(self, spec: str, *, trust: bool = False) -> None:
        """Load ``spec``; ``trust`` (the command-line flag, or the picker's confirmation naming the
        checkpoint) lets a checkpoint run its own code — passed to the system, never written into the spec."""

        self.post_message(M.Status(f"loading {spec}…"))
        self.loading_spec = spec

        def progress(text: str) -> None:
            self.post_message(M.Status(f"{spec}: {text}"))

        def work() -> None:
            from parley.engine.systems import build_system
            from parley.errors import ParleyError

            worker = get_current_worker()
            try:
                system = build_system(spec, **({"trust_remote_code": True} if trust else {}))
                system.load(progress)
            except ParleyError as e:  # SpecError, LoadError: a message meant for the user as it is
                message: M.SystemReady | M.LoadFailed = M.LoadFailed(spec, str(e))
            except ModuleNotFoundError as e:
                message = M.LoadFailed(spec, f"system {spec!r} is not available (module {e.name} missing)")
            except Exception as e:
                message = M.LoadFailed(spec, f"{type(e).__name__}: {e}")
            else:
                message = M.SystemReady(spec, system)
            if worker.is_cancelled:  # a newer load replaced this one
                if isinstance(message, M.SystemReady) and isinstance(message.system, Closable):
                    message.system.close()
                return
            self.post_message(message)

        self.run_worker(work, name=f"load {spec}", group="load", description=f"load system {spec}",
                        thread=True, exclusive=True, exit_on_error=False)

    def choose(self, current: str, recent: Sequence[str], busy: Callable[[], int], *, waiting: int = 0,
               cancel: Callable[[str], object] | None = None) -> None:
        """The ``f5`` picker (registered systems, recent ones, a model folder or hub id); the pick is loaded
        here unless turns are still waiting for the loaded system (``busy()``). ``waiting`` turns wait for a
        system that failed to load (or is loading): the pick answers them, or the picker's "cancel them"
        calls ``cancel``."""
        from parley.engine.systems import SYSTEMS
        from parley.tui.screens.picker import ModelPickerScreen, Pick

        def picked(pick: Pick | None) -> None:
            if pick is None:
                return
            if pick.cancel_waiting:
                if cancel is not None:
                    cancel(f"never sent: {self.failed or 'cancelled while no system was loaded'}")
                return
            if busy():
                tell(self, "Wait for the queued turns to finish before switching systems.",
                     severity="warning")
                return
            self.load(pick.spec, trust=pick.trust)

        systems = [(e.name, e.summary) for e in SYSTEMS]
        self.app.push_screen(ModelPickerScreen(systems, list(recent), current, waiting=waiting), picked)

    @on(M.SystemReady)
    @on(M.LoadFailed)
    def _settled(self, event: M.SystemReady | M.LoadFailed) -> None:
        """A load ended (the message goes on to the screen)."""
        if event.spec == self.loading_spec:
            self.loading_spec = None
        self.failed = None
        if isinstance(event, M.LoadFailed):
            self.failed = f"{event.spec} failed to load: {event.error}"
