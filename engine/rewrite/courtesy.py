"""Courtesy markers, and what makes a sentence a fragment — shared by the impoliteness rules, their tests and
the benchmark, so all three agree on what "courtesy-free" and "whole" mean.

- :data:`MARKER` finds every courtesy marker the impolite rewriter must remove (please, thanks, grateful,
  appreciate, would you mind, if it's not too much trouble, pardon, excuse me, sorry to bother, kindly, if
  that's okay, have a nice day, …); :func:`markers` lists those of a text.
- :func:`scrub` removes courtesy expressions as whole expressions ("many thanks", "sorry to bother you, but"),
  never single words out of them, so no "Many." or "To bother you" is left behind.
- :func:`is_fragment` says whether a sentence is a lone fragment: nothing but function words, a dangling
  connector at either end, or a subordinate clause on its own.

The texts may hold the impolite rewriter's placeholder characters (U+F0000…): they count as content words.
"""

from __future__ import annotations

import re

from parley.engine.rewrite.util import words

PH = "\U000f0000-\U000ffffd"  # placeholder code points (a slot value or requested attribute each)


def _rx(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


_NOPH = r"[^,.!?\U000f0000-\U000ffffd]"  # any character but punctuation and placeholders
_THANK = (r"(?:(?:many|a thousand|big) thanks|thank(?:s|ful)?(?:\s+(?:you|u|ya)\w*)?|thx|ty|cheers|"
          r"(?:much |very |greatly )appreciated|(?:it's|it is|it has|it's been|that's) (?:been )?(?:much |"
          r"very |"
          r"greatly |really )?appreciated|(?:(?:i|we)(?:'d| would| do)? )?(?:really |truly |greatly "
          r")?appreciate "
          r"(?:it|that|this|everything|all|(?:all )?(?:of )?(?:your|the) \w+)(?: you(?:'ve)? (?:do|did|"
          r"done))?"
          r"(?!\s+if\b)|i(?:'m| am) (?:very |so |really |truly )?grateful(?: for " + _NOPH + r"*)?)"
          r"(?: (?:so|very|ever so) much| a (?:lot|bunch|million|ton)| alot| kindly| again| in advance)*"
          r"(?: (?:for|with) " + _NOPH + r"{0,40})?")
_GREET = r"(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening|day))(?: there)?"
_APOL = (r"(?:(?:i'm |i am |so |very )*sorry(?: to (?:bother|trouble|disturb) you)?(?: (?:about|for) (?:all "
         r")?"
         r"(?:of )?(?:the |that |this |my )?(?:confusion|trouble|mix-?up|mistake|inconvenience|that|this))?|"
         r"excuse me|pardon(?: me)?|my apologies|apologies|i apologi[sz]e)")
_COND = (r"if (?:that's|that is|it's|it is|this is) (?:okay|ok|alright|all right|fine|possible|convenient|"
         r"not too much (?:trouble|to ask)|no trouble)(?: with you)?|if possible|if you (?:don't|do not) "
         r"mind|"
         r"if you would(?: be so kind)?|if you can|if you could|if you please")
_BYE = (r"(?:(?:you )?have a (?:nice|good|great|lovely|wonderful|pleasant|fantastic)(?: rest of your)? "
        r"(?:day|evening|night|one|weekend|trip|time|stay)(?: now| as well| too| also)?|you(?:'ve| have) "
        r"been "
        r"(?:very |so |really |a )*(?:helpful|great|wonderful|kind|a (?:great |big )?help)|(?:that's|that is|"
        r"you are|you're) (?:very |so |really )*(?:kind|helpful|sweet)(?: of you)?|much obliged|take care|"
        r"bless you)")

#: every courtesy marker the rules remove (a text holding none of these is "courtesy-free")
MARKER = _rx(r"\b(?:please|pls|plz|thank|thanks|thankyou|thx|cheers|grateful|gratitude|appreciated?|"
             r"would you mind|do you mind|if you (?:don't|do not) mind|too much trouble|no trouble|pardon|"
             r"excuse me|sorry|apologi[sz]e|apologies|kindly|if (?:that's|that is|it's|it is) (?:okay|ok|"
             r"alright|all right|fine)|have a (?:nice|good|great|lovely|wonderful|pleasant|fantastic) (?:day|"
             r"evening|night|one|weekend|trip|stay)|much obliged|be so kind|you've been (?:very |so "
             r")?helpful)\b")

_SEP = r"(?:\s*[,;:!.-]+\s*|\s+)"
#: whole expressions removed wherever they stand (with the connector that tied them to the rest)
_EXPRESSIONS: tuple[re.Pattern[str], ...] = (
    _rx(rf"^\s*(?:(?:and|oh|ok|okay|well|yes|yeah|great)\s*,?\s*)?(?:{_GREET}|{_APOL}|{_THANK})"
        rf"(?:{_SEP}(?:and|but|so|now|also)\b)?[,;:!.]*\s*"),
    _rx(rf"\s*,?\s*\b(?:and |so )?(?:{_THANK}|{_COND}|{_BYE})\s*(?=[.!?]*\s*$)"),
    _rx(rf"(?:^|(?<=[,;]))\s*(?:{_THANK}|{_APOL}|{_GREET}|{_BYE}|{_COND})\s*(?:,|(?=[.!?]|$))"),
    _rx(rf"\b(?:{_COND})\s*,\s*"),
    _rx(r"\s*,?\s*\bplease\b\s*,?(?=\s*[.!?]*\s*$)"),
    _rx(r"\bplease\b\s*,?\s*|\bkindly\s+|\b(?:pls|plz)\b\s*"),
)
#: the last sweep: a thank-you left inside a sentence ("No thank you that will be all")
_ANSWER_THANKS = _rx(rf"\b(no|nope|yes|yeah|ok|okay|great|perfect|alright)\s*,?\s+(?:{_THANK})\b"
                     r"\s*[-,.!]?\s*")
_APPRECIATE_IF = _rx(r"\b(?:(i'd|i would|we'd|we would) |would )(?:really |greatly )?appreciate (?:it )?if "
                     r"you "
                     r"(?:could|would|can) ")
_APPRECIATE = _rx(r"\b(?:(i'd|i would|we'd|we would) |(would) )(?:really |greatly )?appreciate (?=\w)")
_ANY_THANKS = _rx(rf"\s*,?\s*\b(?:and\s+)?(?:(?:i|we)\s+)?(?:{_THANK}|{_BYE})\b\s*[-,]?")

FUNCTION_WORDS = frozenset(words(
    "a an the this that these those some any many much more most lot lots so very too really "
    "just also only even and or but nor then if because although though since unless as of to "
    "for in on at by from with about into onto over under up down out off again all both each "
    "either neither no not yes it its i me my we us our you your he him his she her they them "
    "their there here be is are was were am been being do does did have has had will would "
    "shall should can could may might must s m re ve ll d t"))

#: one-word sentences that are whole (interjections and answers a speaker says on their own)
WHOLE_SHORT = frozenset(words(
    "now hurry quickly fine whatever finally again ugh yes no bye goodbye right listen what "
    "seriously wow great brilliant done okay ok sure obviously nope yeah yep hello hi hmm "
    "well wonderful splendid perfect anyway honestly unbelievable typical incredible "
    "ridiculous come correct exactly nothing"))

_VERBS = frozenset(words(
    "is are was were am be been do does did have has had will would shall should can could "
    "may might must s m re ve ll d"))
_DANGLING_END = frozenset(words(
    "a an the and or but nor if because my your their our its very"))
_DANGLING_START = frozenset(words(
    "but nor of because although though unless whereas"))

_WORD = re.compile(rf"[A-Za-z0-9'’]+|[{PH}]")
#: after . ! or ?, except inside "a.m. so that ..." (a time, then the sentence goes on in lower case)
_SENTENCE = re.compile(r"(?<=[.!?])(?<![AaPp]\.[Mm]\.)[\"')\]]*\s+(?=\S)|(?<=[AaPp]\.[Mm]\.)\s+(?=[^a-z\s])")


def markers(text: str) -> list[str]:
    """The courtesy markers of ``text`` (lower case, in order)."""
    return [m.group(0).lower() for m in MARKER.finditer(text.replace("’", "'"))]


def sentences(text: str) -> list[str]:
    """``text`` split after ``.``, ``!`` or ``?``."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def scrub(sentence: str) -> str:
    """``sentence`` without its courtesy expressions (whole expressions, with the commas and connectors that
    tied them in); what is left is tidied: no doubled or leading commas, a leading leftover "and"/"but"/"so"
    dropped."""
    s = sentence.replace("’", "'")
    for _ in range(3):
        before = s
        for pat in _EXPRESSIONS:
            s = pat.sub(lambda m: " " if m.group(0).strip(" ,;") and m.start() > 0 else "", s)
        if s == before:
            break
    s = _ANSWER_THANKS.sub(lambda m: m.group(1) + ", ", s)
    s = _APPRECIATE_IF.sub(lambda m: "I want you to " if m.group(1) else "want you to ", s)
    s = _APPRECIATE.sub(lambda m: "want " if m.group(1) else "I want ", s)
    if MARKER.search(s):
        s = _ANY_THANKS.sub(" ", s)
    return tidy(s)


_TIDY: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\s+"), " "), (re.compile(r"\s+([,.!?;:])"), r"\1"), (re.compile(r",\s*(?=[,.!?;:])"), ""),
    (re.compile(r"^[\s,;:.!-]+"), ""), (_rx(r"^(?:and|but|so|or)\b[\s,]*(?=\S)"), ""),
    (_rx(r"\b(?:and|but|so|or)\s*(?=[.!?]*$)"), ""), (re.compile(r"[\s,;]+$"), ""),
    (re.compile(r"\s*,\s*([.!?]+)$"), r"\1"))


def tidy(s: str) -> str:
    """Single spaces, no space before punctuation, no doubled or leading commas, no dangling "and"/"but"."""
    for pat, rep in _TIDY:
        s = pat.sub(rep, s)
    return s.strip()


def content_words(sentence: str) -> list[str]:
    return [w for w in _WORD.findall(sentence.lower()) if w not in FUNCTION_WORDS]


def is_fragment(sentence: str) -> bool:
    """True for a sentence that cannot stand on its own: no content word (or one that is no interjection), a
    connector or determiner dangling at its start or end, or a bare "if …" clause."""
    words = _WORD.findall(sentence.lower().replace("’", "'"))
    if not words:
        return True
    content = [w for w in words if w not in FUNCTION_WORDS]
    if not content:  # "That is it." is whole, "Many." is not
        whole = bool(WHOLE_SHORT & set(words)) or (len(words) > 1 and bool(_VERBS & set(words)))
        return not whole or words[-1] in _DANGLING_END
    if len(words) == 1 and not re.match(rf"[{PH}0-9]", words[0]) and words[0] not in WHOLE_SHORT:
        return len(words[0]) < 3
    if (words[0] in _DANGLING_START and words[:2] != ["of", "course"]) or words[-1] in _DANGLING_END:
        return True
    if words[0] == "to" and len(words) > 2 and words[2] == "you":  # "To bother you, but …"
        return True
    return words[0] == "if" and len(words) <= 3  # "If possible."
