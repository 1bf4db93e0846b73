"""What an ``llm`` reply *does*, read by rules from its text (independent of the model that wrote it).

:func:`read` — confirms a booking, offers to book, offers or recommends a venue, asks for slots (which ones),
says no, offers more help, closes the dialogue. A rewording must do the same things as the draft: a
confirmation stays a confirmation, an offer stays an offer, a question asks for the same slots
(:func:`act_reason`). The grammar and fact checks are in :mod:`engine.systems.llm_reword`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PH = re.compile(r"\[([a-z]+)\d?\]")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+", text.strip()) if s]


# -- what a reply does ---------------------------------------------------------------------------------------
def _words(*alternatives: str) -> re.Pattern[str]:
    """A pattern matching any of ``alternatives`` (regular expressions) as whole words."""
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")


_BOOKED = _words("booked", "reserved", "confirmed", "all set", "you're set", "secured",
                 "i've (got|made|arranged)",
                 "(made|have|got) (you )?(a|the|your) (booking|reservation|table|room|tickets?|seats?)")
_BOOK_WORD = _words("book", "booking", "reserve", "reservation", "tickets?", "seats?")
_RECOMMEND = _words("how about", "what about", "i'?d (suggest|recommend)", "i (would )?(suggest|recommend)",
                    "you (could|might) (try|visit|like)", "why not", "consider", "my pick", "recommendation",
                    "suggestion", "[a-z]+ is a (good|great|nice|lovely) (choice|option|pick)")
_NEGATIVE = _words("no", "not", "never", "nothing", "none", "nobody", "cannot", "couldn't", "unfortunately",
                   "afraid", "[a-z]+n't")
_MORE = _words("anything else", "something else", "any other", "help (you )?with anything", "more help",
               "what else (can|could|would|do|may|might) (i|you)")
_CLOSING = _words("goodbye", "bye", "have a (great|good|lovely|nice|wonderful)", "enjoy your",
                  "you're welcome", "my pleasure", "glad (i|to) (could )?help", "i'm glad", "glad you",
                  "thanks? (you )?for", "take care")
#: the clerk talking like the customer, or about the customer as the venue
_CUSTOMER = _words("i('d| would) like (?!to (help|suggest|recommend|offer|know|ask|check|confirm))",
                   "i (want|need) (a|an|to book|to reserve|to find)", "can you (book|find|reserve)",
                   "please (book|reserve|find)", "you('ve| have) (booked|reserved)", "you('ve)? found",
                   "you('re| are) (called|named|located|situated)", "you serve",
                   "your (phone|telephone|address|postcode|star rating|price range)")

#: slot asked for → what a question about it says (matched on a question sentence)
ASKS = {
    "people": r"how many (people|guests|persons|of you)|\bparty\b|\bpeople\b|\bguests\b",
    "nights": r"\bnights?\b|how long",
    "day": r"\bday\b|\bdate\b|which day|what day",
    "time": r"\bwhat time\b|\bthe time\b|\btime\b(?! (to|of) (leave|depart|arriv))",
    "departure": r"\bleav(e|ing) from|depart(ing)? from|travel(l)?ing from|coming from|from where|"
                 r"where .{0,30}\bfrom\b|starting (point|station)|departure (station|point)|"
                 r"setting off from|start(ing)? from",
    "destination": r"going to|heading|destination|where to\b|travel(l)?ing to|get to\b|"
                   r"where (are )?you('re)? (going|heading|travel)|where .{0,20}\b(go|going)\b",
    "leave": r"\bleave\b(?! from)|\bleaving\b(?! from)|\bdepart\b(?! from)|departure time|"
             r"set off\b(?! from)",
    "arrive": r"\barriv|get there|be there by|get in\b",
    "area": r"part of (town|the city)|\barea\b|where in (town|the city|cambridge)|which side|neighbou?rhood",
    "pricerange": r"\bprice|budget|expensive|cheap|\bspend\b|how much",
    "food": r"\bfood\b|cuisine|what (kind|type) of (restaurant|place to eat)",
    "stars": r"\bstars?\b|star rating|\brating\b",
    "type": r"hotel or (a )?guest ?house|guest ?house or (a )?hotel|(kind|type|sort) of (place|accommodation|"
            r"attraction|stay)|what (kind|type|sort) of (place|thing)",
    "parking": r"parking", "internet": r"internet|wifi|wi-fi",
    "name": r"name of|which (one|place|restaurant|hotel|attraction)|what('s| is) it called",
    "constraints": r"what else i should|what else to look|anything (in particular|specific)|requirements|"
                   r"preferences",
}
_ASKS = {slot: re.compile(p) for slot, p in ASKS.items()}


@dataclass(frozen=True)
class Reading:
    """What a reply does: ``acts`` (booked, offer_booking, recommend, request, negative, reqmore, closing,
    customer) and ``asks`` (the slots its questions ask for)."""

    acts: frozenset[str]
    asks: frozenset[str]


def read(text: str) -> Reading:
    """Read a (delexicalised or filled) reply; see :class:`Reading`."""
    acts: set[str] = set()
    asks: set[str] = set()
    low = text.lower().replace("’", "'")
    for sent in _sentences(low):
        plain = _PH.sub(" ", sent)
        question = sent.rstrip().endswith("?")
        if question and _BOOK_WORD.search(plain) and not _BOOKED.search(plain):
            acts.add("offer_booking")
        elif question and not _MORE.search(plain):
            found = {slot for slot, rx in _ASKS.items() if rx.search(plain)}
            if "departure" in found or "destination" in found:
                found.discard("leave") if re.search(r"leaving from|depart(ing)? from", plain) else None
            if found:
                acts.add("request")
                asks |= found
            elif not _RECOMMEND.search(plain) and "[name]" not in sent:
                acts.add("request")
        if not question and _BOOKED.search(plain):
            acts.add("booked")
        if _RECOMMEND.search(plain):
            acts.add("recommend")
        if _MORE.search(plain):
            acts.add("reqmore")
        if _CLOSING.search(plain):
            acts.add("closing")
        if _NEGATIVE.search(plain):
            acts.add("negative")
        if _CUSTOMER.search(plain):
            acts.add("customer")
    if "[reference]" in low or re.search(r"\[reference\d\]", low):
        acts.add("reference")
    return Reading(frozenset(acts), frozenset(asks))


_ANSWER = re.compile(r"^\W*(?:(yes|yeah|yep|indeed|certainly|that's right|correct|it does|they do)|(no|nope|"
                     r"unfortunately,? no|i'm afraid not|actually,? no|not quite|it doesn't|it does not))"
                     r"(?=\s*[,.!;:\u2014-]|\s*$)")
_NEGATION = re.compile(r"\b(?:not|never|nothing|none|nobody|cannot|no)\b|n't\b")


def answer_and_negations(text: str) -> tuple[str | None, bool]:
    """``(the yes/no a reply opens with or None, whether the rest says no/not/never/...)``."""
    low = _PH.sub(" ", text.lower().replace("’", "'"))
    m = _ANSWER.match(low)
    answer = None if m is None else "yes" if m.group(1) else "no"
    return answer, bool(_NEGATION.search(low[m.end():] if m else low))


def act_reason(reply: str, draft: str) -> str | None:
    """Why ``reply`` does not do what ``draft`` does (``None`` when it does)."""
    (want_answer, want_neg), (got_answer, got_neg) = answer_and_negations(draft), answer_and_negations(reply)
    if want_answer != got_answer:
        return f"answered {got_answer or 'nothing'} where the draft answers {want_answer or 'nothing'}"
    if want_neg != got_neg:
        return "changed a negation"
    want, got = read(draft), read(reply)
    if "customer" in got.acts - want.acts:
        return "spoke as the customer"
    if "booked" in want.acts and "booked" not in got.acts:
        into = "an offer" if "offer_booking" in got.acts else "something else"
        return f"turned a confirmation into {into}"
    if "booked" in got.acts - want.acts:
        return "confirmed a booking the draft did not make"
    if "offer_booking" in want.acts and "offer_booking" not in got.acts:
        return "dropped the offer to book"
    if "offer_booking" in got.acts - want.acts:
        return "offered a booking the draft did not offer"
    if ("request" in want.acts) != ("request" in got.acts):
        return "dropped the question" if "request" in want.acts else "asked a question the draft did not ask"
    if want.asks != got.asks:
        lost, extra = sorted(want.asks - got.asks), sorted(got.asks - want.asks)
        return "asked for other slots: " + ", ".join([f"-{s}" for s in lost] + [f"+{s}" for s in extra])
    for act, what in (("negative", "the negation"), ("reqmore", "the offer of more help"),
                      ("closing", "the closing")):
        if (act in want.acts) != (act in got.acts):
            return ("dropped " if act in want.acts else "added ") + what
    if "recommend" in want.acts and "recommend" not in got.acts and "[name]" not in reply:
        return "dropped the recommendation"
    return None
