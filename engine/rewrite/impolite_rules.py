"""The rules of the ``impolite`` rewriter: courtesy stripping, requests to commands, scenario moves.

Slot values are swapped for single private-use characters before any rule runs and put back at the end, so no
rule can touch them; the output's spans are read off the placeholders' positions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.courtesy import is_fragment, markers, scrub, sentences, tidy
from parley.engine.rewrite.impolite_parse import Clause, parse, split
from parley.engine.rewrite.impolite_voice import cap, framed, plain
from parley.engine.rewrite.numbers import spoken_ordinal
from parley.engine.rewrite.util import relocate
from parley.engine.types import Message, Span

if TYPE_CHECKING:
    from parley.engine.rewrite.base import RewriteContext

_PH0 = 0xF0000  # placeholder code points: U+F0000 + span index (Supplementary Private Use Area-A)


_PRIVATE = re.compile("[\U000f0000-\U0010ffff]")


class Protected:
    """``text`` with each span replaced by one placeholder character (other such characters become spaces)."""

    def __init__(self, text: str, spans: Sequence[Span]) -> None:
        clean = _PRIVATE.sub(" ", text)
        self.spans = list(spans)
        parts: list[str] = []
        pos = 0
        for i, sp in enumerate(self.spans):
            parts.append(clean[pos:sp.start])
            parts.append(chr(_PH0 + i))
            pos = sp.end
        parts.append(clean[pos:])
        self.masked = "".join(parts)

    def restore(self, masked: str) -> tuple[str, tuple[Span, ...]]:
        out: list[str] = []
        spans: list[Span] = []
        pos = 0
        for c in masked:
            k = ord(c) - _PH0
            if 0 <= k < len(self.spans):
                sp = self.spans[k]
                spans.append(Span(pos, pos + len(sp.value), sp.slot, sp.value, sp.domain))
                out.append(sp.value)
                pos += len(sp.value)
            else:
                out.append(c)
                pos += 1
        return "".join(out), tuple(spans)

    def complete(self, masked: str) -> bool:
        return all(chr(_PH0 + i) in masked for i in range(len(self.spans)))

    def locate(self, text: str) -> tuple[Span, ...]:
        return relocate(text, self.spans)


_DETOK = ((re.compile(r"\s+('s|'m|'re|'ve|'ll|'d|n't)\b"), r"\1"), (re.compile(r"\s+([.,!?;:])"), r"\1"),
          (re.compile(r"(?<!\b[A-Za-z])([.,!?;:])(?=[^\s.,!?;:\d\"')])"), r"\1 "), (re.compile(r"\s+"), " "))


def _detok(s: str) -> str:
    """MultiWOZ-style tokens joined again: "I 'd like it ." → "I'd like it."."""
    for pat, rep in _DETOK:
        s = pat.sub(rep, s)
    return s.strip()


_THANKED = re.compile(r"\b(?:thank|thanks|cheers|appreciate|grateful)", re.IGNORECASE)


def _masked_spans(text: str, spans: Sequence[Span]) -> list[Span]:
    """The slot spans plus the requested attributes ("phone number", "postcode", …) overlapping none of
    them."""
    from parley.engine.spans import find_requests

    taken = [(s.start, s.end) for s in spans]
    reqs = [r for r in find_requests(text) if all(r.end <= a or r.start >= b for a, b in taken)]
    return sorted([*spans, *reqs], key=lambda s: s.start)


def rewrite_rules(text: str, spans: Sequence[Span], ctx: RewriteContext, scenario: int, intensity: int,
                  profanity: bool) -> tuple[str, tuple[Span, ...], list[str]]:
    """Apply the rules; returns (text, spans, names of the moves made).

    Each sentence is parsed (``impolite_parse``) and said again (``impolite_voice``); courtesy-only sentences
    go. The main request — the first request, else the first statement — is put into the scenario's voice from
    intensity 2 on; intensity 3 uses the strong frames and adds one scenario remark.
    """
    rng = ctx.rng
    slot_spans = list(spans)
    prot = Protected(text, _masked_spans(text, slot_spans))
    masked = _detok(prot.masked)
    moves: list[str] = []
    if not masked.strip():
        return text, tuple(spans), moves

    def pick(options: Sequence[str]) -> str:
        return str(rng.choice(list(options)))

    clauses: list[Clause] = []
    thanked = False
    for sent in sentences(masked):
        if markers(sent):
            moves.append("courtesy")
            thanked = thanked or bool(_THANKED.search(sent))
        for part in split(sent):
            c = parse(part)
            if c.kind == "courtesy":
                thanked = thanked or c.thanks
                continue
            clauses.append(c)
    attrs = "".join(chr(_PH0 + i) for i, sp in enumerate(prot.spans) if sp not in slot_spans)
    out = [plain(c, rng, attrs) for c in clauses]
    requests = [i for i, c in enumerate(clauses) if c.kind in ("act", "want", "yn", "wh")]
    states = [i for i, c in enumerate(clauses) if c.kind == "state" and c.body]
    main = requests[0] if requests else (states[0] if states else None)
    if requests:
        moves.append("command")
    fill = _history_fill(tuple(getattr(ctx, "history", ()) or ()))
    pool = L.MOVES[scenario]

    def phrase(where: str, strength: str, avoid: str = "") -> str:
        options = [x for x in pool[where][strength] if "{quote}" not in x or fill["quote"]]
        fresh = [x for x in options if not _trigrams(x) & _trigrams(avoid)]  # no "I don't have all day" twice
        return pick(fresh or options).format(**fill)

    if main is None:
        if thanked and (intensity >= 2 or rng.random() < 0.5 or not out):
            out.append(pick(L.DISMISSALS[scenario]))
            moves.append("dismissal")
        elif not out:
            out.append(pick(L.CURT_GREETINGS))
            moves.append("greeting")
    elif intensity == 1:
        if rng.random() < 0.35:
            out.append(pick(L.TAGS))
            moves.append("tag")
    else:
        strength = "mild" if intensity == 2 else "strong"
        voiced = framed(clauses[main], scenario, strength, rng, fill, attrs)
        if voiced:
            out[main] = voiced
            moves.append("voice")
        if intensity == 3 or not voiced:
            where = pick(("pre", "post"))
            extra = phrase(where, strength if where == "pre" else pick(("mild", "strong")), voiced or "")
            if where == "pre":
                out.insert(0, extra)
            else:
                out.append(extra)
            moves.append(where)
        if intensity == 2 and scenario in (2, 4) and not voiced and rng.random() < 0.3:
            tag = pick(L.TAGS)
            if tag not in out:
                out.append(tag)
                moves.append("tag")
        if intensity == 3:
            out = [re.sub(r"\.$", "!", x) if rng.random() < 0.3 and not x.endswith("?") else x for x in out]
            if profanity:
                out = _profane(out, rng)
                moves.append("profanity")

    result = tidy(" ".join(cap(x) for x in out if x))
    if markers(result) or any(is_fragment(x) and not _holds_placeholder(x) for x in sentences(result)):
        result = _clean(result)
        moves.append("cleaned")
    if not prot.complete(result) or not result:  # a rule never loses a slot value or a requested attribute
        result = _clean(" ".join(scrub(x) for x in sentences(masked)))
        moves.append("fallback: scrubbed")
        if not prot.complete(result):
            return text, tuple(spans), ["unchanged: slot value lost"]
        if not result:
            result = pick(L.DISMISSALS[scenario] if thanked else L.CURT_GREETINGS)
    after, new_spans = prot.restore(result)
    kept = {(s.value, s.slot) for s in slot_spans}
    return after, tuple(s for s in new_spans if (s.value, s.slot) in kept), moves


def _trigrams(s: str) -> set[tuple[str, ...]]:
    w = re.findall(r"[a-z']+", s.lower())
    return set(zip(w, w[1:], w[2:], strict=False))


def _holds_placeholder(s: str) -> bool:
    return any(ord(ch) >= _PH0 for ch in s)


def _clean(text: str) -> str:
    """Courtesy scrubbed once more and fragments without a slot value dropped."""
    keep = []
    for x in sentences(text):
        x = scrub(x) if markers(x) else x
        if x and (not is_fragment(x) or _holds_placeholder(x)):
            keep.append(cap(x) if x[-1:] in ".!?" else cap(x) + ".")
    return " ".join(keep)


def _history_fill(history: Sequence[Message]) -> dict[str, str]:
    from parley.engine.spans import find_spans

    n_user = sum(1 for m in history if m.role == "user")
    n = max(3, n_user + 1)
    quote = ""
    for m in reversed(history):
        if m.role == "system" and m.text.strip():
            words = re.sub(r"[\"“”]", "", m.text).split()[:5]
            snippet = " ".join(words).rstrip(".,!?;:")
            if snippet and not find_spans(snippet) and not re.search(r"\d", snippet):
                quote = snippet + ("..." if len(m.text.split()) > 5 else "")
            break
    from parley.engine.rewrite.numbers import spoken_int

    return {"n": spoken_int(n), "nth": spoken_ordinal(n), "quote": quote}


def _profane(out: list[str], rng: random.Random) -> list[str]:
    kind = rng.random()
    if kind < 0.45:
        first = out[0]
        out[0] = rng.choice(L.PROFANITY_INTERJECTIONS) + " " + first[:1].lower() + first[1:]
    elif kind < 0.75:
        out.append(rng.choice(L.PROFANITY_TAILS))
    else:
        for i, s in enumerate(out):
            new = re.sub(r"\b(a|the)\s+(?=[a-z]{3,})",
                         lambda m: f"{m.group(1)} {rng.choice(L.PROFANITY_ADJ)} ", s, count=1)
            if new != s:
                out[i] = new
                break
        else:
            out.append(rng.choice(L.PROFANITY_TAILS))
    return out
