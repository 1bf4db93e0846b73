"""The annotation screen of ``parley rate`` (the app is ``parley.tui.annotate_app.AnnotateApp``).

It opens on the first dialogue the rater has neither rated nor skipped, at the first turn they have not rated.
The transcript shows the dialogue up to the system turn being rated (its context); digits rate it; once every
selected turn is rated, ``d`` opens the dialogue-level rating (``DialogueRatingScreen``), which locks the turn
ratings when it opens. ``s`` skips the dialogue with a reason, ``g`` shows the progress view (``enter`` there
jumps to a dialogue), ``?`` the instructions. All state lives in the database (store.annotation.Annotation),
so quitting at any point and running ``parley rate`` again resumes.

A rating re-renders only the turns it changes (see annotate_transcript), so its cost does not grow with the
dialogue's length. Every write runs in a thread worker, in the order given (``widgets/writes.py``), so a
database another process holds locked never freezes the screen: a turn rating moves the cursor on at once and
shows in the transcript once stored (the panel says "saving…" meanwhile); the next dialogue opens once the
dialogue rating (or the skip) is stored; ``q`` waits for the writes still pending. ``d`` pressed while a turn
rating is still being written locks nothing until it is stored, and nothing at all if it fails
(``annotate_writes.py``). Each aspect of a turn is written as it is given, so quitting after a turn's
relevance keeps it (that turn resumes at its interestingness); ``0`` stores "not applicable".

Every key of this screen is a priority binding, handled as it arrives and in order, so a burst (``d`` and the
five digits of the dialogue rating, typed at once) reaches the dialogue form in order. The form opens on the
right half, the transcript (the whole dialogue) stays readable on the left; a dialogue already rated shows
the rater's own dialogue rating and justification.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from parley.scales import ASPECTS, NOT_APPLICABLE
from parley.store.annotation import Annotation, DialogueView
from parley.store.records import DialogueRating, TurnRating
from parley.tui.screens.annotate_render import header_text, panel_text, turn_text
from parley.tui.screens.annotate_transcript import Transcript
from parley.tui.screens.annotate_writes import AnnotateWrites
from parley.tui.widgets.writes import Writes


class AnnotateScreen(Screen[None]):
    """Rate the selected system turns of one dialogue after another."""

    DEFAULT_CSS = """
    AnnotateScreen { layout: vertical; }
    AnnotateScreen #ann-header { height: 1; padding: 0 1; background: $panel; color: $text; }
    AnnotateScreen #panel { height: auto; min-height: 4; padding: 0 1; border-top: solid $primary;
        background: $surface; }
    AnnotateScreen.-rating-dialogue #transcript { width: 50%; }
    AnnotateScreen.-rating-dialogue #panel { display: none; }
    """
    BINDINGS = [
        Binding("1", "pick(1)", "No", id="annotate_value_1", priority=True),
        Binding("2", "pick(2)", "Somewhat", id="annotate_value_2", priority=True),
        Binding("3", "pick(3)", "Yes", id="annotate_value_3", priority=True),
        Binding("0", "pick(0)", "N/A", show=False, id="annotate_value_na", priority=True),
        Binding("r", "aspect('relevance')", "Relevance", show=False, id="annotate_relevance", priority=True),
        Binding("i", "aspect('interestingness')", "Interest.", show=False, id="annotate_interestingness",
                priority=True),
        Binding("p", "move(-1)", "Prev turn", id="annotate_prev", priority=True),
        Binding("n", "move(1)", "Next turn", id="annotate_next", priority=True),
        Binding("d", "rate_dialogue", "Rate dialogue", id="annotate_dialogue", priority=True),
        Binding("s", "skip", "Skip", id="annotate_skip", priority=True),
        Binding("g", "progress", "Progress", id="annotate_progress", priority=True),
        Binding("pageup", "scroll_transcript(-1)", "Scroll up", show=False, id="annotate_page_up",
                priority=True),
        Binding("pagedown", "scroll_transcript(1)", "Scroll down", show=False, id="annotate_page_down",
                priority=True),
        Binding("question_mark", "instructions", "Help", id="annotate_help", priority=True),
        Binding("q", "quit", "Quit", id="annotate_quit", priority=True),
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
        self.given: dict[str, dict[str, Any]] = {}  # turn → its aspects as last sent to the store
        self.locked = False
        self.done: DialogueRating | None = None  # this rater's rating of the open dialogue
        self.skipped: str | None = None
        self.message = ""
        self.note = ""  # what just happened (a dialogue rated or skipped), said in the panel, not a toast
        self.numbers: dict[str, int] = {}
        self._shown_current: int | None = None
        self.saving: set[str] = set()  # turns whose rating is being written
        self.kept: dict[str, DialogueRating] = {}  # dialogue answers held back by an unstored turn
        self.quitting = False
        self.progress_asked = False  # `g` pressed while ratings were being stored: open it when they are

    def compose(self) -> ComposeResult:
        yield Static(id="ann-header")
        yield Transcript(id="transcript")
        yield Static(id="panel")
        yield AnnotateWrites()
        yield Footer()

    def on_mount(self) -> None:
        self.load(self.ann.current())

    # -- state ----------------------------------------------------------------------------------------------
    def load(self, session_id: str | None) -> None:
        """Show a dialogue at the first turn this rater has not rated (None: everything is rated)."""
        if session_id != self.sid:
            self.app.clear_notifications()  # a toast about the last dialogue does not stay over this one
        self.sid = session_id
        self.aspect = "relevance"
        self.message = self.note = ""
        transcript = self.query_one(Transcript)
        if session_id is None:
            self.view = None
            self.cursor = None
            thanks = Text("Thank you — every dialogue in your queue is rated or skipped. Press q to quit, "
                          "g to see them.")
            transcript.reset(1, lambda i: (thanks, "system", False))
            transcript.show(1)
        else:
            self.view = view = self.ann.dialogue(session_id)
            self.ratings = self.ann.turn_ratings(session_id)
            self.locked = self.ann.turns_locked(session_id)
            self.done = self.ann.dialogue_rating(session_id)
            self.skipped = self.ann.skipped().get(session_id)
            self.cursor = None if self.locked else self.first_unrated()
            self.aspect = self._open_aspect()
            self.numbers = {tid: i + 1 for i, tid in enumerate(view.rated)}
            self._shown_current = None
            transcript.reset(len(view.turns), self._turn)
            self.sync()
        self._header()
        self.show_panel()

    def first_unrated(self, start: int = 0) -> int | None:
        """The first rated-turn index from ``start`` on without a complete rating (ratings form a prefix, so
        searching from the cursor finds the next one at once)."""
        assert self.view is not None
        for i in range(start, len(self.view.rated)):
            if None in self.values_of(self.view.rated[i]).values():
                return i
        return None if start == 0 else self.first_unrated(0)

    def values_of(self, tid: str) -> dict[str, Any]:
        """A turn's aspects as the rater gave them: those being saved, else those stored (None: not given)."""
        if tid in self.given:
            return dict(self.given[tid])
        r = self.ratings.get(tid)
        return {"relevance": r.relevance if r else None, "interestingness": r.interestingness if r else None}

    def _open_aspect(self) -> str:
        """The aspect to rate at the cursor: the first one the turn lacks (relevance on a new turn)."""
        if self.view is None or self.cursor is None:
            return "relevance"
        values = self.values_of(self.view.rated[self.cursor])
        return next((k for k in ("relevance", "interestingness") if values[k] is None), "relevance")

    def _current_position(self) -> int | None:
        assert self.view is not None
        return None if self.cursor is None else self.view.positions[self.view.rated[self.cursor]]

    # -- rendering ------------------------------------------------------------------------------------------
    def _turn(self, i: int) -> tuple[Text, str, bool]:
        assert self.view is not None
        t = self.view.turns[i]
        current = i == self._current_position()
        text = turn_text(t, number=self.numbers.get(t.id), values=self.values_of(t.id), current=current,
                         blind=self.blind, decode=self.view.session.mode == "annotation")
        return text, t.role, current

    def sync(self, *changed: str) -> None:
        """Bring the transcript up to date after ``changed`` turns were rated or the cursor moved."""
        assert self.view is not None
        transcript = self.query_one(Transcript)
        current = self._current_position()
        moved = (self._shown_current, current) if current != self._shown_current else ()
        transcript.invalidate(*moved, *(self.view.positions[t] for t in changed))
        self._shown_current = current
        transcript.show(len(self.view.turns) if current is None else current + 1)

    def _header(self) -> None:
        total = len(self.ann.queue)
        position = None if self.sid is None else self.ann.position(self.sid)
        session = None if self.view is None else self.view.session
        self.query_one("#ann-header", Static).update(
            header_text(self.ann.rater, position, total, session, blind=self.blind))

    def show_panel(self) -> None:
        panel = self.query_one("#panel", Static)
        if self.view is None:
            panel.update(Text("All done.", style="bold"))
            return
        values = self.values_of(self.view.rated[self.cursor]) if self.cursor is not None else {}
        panel.update(panel_text(number=None if self.cursor is None else self.cursor + 1,
                                total=len(self.view.rated), values=values, aspect=self.aspect,
                                locked=self.locked, lock_on_start=self.ann.lock, done=self.done,
                                skipped=self.skipped, note=self.note,
                                message=self.message or ("saving…" if self.writes.pending else "")))

    @property
    def writes(self) -> AnnotateWrites:
        return self.query_one(AnnotateWrites)

    @on(Writes.Idle)
    def _idle(self) -> None:
        if self.quitting:
            self.app.exit()
            return
        self.show_panel()
        if self.progress_asked:
            self.progress_asked = False
            self.action_progress()

    # -- actions --------------------------------------------------------------------------------------------
    def say(self, message: str) -> None:
        self.message = message
        self.show_panel()

    def action_aspect(self, key: str) -> None:
        if self.cursor is not None:
            self.aspect = key
            self.show_panel()

    def action_pick(self, value: int) -> None:
        """A digit rates the current aspect of the turn at the cursor; it is stored at once (the other aspect
        comes next, or, with both given, the next turn)."""
        self.message = self.note = ""
        if self.view is None or self.cursor is None:
            saving = any(w.kind == "dialogue rating" for w in self.writes.jobs)
            self.say("" if self.view is None else "Saving your dialogue rating; the next dialogue opens once "
                     "it is stored." if saving else "You rated this dialogue." if self.done
                     else "Press d to rate the dialogue.")
            return
        if value == 0 and not ASPECTS[self.aspect].not_applicable:
            self.say("0 (not applicable) is for relevance only.")
            return
        tid = self.view.rated[self.cursor]
        before = self.values_of(tid)
        values = self.given[tid] = {**before, self.aspect: NOT_APPLICABLE if value == 0 else value}
        self.saving.add(tid)
        write = partial(self.ann.rate_turn, tid, values["relevance"], values["interestingness"])
        writes = self.writes
        writes.write("turn rating", write, partial(writes.turn_stored, tid), partial(writes.turn_failed, tid),
                     key=tid)
        if None in values.values():  # half rated (and stored so): the other aspect comes next
            self.aspect = next(k for k, v in values.items() if v is None)
        else:
            self.aspect = "relevance"
            if None in before.values():  # a new rating moves on; an edit stays on its turn (n moves on)
                self.cursor = self.first_unrated(self.cursor)
                self.aspect = self._open_aspect()
        self.sync(tid)
        self.show_panel()

    def action_move(self, step: int) -> None:
        if self.view is None or self.locked:
            if self.locked:
                self.say("The dialogue rating has started: the turn ratings are final.")
            return
        last = len(self.view.rated) - 1
        cur = last + 1 if self.cursor is None else self.cursor
        target = cur + step
        first_open = self.first_unrated()
        limit = last if first_open is None else first_open
        if target < 0 or target > limit + (1 if first_open is None else 0):
            return
        self.message = self.note = ""
        self.cursor = None if target > last else target
        self.aspect = self._open_aspect()
        self.sync()
        self.show_panel()

    def action_scroll_transcript(self, pages: int) -> None:
        transcript = self.query_one(Transcript)
        if pages < 0:
            transcript.scroll_page_up(animate=False)
        else:
            transcript.scroll_page_down(animate=False)

    def action_rate_dialogue(self) -> None:
        if self.view is None or self.sid is None:
            return
        if self.done is not None:
            self.say("You rated this dialogue already; its ratings are final. g shows the others.")
            return
        if self.first_unrated() is not None and not self.locked:
            self.say("Rate every marked turn first (turn "
                     f"{(self.first_unrated() or 0) + 1} is not rated).")
            return
        if any(w.kind == "dialogue rating" for w in self.writes.jobs):
            self.say("The dialogue rating is being saved; wait a moment.")
            return
        # stored after the turn ratings still pending and before the rating itself (which starts it too,
        # if this failed); not at all when one of those turn ratings failed
        self.writes.write_after_turns(self.sid, "start of the dialogue rating",
                                      partial(self.ann.start_dialogue_rating, self.sid), lambda _: None,
                                      partial(self.writes.start_failed, self.sid))
        self.locked = self.ann.lock
        self.cursor = None
        self.sync()
        self.show_panel()
        self._open_dialogue_rating(self.sid, self.kept.get(self.sid))

    def _open_dialogue_rating(self, sid: str, initial: DialogueRating | None = None) -> None:
        """The whole-dialogue form (``initial``: the answers a failed store would otherwise lose)."""
        from parley.tui.screens.rating import DialogueRatingScreen

        title = f"Rate dialogue {self.ann.position(sid)} of {len(self.ann.queue)} as a whole"
        screen = DialogueRatingScreen(sid, self.ann.rater, title=title, initial=initial)
        self.add_class("-rating-dialogue")  # the transcript on the left half, the form on the right
        self.app.push_screen(screen, self._dialogue_rated)

    def _dialogue_rated(self, rating: DialogueRating | None) -> None:
        self.remove_class("-rating-dialogue")
        if rating is None:
            self.say("Dialogue rating cancelled; press d to rate it.")
            return

        def stored(_: object) -> None:
            position = self.ann.position(rating.session_id)
            self.load(self.ann.current())
            self.note = f"Dialogue {position} rated and stored."
            self.show_panel()

        sid = rating.session_id
        self.kept.pop(sid, None)

        def failed(error: str) -> None:  # not stored: the answers are offered again rather than lost
            unstored = self.writes.first_unstored(sid)
            if unstored is not None:  # a turn rating before it failed: kept until that turn is rated again
                self.kept[sid] = rating
                number, why = unstored
                self.writes.failed(f"The rating of turn {number} was not stored ({why}), so neither was the "
                                   f"dialogue rating: rate turn {number} again, then d opens your answers.")
                return
            self.writes.failed(f"{error} Your answers are kept: ctrl+s tries again.")
            self._open_dialogue_rating(sid, rating)

        self.writes.write_after_turns(sid, "dialogue rating", partial(self.ann.rate_dialogue, rating),
                                      stored, failed)

    def action_skip(self) -> None:
        if self.view is None or self.sid is None:
            return
        if self.done is not None:
            self.say("You rated this dialogue already: there is nothing to skip.")
            return
        from parley.tui.screens.annotate_skip import SkipScreen

        self.app.push_screen(SkipScreen(self.ann.position(self.sid), self.skipped or ""), self._skipped)

    def _skipped(self, reason: str | None) -> None:
        if reason is None or self.sid is None:
            return
        sid = self.sid

        def stored(_: object) -> None:
            self.load(self.ann.current())
            self.note = f"Dialogue {self.ann.position(sid)} skipped."
            self.show_panel()

        self.writes.write("skip", partial(self.ann.skip, sid, reason), stored)

    def action_progress(self) -> None:
        """The progress view, once the ratings given before it are stored (it reads them back)."""
        from parley.tui.screens.annotate_progress import ProgressScreen

        if self.writes.pending:
            self.progress_asked = True
            return
        self.app.push_screen(ProgressScreen(self.ann, blind=self.blind, current=self.sid), self._jump)

    def _jump(self, session_id: str | None) -> None:
        if session_id is not None and session_id != self.sid:
            self.load(session_id)

    def action_instructions(self) -> None:
        from parley.tui.screens.annotate_help import InstructionsScreen

        self.app.push_screen(InstructionsScreen())

    async def action_quit(self) -> None:
        """Quit, once every rating given is stored (a write that fails stops the quit and says so)."""
        if self.writes.pending:
            self.quitting = True
            self.say("Saving, then quitting…")
            return
        self.app.exit()

