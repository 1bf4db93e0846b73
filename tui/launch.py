"""Start the Textual app (imported only when the TUI is opened, so the CLI stays fast)."""

from __future__ import annotations


def launch(**kwargs: object) -> None:
    from parley.tui.app import ParleyApp

    ParleyApp(**kwargs).run()  # type: ignore[arg-type]
