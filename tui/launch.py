"""Start the Textual app (imported only when the TUI is opened, so the CLI stays fast).

SIGTERM and SIGHUP end either app as ctrl+c ends a command (:mod:`parley.signals`): the chat cancels the
turns still waiting (stored as cancelled), stores the session's end time and exits; ``parley rate`` exits once
the ratings given are stored. One line says so, and the exit code is the signal's (143, 129).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from parley.engine.settings import Settings
    from parley.store.annotation import Annotation


def launch(*, db_path: str | Path | None = None, system_spec: str | None = None,
           rewrite_specs: Sequence[str] = (), tester: str | None = None, goal: str | None = None,
           seed: int | None = None, trust_remote_code: bool = False,
           settings: Settings | None = None) -> None:
    """Run the chat; when it had to stop (an unusable database) print one line and exit with code 2; ended
    by a signal, one line and the signal's exit code."""
    from parley import signals
    from parley.display import visible
    from parley.tui.app import ParleyApp

    app = ParleyApp(db_path=db_path, system_spec=system_spec, rewrite_specs=rewrite_specs, tester=tester,
                    goal=goal, seed=seed, trust_remote_code=trust_remote_code, settings=settings)
    with signals.handled_by(app.end_on_signal):
        app.run()
    if app.fatal is not None:
        _say(f"parley: error: {visible(app.fatal, one_line=True)}")
        sys.exit(2)
    if app.signalled is not None:
        _say(f"parley: {visible(app.ended_line(), one_line=True)}")
        sys.exit(signals.exit_code(app.signalled))
    if app.return_code:
        sys.exit(app.return_code)


def rate(annotation: Annotation, *, blind: bool = False) -> None:
    """Run ``parley rate`` on one rater's queue; an app that stopped on an error exits with
    code 2 (Textual has printed what happened); one ended by a signal says so in one line."""
    from parley import signals
    from parley.display import visible
    from parley.tui.annotate_app import AnnotateApp

    app = AnnotateApp(annotation, blind=blind)
    got: list[int] = []

    def end(signum: int) -> None:
        if not got:
            got.append(signum)
            exit_once_saved(app)
        else:  # a second signal: now
            app.exit()

    with signals.handled_by(end):
        app.run()
    if got:
        said = f"{signals.describe(got[0])}: the ratings given are stored in {annotation.store.path}"
        _say(f"parley: {visible(said, one_line=True)}")
        sys.exit(signals.exit_code(got[0]))
    if app.return_code:
        sys.exit(2)


def exit_once_saved(app: App[Any]) -> None:
    """Exit ``app`` as soon as no database write of any of its screens waits (tui.widgets.writes)."""
    from parley.tui.widgets.writes import Writes

    def check() -> None:
        if not any(w.pending for screen in app.screen_stack for w in screen.query(Writes)):
            app.exit()

    check()
    app.set_interval(0.05, check)


def _say(line: str) -> None:
    """The last line, on stderr; after SIGHUP the terminal may be gone (the exit code still tells)."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr)
