"""What the reviews of one venue say about the asked aspect, counted per review: how many are positive,
negative or neutral, and the words they use for it (evaluative adjectives, negation kept: "not clean").

Answers are written from this summary only (``engine.sktod.wording``): no reviewer's sentence is pasted, so
an answer cannot carry a truncated or first-person quote, and its yes/no follows the count of reviews.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parley.engine.sktod.aspects import aspects_of


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: evaluative adjectives (team-written), by polarity; a word in a group of ``ONLY_FOR`` describes only those
#: aspects ("friendly" is about staff, never about a location)
GOOD = _words("amazing excellent great good fantastic wonderful lovely nice beautiful stunning "
              "breathtaking gorgeous superb perfect clean spotless tidy immaculate sanitary friendly "
              "helpful attentive welcoming polite courteous professional kind accommodating fast quick "
              "speedy reliable strong stable quiet peaceful relaxing calm silent comfortable comfy cosy "
              "cozy spacious roomy large big bright airy modern delicious tasty fresh flavourful "
              "flavorful authentic generous convenient central handy accessible affordable reasonable "
              "cheap inexpensive fair easy free plentiful ample varied extensive efficient pleasant "
              "charming romantic lively warm impressive outstanding decent fine solid secure safe smooth "
              "prompt enjoyable awesome incredible terrific superb spectacular scenic picturesque "
              "exceptional phenomenal brilliant splendid elegant stylish cute quaint")
BAD = _words("slow unreliable patchy spotty weak noisy loud dirty filthy stained dusty smelly musty "
             "grubby unclean unsanitary rude unhelpful unfriendly inattentive cold lukewarm bland stale "
             "overcooked undercooked greasy soggy salty cramped tiny small uncomfortable old dated "
             "outdated worn shabby tired expensive overpriced pricey costly limited poor bad terrible "
             "awful horrible disappointing mediocre subpar crowded busy dark difficult inconvenient far "
             "remote broken disruptive frustrating confusing chaotic dull drab lacking tight awkward "
             "unpleasant disgusting inedible tasteless average lackluster lacklustre unkempt steep "
             "questionable")
_ONLY_FOR: dict[frozenset[str], frozenset[str]] = {
    _words("friendly helpful attentive welcoming polite courteous professional kind accommodating rude "
           "unhelpful unfriendly inattentive"): frozenset({"staff", "checkin"}),
    _words("bland"): frozenset({"food", "breakfast", "drinks", "dietary", "atmosphere"}),
    _words("delicious tasty flavourful flavorful authentic stale overcooked undercooked greasy "
           "soggy salty inedible tasteless disgusting fresh cold lukewarm"):
        frozenset({"food", "breakfast", "drinks", "dietary"}),
    _words("limited extensive varied plentiful ample"):
        frozenset({"food", "breakfast", "drinks", "dietary", "parking", "amenities", "outdoor"}),
    _words("quiet peaceful silent noisy loud disruptive"): frozenset({"noise", "room", "atmosphere",
           "location"}),
    _words("central convenient handy accessible remote far"): frozenset({"location", "parking"}),
    _words("affordable reasonable cheap inexpensive expensive overpriced pricey costly steep"):
        frozenset({"price", "drinks", "food", "parking", "breakfast", "wifi"}),
    _words("fast quick speedy prompt reliable unreliable spotty patchy stable strong weak"):
        frozenset({"wifi", "wait", "checkin", "staff", "drinks"}),
    _words("spacious roomy cramped tiny small large big huge comfortable comfy uncomfortable airy"):
        frozenset({"room", "bathroom", "atmosphere", "outdoor", "food", "amenities", "parking", "size"}),
    _words("free"): frozenset({"wifi", "parking", "breakfast", "amenities"}),
    _words("clean spotless tidy immaculate sanitary dirty filthy stained dusty smelly musty grubby "
           "unclean unsanitary"): frozenset({"cleanliness", "room", "bathroom", "amenities"}),
}
_SIZED = frozenset({"room", "bathroom", "food", "outdoor", "size"})
_UNSURE = _words("bad cheap far small old hard average busy dark limited")
_SIZE_WORDS = _words("spacious roomy cramped tiny small large big huge generous ample")
_INTENSIFIERS = _words("very really extremely super incredibly quite so truly pretty always absolutely "
                       "perfectly "
                       "genuinely exceptionally particularly")
_HIGH_GOOD = _words("quality standard standards end class marks praise")
_AMOUNTS = _words("few couple half hour hours minute minutes while one two three four five ten twenty")
_NEGATORS = _words("not never no hardly barely without nothing none nor nobody neither")
#: aspects that hold others (a question about the rooms' cleanliness is about the cleanliness)
_CONTAINERS = frozenset({"room", "food", "drinks", "bathroom", "location"})
_CLAUSE = re.compile(r"\s*(?:[;:!?]|\.\s|,?\s+\b(?:but|however|although|though|whereas|while|yet|except|"
                     r"apart from|other than|since|because)\b)\s*", re.I)


_VIEW = re.compile(r"\b(?:views?|viewing|scenery|scenic|sights?|vistas?|overlook\w*|panoram\w*|window)\b",
                   re.I)


_SIZE = re.compile(r"\b(?:big|bigger|large|larger|huge|spacious|roomy|small|smaller|tiny|cramped|size|sizes|"
                   r"sized|space|spaces)\b", re.I)
#: a question about the range on offer ("a large selection of beers") asks how much choice, not how big
_RANGE = re.compile(r"\b(?:selection|selections|variety|range|choice|choices|options?|number of)\b", re.I)


_SAFE = re.compile(r"\bsafe\b(?!\s+(?:box|boxes|deposit|in (?:the|our|my) room))", re.I)


#: parts of the atmosphere a question may ask about alone ("is the music good?"): answered from the reviews
#: that talk about that part, not from those that praise the decor or the vibe
FINE = {
    "music": re.compile(r"\b(?:music|musicians?|songs?|band|playlist|dj|tunes?|singers?|jazz)\b", re.I),
    "decor": re.compile(r"\b(?:d[eé]cor|decorat\w*|interiors?|furnish\w*|paintings?|artwork)\b", re.I),
    "lighting": re.compile(r"\b(?:lighting|lights?|lit|dim|dimly|candle\w*|lamps?)\b", re.I),
}


_AMOUNT_GOOD = re.compile(r"\bgood\s+(?=(?:\d+|few|couple|half|hour|hours|minute|minutes|while|one|two|three|"
                          r"four|five|ten|twenty)\b)", re.I)


def amounts_plain(text: str) -> str:
    """``text`` without the "good" of an amount ("it took a good 15 minutes"), which praises nothing."""
    return _AMOUNT_GOOD.sub("", text)


def focus(aspects: frozenset[str], text: str = "") -> frozenset[str]:
    """The aspects an answer is about: a question naming a container and a quality ("are the rooms clean?")
    is about the quality; one about the view ("view" is a room keyword of the aspect lexicon) or the size of
    the rooms or portions is about that; one about the music, decor or lighting (all "atmosphere" in the
    lexicon) is about that part alone."""
    if "amenities" in aspects and "amenities" not in aspects_of(_SAFE.sub(" ", text)):
        aspects = aspects - {"amenities"}  # "a safe neighbourhood" asks about safety, not about a safe
    if text and _VIEW.search(text) and not aspects - _CONTAINERS:
        return frozenset({"view"})
    if text and _SIZE.search(text) and not _RANGE.search(text) and not aspects - _CONTAINERS:
        return frozenset({"size"})
    fine = frozenset(a for a, rx in FINE.items() if text and rx.search(text))
    if fine and not aspects - _CONTAINERS - {"atmosphere"}:
        return fine
    inner = aspects - _CONTAINERS
    return inner if inner else aspects


def question_text(turn: str, names: Sequence[str] = ()) -> str:
    """The part of a user turn that asks (its last question, else its last sentence), without the venues'
    names ("Alexander Bed and Breakfast" asks nothing about breakfast)."""
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", turn.strip()) if s.strip()]
    asked = [s for s in sentences if s.endswith("?")]
    text = (asked or sentences or [turn])[-1]
    for name in sorted(names, key=len, reverse=True):
        words = [re.escape(w) for w in re.findall(r"[a-z0-9']+", name.lower()) if w not in ("the",)]
        if words:
            text = re.sub(r"\b" + r"\W+".join(words) + r"\b", " ", text, flags=re.I)
    text = re.sub(r"\bbed\s+(?:and|&|n)\s+breakfasts?\b|\bb\s*&\s*b\b", "place", text, flags=re.I)
    return re.sub(r"\s+", " ", text).strip()


#: words that say something of an aspect without naming it (team-written; beside ``aspects.ASPECTS``, whose
#: keywords the fitted selection model was trained with)
_ALSO = {
    "noise": r"calm|restful|awake|sle(?:ep|pt)|sounds?|neighbou?rs|echo\w*|thin walls?|earplugs?|slamm\w*|"
             r"disturb\w*|silen\w*|peace\w*",
    "cleanliness": r"immaculate|grubby|hairs?|sticky|neglected|grim[ey]\w*|crumbs|wiped?|mould\w*|mold\w*",
    "staff": r"looked after|too much trouble|requests?|ignored|waited on|manners",
    "wifi": r"online|remotely|stream\w*|connect\w*|download\w*",
    "parking": r"spaces?|park\w*",
    "breakfast": r"eggs?|jams?|toast|croissants?|cereals?|porridge|pastr\w*|coffee in the morning",
    "room": r"furniture|mattress\w*|pillows?|wardrobe|decor",
    "location": r"getting around|taxi|out of the way|easy to find|walk\w*|cent(?:re|er)|far from|close to",
    "price": r"pay|paid|bank|bill|value|afford\w*|bargain|worth",
    "wait": r"in and out|hours?|minutes|waited|queue\w*|quick\w*|slow\w*",
    "atmosphere": r"a date|romantic|cosy|cozy|lively|buzz\w*|charm\w*",
}
_ALSO_RE = {a: re.compile(rf"\b(?:{p})\b", re.I) for a, p in _ALSO.items()}


def elsewhere(text: str, question: str, aspects: frozenset[str]) -> bool:
    """Whether ``text`` talks about the prices of another thing than the one the question asks the prices
    of ("affordable food prices" for "is their beer good value?")."""
    if aspects != {"price"}:
        return False
    things = aspects_of(question) & {"food", "drinks"}
    said = aspects_of(text) & {"food", "drinks"}
    return bool(things and said and not said & things)


def mentions(text: str, aspects: frozenset[str]) -> bool:
    """Whether ``text`` talks about one of ``aspects``."""
    if "view" in aspects and _VIEW.search(text) or "size" in aspects and _SIZE.search(text):
        return True
    if any(FINE[a].search(text) for a in aspects & FINE.keys()):
        return True
    also = aspects & _ALSO_RE.keys()
    return bool(aspects_of(text) & aspects) or any(_ALSO_RE[a].search(text) for a in also)


def eligible(word: str, aspects: frozenset[str]) -> bool:
    """Whether ``word`` may describe ``aspects`` ("friendly" describes staff, never a location)."""
    if "size" in aspects and word not in _SIZE_WORDS and word not in _GENERIC:
        return False
    if aspects & FINE.keys():
        aspects = aspects | {"atmosphere"}  # a part of the atmosphere takes the atmosphere's words
    for group, allowed in _ONLY_FOR.items():
        if word in group:
            return not aspects or bool(allowed & aspects)
    return True


def clause_about(text: str, aspects: frozenset[str]) -> str:
    """The clauses of ``text`` that mention ``aspects`` (the whole text when none or all do)."""
    parts = [p.strip(" ,.") for p in _CLAUSE.split(text) if p and p.strip(" ,.")]
    if len(parts) > 1 and aspects:
        hits = [p for p in parts if mentions(p, aspects)]
        if hits:
            return ". ".join(hits)
    return text


def descriptors(clause: str, aspects: frozenset[str]) -> list[tuple[str, str]]:
    """(phrase, polarity) of each evaluative adjective in ``clause`` that may describe ``aspects``: "very
    clean" positive, "not clean" negative, "not too loud" positive."""
    words = re.findall(r"[a-z]+(?:'[a-z]+)?", clause.lower())
    out: list[tuple[str, str]] = []
    for i, w in enumerate(words):
        pol = "positive" if w in GOOD else "negative" if w in BAD else ""
        after = words[i + 1] if i + 1 < len(words) else ""
        if w == "high" and "price" in aspects and after not in _HIGH_GOOD:
            pol = "negative"  # "the prices were high", never "high quality"
        if w == "good" and (after.isdigit() or after in _AMOUNTS):
            continue  # "a good 15 minutes", "a good few hours": an amount, not praise
        if not pol or not eligible(w, aspects):
            continue
        before = words[max(0, i - 5):i]
        negated = any(b in _NEGATORS or b.endswith("n't") for b in before)
        if negated and any(b in ("wish", "wished", "hoped") for b in before):
            negated = False  # "I only wish it wasn't so far": it is far
        phrase = w
        if i and words[i - 1] in _INTENSIFIERS and not negated:
            phrase = f"{words[i - 1]} {w}"
        if negated:
            phrase = f"not {w}"
            pol = "negative" if pol == "positive" else "positive"
            if w in _UNSURE:
                continue  # "not bad", "not cheap", "not far": a reading a reader cannot be sure of
        if w in ("big", "large", "small", "tiny") and not aspects & _SIZED:
            continue
        out.append((phrase, pol))
    return out


@dataclass(frozen=True)
class ReviewView:
    """One review's (document's) view of the aspect: the mean sentiment of its selected sentences."""

    label: str  # "positive" | "negative" | "neutral"
    compound: float
    words: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Stance:
    """One venue's selected evidence on the asked aspect."""

    name: str
    domain: str
    positive: int = 0
    negative: int = 0
    neutral: int = 0
    praise: tuple[str, ...] = ()  # the words of positive reviews, most used first
    complaints: tuple[str, ...] = ()
    faq: str = ""  # the best FAQ's answer, when an FAQ is the best snippet
    unmentioned: bool = False  # the question names an aspect that no review or FAQ of the venue talks about

    @property
    def reviews(self) -> int:
        return self.positive + self.negative + self.neutral

    @property
    def verdict(self) -> str:
        """"positive" / "negative" (more reviews one way), "split" (as many each way), "neutral" (no
        opinion either way), "unmentioned" (nothing of the venue talks about the asked aspect) or "none" (no
        review)."""
        if self.unmentioned:
            return "unmentioned"
        if self.positive > self.negative:
            return "positive"
        if self.negative > self.positive:
            return "negative"
        if self.positive:
            return "split"
        return "neutral" if self.neutral else "none"

    @property
    def unanimous(self) -> bool:
        return self.verdict in ("positive", "negative") and min(self.positive, self.negative) == 0

    @property
    def minority(self) -> int:
        return min(self.positive, self.negative)

    def to_json(self) -> dict[str, Any]:
        """The internals view: the venue, its reviews for / against / neutral and their words."""
        return {"venue": self.name, "positive": self.positive, "negative": self.negative,
                "neutral": self.neutral, "verdict": self.verdict, "praise": list(self.praise),
                "complaints": list(self.complaints), "faq": self.faq}


def review_view(sentences: Sequence[tuple[str, float]], aspects: frozenset[str]) -> ReviewView:
    """A review from its selected sentences, each with the sentiment (compound) of its clause about the
    aspect. The adjectives decide when they clearly disagree with the lexicon score."""
    words: list[tuple[str, str]] = []
    total = 0.0
    for text, compound in sentences:
        ws = descriptors(clause_about(text, aspects), aspects)
        words.extend(ws)
        lean = sum(1 if p == "positive" else -1 for _, p in ws)
        if lean and (compound == 0 or (lean > 0) != (compound > 0) and abs(compound) < 0.6):
            compound = 0.3 if lean > 0 else -0.3
        total += compound
    mean = total / max(len(sentences), 1)
    label = "positive" if mean >= 0.05 else "negative" if mean <= -0.05 else "neutral"
    return ReviewView(label, mean, tuple(w for w in words if w[1] == label))


def stance(name: str, domain: str, views: Sequence[ReviewView], faq: str = "") -> Stance:
    pos = [v for v in views if v.label == "positive"]
    neg = [v for v in views if v.label == "negative"]

    def ranked(vs: Sequence[ReviewView]) -> tuple[str, ...]:
        counts: Counter[str] = Counter()
        first: dict[str, int] = {}
        for v in vs:
            for phrase, _ in v.words:
                base = phrase.split()[-1] if not phrase.startswith("not ") else phrase
                counts[base] += 1
                first.setdefault(base, len(first))
        phrases: dict[str, str] = {}
        for v in vs:
            for phrase, _ in v.words:
                base = phrase.split()[-1] if not phrase.startswith("not ") else phrase
                phrases.setdefault(base, phrase)
        order = sorted(counts, key=lambda b: (-counts[b], _generic(b), first[b]))
        return tuple(phrases[b] for b in order)

    neutral = len(views) - len(pos) - len(neg)
    return Stance(name, domain, len(pos), len(neg), neutral, ranked(pos), ranked(neg), faq)


_GENERIC = _words("good great nice excellent amazing wonderful fantastic lovely bad poor terrible awful "
                  "horrible fine decent awesome incredible perfect")


def _generic(word: str) -> int:
    """Aspect words before all-purpose ones ("fast" before "great")."""
    return int(word in _GENERIC)


def distinct(words: Sequence[str]) -> list[str]:
    """The reviewers' words that each say something new: one all-purpose word at most ("great and good"
    says nothing twice), and no word twice ("clean", "very clean")."""
    out: list[str] = []
    for w in words:
        base = w.split()[-1]
        if any(base == o.split()[-1] or _generic(base) and _generic(o.split()[-1]) for o in out):
            continue
        out.append(w)
    return out
