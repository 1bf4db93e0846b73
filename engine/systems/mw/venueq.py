"""Questions about the venue on the table: "is it expensive?", "does it have parking?", "is it in the
centre?".

Once a venue has been offered, named or booked, a yes/no question about *it* asks for one of its attributes;
the value in the question is what the user wants checked, not a new search constraint. :func:`venue_checks`
turns such values (already read by the NLU into a :class:`Builder`) into checks ``(domain, slot, value)`` and
takes them out of the informs; the policy answers them from the venue's row ("No, it's in the north.").
A question about the search ("is there one in the centre?", "do you have a cheaper one?") stays a constraint.
"""

from __future__ import annotations

import re

from parley.engine.systems.mw.frames import Builder, NluContext
from parley.engine.systems.mw.lexicon import NameMention

#: attributes a user can ask about with a yes/no question
CHECKABLE = ("area", "pricerange", "food", "stars", "type", "parking", "internet")

_NOUNS = (r"place|restaurant|hotel|guest ?house|venue|attraction|museum|college|theatre|pool|cinema|club"
          r"|nightclub|gallery|park|church|b and b|bed and breakfast")
_NOUN_DOMAIN = {"restaurant": "restaurant", "hotel": "hotel", "guesthouse": "hotel", "guest house": "hotel",
                "b and b": "hotel", "bed and breakfast": "hotel"}
_Q = re.compile(
    r"\b(?:is|are|does|do|has|have|will|would|was)\s+(?:it|they|that|this|that one|this one|these|those"
    r"|(?P<name>NAME\dX)|the (?P<noun>" + _NOUNS + r")|(?:that|this|the) (?:one|place))\b"
    r"(?!\s+(?:possible|ok|okay|alright|fine|true|a problem|too (?:late|early|far)|going|need|mean))"
    r"|\b(?:if|whether)\s+(?:it|they|that one|this one|the (?P<noun2>" + _NOUNS + r"))\s+"
    r"(?:is|are|has|have|does|do|offers?|serves?|includes?|provides?|comes? with|got)\b"
    r"|\b(?:does|do) (?:it|they) (?:serve|offer|include|provide|come with)\b"
    r"|\b(?:is|are) there (?:any )?(?:free )?(?=(?:parking|wifi|internet)\b)")  # "and is there parking?"
#: where a yes/no question ends when the text has no punctuation left
_END = re.compile(r"\b(?:and |but |also |then |so )?(?:i|we|i'd|i'm|we'd|we're|can you|could you|please|book"
                  r"|thanks|thank you|what|where|how|which|when|who|give me|tell me|is there|are there"
                  r"|do you have)\b")


def venue_checks(tn: str, b: Builder, ctx: NluContext, holders: dict[str, NameMention]
                 ) -> tuple[tuple[str, str, str], ...]:
    """Checks asked about a venue already on the table; their values are removed from ``b``."""
    if not ctx.venues and not holders:
        return ()
    out: list[tuple[str, str, str]] = []
    for m in _Q.finditer(tn):
        end = len(tn)
        nxt = _END.search(tn, m.end())
        if nxt:
            end = nxt.start()
        noun = m.group("noun") or m.group("noun2")
        named = holders.get(m.group("name") or "")
        want_domain = named.domain if named is not None else _NOUN_DOMAIN.get(noun or "")
        for (dom, slot), (pos, value) in list(b.items.items()):
            if not m.start() <= pos < end or slot not in CHECKABLE or value == "dontcare":
                continue
            target = want_domain or dom
            if slot in ("parking", "internet") and dom == "hotel":
                target = want_domain or "hotel"
            if named is None and target not in ctx.venues:
                continue  # nothing on the table to check against: the value stays a constraint
            if named is not None and named.domain not in ("restaurant", "hotel", "attraction"):
                continue
            del b.items[(dom, slot)]
            out.append((target, slot, value))
    return tuple(dict.fromkeys(out))


#: a free entrance: a constraint the belief state has no slot for ("any free museums?")
_FREE = re.compile(r"(?<!feel )(?<!entrance )(?<!entry )\b(?:free(?: of charge)?|"
                   r"no (?:entrance|entry|admission) (?:fee|charge)|"
                   r"(?:doesn't|does not|don't|do not|won't) (?:cost|charge)(?: anything| any money)?|"
                   r"without (?:an )?(?:entrance|entry) fee)\b"
                   r"(?! (?:parking|wifi|wi-fi|internet|time|day|evening|afternoon|morning|night|"
                   r"to (?:call|ask)))")
_FREE_DONTCARE = re.compile(r"\b(?:(?:doesn't|does not|don't|do not) (?:have|need) to be free|paid is fine|"
                            r"(?:don't|do not) mind paying|can cost (?:something|money)|fine to pay)\b")
#: a yes/no question about the attraction on the table ("is it free to get in?", "do I have to pay?")
_FEE_QUESTION = re.compile(r"\b(?:is|are) (?:it|they|that|this|entry|entrance|admission)\b.{0,25}\bfree\b|"
                           r"\b(?:do|does|will) (?:i|we|you|it|they) (?:have to|need to|must)? ?"
                           r"(?:pay|cost|charge)\b|\bhave to pay\b|\bcharge (?:for )?(?:entry|admission)\b")


def entrance_fee(plain: str, domain: str | None, mentioned: list[str], ctx: NluContext
                 ) -> tuple[tuple[tuple[str, str, str], ...], tuple[tuple[str, str], ...]]:
    """``(filters, requests)``: "any free ones in the west?" asks for free attractions; "is it free to get
    in?" about the attraction on the table asks for its entrance fee."""
    if domain != "attraction" and "attraction" not in mentioned:
        return (), ()
    if _FREE_DONTCARE.search(plain):
        return (("attraction", "entrance fee", "dontcare"),), ()
    on_table = bool(ctx.offered.get("attraction") or ctx.state.get("attraction", {}).get("name"))
    if on_table and _FEE_QUESTION.search(plain):
        return (), (("attraction", "entrance fee"),)
    if _FREE.search(plain):
        return (("attraction", "entrance fee", "free"),), ()
    return (), ()
