"""Speech disfluency (LAUG "SD", Liu et al. 2021): filled pauses, repeats, restarts and repairs.

- **filled pauses** ("uh", "um", "you know", ...) and **repeats** ("to, to") are inserted at *interruption
  points*. LAUG predicts these with a tagger trained on Switchboard; we use a positional heuristic instead:
  gaps after function words ("to", "the", "for", "I", ...) and before slot values weigh more, the utterance
  start a little more; never before punctuation or a clitic, inside a protected span, inside a number
  ("two hundred", "3 people"), a capitalised name or a requested attribute ("phone number"). Only plain words
  are repeated (never a number, a name or a slot value).
- **restarts** put a false start before the utterance ("I just", "well, you know,", ...).
- **repairs** say another value of the same slot first: "<other value>, sorry, I mean <value>"; the other
  value comes from the MultiWOZ databases (``engine.rewrite.values``). The value itself stays, so the label
  does not change; each repair is reported in ``Rewrite.changes`` with ``kind="repair"``.

Word lists and weights: our own estimates, ordered as disfluency studies of Switchboard report them
(Shriberg 1994; Lickley 1995: "uh" is the most frequent filler, then "um", then discourse markers such as
"you know", "I mean", "like", "well"); not sampled from Switchboard itself, which is not available offline.
Default rates are calibrated on the MultiWOZ test user turns against LAUG Table 7 (see bench/results/rw.md).
"""

from __future__ import annotations

import random
from typing import ClassVar

from parley.engine.params import Field, Params
from parley.engine.rewrite.base import RewriteContext, WithParams
from parley.engine.rewrite.util import Tok, assemble, sort_spans, split_edges, tokenize, words
from parley.engine.types import Change, Rewrite

#: (filler, weight)
FILLERS: tuple[tuple[str, float], ...] = (
    ("uh", 0.34), ("um", 0.26), ("you know", 0.10), ("like", 0.07), ("i mean", 0.06), ("er", 0.05),
    ("well", 0.04), ("hmm", 0.04), ("so", 0.04))
#: false-start prefixes (restarts)
RESTARTS: tuple[tuple[str, float], ...] = (
    ("I just", 0.18), ("well, you know,", 0.12), ("so I", 0.12), ("I was", 0.10), ("I think I", 0.08),
    ("okay so", 0.08), ("I, uh,", 0.08), ("can I", 0.06), ("I'd", 0.06), ("so, um,", 0.06), ("yeah, I", 0.06))
#: edit terms between the wrong value (reparandum) and the right one (repair)
EDIT_TERMS: tuple[tuple[str, float], ...] = (
    ("sorry, I mean", 0.40), ("I mean", 0.20), ("no wait,", 0.12), ("uh, I mean", 0.10), ("sorry,", 0.10),
    ("or rather", 0.08))
#: an interruption point is more likely right after these words
_FUNCTION = frozenset(words("i to the a an for in at on of and from with is was like some any that this it "
                            "want need looking book get find would could be me my we"))
_SLOTS_REPAIRABLE = frozenset(words("name area food pricerange type day departure destination department "
                                    "book_people book_stay book_time leaveAt arriveBy stars"))


def _pick(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
    return str(rng.choices([w for w, _ in table], weights=[p for _, p in table])[0])


class DisfluencyParams(Params):
    rate: float = Field(0.15, ge=0.0, le=1.0,
                        description="interruption points per word gap (filled pauses and repeats)")
    repeat_share: float = Field(0.25, ge=0.0, le=1.0,
                                description="share of interruption points that are repeats, not pauses")
    restart: float = Field(0.25, ge=0.0, le=1.0,
                           description="probability of a false start before the utterance")
    repair: float = Field(0.12, ge=0.0, le=1.0,
                          description="probability that a slot value is repaired ('X, sorry, I mean Y')")


class DisfluencyRewriter(WithParams[DisfluencyParams]):
    """LAUG-style speech disfluency with per-type rates."""

    name = "disfluency"
    PARAMS: ClassVar[type[Params]] = DisfluencyParams

    def __init__(self, **given: object) -> None:
        self.p = DisfluencyParams.from_spec(self.name, given)

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite:
        p = self.p
        rng = ctx.rng
        spans = sort_spans(ctx.spans)
        toks = tokenize(text, spans)
        changes: list[Change] = []
        counts = {"pause": 0, "repeat": 0, "restart": 0, "repair": 0}
        if not toks:
            return Rewrite(self.name, self.params, ctx.seed, text, text, tuple(spans), (), {"counts": counts})

        # repairs first, on the span tokens themselves
        from parley.engine.rewrite.values import other_value

        for t in toks:
            if t.span is None or p.repair <= 0 or rng.random() >= p.repair:
                continue
            sp = spans[t.span]
            if sp.slot not in _SLOTS_REPAIRABLE:
                continue
            other = other_value(sp, rng)
            if not other:
                continue
            edit = _pick(rng, EDIT_TERMS)
            lead, _, _ = split_edges(t.text)
            t.text = f"{lead}{other}, {edit} {t.text[len(lead):]}"
            counts["repair"] += 1
            changes.append({"slot": sp.slot, "before": sp.value, "after": sp.value, "kind": "repair",
                            "reparandum": other, "edit_term": edit})

        # interruption points between tokens: gap i is before toks[i]
        n = len(toks)
        glued = _glued(toks, text)
        weights = []
        for i in range(n):
            prev = toks[i - 1] if i else None
            w = 1.0
            if prev is None:
                w = 1.3
            else:
                _, core, tail = split_edges(prev.text)
                if tail and any(c in tail for c in ".?!"):
                    w = 0.6
                elif core.lower() in _FUNCTION:
                    w = 2.0
                if prev.span is not None:
                    w *= 0.7
            if toks[i].span is not None:
                w *= 1.5
            _, core_i, _ = split_edges(toks[i].text)
            if not core_i or toks[i].text[:1] == "'" or toks[i].text.lower() == "n't":
                w = 0.0  # never before bare punctuation or a clitic ("it 's")
            elif glued[i]:
                w = 0.0  # never inside a number, a name or an attribute ("phone number")
            weights.append(w)
        mean_w = sum(weights) / n if n else 1.0
        out: list[Tok] = []
        for i, t in enumerate(toks):
            w = weights[i]
            if w > 0 and mean_w > 0 and rng.random() < min(0.9, p.rate * w / mean_w):
                prev = toks[i - 1] if i else None
                if (prev is not None and _repeatable(prev) and not split_edges(prev.text)[2]
                        and rng.random() < p.repeat_share):
                    two = i >= 2 and _repeatable(toks[i - 2]) and not glued[i - 1]
                    k = 2 if two and rng.random() < 0.25 else 1
                    rep = [split_edges(x.text)[1] for x in toks[i - k:i]]
                    if all(rep):
                        if out:
                            out[-1] = Tok(_strip_tail(out[-1].text) + ",", out[-1].span, out[-1].orig)
                        out.append(Tok(" ".join(rep)))
                        counts["repeat"] += 1
                else:
                    filler = _pick(rng, FILLERS)
                    if i == 0:
                        filler = filler[:1].upper() + filler[1:]
                        _decap(t)
                        if filler.lower() in ("well", "so", "you know", "i mean"):
                            filler += ","
                    out.append(Tok(filler))
                    counts["pause"] += 1
            out.append(t)

        if p.restart > 0 and rng.random() < p.restart:
            prefix = _pick(rng, RESTARTS)
            _decap(out[0])
            out.insert(0, Tok(prefix[:1].upper() + prefix[1:]))
            counts["restart"] += 1

        after, new_spans = assemble(out, spans)
        return Rewrite(self.name, self.params, ctx.seed, text, after, new_spans, tuple(changes),
                       {"counts": counts})


_NUMBER_WORDS = frozenset(words("zero one two three four five six seven eight nine ten eleven twelve "
                                "thirteen "
                                "fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty "
                                "fifty "
                                "sixty seventy eighty ninety hundred thousand oh o'clock half quarter"))
_UNITS = frozenset(words("people person persons guests adults nights night days day stars star pounds pound "
                         "gbp "
                         "minutes minute hours hour am pm a.m. p.m. o'clock tickets ticket seats rooms"))


def _numeric(core: str) -> bool:
    return any(c.isdigit() for c in core) or core.lower() in _NUMBER_WORDS or core.startswith("£")


def _glued(toks: list[Tok], text: str) -> list[bool]:
    """``glued[i]``: the gap before ``toks[i]`` lies inside a unit a speaker does not break — a number ("two
    hundred", "01223 350 059", "3 people", "17:30 pm"), a capitalised name ("King 's College"), a requested
    attribute ("phone number", "reference number")."""
    from parley.engine.spans import find_requests

    pairs: set[tuple[str, str]] = set()
    for sp in find_requests(text):
        ws = sp.value.lower().split()
        pairs.update(zip(ws, ws[1:], strict=False))
    out = [False] * len(toks)
    for i in range(1, len(toks)):
        _, a, tail = split_edges(toks[i - 1].text)
        _, b, _ = split_edges(toks[i].text)
        if not a or not b or (tail and tail.strip("'")):
            continue  # punctuation between them: a phrase boundary
        name = (a[:1].isupper() and b[:1].isupper() and a != "I" and i > 1
                and not split_edges(toks[i - 2].text)[2].endswith((".", "!", "?")))
        out[i] = ((_numeric(a) and (_numeric(b) or b.lower() in _UNITS)) or name
                  or (a.lower(), b.lower()) in pairs or b.lower() in ("'s", "s"))
    return out


def _repeatable(t: Tok) -> bool:
    """A word a speaker repeats ("I, I", "to, to"): not a slot value, a number or a name."""
    _, core, _ = split_edges(t.text)
    return t.span is None and bool(core) and not _numeric(core) and (core == "I" or not core[:1].isupper())


def _decap(t: Tok) -> None:
    """Lower-case the first letter of a token that stops being the first word (not "I", not a slot value)."""
    first = t.text.split(" ", 1)[0]
    if t.span is None and first[:1].isupper() and first[1:2].islower() and not first.startswith("I'"):
        t.text = t.text[:1].lower() + t.text[1:]


def _strip_tail(s: str) -> str:
    return s.rstrip(",;")
