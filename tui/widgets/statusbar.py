"""The status bar: system, session id (short), tester, database, active rewriters, what is being saved (typed
turns; ratings and other writes), and a worker status line (loading a system, its progress) — apart, so a
save never hides a load nor the other way round. Every value may come from outside (a typed spec, a tester
name, a path, a model's progress line): shown literally."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from parley.display import visible


class StatusBar(Static):
    """One line; set the reactives, the bar re-renders."""

    system: reactive[str] = reactive("")
    session_id: reactive[str] = reactive("")
    tester: reactive[str] = reactive("")
    db: reactive[str] = reactive("")
    rewriters: reactive[str] = reactive("original")
    activity: reactive[str] = reactive("")
    turns: reactive[str] = reactive("")  # the typed turns being saved (widgets/dialogue.py)
    saving: reactive[str] = reactive("")  # the database writes waiting (widgets/ratings.py)
    locked: reactive[bool] = reactive(False)

    def render(self) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        parts = [
            ("system", self.system or "…"),
            (
                "session",
                (self.session_id[:8] + (" locked" if self.locked else "")) if self.session_id else "—",
            ),
            ("tester", self.tester or "?"),
            ("db", self.db),
            ("rewriters", self.rewriters or "original"),
        ]
        for i, (k, v) in enumerate(parts):
            if i:
                out.append("  │  ", style="dim")
            out.append(f"{k} ", style="dim")
            out.append(visible(v, one_line=True), style="bold")
        for slot in (self.turns, self.saving, self.activity):  # saves first: a long progress line is cut
            if slot:
                out.append("  │  ", style="dim")
                out.append(visible(slot, one_line=True), style="italic")
        return out
