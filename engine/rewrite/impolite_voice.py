"""Say a parsed clause (``engine.rewrite.impolite_parse.Clause``) again, bluntly or in a scenario's voice.

:func:`plain` gives the blunt form every intensity starts from: an imperative for an action ("Recommend a
museum in the west."), "Find me …" / "I want …" for a want, the question as a bare question, the statement
contracted. :func:`framed` puts the request into one of the scenario's frames (``impolite_lexicon.FRAMES``):
"Surely even you can recommend a museum in the west." (sarcastic), "Just get me a taxi." (bad mood), "For the
third time, …". Every result is one or more whole sentences; the placeholders of the clause are carried
through untouched.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.courtesy import PH
from parley.engine.rewrite.impolite_parse import Clause

_ASK = {"find": ("Find me", "Get me"), "get": ("Get me", "Find me"), "give": ("Give me",),
        "book": ("Book me",), "reserve": ("Book me",), "locate": ("Find me",), "choose": ("Pick me",),
        "pick": ("Pick me",)}


def _decap(s: str) -> str:
    """Lower-case the first letter unless the first word is "I"/"I'm"…, an acronym or a placeholder."""
    if not s or re.match(rf"^(?:I\b|I'|[A-Z]{{2}}|[{PH}])", s):
        return s
    return s[:1].lower() + s[1:]


def cap(s: str) -> str:
    """Capitalise each sentence of ``s`` (placeholders and quotes left alone)."""
    s = re.sub(r"^([\"'(]*)([a-z])", lambda m: m.group(1) + m.group(2).upper(), s.strip())
    return re.sub(r"([.!?]\s+[\"'(]*)([a-z])", lambda m: m.group(1) + m.group(2).upper(), s)


def _ask(c: Clause, rng: random.Random, attrs: str = "") -> str:
    m = re.match(rf"^(?:the |their |its |your |his |her |a |an )?([{PH}])", c.body, re.IGNORECASE)
    if m and m.group(1) in attrs:
        return "Give me"  # a requested attribute: "Give me the phone number"
    return str(rng.choice(_ASK.get(c.verb, ("Get me", "Find me"))))


def _with_lead(c: Clause, text: str) -> str:
    if not c.lead:
        return text
    return f"{c.lead.capitalize()}, {_decap(text)}"


def plain(c: Clause, rng: random.Random, attrs: str = "") -> str:
    """The clause said bluntly, as whole sentence(s); ``attrs`` holds the placeholders of requested
    attributes."""
    if c.kind == "act":
        out = f"{c.body}."
    elif c.kind == "want":
        out = str(rng.choice((f"{_ask(c, rng, attrs)} {_decap(c.body)}.", f"I want {_decap(c.body)}.",
                              f"I need {_decap(c.body)}.")))
    elif c.kind in ("yn", "wh"):
        out = f"{c.body}?"
    elif c.kind in ("state", "close") and c.body:
        out = f"{c.body}."
    elif c.kind == "agree":
        return cap("No." if "no" in c.lead.split(", ") else str(rng.choice(L.AGREE)))
    elif c.kind == "state":  # only an answer word: "Yes."
        return cap(c.lead.split(", ")[0] + ".")
    else:
        return ""
    return cap(_with_lead(c, out))


def framed(c: Clause, scenario: int, strength: str, rng: random.Random, fill: Mapping[str, str],
           attrs: str = "") -> str | None:
    """The clause in one of the scenario's frames, or None when the scenario has none for this kind."""
    kind = "state" if c.kind == "close" else c.kind
    options = L.FRAMES[scenario].get(kind, {}).get(strength, ())
    if not options or not c.body:
        return None
    body = _decap(c.body)
    out = str(rng.choice(options))
    if "{ask}" in out:
        out = out.replace("{ask}", _ask(c, rng, attrs))
    for key, value in fill.items():  # filled by replacement: the body may hold braces
        out = out.replace("{" + key + "}", value)
    starts_with_body = re.match(r"\{(?:vp|np|q|s)\}", out) is not None
    out = re.sub(r"\{(?:vp|np|q|s)\}", lambda _m: body, out)
    if starts_with_body:
        return cap(_with_lead(c, out))
    answer = [w for w in c.lead.split(", ") if w in ("yes", "yeah", "no", "nope")]  # "also" fits no frame
    return cap(f"{answer[0].capitalize()}, {_decap(out)}" if answer else out)
