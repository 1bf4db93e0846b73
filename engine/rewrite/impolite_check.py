"""The check every model-made impolite rewrite passes before it is used (seq2seq, bundled LLM, ``openai``).

:func:`check_rewrite` raises ``ValueError`` with the reason, which the rewriter records as
``info["fallback"]`` before it falls back to the rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from parley.engine.types import Span

#: a politeness score at or above this is "still polite" (``engine.rewrite.politeness``)
POLITE = 0.5


def sentence_count(text: str, values: Sequence[str] = (), *, courtesy: bool = True) -> int:
    """How many sentences ``text`` holds; the dots inside slot ``values`` ("St. John's") do not end one.
    ``courtesy=False`` leaves out the sentences that are nothing but courtesy ("Thank you!", "Hello.")."""
    from parley.engine.rewrite.courtesy import scrub, sentences

    for v in sorted(set(values), key=len, reverse=True):
        if v:
            text = text.replace(v, "X" * len(v))
    return len([s for s in sentences(text) if re.search(r"\w", s if courtesy else scrub(s))])


def check_rewrite(original: str, out: str, spans: Sequence[Span]) -> None:
    """Refuse ``out`` when it is empty, lost a slot value (``spans`` of ``original``) or a requested
    attribute, or kept a courtesy marker."""
    from parley.engine.rewrite.courtesy import markers
    from parley.engine.spans import find_requests

    if not out:
        raise ValueError("the model returned nothing")
    missing = [s.value for s in spans if s.value not in out]
    if missing:
        raise ValueError(f"the model dropped slot value(s): {', '.join(missing)}")
    lost = [r.value for r in find_requests(original) if r.value.lower() not in out.lower()]
    if lost:
        raise ValueError(f"the model dropped requested attribute(s): {', '.join(lost)}")
    kept = markers(out)
    if kept:
        raise ValueError(f"the model kept courtesy: {', '.join(kept)}")


def check_llm_rewrite(original: str, out: str, spans: Sequence[Span], *, sentences: bool = False) -> None:
    """:func:`check_rewrite`, and what an instructed LLM gets wrong: still polite by
    ``engine.rewrite.politeness``, rambling, or (``sentences=True``) more sentences than the original has (its
    courtesy-only sentences such as "Thank you!" not counted; one for a one-sentence request)."""
    from parley.engine.rewrite.politeness import score

    check_rewrite(original, out, spans)
    pol = score(out).score
    if pol >= POLITE:
        raise ValueError(f"the LLM rewrite is not impolite (politeness {pol:.2f})")
    if len(out) > 3 * len(original) + 80:
        raise ValueError("the LLM rewrite rambles (too long)")
    if sentences:
        values = [s.value for s in spans]
        have, allowed = sentence_count(out, values), max(1, sentence_count(original, values, courtesy=False))
        if have > allowed:
            raise ValueError(f"the LLM rewrite has {have} sentences (at most {allowed})")
