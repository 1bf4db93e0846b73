"""The annotation screen's writes (``widgets/writes.py``): turn ratings stored or failed, and the writes that
lock a dialogue's turns (the start of the dialogue rating, the rating itself), which wait for the turn ratings
given before them and are refused when one of those failed: the turns stay open, the linguist is told which
turn to rate again, and dialogue answers already given are kept (``d`` opens them again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from parley.store.annotation import AnnotationError
from parley.tui.notify import tell
from parley.tui.widgets.writes import Write, Writes

if TYPE_CHECKING:
    from parley.store.records import TurnRating
    from parley.tui.screens.annotate import AnnotateScreen


class AnnotateWrites(Writes):
    """Never displayed; lives on :class:`AnnotateScreen`."""

    DEFAULT_CSS = "AnnotateWrites { display: none; }"

    def __init__(self) -> None:
        super().__init__()
        self.unstored: dict[str, tuple[str, int, str]] = {}  # turns whose last write failed: (session,
        # number, why)

    @property
    def owner(self) -> AnnotateScreen:
        return cast("AnnotateScreen", self.screen)

    def write(self, kind: str, fn: Callable[[], object], done: Callable[[Any], None],
              failed: Callable[[str], None] | None = None, key: object = None) -> None:
        self.submit(Write(kind, lambda: fn, done, failed or self.failed, key=key))
        self.owner.show_panel()

    def failed(self, error: str) -> None:
        """Say why a write failed in the panel (and over a form covering it); a quit waiting for it stops."""
        s = self.owner
        if s.quitting:
            s.quitting = False
            error += " Not quitting: press q again once it is stored."
        s.say(error)
        if self.app.screen is not s:  # the dialogue rating form hides the panel
            tell(self, error, severity="error", timeout=10)

    def turn_stored(self, tid: str, rating: TurnRating) -> None:
        """A turn rating is stored: the turn is drawn again only if what it shows changed (it shows the values
        given as soon as they are given)."""
        s = self.owner
        shown = s.values_of(tid)
        self._turn_written(tid)
        self.unstored.pop(tid, None)
        if s.view is not None and tid in s.view.positions:
            s.ratings[tid] = rating
            if s.values_of(tid) != shown:
                s.sync(tid)
            s.show_panel()

    def turn_failed(self, tid: str, error: str) -> None:
        s = self.owner
        self._turn_written(tid)
        number = s.numbers.get(tid, 0)
        if s.sid is not None and tid in s.numbers:
            self.unstored[tid] = (s.sid, number, error)
        self.failed(f"Rating of turn {number} not stored: {error}")
        if s.view is not None and tid in s.view.positions and not s.locked:
            s.cursor = s.first_unrated()
            s.sync(tid)
            s.show_panel()

    def _turn_written(self, tid: str) -> None:
        """The last write of a turn is done: from now on the panel shows what the store holds."""
        if not any(w.key == tid for w in self.jobs):
            self.owner.saving.discard(tid)
            self.owner.given.pop(tid, None)

    def first_unstored(self, sid: str) -> tuple[int, str] | None:
        """A turn of ``sid`` whose rating failed to store (and was not stored since): its number, and why."""
        return min(((n, why) for s, n, why in self.unstored.values() if s == sid), default=None)

    def write_after_turns(self, sid: str, kind: str, fn: Callable[[], object], done: Callable[[Any], None],
                          failed: Callable[[str], None]) -> None:
        """Queue a write that locks ``sid``'s turns: when its turn comes (every turn rating given before it
        has finished), it is refused if one of them failed."""
        def start() -> Callable[[], object]:
            unstored = self.first_unstored(sid)
            if unstored is not None:
                raise AnnotationError(f"the rating of turn {unstored[0]} was not stored")
            return fn

        self.submit(Write(kind, start, done, failed))
        self.owner.show_panel()

    def start_failed(self, sid: str, error: str) -> None:
        """The start of the dialogue rating was not stored: refused after a failed turn rating, the turns
        open again at that turn."""
        s, unstored = self.owner, self.first_unstored(sid)
        if unstored is None:
            self.failed(error)
            return
        number, why = unstored
        if s.sid == sid and s.view is not None:
            s.locked = False  # the start was not stored (and no turn rating is refused before it is)
            s.cursor = s.first_unrated()
            s.sync()
        self.failed(f"The rating of turn {number} was not stored ({why}), so the dialogue rating did not "
                    f"start: rate turn {number} again, then press d.")
