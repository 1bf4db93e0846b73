"""What the annotation screen draws, as rich Text: one turn of the transcript and the rating panel."""

from __future__ import annotations

from rich.text import Text

from parley.display import literal, visible
from parley.scales import INTERESTINGNESS, RELEVANCE
from parley.store.annotation import turn_rating_complete
from parley.store.records import SessionRecord, TurnRating, TurnRecord
from parley.tui.widgets.scale import option_text

NA = "n/a"


def rating_text(r: TurnRating | None) -> str:
    """``relevance yes · interestingness no`` (or ``not rated``)."""
    if r is None or not turn_rating_complete(r):
        return "not rated"
    rel = NA if r.relevance is None else RELEVANCE.option(r.relevance)
    inter = INTERESTINGNESS.option(r.interestingness) if r.interestingness is not None else "-"
    return f"relevance {rel} · interestingness {inter}"


def header_text(rater: str, position: int | None, total: int, session: SessionRecord | None, *,
                blind: bool) -> Text:
    """``parley rate · RATER · dialogue n of N`` and, outside blind mode, system, condition and source.
    Names and ids come from the data: shown literally (markup not parsed, control characters made visible)."""
    parts = ["parley rate", rater]
    if position is None:
        parts.append(f"every dialogue of {total} rated or skipped")
    else:
        parts.append(f"dialogue {position} of {total}")
        if session is not None and not blind:
            cond = session.condition.get("name", "original") if isinstance(session.condition, dict) else ""
            parts += [p for p in (session.system_name, cond or "original", session.source) if p]
    return literal(" · ".join(parts), one_line=True)


def turn_text(t: TurnRecord, *, number: int | None, rating: TurnRating | None, current: bool,
              blind: bool) -> Text:
    """One turn; ``number`` is its position among the rated turns (None: not rated). Users' turns show what
    the system received; outside blind mode, also what was typed when a rewriter changed it. The text comes
    from the data: control characters are made visible (it is never parsed as markup)."""
    text = Text()
    if t.role == "user":
        text.append("USER  ", style="bold green")
        text.append(visible(t.text_final if t.text_final is not None else t.text))
        if not blind and t.text_final is not None and t.text_final != t.text:
            text.append(f"\n      typed: {visible(t.text)}", style="dim")
        return text
    text.append("SYSTEM  ", style="bold blue")
    text.append(visible(t.text) if t.status == "ok" else f"[failed: {visible(t.error or 'no reply')}]")
    if number is not None:
        text.append(f"\n  turn {number}: {rating_text(rating)}", style="bold" if current else "dim")
    return text


def panel_text(*, number: int | None, total: int, rating: TurnRating | None, pending: dict[str, int | None],
               aspect: str, locked: bool, lock_on_start: bool, done: bool = False, skipped: str | None = None,
               message: str = "") -> Text:
    """The rating panel: the scales of turn ``number`` (1-based; None: every turn is rated)."""
    out = Text()
    if skipped is not None and not done:
        out.append("You skipped this dialogue: ", style="bold")
        out.append(visible(skipped, one_line=True))
        out.append(". Rate it anyway, s changes the reason, g picks another.\n")
    if number is None:
        if done:
            out.append("You rated this dialogue. ", style="bold")
            out.append("Its ratings are final; g shows the others.")
        elif locked:
            out.append("Turn ratings are final. ", style="bold")
            out.append("Press d to rate the whole dialogue.")
        else:
            out.append(f"All {total} turn(s) rated. ", style="bold")
            lock = " — the turn ratings then lock" if lock_on_start else ""
            out.append(f"Press d to rate the whole dialogue{lock}. p goes back to a turn.")
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
                out.append_text(option_text(v, a.option(v), chosen and value == v))
                out.append(" ")
            if na:
                out.append_text(option_text(0, "not applicable", chosen and value is None))
            if chosen:
                out.append(f"  ✓ {NA if value is None else a.option(value)}", style="bold")
            out.append(f"\n  {a.definition}\n", style="dim italic")
    if message:
        out.append(visible(message, one_line=True), style="bold red")
    return out
