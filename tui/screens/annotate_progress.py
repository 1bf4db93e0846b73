"""The progress view of annotation mode: every dialogue in the rater's queue and how far they are."""

from __future__ import annotations

from rich import box
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from parley.store.annotation import Annotation, ProgressRow


def status(row: ProgressRow) -> str:
    if row.done:
        return "done"
    if row.turns_locked:
        return "dialogue rating started"
    if row.rated_turns:
        return "in progress"
    return "to do"


def progress_table(rows: list[ProgressRow], *, blind: bool, current: str | None = None) -> Table:
    """The queue as a rich table; blind mode shows positions instead of sources."""
    done = sum(r.done for r in rows)
    t = Table(title=f"{done} of {len(rows)} dialogue(s) rated", title_justify="left", expand=True,
              box=box.SIMPLE_HEAD)
    t.add_column("#", justify="right", no_wrap=True)
    t.add_column("dialogue", ratio=1, overflow="ellipsis", no_wrap=True)
    t.add_column("turns rated", no_wrap=True)
    t.add_column("status", no_wrap=True)
    for r in rows:
        label = f"dialogue {r.position}" if blind else r.label
        mark = "▶ " if r.session_id == current else ""
        style = "bold" if r.session_id == current else ("dim" if r.done else "")
        t.add_row(f"{mark}{r.position}", label, f"{r.rated_turns}/{r.total_turns}", status(r), style=style)
    return t


class ProgressScreen(ModalScreen[None]):
    """The rater's progress over the queue; g, enter or escape closes it."""

    DEFAULT_CSS = """
    ProgressScreen { align: center middle; background: $background 60%; }
    ProgressScreen #progress { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2; }
    ProgressScreen .hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="annotate_progress_close"),
        Binding("g", "close", "Close", show=False),
        Binding("enter", "close", "Close", show=False),
    ]

    def __init__(self, annotation: Annotation, *, blind: bool = False, current: str | None = None) -> None:
        super().__init__()
        self.annotation = annotation
        self.blind = blind
        self.current = current

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="progress"):
            yield Static(progress_table(self.annotation.progress(), blind=self.blind, current=self.current))
            yield Static(f"rater: {self.annotation.rater} · escape closes", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)
