"""Start the Textual app (imported only when the TUI is opened, so the CLI stays fast)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parley.store.annotation import Annotation


def launch(**kwargs: object) -> None:
    from parley.tui.app import ParleyApp

    ParleyApp(**kwargs).run()  # type: ignore[arg-type]


def rate(annotation: Annotation, *, blind: bool = False) -> None:
    """Run ``parley rate`` on one rater's queue; an app that stopped on an error exits with
    code 2 (Textual has printed what happened)."""
    import sys

    from parley.tui.annotate_app import AnnotateApp

    app = AnnotateApp(annotation, blind=blind)
    app.run()
    if app.return_code:
        sys.exit(2)
