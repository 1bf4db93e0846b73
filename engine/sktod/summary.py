"""Answers that summarise what reviewers say, in their words: the clause of each selected snippet that is
about the asked aspect, turned into reported speech ("I loved the view" → "they loved the view"), grouped by
sentiment (majority first, the minority after "but"), with the entity's name and an opening that answers a
yes/no question.

The phrasings are parley's own; which of them an answer uses is chosen by :data:`STYLE`, fitted on one half of
DSTC11 val's dialogues (``bench/sktod_bench.py --fit-style``) and scored on the other half.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from parley.engine.sktod.aspects import ASPECTS, aspects_of

if TYPE_CHECKING:
    from parley.engine.sktod.generation import Opinion

#: the choices fitted on DSTC11 val half 0 (see the module docstring); keys are variant names below
STYLE: dict[str, str] = {"frame": "the_reviews", "yes": "yes", "both": "but", "close": "book", "n": "1",
                         "words": "18", "minor": "yes", "kind": "abstract"}
#: the chance of closing with a follow-up question (fitted with STYLE)
FOLLOW_UP = 0.6

_FILLER = re.compile(r"^(?:and|but|also|so|plus|however|overall|honestly|personally|sadly|unfortunately|"
                     r"luckily|thankfully|fortunately|happily|still|then|although|though|as well|in addition|"
                     r"besides|on the other hand|on top of that|to be honest|i must say|i have to say|"
                     r"i'd say|i think)\b,?\s*", re.I)
_PRONOUNS = [(r"\bI was\b", "they were"), (r"\bI am\b", "they are"), (r"\bI'm\b", "they're"),
             (r"\bI've\b", "they've"), (r"\bI'd\b", "they'd"), (r"\bI\b", "they"), (r"\bmy\b", "their"),
             (r"\bme\b", "them"), (r"\bmyself\b", "themselves"), (r"\bwe\b", "they"), (r"\bWe\b", "they"),
             (r"\bour\b", "their"), (r"\bOur\b", "their"), (r"\bus\b", "them"), (r"\bwe're\b", "they're"),
             (r"\bwe've\b", "they've")]
_SPLIT = re.compile(r"\s*(?:;|:|,\s*(?:but|although|though|while|whereas|however)\b|\s(?:but|although|though|"
                    r"whereas|however)\b|\.\s)\s*", re.I)
_YESNO = re.compile(r"^\s*(?:(?:so|and|but|also|ok|okay|well|great|thanks|thank you)[,!.]?\s+)*"
                    r"(?:is|are|does|do|did|has|have|can|could|will|would|was|were)\b", re.I)


def third_person(clause: str) -> str:
    """A reviewer's words as reported speech: first person → they/their (tense kept)."""
    out = clause
    for pat, rep in _PRONOUNS:
        out = re.sub(pat, rep, out)
    return out


def salient(text: str, aspects: frozenset[str], name: str = "", max_words: int = 24) -> str:
    """The clause of a review sentence about ``aspects``, without leading fillers, in reported speech."""
    parts = [p.strip(" ,.!") for p in _SPLIT.split(text) if p and p.strip(" ,.!")]
    hits = [p for p in parts if aspects and aspects_of(p) & aspects]
    clause = (hits or parts or [text])[0]
    for _ in range(3):
        clause = _FILLER.sub("", clause).strip()
    words = clause.split()
    if len(words) > max_words:  # long clauses: cut at a comma or "and" inside the limit, else at the limit
        cut = " ".join(words[:max_words])
        k = max(cut.rfind(","), cut.rfind(" and "))
        clause = cut[:k] if k > len(cut) // 2 else cut
    clause = third_person(clause).rstrip(" ,.;:!?")
    first = clause.split(" ", 1)[0]
    if first and first[0].isupper() and (first == "The" or first.lower() not in name.lower().split()) \
            and first != "I":
        clause = clause[:1].lower() + clause[1:]
    return clause


#: evaluative adjectives of reviews (team-written list), positive then negative; matched as whole words
GOOD = ("amazing", "excellent", "great", "good", "fantastic", "wonderful", "lovely", "nice", "beautiful",
        "stunning", "breathtaking", "gorgeous", "superb", "perfect", "clean", "spotless", "tidy", "friendly",
        "helpful", "attentive", "welcoming", "polite", "fast", "quick", "reliable", "strong", "stable",
        "quiet", "peaceful", "relaxing", "calm", "comfortable", "comfy", "cosy", "cozy", "spacious", "bright",
        "modern", "delicious", "tasty", "fresh", "generous", "convenient", "central", "handy", "affordable",
        "reasonable", "cheap", "fair", "easy", "free", "plentiful", "varied", "efficient", "pleasant",
        "charming", "romantic", "lively", "warm", "impressive", "outstanding", "decent", "fine", "solid",
        "ample", "secure", "safe", "smooth", "prompt", "professional", "enjoyable", "authentic", "flavourful")
BAD = ("slow", "unreliable", "patchy", "spotty", "weak", "noisy", "loud", "dirty", "filthy", "stained",
       "dusty", "smelly", "musty", "rude", "unhelpful", "unfriendly", "cold", "lukewarm", "bland", "stale",
       "overcooked", "greasy", "soggy", "cramped", "tiny", "small", "uncomfortable", "hard", "old", "dated",
       "outdated", "worn", "tired", "expensive", "overpriced", "pricey", "limited", "poor", "bad", "terrible",
       "awful", "horrible", "disappointing", "mediocre", "average", "crowded", "busy", "dark", "difficult",
       "inconvenient", "far", "broken", "unclean", "disruptive", "frustrating", "confusing", "chaotic",
       "dull")
_ADJ = {w: "positive" for w in GOOD} | {w: "negative" for w in BAD}
_INTENS = ("very", "really", "extremely", "super", "incredibly", "quite", "so", "truly", "pretty", "always")


def adjectives(text: str, want: str, aspects: frozenset[str], limit: int = 2) -> list[str]:
    """Evaluative adjectives of the wanted polarity in the part of ``text`` about ``aspects`` (with a leading
    intensifier when the reviewer used one), in order of occurrence."""
    part = salient(text, aspects) if aspects else text
    words = re.findall(r"[a-z']+", part.lower())
    out: list[str] = []
    for i, w in enumerate(words):
        if _ADJ.get(w) != want or (i and words[i - 1] in ("not", "n't", "never", "no")):
            continue
        phrase = f"{words[i - 1]} {w}" if i and words[i - 1] in _INTENS else w
        if w not in " ".join(out).split():
            out.append(phrase)
        if len(out) >= limit:
            break
    return out


#: nouns a question names its aspect with (team-written); compounds of them ("room views") are kept whole
NOUNS = frozenset(["view", "views", "room", "rooms", "bed", "beds", "bathroom", "bathrooms", "shower",
                   "showers", "wifi", "wi-fi", "internet", "connection", "signal", "breakfast", "breakfasts",
                   "buffet", "parking", "car", "park", "garage", "staff", "service", "services", "employees",
                   "waiters", "waiter", "servers", "server", "reception", "receptionist", "host", "hosts",
                   "owner", "owners", "food", "meal", "meals", "dishes", "dish", "menu", "portions",
                   "portion", "dessert", "desserts", "drinks", "drink", "beer", "beers", "wine", "wines",
                   "cocktails", "coffee", "bar", "selection", "options", "choice", "choices", "outdoor",
                   "seating", "patio", "terrace", "garden", "atmosphere", "ambience", "ambiance", "decor",
                   "decoration", "music", "vibe", "location", "area", "neighbourhood", "neighborhood",
                   "price", "prices", "value", "cost", "rates", "noise", "level", "sound", "cleanliness",
                   "hygiene", "pool", "gym", "spa", "amenities", "facilities", "lobby", "check-in",
                   "checkout", "check-out", "wait", "waiting", "time", "times", "queue", "vegetarian",
                   "vegan", "accommodation", "accommodations", "stay", "experience"])


def question_phrase(question: str, aspects: frozenset[str]) -> str:
    """The aspect as the user named it ("the room views", "the outdoor seating"), else the lexicon's
    phrase."""
    words = re.findall(r"[a-z][a-z\-]*", question.lower())
    best: list[str] = []
    run: list[str] = []
    for w in [*words, ""]:
        if w in NOUNS:
            run.append(w)
            continue
        if run and (not best or len(run) >= len(best) or best == ["level"]):
            best = run
        run = []
    if best and best not in (["time"], ["level"], ["stay"], ["experience"], ["options"], ["choice"]):
        return "the " + " ".join(best)
    for name in ASPECTS:
        if name in aspects:
            return ASPECTS[name][0]
    return "it"


def question_adjective(question: str) -> str | None:
    """A positive evaluative adjective the question asks about ("are the rooms quiet?" → "quiet")."""
    for w in re.findall(r"[a-z]+", question.lower()):
        if _ADJ.get(w) == "positive" and w not in ("good", "nice", "great", "free", "fine"):
            return w
    return None


def is_yes_no(question: str) -> bool:
    return bool(_YESNO.match(question))


@dataclass(frozen=True)
class Views:
    """The reported clauses of one entity's reviews by sentiment, majority side first."""

    positive: tuple[str, ...]
    negative: tuple[str, ...]
    neutral: tuple[str, ...]


def views(opinions: Sequence[Opinion], aspects: frozenset[str], name: str, max_words: int = 24) -> Views:
    """Deduplicated clauses per sentiment, best-scored snippet first."""
    seen: set[str] = set()
    out: dict[str, list[str]] = {"positive": [], "negative": [], "neutral": []}
    for o in sorted(opinions, key=lambda o: -o.snippet.score):
        c = salient(o.snippet.snippet.text, aspects, name, max_words)
        key = re.sub(r"\W+", " ", c.lower()).strip()
        if not key or key in seen:
            continue
        seen.add(key)
        out[o.label].append(c)
    return Views(tuple(out["positive"]), tuple(out["negative"]), tuple(out["neutral"]))


def _join(clauses: Sequence[str]) -> str:
    return clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]


def abstract(name: str, opinions: Sequence[Opinion], question: str, aspects: frozenset[str],
             style: dict[str, str] | None = None) -> str:
    """"Yes, according to guests, the wifi at X is fast and reliable, though one found it slow." — the aspect
    as the user named it, the majority's adjectives, the minority's after "though"."""
    st = {**STYLE, **(style or {})}
    ranked = sorted(opinions, key=lambda o: -o.snippet.score)
    pos = [o for o in ranked if o.label == "positive"]
    neg = [o for o in ranked if o.label == "negative"]
    major, side = (pos, "positive") if len(pos) >= len(neg) else (neg, "negative")
    minor, other = (neg, "negative") if side == "positive" else (pos, "positive")
    adjs: list[str] = []
    qa = question_adjective(question)
    for o in major:
        for a in adjectives(o.snippet.snippet.text, side, aspects):
            if a.split()[-1] not in {x.split()[-1] for x in adjs}:
                adjs.append(a)
        if len(adjs) >= 2:
            break
    if qa and side == "positive" and qa not in {x.split()[-1] for x in adjs}:
        adjs.insert(0, qa)  # the user's own word, when most reviewers agree
    if not adjs:
        return ""
    phrase = question_phrase(question, aspects)
    subject = f"{phrase} at {name}" if phrase != "it" else name
    be = ("are" if re.search(r"s$", phrase.split()[-1]) and phrase != "it" and not phrase.endswith("ss")
          else "is")
    yes = ""
    if is_yes_no(question) and st["yes"] == "yes":
        yes = "Yes, " if side == "positive" else "Unfortunately, "
    frame = {"according": "according to guests, ", "guests": "guests say ", "reviews": "the reviews say ",
             "the_reviews": "according to the reviews, ", "most": "most guests say "}.get(
        st["frame"], "according to guests, ")
    lead = yes + frame if yes else frame[:1].upper() + frame[1:]
    if st.get("again") == "short":
        lead = ""
        subject = subject[:1].upper() + subject[1:]
    text = f"{lead}{subject} {be} {_join(adjs[:2])}"
    low = [a for o in minor[:1] for a in adjectives(o.snippet.snippet.text, other, aspects, 1)]
    if low and st["minor"] == "yes":
        text += f", though one guest found {'them' if be == 'are' else 'it'} {low[0]}"
    text += "."
    if st.get("quote") == "yes" and major and st.get("again") != "short":
        text += " One guest said " + salient(major[0].snippet.snippet.text, aspects, name, 14) + "."
    return text


def compose(name: str, v: Views, question: str, rng: random.Random,
            style: dict[str, str] | None = None) -> str:
    """One or two sentences about one entity: what most reviewers say, then what the others say."""
    st = {**STYLE, **(style or {})}
    n = int(st["n"])
    pos, neg = list(v.positive[:n]), list(v.negative[:n])
    pos += [c for c in v.neutral[:1] if not pos and not neg]
    if not pos and not neg:
        return ""
    positive_side = len(pos) >= len(neg)
    major, minor = (pos, neg) if positive_side else (neg, pos)
    yes = ""
    if is_yes_no(question) and st["yes"] == "yes":
        yes = "Yes, " if positive_side and not minor else "Mostly yes: " if positive_side else "Not really: "
    who = {"according": f"according to guests of {name}, ", "guests": f"guests of {name} say ",
           "reviews": f"reviews of {name} say "}.get(st["frame"], f"according to guests of {name}, ")
    lead = (yes + who) if yes else who[:1].upper() + who[1:]
    text = lead + _join(major[:n]) + "."
    if minor and st["minor"] == "yes":
        other = "one guest" if len(minor) == 1 else "some others"
        joiner = {"but": f" But {other} said ", "however": f" However, {other} mentioned that "}[st["both"]]
        text += joiner + minor[0] + "."
    return text


FOLLOW = {"more": ("Would you like to know more about it?", "Is there anything else you would like to know?"),
          "book": ("Would you like to make a reservation?", "Would you like me to book it for you?"),
          "none": ()}


def follow_up(rng: random.Random, st: dict[str, str] | None = None) -> str:
    options = FOLLOW[{**STYLE, **(st or {})}["close"]]
    return options[rng.randrange(len(options))] if options else ""
