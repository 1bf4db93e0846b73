"""Building and loading a dialogue system in a thread worker, without a face.

``SystemLoader.load(spec)`` builds the system from its spec and calls its ``load(progress)`` (weights,
knowledge bases: slow) in a worker; progress lines arrive as ``messages.Status``, the result as
``messages.SystemReady`` or ``messages.LoadFailed`` (one line for the tester). A newer load replaces one still
running.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual.widget import Widget

from parley.tui import messages as M
from parley.tui.notify import tell


class SystemLoader(Widget):
    """Never displayed; its messages bubble up to the screen."""

    DEFAULT_CSS = "SystemLoader { display: none; }"

    def load(self, spec: str, *, trust: bool = False) -> None:
        """Load ``spec``; ``trust`` (the command-line flag, or the picker's confirmation naming the
        checkpoint) lets a checkpoint run its own code — passed to the system, never written into the spec."""

        self.post_message(M.Status(f"loading {spec}…"))

        def progress(text: str) -> None:
            self.post_message(M.Status(f"{spec}: {text}"))

        def work() -> None:
            from parley.engine.systems import build_system
            from parley.errors import ParleyError

            try:
                system = build_system(spec, **({"trust_remote_code": True} if trust else {}))
                system.load(progress)
            except ParleyError as e:  # SpecError, LoadError: a message meant for the user as it is
                self.post_message(M.LoadFailed(spec, str(e)))
                return
            except ModuleNotFoundError as e:
                why = f"system {spec!r} is not available (module {e.name} missing)"
                self.post_message(M.LoadFailed(spec, why))
                return
            except Exception as e:
                self.post_message(M.LoadFailed(spec, f"{type(e).__name__}: {e}"))
                return
            self.post_message(M.SystemReady(spec, system))

        self.run_worker(work, name=f"load {spec}", group="load", description=f"load system {spec}",
                        thread=True, exclusive=True, exit_on_error=False)

    def choose(self, current: str, recent: Sequence[str], busy: Callable[[], int]) -> None:
        """The ``f5`` picker (registered systems, recent ones, a model folder or hub id); the pick is loaded
        here unless turns are still waiting for the system (``busy()``)."""
        from parley.engine.systems import SYSTEMS
        from parley.tui.screens.picker import ModelPickerScreen, Pick

        def picked(pick: Pick | None) -> None:
            if pick is None:
                return
            if busy():
                tell(self, "Wait for the queued turns to finish before switching systems.",
                     severity="warning")
                return
            self.load(pick.spec, trust=pick.trust)

        systems = [(e.name, e.summary) for e in SYSTEMS]
        self.app.push_screen(ModelPickerScreen(systems, list(recent), current), picked)
