"""Annotation mode (``parley rate``): a small Textual app of its own, independent of the chat app.

``AnnotateApp(annotation, blind=...)`` opens on the first dialogue the rater has not finished, at the first turn
they have not rated. The transcript shows the dialogue up to the system turn being rated (its context); digits
rate it; once every selected turn is rated, ``d`` opens the dialogue-level rating (the chat app's
``DialogueRatingScreen``), which locks the turn ratings when it opens. ``g`` shows the progress view, ``?`` the
instructions (shown by themselves on a rater's first use). All state lives in the database
(store.annotation.Annotation), so quitting at any point and running ``parley rate`` again resumes.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from parley.store.annotation import Annotation, AnnotationError, DialogueView, turn_rating_complete
from parley.store.records import DialogueRating, TurnRating, TurnRecord
from parley.tui.screens.annotate_render import panel_text, turn_text


class AnnotateScreen(Screen[None]):
    """Rate the selected system turns of one dialogue after another."""

    DEFAULT_CSS = """
    AnnotateScreen { layout: vertical; }
    AnnotateScreen #ann-header { height: 1; padding: 0 1; background: $panel; color: $text; }
    AnnotateScreen #transcript { height: 1fr; padding: 0 1; }
    AnnotateScreen .ann-turn { height: auto; margin: 0 0 1 0; }
    AnnotateScreen .ann-turn.user { padding: 0 0 0 6; }
    AnnotateScreen .ann-turn.system { padding: 0 6 0 0; }
    AnnotateScreen .ann-turn.-current { background: $boost; border-left: outer $accent; }
    AnnotateScreen #panel { height: auto; min-height: 4; padding: 0 1; border-top: solid $primary;
        background: $surface; }
    """
    BINDINGS = [
        Binding("1", "pick(1)", "No", id="annotate_value_1"),
        Binding("2", "pick(2)", "Somewhat", id="annotate_value_2"),
        Binding("3", "pick(3)", "Yes", id="annotate_value_3"),
        Binding("0", "pick(0)", "N/A", show=False, id="annotate_value_na"),
        Binding("r", "aspect('relevance')", "Relevance", show=False, id="annotate_relevance"),
        Binding("i", "aspect('interestingness')", "Interest.", show=False, id="annotate_interestingness"),
        Binding("p", "move(-1)", "Prev turn", id="annotate_prev"),
        Binding("n", "move(1)", "Next turn", id="annotate_next"),
        Binding("d", "rate_dialogue", "Rate dialogue", id="annotate_dialogue"),
        Binding("g", "progress", "Progress", id="annotate_progress"),
        Binding("question_mark", "instructions", "Help", id="annotate_help"),
        Binding("q", "quit", "Quit", id="annotate_quit"),
    ]

    def __init__(self, annotation: Annotation, *, blind: bool = False) -> None:
        super().__init__()
        self.ann = annotation
        self.blind = blind
        self.sid: str | None = None
        self.view: DialogueView | None = None
        self.ratings: dict[str, TurnRating] = {}
        self.cursor: int | None = None  # index into view.rated; None: all rated (dialogue phase)
        self.aspect = "relevance"
        self.pending: dict[str, int | None] = {}
        self.locked = False
        self.message = ""

    def compose(self) -> ComposeResult:
        yield Static(id="ann-header")
        yield VerticalScroll(id="transcript", can_focus=False)
        yield Static(id="panel")
        yield Footer()

    def on_mount(self) -> None:
        self.load(self.ann.current())

    # -- state ----------------------------------------------------------------------------------------------
    def load(self, session_id: str | None) -> None:
        """Show a dialogue at the first turn this rater has not rated (None: everything is rated)."""
        self.sid = session_id
        self.pending = {}
        self.aspect = "relevance"
        if session_id is None:
            self.view = None
            self.cursor = None
        else:
            self.view = self.ann.dialogue(session_id)
            self.ratings = self.ann.turn_ratings(session_id)
            self.locked = self.ann.turns_locked(session_id)
            self.cursor = None if self.locked else self.ann.next_turn(session_id)
        self.refresh_all()

    def _first_unrated(self) -> int | None:
        assert self.view is not None
        for i, tid in enumerate(self.view.rated):
            if not turn_rating_complete(self.ratings.get(tid)):
                return i
        return None

    # -- rendering ------------------------------------------------------------------------------------------
    def refresh_all(self) -> None:
        self._header()
        self._transcript()
        self._panel()

    def _header(self) -> None:
        header = self.query_one("#ann-header", Static)
        if self.view is None or self.sid is None:
            header.update(f"parley rate · {self.ann.rater} · all {len(self.ann.queue)} dialogue(s) rated")
            return
        n, total = self.ann.position(self.sid), len(self.ann.queue)
        parts = [f"parley rate · {self.ann.rater}", f"dialogue {n} of {total}"]
        if not self.blind:
            s = self.view.session
            cond = s.condition.get("name", "original") if isinstance(s.condition, dict) else "original"
            parts += [p for p in (s.system_name, cond, s.source) if p]
        header.update(" · ".join(parts))

    def _visible_turns(self) -> list[TurnRecord]:
        assert self.view is not None
        if self.cursor is None:
            return list(self.view.turns)
        current = self.view.turn(self.view.rated[self.cursor])
        return [t for t in self.view.turns if t.index <= current.index]

    def _transcript(self) -> None:
        box = self.query_one("#transcript", VerticalScroll)
        box.remove_children()
        if self.view is None:
            box.mount(Static(Text("Thank you — every dialogue in your queue is rated. Press q to quit.")))
            return
        rated = {tid: i for i, tid in enumerate(self.view.rated)}
        current = self.view.rated[self.cursor] if self.cursor is not None else None
        widgets = []
        for t in self._visible_turns():
            number = rated[t.id] + 1 if t.id in rated else None
            text = turn_text(t, number=number, rating=self.ratings.get(t.id), current=t.id == current,
                             blind=self.blind)
            widgets.append(Static(text, classes=f"ann-turn {t.role}" + (" -current" if t.id == current else "")))
        box.mount_all(widgets)
        box.call_after_refresh(box.scroll_end, animate=False)

    def _panel(self) -> None:
        panel = self.query_one("#panel", Static)
        if self.view is None:
            panel.update(Text("All done.", style="bold"))
            return
        rating = self.ratings.get(self.view.rated[self.cursor]) if self.cursor is not None else None
        panel.update(panel_text(number=None if self.cursor is None else self.cursor + 1,
                                total=len(self.view.rated), rating=rating, pending=self.pending,
                                aspect=self.aspect, locked=self.locked, lock_on_start=self.ann.lock,
                                message=self.message))

    # -- actions --------------------------------------------------------------------------------------------
    def _say(self, message: str) -> None:
        self.message = message
        self._panel()

    def action_aspect(self, key: str) -> None:
        if self.cursor is not None:
            self.aspect = key
            self._panel()

    def action_pick(self, value: int) -> None:
        self.message = ""
        if self.view is None or self.cursor is None:
            self._say("Press d to rate the dialogue." if self.view is not None else "")
            return
        if value == 0 and self.aspect != "relevance":
            self._say("0 (not applicable) is for relevance only.")
            return
        tid = self.view.rated[self.cursor]
        self.pending[self.aspect] = None if value == 0 else value
        old = self.ratings.get(tid)
        if turn_rating_complete(old):
            assert old is not None
            values = {"relevance": old.relevance, "interestingness": old.interestingness, **self.pending}
        elif "relevance" in self.pending and "interestingness" in self.pending:
            values = dict(self.pending)
        else:
            self.aspect = "interestingness" if "relevance" in self.pending else "relevance"
            self.refresh_all()
            return
        try:
            self.ratings[tid] = self.ann.rate_turn(tid, values["relevance"], values["interestingness"])
        except AnnotationError as e:
            self._say(str(e))
            return
        self.pending = {}
        self.aspect = "relevance"
        if not turn_rating_complete(old):  # a new rating moves on; an edit stays on its turn (n moves on)
            self.cursor = self._first_unrated()
        self.refresh_all()

    def action_move(self, step: int) -> None:
        if self.view is None or self.locked:
            if self.locked:
                self._say("The dialogue rating has started: the turn ratings are final.")
            return
        last = len(self.view.rated) - 1
        cur = last + 1 if self.cursor is None else self.cursor
        target = cur + step
        first_open = self._first_unrated()
        limit = last if first_open is None else first_open
        if target < 0 or target > limit + (1 if first_open is None else 0):
            return
        self.pending = {}
        self.aspect = "relevance"
        self.message = ""
        self.cursor = None if target > last else target
        self.refresh_all()

    def action_rate_dialogue(self) -> None:
        if self.view is None or self.sid is None:
            return
        if self._first_unrated() is not None and not self.locked:
            self._say("Rate every marked turn first (turn "
                      f"{(self._first_unrated() or 0) + 1} is not rated).")
            return
        from parley.tui.screens.rating import DialogueRatingScreen

        self.ann.start_dialogue_rating(self.sid)
        self.locked = self.ann.turns_locked(self.sid)
        self.cursor = None
        self.refresh_all()
        n = self.ann.position(self.sid)
        self.app.push_screen(DialogueRatingScreen(self.sid, self.ann.rater,
                                                  title=f"Rate dialogue {n} of {len(self.ann.queue)} as a whole"),
                             self._dialogue_rated)

    def _dialogue_rated(self, rating: DialogueRating | None) -> None:
        if rating is None:
            self._say("Dialogue rating cancelled; press d to rate it.")
            return
        try:
            self.ann.rate_dialogue(rating)
        except AnnotationError as e:
            self._say(str(e))
            return
        self.message = ""
        self.app.notify(f"Dialogue {self.ann.position(rating.session_id)} rated.", timeout=3)
        self.load(self.ann.current())

    def action_progress(self) -> None:
        from parley.tui.screens.annotate_progress import ProgressScreen

        self.app.push_screen(ProgressScreen(self.ann, blind=self.blind, current=self.sid))

    def action_instructions(self) -> None:
        from parley.tui.screens.annotate_help import InstructionsScreen

        self.app.push_screen(InstructionsScreen())

    async def action_quit(self) -> None:
        self.app.exit()


class AnnotateApp(App[None]):
    """``parley rate``: the annotation screen on one rater's queue (store.annotation.Annotation)."""

    CSS_PATH = str(Path(__file__).resolve().parents[1] / "app.tcss")
    TITLE = "parley rate"

    def __init__(self, annotation: Annotation, *, blind: bool = False, show_instructions: bool | None = None) -> None:
        super().__init__()
        self.annotation = annotation
        self.blind = blind
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
