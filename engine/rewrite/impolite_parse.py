"""Recognise what a (masked) user sentence asks for, so the impolite rules can say it again in another voice.

:func:`parse` strips the sentence's courtesy (``engine.rewrite.courtesy.scrub``) and classifies what is left:

- ``act``: a request for an action, given as a verb phrase in the base form — from "could you …", "would you
  mind …ing", "I'd be grateful if you could …", "is it possible to …", "I'd like to book …", or an imperative;
- ``want``: something the user wants, a noun phrase with the verb to ask for it ("I'm looking for …" → find,
  "can I get …" → give, "I'd love some help finding …" → find);
- ``yn`` / ``wh``: a yes/no or a wh-question (the body without its question mark);
- ``state``: a statement (an answer, a constraint, a plan);
- ``close``: "that's all", "goodbye"; ``agree``: "that sounds great"; ``courtesy``: nothing but courtesy
  (thanks, greetings, apologies).

``lead`` keeps an answer word that opened the sentence ("yes", "no", "actually", "also"). Slot values and
requested attributes are single placeholder characters here, so no pattern can split or lose them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from parley.engine.rewrite.courtesy import PH, is_fragment, scrub, tidy
from parley.engine.rewrite.util import words


@dataclass(frozen=True)
class Clause:
    kind: str  # act | want | yn | wh | state | close | agree | courtesy
    body: str  # act: verb phrase; want: noun phrase; yn/wh: question body; state/close: the sentence
    verb: str = ""  # want: the verb that asks for it ("find", "get", "give")
    lead: str = ""  # "yes", "no", "actually", … said first
    thanks: bool = False  # the sentence thanked (only meaningful for kind "courtesy")


def _rx(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


_ACK = (r"(?:(?:that|it|this|the|they|which) (?:all )?(?:sounds?|seems?|looks?|would be|will be|is|was|are|"
        r"'s) "
        r"(?:really |very |just |absolutely |so )?(?:good|great|perfect|fine|lovely|wonderful|nice|excellent|"
        r"fantastic|ideal|okay|ok|awesome|brilliant|helpful)|sounds? (?:good|great|perfect|fine|lovely|"
        r"wonderful))")
_LEAD = _rx(r"^((?:(?:yes|yeah|yep|no|nope|sure|ok|okay|alright|all right|actually|also|then|well|so|great|"
            r"perfect|wonderful|lovely|excellent|awesome|fantastic|good|cool|fine|right|oh|hmm|um|if so|"
            rf"in that case|{_ACK})\b[,.!]?\s*(?:(?:but|and|so)\s+)?)+)(?=\S|$)")
_POSITIVE = frozenset(words(
    "great perfect wonderful lovely excellent awesome fantastic good cool sure fine well so "
    "then oh hmm um right ack but and"))
_MODAL = r"(?:could|can|would|will|might)"
_ADV = r"(?:\s+(?:possibly|maybe|perhaps|please|just|kindly|quickly|now|then))*"
_ACT: tuple[re.Pattern[str], ...] = tuple(_rx(p) for p in (
    rf"^(?:i was wondering|i wonder|i'm wondering|i am wondering)(?: if| whether) you {_MODAL}{_ADV}\s+",
    rf"^(?:do you think|is there any (?:way|chance)|i was hoping|i hope|i'm hoping)(?: that)? you "
    rf"{_MODAL}{_ADV}\s+",
    rf"^(?:i'd|i would|i'll|i will|we'd|we would) be (?:very |really |so |most |extremely |ever so )?"
    rf"(?:grateful|thankful|glad|happy|delighted|obliged) if you {_MODAL}{_ADV}\s+",
    rf"^(?:i'd|i would|we'd|we would|i'll|i will) (?:really |greatly |truly )?appreciate (?:it )?if you "
    rf"{_MODAL}{_ADV}\s+",
    rf"^(?:would|could) you be (?:so kind as|kind enough|able|willing) to{_ADV}\s+",
    rf"^(?:is it|would it be|will it be|is that) possible (?:for you )?to{_ADV}\s+",
    rf"^(?:i need|i want|i'd like|i would like|we need|we'd like) you to{_ADV}\s+",
    rf"^(?:if you {_MODAL}|you {_MODAL})(?!\s+not\b){_ADV}\s+(?=[a-z])",
    rf"^{_MODAL} you{_ADV}(?:\s+(?:be able to|go ahead and))?\s+",
    rf"^(?:can|could|may) (?:i|we){_ADV}\s+(?=(?:book|reserve|make|order|schedule|arrange)\b)",
))
_MIND = _rx(rf"^(?:(?:would|do|will) you mind|(?:i'd|i would|would|i) (?:really |greatly )?appreciate (?:you|"
            rf"it if "
            rf"you)){_ADV}\s+(?P<g>\w+ing)\b")
_HELP = _rx(r"^help me(?:\s+out)?(?:\s+(?:to|and))?\s+(?=(?:find|book|get|locate|choose|pick|reserve|look|"
            r"search|"
            r"make|check|figure|plan|arrange|sort)\b)")
_WANT: tuple[tuple[re.Pattern[str], str], ...] = (
    (_rx(r"^(?:(?:i'd|i would|i|we|we'd|we would) (?:also |really |just |so )?(?:love|like|appreciate|want|"
         r"need)|"
         r"(?:can|could|may) (?:i|we)(?: also)? (?:get|have)) (?:some |a little |a bit of )?(?:help|"
         r"assistance) "
         r"(?:with |in )?(?P<g>finding|locating|getting|booking|reserving|choosing|picking)\s+"), ""),
    (_rx(rf"^(?:can|could|may|might) (?:i|we)(?: also)?{_ADV}\s+(?:get|have|obtain|grab|receive)\s+"),
     "give"),
    (_rx(r"^(?:i'm|i am|we're|we are) (?:also |now |just |still |actually )*(?:looking for|searching for|"
         r"trying to (?:find|get|locate)|hoping to (?:find|get)|interested in|in need of|after|wanting)\s+"),
     "find"),
    (_rx(r"^(?:i'd|i would|we'd|we would|i'll|i will|we'll|we will|i|we) (?:also |really |just |still |"
         r"actually |now |then )*(?:like|love|want|need|require|prefer|appreciate)(?: to have)?\s+"
         r"(?!to\b|(?:it|them|this|that|one|him|her|you|us)\s+to\b)"), "get"),
)
_WANT_TO = _rx(r"^(?:i'd|i would|we'd|we would|i|we|i'm|i am|we're|we are) (?:also |really |just |still |"
               r"actually |now |then )*(?:like|love|want|need|wish|looking|hoping|wanting|planning|trying) "
               r"to\s+")
_ACTION_VERBS = frozenset(words(
    "book reserve find get give tell send show list recommend suggest check look search make "
    "order arrange call help let provide confirm cancel change locate pick choose email text "
    "schedule add"))
_YN = _rx(r"^(?:(?:is|are|was|were) there|(?:do|does|did|have|has|is|are|was|were|can|could|will|would|"
          r"should|"
          r"shall) (?:you|it|they|that|this|these|those|either|any|both|i|we|there|one|all|its|their|the)|"
          rf"any\b|[{PH}]\s)")
_WH = _rx(r"^(?:what|which|when|where|who|whose|why|how)\b")
_CLOSE = _rx(r"^(?:(?:no|nope)[, ]+)?(?:that(?:'s| is| will be| would be| should be| shall be)|this (?:is|"
             r"will be)"
             r"|it(?:'s| is)) (?:all|it|everything|everything i need(?:ed)?|all i need(?:ed)?)\b|^(?:i'm|i "
             r"am|we're|"
             r"we are) all set\b|^nothing (?:else|more)\b|^(?:good)?bye\b|^goodbye\b|^i (?:think|believe) "
             r"(?:that's|that is) (?:all|it|everything)\b")
_INNER_MODAL = _rx(rf"\b(and|but|so|then)\s+{_MODAL} you{_ADV}(?:\s+(?:be able to|help me(?: to)?))?\s+")
_GERUNDS = {"getting": "get", "putting": "put", "setting": "set", "letting": "let", "making": "make",
            "giving": "give", "taking": "take", "having": "have", "writing": "write", "reserving": "reserve",
            "arranging": "arrange", "changing": "change", "providing": "provide", "choosing": "choose",
            "cancelling": "cancel", "canceling": "cancel", "confirming": "confirm", "emailing": "email",
            "scheduling": "schedule", "locating": "locate", "using": "use", "leaving": "leave"}
_CONTRACT = tuple((_rx(a), b) for a, b in (
    (r"\bi am\b", "I'm"), (r"\bi will\b", "I'll"), (r"\bi would\b", "I'd"),
    (r"\bi have\b(?= (?:to|been|got))",
                                                                              "I've"),
    (r"\bwe are\b", "we're"), (r"\bwe will\b", "we'll"), (r"\bit is\b", "it's"), (r"\bthat is\b", "that's"),
    (r"\bwhat is\b", "what's"), (r"\bdo not\b", "don't"), (r"\bdoes not\b", "doesn't"),
    (r"\bwill not\b", "won't"), (r"\bcannot\b", "can't"), (r"\bthere is\b", "there's")))


def base_form(gerund: str) -> str:
    """"checking" → "check", "getting" → "get", "making" → "make" (a small lexicon, then spelling rules)."""
    g = gerund.lower()
    if g in _GERUNDS:
        return _GERUNDS[g]
    stem = g[:-3]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "ls":
        return stem[:-1]
    if re.search(r"(?:v|[^aeiou]c|iz|us|ur|at|ag|it)$", stem) and not stem.endswith(("ook", "ick")):
        return stem + "e"
    return stem


def contract(s: str) -> str:
    """"I am" → "I'm", "what is" → "what's", "do not" → "don't" (keeping a capital at the start)."""
    for pat, rep in _CONTRACT:
        def sub(m: re.Match[str], rep: str = rep) -> str:
            return rep if m.group(0)[0].isupper() or rep.startswith("I") else rep.lower()

        s = pat.sub(sub, s)
    return s


def _body(s: str) -> str:
    return tidy(s.rstrip(" ?.!")).rstrip(" ?.!,")


def _vp(rest: str) -> str:
    vp = _INNER_MODAL.sub(lambda m: f"{m.group(1)} also ", rest)
    vp = re.sub(r"\balso also\b", "also", vp, flags=re.IGNORECASE)
    vp = re.sub(r"^(?:please|kindly|just)\s+", "", vp, flags=re.IGNORECASE)
    vp = re.sub(r"\bfor me\s+(?=for|to|at|on|in)", "", vp)
    return _body(vp)


_SPLICE = _rx(rf"(?:\s*,\s*(?:(?:but|and|so|then)\s+)?|\s+(?:but|and|so)\s+)(?=(?:{_MODAL}) you\b|(?:can|"
              rf"could|may) "
              r"(?:i|we) (?:get|have|book)\b|(?:i'd|i would|i) (?:also )?(?:like|need|want|appreciate)\b|"
              r"(?:what|which|when|where|how)(?:'s| is| are| does| do| much| long| many)\b)")


def split(sentence: str) -> list[str]:
    """A sentence split where a second request is spliced on: "It doesn't matter, but can you book one?" →
    ["It doesn't matter.", "can you book one?"]."""
    m = _SPLICE.search(sentence)
    if m is None or m.start() == 0:
        return [sentence]
    head, tail = sentence[:m.start()].rstrip(" ,"), sentence[m.end():]
    if is_fragment(head):
        return [sentence]
    return [head + ".", *split(tail)]


def parse(sentence: str) -> Clause:
    """The clause ``sentence`` (one sentence, courtesy not yet removed) holds."""
    question = sentence.rstrip().endswith("?")
    s = scrub(sentence)
    thanks = bool(re.search(r"\b(?:thank|thanks|cheers|appreciate|grateful)\b", sentence, re.IGNORECASE))
    lead = ""
    m = _LEAD.match(s)
    if m:
        head = re.sub(_ACK, "ack", m.group(1), flags=re.IGNORECASE)
        words = [w.lower() for w in re.findall(r"if so|in that case|all right|[a-z]+", head, re.IGNORECASE)]
        agreed = "ack" in words
        kept = [w for w in words if w not in _POSITIVE]
        lead = ", ".join(dict.fromkeys(kept))
        s = s[m.end():]
    else:
        agreed = False
    s = s.strip()
    low = s.lower()
    if s and _CLOSE.search(low):
        return Clause("close", _body(contract(s)), lead=lead)
    if not s or is_fragment(s):
        if agreed:
            return Clause("agree", "", lead=lead)
        if lead:
            return Clause("state", "", lead=lead)
        return Clause("courtesy", "", thanks=thanks)
    mm = _MIND.match(s)
    if mm:
        return Clause("act", _vp(base_form(mm.group("g")) + s[mm.end("g"):]), lead=lead)
    for pat in _ACT:
        mm = pat.match(s)
        if mm and s[mm.end():].strip():
            rest = s[mm.end():]
            also = re.match(r"also\s+", rest, re.IGNORECASE)
            rest = rest[also.end():] if also else rest
            hm = _HELP.match(rest)
            vp = _vp(rest[hm.end():] if hm else rest)
            return Clause("act", f"also {vp}" if also else vp, lead=lead)
    hm = _HELP.match(s)
    if hm:
        return Clause("act", _vp(s[hm.end():]), lead=lead)
    for pat, verb in _WANT:
        mm = pat.match(s)
        if mm and s[mm.end():].strip():
            v = base_form(mm.group("g")) if "g" in pat.groupindex and mm.group("g") else verb
            if re.search(r"\balso\b", mm.group(0), re.IGNORECASE) and "also" not in lead:
                lead = ", ".join(x for x in (lead, "also") if x)
            return Clause("want", _body(s[mm.end():]), verb=v, lead=lead)
    mm = _WANT_TO.match(s)
    if mm and s[mm.end():].strip():
        rest = s[mm.end():]
        first = rest.split(" ", 1)[0].lower()
        if first == "know":
            return Clause("act", _vp("tell me" + rest[4:]), lead=lead)
        if first in ("book", "reserve", "find", "order", "arrange") or re.match(
                rf"get (?:a|an|the|some|me|us|my|their|its|[{PH}])\b", rest, re.IGNORECASE):
            return Clause("act", _vp(rest), lead=lead)
        return Clause("wh" if question else "state", _body(contract(s)), lead=lead)
    if _WH.match(s) and (question or not low.startswith("which")):
        return Clause("wh", _body(contract(s)), lead=lead)
    if question and _YN.match(s):
        return Clause("yn", _body(s), lead=lead)
    first = low.split(" ", 1)[0]
    if first in _ACTION_VERBS:  # an imperative, even with a question mark after it
        return Clause("act", _vp(s), lead=lead)
    if question:
        return Clause("yn" if _YN.match(s) else "wh", _body(s), lead=lead)
    return Clause("state", _body(contract(s)), lead=lead)
