"""What the annotation screen draws, as rich Text: one turn of the transcript and the rating panel."""

from __future__ import annotations

from rich.text import Text

from parley.engine.aspects import INTERESTINGNESS, RELEVANCE
from parley.store.annotation import turn_rating_complete
from parley.store.records import TurnRating, TurnRecord

NA = "n/a"


def rating_text(r: TurnRating | None) -> str:
    """``relevance yes · interestingness no`` (or ``not rated``)."""
    if r is None or not turn_rating_complete(r):
        return "not rated"
    rel = NA if r.relevance is None else RELEVANCE.option(r.relevance)
    inter = INTERESTINGNESS.option(r.interestingness) if r.interestingness is not None else "-"
    return f"relevance {rel} · interestingness {inter}"


def turn_text(t: TurnRecord, *, number: int | None, rating: TurnRating | None, current: bool,
              blind: bool) -> Text:
    """One turn; ``number`` is its position among the rated turns (None: not rated). Users' turns show what the
    system received; outside blind mode, also what was typed when a rewriter changed it."""
    text = Text()
    if t.role == "user":
        text.append("USER  ", style="bold green")
        text.append(t.text_final if t.text_final is not None else t.text)
        if not blind and t.text_final is not None and t.text_final != t.text:
            text.append(f"\n      typed: {t.text}", style="dim")
        return text
    text.append("SYSTEM  ", style="bold blue")
    text.append(t.text if t.status == "ok" else f"[failed: {t.error or 'no reply'}]")
    if number is not None:
        text.append(f"\n  turn {number}: {rating_text(rating)}", style="bold" if current else "dim")
    return text


def panel_text(*, number: int | None, total: int, rating: TurnRating | None, pending: dict[str, int | None],
               aspect: str, locked: bool, lock_on_start: bool, message: str = "") -> Text:
    """The rating panel: the scales of turn ``number`` (1-based; None: every turn is rated)."""
    out = Text()
    if number is None:
        if locked:
            out.append("Turn ratings are final. ", style="bold")
            out.append("Press d to rate the whole dialogue.")
        else:
            out.append(f"All {total} turn(s) rated. ", style="bold")
            out.append("Press d to rate the whole dialogue" + (" — the turn ratings then lock" if lock_on_start
                                                                else "") + ". p goes back to a turn.")
    else:
        out.append(f"Turn {number} of {total}\n", style="bold")
        complete = rating is not None and turn_rating_complete(rating)
        for a, na in ((RELEVANCE, True), (INTERESTINGNESS, False)):
            active = a.key == aspect
            out.append("▶ " if active else "  ", style="bold")
            out.append(f"{a.label + ':':<17}", style="bold" if active else "")
            value = pending.get(a.key, getattr(rating, a.key) if rating else None)
            chosen = a.key in pending or complete
            for v in a.values:
                out.append(f" {v} {a.option(v)} ", style="reverse" if chosen and value == v else "")
                out.append(" ")
            if na:
                out.append(" 0 not applicable ", style="reverse" if chosen and value is None else "")
            out.append(f"\n  {a.definition}\n", style="dim italic")
    if message:
        out.append(message, style="bold red")
    return out
