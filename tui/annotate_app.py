"""``parley rate``: a small Textual app of its own, independent of the chat app (``parley.tui.app``).

``AnnotateApp(annotation)`` opens the annotation screen (``tui/screens/annotate.py``) on one rater's queue
(``store.annotation.Annotation``) and, on a rater's first use of a database, the instructions. The command
line opens it through ``parley.tui.launch.rate``.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from parley.store.annotation import Annotation
from parley.tui.screens.annotate import AnnotateScreen


class AnnotateApp(App[None]):
    """The annotation screen on one rater's queue; ``blind`` defaults to the queue's own (assigned lists are
    always rated blind)."""

    CSS_PATH = str(Path(__file__).resolve().parent / "app.tcss")
    TITLE = "parley rate"

    def __init__(self, annotation: Annotation, *, blind: bool | None = None,
                 show_instructions: bool | None = None) -> None:
        super().__init__()
        self.annotation = annotation
        self.blind = annotation.blind if blind is None else blind or annotation.blind
        self.show_instructions = show_instructions

    def on_mount(self) -> None:
        from parley.engine.settings import load_settings

        try:
            keymap = load_settings().keymap
        except ValueError:
            keymap = {}
        if keymap:
            self.set_keymap(keymap)
        self.push_screen(AnnotateScreen(self.annotation, blind=self.blind))
        first = not self.annotation.instructions_seen()
        if self.show_instructions or (self.show_instructions is None and first):
            from parley.tui.screens.annotate_help import InstructionsScreen

            self.push_screen(InstructionsScreen(), lambda _: self.annotation.mark_instructions_seen())
