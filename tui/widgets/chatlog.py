"""The chat log: user turns (typed → final), system turns (reply, ratings, internals) and notes.

The log follows new turns (``VerticalScroll.anchor``) unless the tester scrolled up on purpose (wheel, scroll
bar); then it stays put and posts :class:`ChatLog.NewBelow` so the screen can say "new turns below". Scrolling
back to the bottom, or sending a turn, follows again. The log never takes the focus: the prompt keeps it and
decides where each key lands (``tui/widgets/prompt.py``). In *rating mode* the log holds the rating cursor —
the selected system turn and the aspect the next digit rates (relevance first, then interestingness; none once
both are given) — and shows it; the log then follows again after rating if it did before (moving the rating
cursor is not scrolling up on purpose). The log only posts :class:`ChatLog.Rate`; the screen stores it. Every
text from outside (replies, typed text, errors, internals) is shown literally (``parley.display``):
markup is not parsed and control characters are made visible.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from parley.display import literal, visible
from parley.engine.session import Exchange
from parley.engine.types import SystemTurn
from parley.scales import TURN_ASPECTS, Aspect
from parley.tui.widgets.render import diff_text, format_internals


class UserTurnView(Vertical):
    """One user turn: what was typed (or spoken) and, when rewriters changed it, what the system received."""

    def __init__(self, ticket: int, typed: str, *, spoken: bool = False) -> None:
        super().__init__(classes="turn user -pending")
        self.ticket = ticket
        self.typed = typed
        self.spoken = spoken
        self.stored = False  # its commit landed (widgets/dialogue.py): "saving…" until then

    def compose(self) -> ComposeResult:
        head = "you (spoken)" if self.spoken else "you"
        yield Static(Text(head, style="bold"), classes="who")
        yield Static(literal(self.typed), classes="typed")
        yield Static("", classes="final")
        yield Static(Text("… waiting for the system" if self.stored else "… saving"), classes="note")

    def show_stored(self) -> None:
        """Its commit landed: stored as pending, waiting for the system."""
        self.stored = True
        for note in self.query(".note").results(Static):
            note.update(Text("… waiting for the system"))

    def show_result(self, exchange: Exchange) -> None:
        """Fill in the final text (changed words highlighted) and the failure, if any."""
        self.remove_class("-pending")
        final = self.query_one(".final", Static)
        note = self.query_one(".note", Static)
        if exchange.final != exchange.typed:
            line = Text("→ ", style="dim")
            line.append_text(diff_text(visible(exchange.typed), visible(exchange.final)))
            if exchange.condition and exchange.condition != "original":
                line.append(f"   [{visible(exchange.condition, one_line=True)}]", style="dim")
            final.update(line)
            final.display = True
        else:
            final.display = False
        if exchange.cancelled:
            self.add_class("-failed")
            note.update(Text("✗ cancelled (stored, never answered)"))
        elif exchange.error and exchange.system_turn_id is None:
            self.add_class("-failed")
            note.update(literal(f"✗ turn failed: {exchange.error}"))
        else:
            note.display = False

    def show_crash(self, error: str) -> None:
        self.remove_class("-pending")
        self.add_class("-failed")
        self.query_one(".note", Static).update(literal(f"✗ turn failed: {error}"))


class SystemTurnView(Vertical):
    """One system turn: the reply (or the failure), its turn ratings and, on a toggle, its internals."""

    selected: reactive[bool] = reactive(False)

    def __init__(self, number: int, exchange: Exchange) -> None:
        ok = exchange.reply is not None
        super().__init__(classes="turn system" + ("" if ok else " -failed"))
        self.number = number
        self.turn_id: str | None = exchange.system_turn_id
        self.reply: SystemTurn | None = exchange.reply
        self.error: str | None = exchange.error
        self.ratings: dict[str, int | None] = {a.key: None for a in TURN_ASPECTS}  # as stored
        self.saving: dict[str, int] = {}  # given, the write not committed yet: shown as "saving…"

    @property
    def rateable(self) -> bool:
        return self.reply is not None and self.turn_id is not None

    def compose(self) -> ComposeResult:
        yield Static(Text(f"system #{self.number}", style="bold"), classes="who")
        if self.reply is not None:
            text = literal(self.reply.text) if self.reply.text else Text("(empty reply)")
            yield Static(text, classes="reply")
            yield Static(self._ratings_text(), classes="ratings")
            yield Static(literal(format_internals(self.reply)), classes="internals")
        else:
            yield Static(literal(f"✗ the system failed: {self.error}"), classes="reply")

    def _ratings_text(self, aspect: Aspect | None = None) -> Text:
        out = Text()
        for i, a in enumerate(TURN_ASPECTS):
            if i:
                out.append("  ·  ", style="dim")
            value = self.ratings[a.key]
            style = "reverse" if aspect is a else ""
            out.append(f"{a.label.lower()} ", style=style)
            if a.key in self.saving:
                saving = self.saving[a.key]
                out.append(f"{saving} ({a.option(saving)}) saving…", style="dim italic")
            elif value is None:
                out.append("–", style="dim")
            else:
                out.append(f"{value} ({a.option(value)})", style="bold")
        return out

    def set_rating(self, key: str, value: int) -> None:
        self.ratings[key] = value
        self.refresh_ratings()

    def refresh_ratings(self, aspect: Aspect | None = None) -> None:
        if self.rateable:  # a view being removed (ctrl+n) may have lost its children already
            for line in self.query(".ratings").results(Static):
                line.update(self._ratings_text(aspect))

    def watch_selected(self, selected: bool) -> None:
        self.set_class(selected, "-selected")


class NoteView(Static):
    """A line of the log that is not a turn: rewriter changes, system switches, session locked, ..."""

    def __init__(self, text: str) -> None:
        super().__init__(literal(text), classes="lognote")


class ChatLog(VerticalScroll, can_focus=False):
    """The scrolling conversation, and the rating cursor of rating mode (driven by the prompt)."""

    @dataclass
    class Rate(Message):
        """The tester gave ``value`` on ``aspect`` for a system turn."""

        view: SystemTurnView
        aspect: str
        value: int

    @dataclass
    class NewBelow(Message):
        """Turns arrived below what the tester is reading (``True``), or the log is at the bottom again."""

        below: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rating = False  # in rating mode
        self.aspect_index: int | None = 0  # the aspect the next digit rates; None: the turn is rated
        self.cursor: SystemTurnView | None = None
        self.locked = False
        self._new_below = False
        self._follow_after_rating = True

    def on_mount(self) -> None:
        self.anchor()

    # -- following new turns -------------------------------------------------------------------------------
    @property
    def at_bottom(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 1

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._new_below and not self.rating and new_value >= self.max_scroll_y:
            self._say_new_below(False)

    def follow(self) -> None:
        """Back to the bottom, following new turns again."""
        self.anchor()
        self._say_new_below(False)

    def add(self, *views: Widget) -> None:
        """Append turns or notes. At the bottom (typing), the log follows them; scrolled up on purpose, or
        rating an earlier turn, it stays put and says "new turns below". Nothing is shown once the log is
        being taken down (an answer arriving while the app quits is stored already)."""
        if not self.is_attached:
            return
        follow = self.at_bottom and not self.rating
        self.mount(*views)
        if follow:
            self.anchor()  # also re-anchors after a wheel turn at the bottom released Textual's anchor
        else:
            self._say_new_below(True)

    def _say_new_below(self, below: bool) -> None:
        if below != self._new_below:
            self._new_below = below
            self.post_message(self.NewBelow(below))

    # -- content -----------------------------------------------------------------------------------------
    def system_views(self) -> list[SystemTurnView]:
        return [v for v in self.query(SystemTurnView) if v.rateable]

    def show_voice_timings(self, turn_id: str | None, timings: dict[str, object]) -> None:
        """A spoken reply's stage latencies, shown with the internals under its system turn."""
        from parley.audio.voice import format_timings

        lines = format_timings(timings)
        for view in self.system_views():
            if view.turn_id == turn_id and lines:
                view.mount(Static(Text("\n".join(lines)), classes="internals voice-timings"))

    def user_view(self, ticket: int) -> UserTurnView | None:
        for v in self.query(UserTurnView):
            if v.ticket == ticket:
                return v
        return None

    def add_note(self, text: str) -> None:
        self.add(NoteView(text))

    @property
    def aspect(self) -> Aspect | None:
        """The aspect the next digit rates; None once the selected turn's rating is complete."""
        return None if self.aspect_index is None else TURN_ASPECTS[self.aspect_index]

    # -- rating mode (the prompt calls these, in the order the keys came) -------------------------------
    @property
    def aspect_open(self) -> bool:
        """In rating mode with an aspect still to rate: a digit is a rating (else it is typed)."""
        return self.rating and self.aspect_index is not None

    def start_rating(self) -> None:
        """Rating mode on the latest system turn, relevance first."""
        self._follow_after_rating = self.at_bottom
        self.rating = True
        views = self.system_views()
        self.aspect_index = 0
        self._move_cursor(views[-1] if views else None)

    def stop_rating(self) -> None:
        if not self.rating:
            return
        self.rating = False
        self._move_cursor(None)
        if self._follow_after_rating:
            self.follow()

    def _move_cursor(self, view: SystemTurnView | None) -> None:
        if self.cursor is not None and self.cursor.is_attached:
            self.cursor.selected = False
            self.cursor.refresh_ratings()
        self.cursor = view
        if view is not None:
            view.selected = True
            view.refresh_ratings(self.aspect)
            self.scroll_to_widget(view, animate=False)

    def rate(self, value: int) -> str | None:
        """Rate the open aspect of the selected turn (posts :class:`Rate`) and move on to the next aspect;
        after the last one the turn's rating is complete. Returns why not, when ``value`` is no rating."""
        aspect = self.aspect
        if not self.rating or aspect is None:
            return "No aspect is open for rating."
        if self.cursor is None or not self.cursor.is_attached:
            views = self.system_views()
            if not views:
                return "Nothing to rate yet: no system turn has answered."
            self._move_cursor(views[-1])
        assert self.cursor is not None
        if not aspect.valid(value):
            return f"{aspect.label} takes {aspect.lo}-{aspect.hi}; {value} is not a rating."
        self.post_message(self.Rate(self.cursor, aspect.key, value))
        nxt = (self.aspect_index or 0) + 1
        self.aspect_index = nxt if nxt < len(TURN_ASPECTS) else None
        self.cursor.refresh_ratings(self.aspect)
        return None

    def next_aspect(self) -> None:
        """The other aspect of the selected turn (also reopens a complete rating, to change it)."""
        self.aspect_index = 0 if self.aspect_index is None else (self.aspect_index + 1) % len(TURN_ASPECTS)
        if self.cursor is not None:
            self.cursor.refresh_ratings(self.aspect)

    def select(self, step: int) -> None:
        """Select an earlier (``step`` < 0) or later system turn, relevance first."""
        views = self.system_views()
        if not views:
            return
        i = views.index(self.cursor) if self.cursor in views else len(views) - 1
        i = max(0, min(len(views) - 1, i + step))
        self.aspect_index = 0
        self._move_cursor(views[i])
