"""Helpers shared by the rule rewriters: parameter validation, span-aware tokens, span re-location."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from parley.engine.types import Span


def words(s: str) -> tuple[str, ...]:
    """``"a b c"`` → ``("a", "b", "c")`` (word lists written as one string)."""
    return tuple(s.split())


@dataclass
class Tok:
    """A word-like unit of a rewritten text.

    ``span`` is the index of the protected span it belongs to (or None).

    A whole protected span is one ``Tok`` (LAUG: "each span is regarded as one whole word").
    """

    text: str
    span: int | None = None
    orig: int | None = None  # index of the original token it came from (None for inserted words)


_TOKEN = re.compile(r"\S+")


def tokenize(text: str, spans: Iterable[Span]) -> list[Tok]:
    """Split on whitespace; the words a protected span touches become one token (with glued punctuation)."""
    valid = sorted((s for s in spans if 0 <= s.start < s.end <= len(text)), key=lambda s: s.start)
    toks: list[Tok] = []
    j = 0
    for m in _TOKEN.finditer(text):
        a, b = m.start(), m.end()
        while j < len(valid) and valid[j].end <= a:
            j += 1
        idx = j if j < len(valid) and valid[j].start < b else None
        if idx is not None and toks and toks[-1].span == idx:
            toks[-1].text += " " + m.group(0)
        else:
            toks.append(Tok(m.group(0), span=idx))
    for i, t in enumerate(toks):
        t.orig = i
    return toks


def detok(toks: Iterable[Tok]) -> str:
    return " ".join(t.text for t in toks if t.text)


def relocate(text: str, spans: Iterable[Span]) -> tuple[Span, ...]:
    """Find each span's value again in ``text`` (left to right, whole words); return those that survive."""
    out: list[Span] = []
    pos = 0
    for sp in sorted(spans, key=lambda s: s.start):
        if not sp.value:
            continue
        m = re.search(r"(?<!\w)" + re.escape(sp.value) + r"(?!\w)", text[pos:])
        if m is None:
            m = re.search(r"(?<!\w)" + re.escape(sp.value) + r"(?!\w)", text)
            if m is None:
                continue
            a = m.start()
        else:
            a = pos + m.start()
        out.append(Span(a, a + len(sp.value), sp.slot, sp.value, sp.domain))
        pos = a + len(sp.value)
    out.sort(key=lambda s: s.start)
    dedup: list[Span] = []
    for s in out:
        if not dedup or s.start >= dedup[-1].end:
            dedup.append(s)
    return tuple(dedup)


def split_edges(word: str) -> tuple[str, str, str]:
    """``"(hello!"`` → ``("(", "hello", "!")``: leading and trailing punctuation apart from the word."""
    m = re.match(r"^(\W*)(.*?)(\W*)$", word, re.S)
    assert m is not None
    return m.group(1), m.group(2), m.group(3)


def sort_spans(spans: Iterable[Span]) -> list[Span]:
    """Spans by position, overlapping ones dropped (the index into this list is ``Tok.span``)."""
    out: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start, -s.end)):
        if s.start < s.end and (not out or s.start >= out[-1].end):
            out.append(s)
    return out


def assemble(toks: Iterable[Tok], spans: Sequence[Span]) -> tuple[str, tuple[Span, ...]]:
    """Join tokens with single spaces and return the text with the surviving spans' new offsets.

    A token marked with a span whose value it still contains keeps that span (a rewriter that changed the
    value clears ``Tok.span``).
    """
    parts: list[str] = []
    out: list[Span] = []
    pos = 0
    for t in toks:
        if not t.text:
            continue
        if parts:
            pos += 1
        if t.span is not None and 0 <= t.span < len(spans):
            sp = spans[t.span]
            k = t.text.find(sp.value)
            if k >= 0:
                out.append(Span(pos + k, pos + k + len(sp.value), sp.slot, sp.value, sp.domain))
        parts.append(t.text)
        pos += len(t.text)
    return " ".join(parts), tuple(out)
