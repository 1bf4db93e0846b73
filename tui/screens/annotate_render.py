"""What the annotation screen draws, as rich Text: one turn of the transcript and the rating panel.

Imported dialogues (annotation-mode sessions) are shown with their HTML entities decoded (``&quot;`` → ``"``,
``&gt;`` → ``>``): corpora such as AB-ReDial store their text HTML-escaped. The decoding happens only here, at
display; the database keeps the text exactly as the file had it (exports and scores see the original). Text
typed in parley (live and replayed sessions) is shown as it was typed.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from rich.text import Text

from parley.display import literal, visible
from parley.scales import DIALOGUE_ASPECTS, INTERESTINGNESS, NOT_APPLICABLE, RELEVANCE
from parley.store.records import DialogueRating, SessionRecord, TurnRecord
from parley.tui.widgets.scale import option_text

NA = "n/a"
#: a turn's aspects as given so far: relevance/interestingness → value (None: not given yet)
Values = Mapping[str, int | str | None]


def rating_text(values: Values) -> str:
    """``relevance yes · interestingness no``, ``relevance n/a · interestingness –`` for a turn half rated,
    or ``not rated``."""
    rel, inter = values.get("relevance"), values.get("interestingness")
    if rel is None and inter is None:
        return "not rated"
    shown = [NA if v == NOT_APPLICABLE else "–" if v is None else a.option(int(v))
             for a, v in ((RELEVANCE, rel), (INTERESTINGNESS, inter))]
    return f"relevance {shown[0]} · interestingness {shown[1]}"


def dialogue_text(rating: DialogueRating) -> Text:
    """The rater's own dialogue rating, each aspect by its label, and the justification (shown literally)."""
    out = Text()
    out.append("Your dialogue rating: ", style="bold")
    out.append(" · ".join(f"{a.label.lower()} {getattr(rating, a.key)} {a.option(getattr(rating, a.key))}"
                          for a in DIALOGUE_ASPECTS))
    out.append("\nYour justification: ", style="bold")
    out.append(visible(rating.justification) or "—")
    return out


def shown_text(text: str, *, decode: bool) -> str:
    """A turn's text as shown: HTML entities decoded for imported text (``decode``); control characters
    made visible."""
    return visible(html.unescape(text) if decode else text)


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


def turn_text(t: TurnRecord, *, number: int | None, values: Values, current: bool, blind: bool,
              decode: bool = False) -> Text:
    """One turn; ``number`` is its position among the rated turns (None: not rated), ``values`` what the
    rater gave it. Users' turns show what the system received; outside blind mode, also what was typed when a
    rewriter changed it. The text comes from the data: control characters are made visible (it is never
    parsed as markup); ``decode``: HTML entities decoded (imported text, see the module docstring)."""
    text = Text()
    if t.role == "user":
        text.append("USER  ", style="bold green")
        text.append(shown_text(t.text_final if t.text_final is not None else t.text, decode=decode))
        if not blind and t.text_final is not None and t.text_final != t.text:
            text.append(f"\n      typed: {shown_text(t.text, decode=decode)}", style="dim")
        return text
    text.append("SYSTEM  ", style="bold blue")
    text.append(shown_text(t.text, decode=decode) if t.status == "ok"
                else f"[failed: {visible(t.error or 'no reply')}]")
    if number is not None:
        text.append(f"\n  turn {number}: {rating_text(values)}", style="bold" if current else "dim")
    return text


def panel_text(*, number: int | None, total: int, values: Values, aspect: str, locked: bool,
               lock_on_start: bool, done: DialogueRating | None = None, skipped: str | None = None,
               message: str = "", note: str = "") -> Text:
    """The rating panel: the scales of turn ``number`` (1-based; None: every turn is rated) with ``values``
    as given so far; ``done``: the rater's own rating of the dialogue, shown with its justification;
    ``note``: what just happened (a dialogue rated, skipped), ``message``: what was refused or failed."""
    out = Text()
    if skipped is not None and not done:
        out.append("You skipped this dialogue: ", style="bold")
        out.append(visible(skipped, one_line=True))
        out.append(". Rate it anyway, s changes the reason, g picks another.\n")
    if number is None:
        if done is not None:
            out.append("You rated this dialogue. ", style="bold")
            out.append("Its ratings are final; g shows the others.\n")
            out.append_text(dialogue_text(done))
        elif locked:
            out.append("Turn ratings are final. ", style="bold")
            out.append("Press d to rate the whole dialogue.")
        else:
            out.append(f"All {total} turn(s) rated. ", style="bold")
            lock = " — the turn ratings then lock" if lock_on_start else ""
            out.append(f"Press d to rate the whole dialogue{lock}. p goes back to a turn.")
    else:
        out.append(f"Turn {number} of {total}\n", style="bold")
        for a in (RELEVANCE, INTERESTINGNESS):
            active = a.key == aspect
            out.append("▶ " if active else "  ", style="bold")
            out.append(f"{a.label + ':':<17}", style="bold" if active else "")
            value = values.get(a.key)
            for v in a.values:
                out.append_text(option_text(v, a.option(v), value == v))
                out.append(" ")
            if a.not_applicable:
                out.append_text(option_text(0, "not applicable", value == NOT_APPLICABLE))
            if value is not None:
                out.append(f"  ✓ {NA if value == NOT_APPLICABLE else a.option(int(value))}", style="bold")
            out.append(f"\n  {a.definition}\n", style="dim italic")
    if note:
        if out.plain and not out.plain.endswith("\n"):
            out.append("\n")
        out.append(visible(note, one_line=True) + ("\n" if message else ""), style="bold green")
    if message:
        out.append(visible(message, one_line=True), style="bold red")
    return out
