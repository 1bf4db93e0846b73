"""The rules of the ``impolite`` rewriter: courtesy stripping, requests to commands, scenario moves.

Slot values are swapped for single private-use characters before any rule runs and put back at the end, so no
rule can touch them; the output's spans are read off the placeholders' positions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from parley.engine.rewrite import impolite_lexicon as L
from parley.engine.rewrite.numbers import spoken_ordinal
from parley.engine.rewrite.util import relocate
from parley.engine.types import Span

_PH0 = 0xF0000  # placeholder code points: U+F0000 + span index (Supplementary Private Use Area-A)


class Protected:
    """``text`` with each span replaced by one placeholder character (other such characters become spaces)."""

    def __init__(self, text: str, spans: Sequence[Span]) -> None:
        clean = "".join(" " if ord(c) >= _PH0 else c for c in text)
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


def _detok(s: str) -> str:
    s = re.sub(r"\s+('s|'m|'re|'ve|'ll|'d|n't)\b", r"\1", s)
    s = re.sub(r"\s+([.,!?;:])", r"\1", s)
    s = re.sub(r"([.,!?;:])(?=[^\s.,!?;:\d\"')])", r"\1 ", s)
    return re.sub(r"\s+", " ", s).strip()


def _rx(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


_STRIP: tuple[re.Pattern[str], ...] = (
    _rx(r"\b(?:thank you|thanks|thank u|cheers)(?: (?:so|very) much| a lot| a bunch| again)?(?: (?:for|with) "
        r"(?:all |everything|helping(?: me)?|your help|the help|your assistance|the information|the info|that|"
        r"all your help|all of your help|all the help|your time)[^.!?]*)?[,.!]?"),
    _rx(r"\bi (?:really |do )?appreciate (?:it|that|this|your help|the help|all your help)[,.!]?"),

    _rx(r"\bkindly\b"),
    _rx(r"\bif you (?:don't|do not) mind\b,?"),
    _rx(r"\bif (?:it's|it is) (?:not too much trouble|possible|no trouble)\b,?"),
    _rx(r"^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))(?: there)?\b[,.!]?"),
    _rx(r"\b(?:i'm |i am )?(?:so |very )?(?:sorry|excuse me)\b(?: about that| for the confusion)?[,.!]?"),
    _rx(r"\b(?:you )?have a (?:nice|good|great|wonderful|lovely) (?:day|evening|night|one|trip|time)\b[.!]?"),
    _rx(r"\byou(?:'ve| have) been (?:very |so |really )?(?:helpful|great|wonderful|a great help)\b[.!]?"),
)
_PLEASE = _rx(r"(?:,\s*)?\bplease\b(?:\s*,)?")
_THANKS = _rx(r"\b(?:thank|thanks|cheers|appreciate|grateful|great|perfect|wonderful|awesome|excellent)\b")
_LEAD = r"^((?:(?:yes|yeah|ok|okay|also|and|so|great|then|well|alright|sure)\b,?\s+)*)"


def _sub_start(pattern: str, repl: Callable[[re.Match[str]], str]) -> tuple[re.Pattern[str], Callable[..., str]]:
    return re.compile(_LEAD + pattern, re.IGNORECASE), repl


def rewrite_rules(text: str, spans: Sequence[Span], ctx: Any, scenario: int, intensity: int,
                  profanity: bool) -> tuple[str, tuple[Span, ...], list[str]]:
    """Apply the rules; returns (text, spans, names of the moves made)."""
    rng = ctx.rng
    prot = Protected(text, spans)
    masked = _detok(prot.masked)
    moves: list[str] = []
    if not masked.strip():
        return text, tuple(spans), moves

    def pick(options: Sequence[str]) -> str:
        return str(rng.choice(list(options)))

    commands: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
        _sub_start(r"(?:i was wondering if |do you think )?(?:you )?(?:can|could|would|will) you (?:please )?"
                   r"(?:also )?(?:help me |be able to )?(?:to )?",
                   lambda m: m.group(1) + "\x01"),
        _sub_start(r"(?:can|could|may) i (?:please )?(?:get|have)\b", lambda m: m.group(1) + pick(("Give me",
                                                                                             "I want"))),
        _sub_start(r"(?:i would|i'd) (?:really |also )?like to\b", lambda m: m.group(1) + pick(("\x01", "I want to",
                                                                                             "I want to"))),
        _sub_start(r"(?:i would|i'd) (?:really |also )?like\b", lambda m: m.group(1) + pick(("I want", "Give me",
                                                                                         "Get me"))),
        _sub_start(r"i(?:'m| am) (?:also )?(?:looking for|trying to find|hoping to find|searching for|"
                   r"interested in)\b", lambda m: m.group(1) + pick(("Find me", "Get me", "I want"))),
        _sub_start(r"i (?:also )?need (?=a |an |the |some )", lambda m: m.group(1) + pick(("Get me ", "Give me ",
                                                                                          "I need "))),
        _sub_start(r"i (?:would|do) (?:also )?need (?=to )", lambda m: m.group(1) + "I need "),
        _sub_start(r"is there (?=(?:any|a|an)\b)(.*)\?$", lambda m: m.group(1) + "Is there " + m.group(2) +
                   pick((" or not?", "? Yes or no.", "? Answer me."))),
        _sub_start(r"do you (?:have|know)\b(.*)\?$", lambda m: m.group(1) + pick((
            f"You have{m.group(2)} or not?", f"Tell me if you have{m.group(2)}.", f"Got{m.group(2)} or not?"))),
        _sub_start(r"(?:that |it |this )?sounds (?:good|great|perfect|fine|lovely|wonderful)[,.!]?\s+(?=\S)",
                   lambda m: m.group(1) + pick(("Fine. ", "Whatever. ", "", "Yes, yes. "))),
        _sub_start(r"(?:what|which) (?:is|are|was|'s) (the|their|its|your) ([^?]{3,60})\?$",
                   lambda m: m.group(1) + pick((f"Give me {m.group(2)} {m.group(3)}.",
                                                f"Tell me {m.group(2)} {m.group(3)}.",
                                                f"What's {m.group(2)} {m.group(3)}? Spit it out.",
                                                f"{m.group(2)} {m.group(3)}. What is it?"))),
        _sub_start(r"(?:that|it|this) (?:would be|will be|sounds|is|seems) (?:really |very )?(?:great|lovely|"
                   r"wonderful|perfect|fantastic|good|fine|excellent|nice|okay|ok)\b[.!]?$",
                   lambda m: (m.group(1) or "") + pick(("That'll do.", "Fine.", "Whatever.", "If you say so."))),
    ]

    sentences = [s for s in re.split(r"(?<=[.!?])\s+", masked) if s.strip()]
    out: list[str] = []
    dropped_thanks = False
    for s in sentences:
        before = s
        s = _PLEASE.sub(lambda m: ", " if m.group(0).startswith(",") and m.group(0).endswith(",") else " ", s)
        for pat in _STRIP:
            s = pat.sub(" ", s)
        s = re.sub(r"\s+", " ", s).strip(" ,")
        if s != before.strip():
            moves.append("courtesy")
        core = re.sub(r"[^\w\U000F0000-\U000FFFFD]", "", s.lower())
        if core in ("", "ok", "okay", "great", "perfect", "awesome", "wonderful", "excellent", "alright", "good",
                    "so", "and", "that", "again", "yes", "no", "bye", "goodbye", "thatsall", "thatsit",
                    "thatwillbeall", "thatsallineed", "thatisall", "thatisallineed", "goodthat"):
            if core in ("yes", "no") and not before.lower().startswith(("thank", "thanks")):
                out.append(s.rstrip(".!") + ".")
                continue
            if core in ("bye", "goodbye"):
                out.append("Bye.")
                continue
            if core and core not in ("great", "perfect", "awesome", "wonderful", "excellent", "good", "ok",
                                     "okay", "alright"):
                out.append(s if s[-1:] in ".!?" else s + ".")
                continue
            dropped_thanks = dropped_thanks or bool(_THANKS.search(before))
            continue
        for pat, repl in commands:
            new = pat.sub(repl, s, count=1)
            if new != s:
                moves.append("command")
                s = new
                if "\x01" in s or re.match(r"^(?:\w+,? )*(?:give|get|find) me\b|^(?:\w+,? )*i want\b", s, re.I):
                    s = s.replace("\x01", "")
                    s = re.sub(r"\s*\?\s*$", ".", s)
                break
        s = re.sub(r"\b(but|and|so) (?:could|can|would|will) you (?:please )?(?:also )?", r"\1 ", s, flags=re.I)
        s = s.strip(" ,")
        if s and s[-1] not in ".!?":
            s += "."
        out.append(s)

    if dropped_thanks and out and (intensity >= 2 or rng.random() < 0.5):
        out.append(pick(L.DISMISSALS[scenario]))
        moves.append("dismissal")
    if not out:
        out.append(pick(L.DISMISSALS[scenario] if dropped_thanks else L.CURT_GREETINGS))
        moves.append("dismissal" if dropped_thanks else "greeting")

    history = tuple(getattr(ctx, "history", ()) or ())
    fill = _history_fill(history)
    moves_pool = L.MOVES[scenario]

    def phrase(where: str, strength: str) -> str:
        options = [x for x in moves_pool[where][strength] if "{quote}" not in x or fill["quote"]]
        return pick(options).format(**fill)

    if intensity == 1:
        if rng.random() < 0.35:
            out.append(pick(L.TAGS))
            moves.append("tag")
    elif intensity == 2:
        if rng.random() < 0.5:
            out.insert(0, phrase("pre", "mild"))
            moves.append("pre")
        else:
            out.append(phrase("post", "mild"))
            moves.append("post")
        if scenario in (2, 4) and rng.random() < 0.4:
            out.append(pick(L.TAGS))
            moves.append("tag")
    else:
        out.insert(0, phrase("pre", "strong"))
        out.append(phrase("post", pick(("mild", "strong"))))
        moves += ["pre", "post"]
        out = [re.sub(r"\.$", "!", s) if rng.random() < 0.3 and not s.endswith("?") else s for s in out]
        if profanity:
            out = _profane(out, rng)
            moves.append("profanity")

    result = " ".join(_cap(s) for s in out if s)
    result = re.sub(r"\s+", " ", result).strip()
    result = re.sub(r"\s+([.,!?])", r"\1", result)
    result = re.sub(r"([.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), result)
    if not prot.complete(result):  # a rule must never lose a slot value; keep the original if one did
        return text, tuple(spans), ["unchanged: slot value lost"]
    after, new_spans = prot.restore(result)
    return after, new_spans, moves


def _cap(s: str) -> str:
    s = s.strip()
    for i, c in enumerate(s):
        if c.isalpha():
            return s[:i] + c.upper() + s[i + 1:] if s[:i].strip(" \"'") == "" else s
        if ord(c) >= _PH0:
            return s
    return s


def _history_fill(history: Sequence[Any]) -> dict[str, str]:
    from parley.engine.spans import find_spans

    n_user = sum(1 for m in history if getattr(m, "role", "") == "user")
    n = max(3, n_user + 1)
    quote = ""
    for m in reversed(history):
        if getattr(m, "role", "") == "system" and getattr(m, "text", "").strip():
            words = re.sub(r"[\"“”]", "", m.text).split()[:5]
            snippet = " ".join(words).rstrip(".,!?;:")
            if snippet and not find_spans(snippet) and not re.search(r"\d", snippet):
                quote = snippet + ("..." if len(m.text.split()) > 5 else "")
            break
    from parley.engine.rewrite.numbers import spoken_int

    return {"n": spoken_int(n), "nth": spoken_ordinal(n), "quote": quote}


def _profane(out: list[str], rng: Any) -> list[str]:
    kind = rng.random()
    if kind < 0.45:
        first = out[0]
        out[0] = rng.choice(L.PROFANITY_INTERJECTIONS) + " " + first[:1].lower() + first[1:]
    elif kind < 0.75:
        out.append(rng.choice(L.PROFANITY_TAILS))
    else:
        for i, s in enumerate(out):
            new = re.sub(r"\b(a|the)\s+(?=[a-z]{3,})", lambda m: f"{m.group(1)} {rng.choice(L.PROFANITY_ADJ)} ",
                         s, count=1)
            if new != s:
                out[i] = new
                break
        else:
            out.append(rng.choice(L.PROFANITY_TAILS))
    return out
