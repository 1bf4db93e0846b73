"""A politeness scorer that works offline: the strategies of Danescu-Niculescu-Mizil et al. (2013), weighted.

No politeness classifier ships offline, so ``score(text)`` detects the paper's strategies — gratitude,
deference, greeting, apologising, "please" (inside a sentence; at the start it counts less), indirect "by the
way", direct question, direct start, counterfactual ("could/would you") and indicative ("can/will you")
modals, hedges, factuality, first- and second-person starts, and positive/negative sentiment from the VADER
lexicon — plus a few cues of *impoliteness* the 2013 request corpus rarely shows but rude customers do
(commands at the start, impatience words, sarcasm markers, insults and profanity, shouting). Each cue has a
hand-set weight whose sign follows the paper's findings; the weighted sum plus a small bias (a neutral request
counts as polite) goes through a logistic function into a score in [0, 1]. ``score < 0.5`` is labelled
impolite.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from parley.text import squash

if TYPE_CHECKING:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

BIAS = 0.4


def _rx(*alts: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alts) + r")\b", re.IGNORECASE)


#: (feature, pattern, weight, where) — where: "any" (count once per text), "start" (at a sentence start)
STRATEGIES: tuple[tuple[str, re.Pattern[str], float, str], ...] = (
    ("gratitude", _rx(r"thanks?", "thank you", "appreciate", "grateful", "cheers"), 1.0, "any"),
    ("deference", _rx("great", "good", "nice", "excellent", "wonderful", "lovely", "perfect", "awesome"),
     0.35, "start"),
    ("greeting", _rx("hi", "hello", "hey", r"good (?:morning|afternoon|evening)"), 0.5, "start"),
    ("apologizing", _rx("sorry", "apologi[sz]e", "apologies", "excuse me", "forgive me", "pardon"),
     0.6, "any"),
    ("please_start", _rx("please"), 0.2, "start"),
    ("please", _rx("please", "kindly"), 0.6, "inner"),
    ("indirect_btw", _rx("by the way", "incidentally"), 0.4, "any"),
    ("direct_question", _rx("what", "why", "who", "how", "where", "when", "which"), -0.35, "start"),
    ("direct_start", _rx("so", "then", "and", "but", "look", "listen", "right"), -0.35, "start"),
    ("counterfactual_modal", _rx(r"could you", r"would you", r"would it be possible", r"could i",
                                 r"would you mind", r"might i"), 0.8, "any"),
    ("indicative_modal", _rx("can you", "will you", "can i", "may i"), 0.4, "any"),
    ("hedges", _rx("i think", "maybe", "perhaps", "possibly", "i guess", "i suppose", "probably", "might",
                   "i was wondering", "i would like", "i'd like", "if possible", "if you don't mind", "a bit",
                   "somewhat", "i'm looking for", "i am looking for", "i'm hoping", "i hope"), 0.45, "any"),
    ("factuality", _rx("in fact", "actually", "the point is", "the truth is", "obviously", "clearly",
                       "of course"), -0.4, "any"),
    ("first_person_start", _rx("i", "my", "mine", "me", "i'm", "i'd", "i'll", "i've"), 0.2, "start"),
    ("first_person_plural", _rx("we", "our", "us"), 0.1, "any"),
    ("second_person_start", _rx("you", "your", "yours", "you're"), -0.5, "start"),
    # cues of impoliteness beyond the 2013 strategies
    ("command_start", _rx("find", "get", "give", "book", "tell", "show", "make", "send", "hurry", "just",
                          "reserve", "check", "look it up", "do it", "sort", "fix", "move"), -0.9, "start"),
    ("impatience", _rx("hurry", "now", "fast", "quick(?:ly)?", "already", "asap", "right now", "chop chop",
                       "all day", "waste", "waiting", "get on with it", "come on", "finally", "about time",
                       "(?:for|whatever) the last time", "whatever"), -0.8, "count"),
    ("complaint", _rx("again", "third time", "twice", "wrong", "useless", "how hard", "can't you",
                      "cannot you", "incompetent", "pathetic", "ridiculous", "nonsense", "rubbish",
                      "seriously", "not in the mood", "don't mess", "told you", "ever", "ugh", "don't start",
                      "what a day", "spare me", "don't make", "keep it short", "no mood", "don't you dare",
                      "i'm done", "repeat myself", "get it right", "not what i asked"), -0.7, "count"),
    ("fatigue", _rx("exhausted", "starving", "famished", "jet-lagged", "too tired", "collapse", "lose it",
                    "barely", "no food", "long flight"), -0.5, "count"),
    ("sarcasm", _rx("oh great", "oh wonderful", "oh joy", "wow", "genius", "brilliant", "surely",
                    "shocking", "congratulations", "bravo", "what a surprise", "strain yourself",
                    "if that's not too much", "here we go again", "let me guess", "take ages", "tough one",
                    "let's see if you can", "can you handle", "take your time", "even you", "amaze me",
                    "mess this up"), -0.9, "count"),
    ("entitlement", _rx("money is no object", "who i am", "the best", "worth my money", "i deserve",
                        "i expect", "i don't do", "my standards", "beneath me", "peasant", "used to better",
                        "only accept", "the finest", "very particular", "shabby", "treated properly",
                        "not used to", "daddy", "buy your", "your manager", "adequate", "it will do"),
     -0.7, "count"),
    ("insult", _rx("idiot", "stupid", "moron", "dumb", "damn", "bloody", "crap", "hell", r"f\*+k\w*",
                   "fuck\\w*", "shit\\w*", "piece of junk"), -1.5, "count"),
)
_WORD = re.compile(r"[A-Za-z']+")
_SENT = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Politeness:
    """``score`` in [0, 1] (1 = polite); ``label`` "polite" or "impolite"; ``features`` cues that fired."""

    score: float
    label: str
    features: dict[str, float] = field(default_factory=dict)


@lru_cache(maxsize=1)
def _vader() -> SentimentIntensityAnalyzer:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def _starts(sentences: list[str], pat: re.Pattern[str]) -> bool:
    for s in sentences:
        m = pat.match(s.strip().lstrip("\"'(").lower())
        if m:
            return True
    return False


@lru_cache(maxsize=16384)
def score(text: str) -> Politeness:
    """Politeness of ``text`` (cached)."""
    t = squash(text)
    sentences = [s for s in _SENT.split(t) if s.strip()] or [t]
    low = t.lower()
    feats: dict[str, float] = {}
    for name, pat, w, where in STRATEGIES:
        if where == "start":
            hit = 1.0 if _starts(sentences, pat) else 0.0
        elif where == "inner":
            hit = 1.0 if any(pat.search(s.strip()[1:]) and not pat.match(s.strip().lower())
                             for s in sentences) else 0.0
        elif where == "count":
            hit = float(min(3, len(pat.findall(low))))
        else:
            hit = 1.0 if pat.search(low) else 0.0
        if hit:
            feats[name] = w * hit
    if t:
        compound = float(_vader().polarity_scores(t)["compound"])
        if compound > 0.05:
            feats["positive"] = 0.6 * compound
        elif compound < -0.05:
            feats["negative"] = 1.0 * compound
    words = _WORD.findall(t)
    shouting = sum(1 for w in words if len(w) > 2 and w.isupper())
    if shouting:
        feats["shouting"] = -0.5 * min(3, shouting)
    if "!" in t:
        feats["exclamation"] = -0.2 * min(3, t.count("!"))
    z = BIAS + sum(feats.values())
    s = 1.0 / (1.0 + math.exp(-2.0 * z))
    return Politeness(round(s, 4), "polite" if s >= 0.5 else "impolite", feats)


def is_impolite(text: str, threshold: float = 0.5) -> bool:
    return score(text).score < threshold
