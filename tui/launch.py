"""Start the Textual app (imported only when the TUI is opened, so the CLI stays fast)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parley.store.annotation import Annotation


def launch(*, db_path: str | Path | None = None, system_spec: str | None = None,
           rewrite_specs: Sequence[str] = (), tester: str | None = None, goal: str | None = None,
           seed: int | None = None, trust_remote_code: bool = False) -> None:
    """Run the chat; when it had to stop (an unusable database) print one line and exit with code 2."""
    from parley.display import visible
    from parley.tui.app import ParleyApp

    app = ParleyApp(db_path=db_path, system_spec=system_spec, rewrite_specs=rewrite_specs, tester=tester,
                    goal=goal, seed=seed, trust_remote_code=trust_remote_code)
    app.run()
    if app.fatal is not None:
        print(f"parley: error: {visible(app.fatal, one_line=True)}", file=sys.stderr)
        sys.exit(2)
    if app.return_code:
        sys.exit(app.return_code)


def rate(annotation: Annotation, *, blind: bool = False) -> None:
    """Run ``parley rate`` on one rater's queue; an app that stopped on an error exits with
    code 2 (Textual has printed what happened)."""
    from parley.tui.annotate_app import AnnotateApp

    app = AnnotateApp(annotation, blind=blind)
    app.run()
    if app.return_code:
        sys.exit(2)
