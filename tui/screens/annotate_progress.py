"""The progress view of annotation mode: every dialogue in the rater's queue and how far they are;
``enter`` on a row jumps to that dialogue (a rated one opens read-only), ``g`` or ``escape`` goes back."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from parley.display import literal
from parley.store.annotation import Annotation, ProgressRow


def status(row: ProgressRow) -> str:
    if row.done:
        return "done"
    if row.skipped is not None:
        return "skipped"
    if row.turns_locked:
        return "dialogue rating started"
    if row.rated_turns:
        return "in progress"
    return "to do"


def summary(rows: list[ProgressRow]) -> str:
    done = sum(r.done for r in rows)
    skipped = sum(r.skipped is not None and not r.done for r in rows)
    return f"{done} of {len(rows)} dialogue(s) rated" + (f", {skipped} skipped" if skipped else "")


class ProgressScreen(ModalScreen[str | None]):
    """The rater's progress over the queue; dismisses with the session id to jump to, or None."""

    DEFAULT_CSS = """
    ProgressScreen { align: center middle; background: $background 60%; }
    ProgressScreen #progress { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2; }
    ProgressScreen #progress-title { text-style: bold; margin-bottom: 1; }
    ProgressScreen DataTable { height: auto; max-height: 30; }
    ProgressScreen .hint { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close", id="annotate_progress_close"),
        Binding("g", "close", "Close", show=False),
    ]

    def __init__(self, annotation: Annotation, *, blind: bool = False, current: str | None = None) -> None:
        super().__init__()
        self.annotation = annotation
        self.blind = blind
        self.current = current
        self.rows = annotation.progress()

    def compose(self) -> ComposeResult:
        with Vertical(id="progress"):
            yield Static(summary(self.rows), id="progress-title")
            yield DataTable(cursor_type="row", zebra_stripes=False, id="progress-table")
            yield Static(literal(f"rater: {self.annotation.rater} · enter opens a dialogue · escape closes",
                                 one_line=True), classes="hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("#", key="n")
        table.add_column("dialogue", key="dialogue")
        table.add_column("turns rated", key="turns")
        table.add_column("status", key="status")
        here = 0
        for i, r in enumerate(self.rows):
            mine = r.session_id == self.current
            style = "bold" if mine else ("dim" if r.done else "")
            label = f"dialogue {r.position}" if self.blind else r.label
            note = status(r) + (f": {r.skipped}" if r.skipped is not None and not r.done else "")
            table.add_row(Text(("▶ " if mine else "") + str(r.position), style=style, justify="right"),
                          literal(label, style, one_line=True),
                          Text(f"{r.rated_turns}/{r.total_turns}", style),
                          literal(note, style, one_line=True), key=r.session_id)
            here = i if mine else here
        table.move_cursor(row=here)
        table.focus()

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_close(self) -> None:
        self.dismiss(None)
