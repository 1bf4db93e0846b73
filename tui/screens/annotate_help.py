"""Rater instructions for annotation mode: the protocol, each aspect's one-line definition, the keys.

Shown on a rater's first use of a database (``parley rate``) and on ``?``.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from parley.scales import DIALOGUE_ASPECTS, TURN_ASPECTS, Aspect

PROTOCOL = (
    "You will read dialogues between a user and a system. First rate the marked system turns one by one, "
    "reading only what came before them. Then rate the dialogue as a whole and say why. Once you start the "
    "dialogue rating, the turn ratings are final: you cannot go back to change them. Judge from what the "
    "dialogue shows (a user saying they like a suggestion), not from your own taste."
)
KEYS = (
    ("1 2 3", "rate the active aspect: no / somewhat / yes"),
    ("0", "relevance: not applicable (too little to judge)"),
    ("r  i", "make relevance / interestingness the active aspect"),
    ("p  n", "previous / next turn (until the dialogue rating starts)"),
    ("d", "rate the whole dialogue (locks the turn ratings)"),
    ("s", "skip this dialogue, saying why (the reason is stored)"),
    ("g", "progress: every dialogue and how far you are; enter there opens one"),
    ("pgup pgdn", "scroll the dialogue"),
    ("?  q", "these instructions / quit (you resume where you left off)"),
)


def _aspects(title: str, aspects: tuple[Aspect, ...]) -> Table:
    t = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 1), expand=True)
    t.add_column(style="bold", no_wrap=True)
    t.add_column(no_wrap=True)
    t.add_column(ratio=1)
    for a in aspects:
        t.add_row(a.label, f"{a.lo}-{a.hi}", a.definition)
    return t


def instructions() -> Group:
    """The instructions as one rich renderable (also used by tests)."""
    keys = Table(title="Keys", title_justify="left", show_header=False, box=None, padding=(0, 1))
    keys.add_column(style="bold cyan", no_wrap=True)
    keys.add_column()
    for k, what in KEYS:
        keys.add_row(k, what)
    return Group(Text(PROTOCOL), Text(""), _aspects("Each system turn", TURN_ASPECTS), Text(""),
                 _aspects("The whole dialogue (with a justification)", DIALOGUE_ASPECTS), Text(""), keys)


class InstructionsScreen(ModalScreen[None]):
    """The rater instructions; enter or escape closes them."""

    DEFAULT_CSS = """
    InstructionsScreen { align: center middle; background: $background 60%; }
    InstructionsScreen #instructions { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2; }
    InstructionsScreen .title { text-style: bold; margin-bottom: 1; }
    """
    BINDINGS = [
        # priority: closed as the key arrives, so the digits typed right after it rate the first turn
        Binding("enter", "close", "Start rating", id="annotate_instructions_close", priority=True),
        Binding("escape", "close", "Close", show=False, priority=True),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="instructions"):
            yield Static("How to rate · enter starts, escape closes, ? shows this again", classes="title")
            yield Static(instructions())

    def action_close(self) -> None:
        self.dismiss(None)
