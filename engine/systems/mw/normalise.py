"""Text normalisation for the rule NLU: cleaning, number words and clock times.

Everything here works on lower-case text with single spaces, so offsets found in :func:`clean` output stay
valid for every later step (names are masked with ``#`` of the same length, never removed).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from parley.text import squash

MAX_CHARS = 600  # longer inputs are cut: nobody books a table in an essay, and NLU cost grows with length

_SPELLING = {
    "center": "centre", "centr": "centre", "cetre": "centre", "theater": "theatre", "thats": "that's",
    "wi fi": "wifi", "wi-fi": "wifi", "b&b": "bed and breakfast", "b & b": "bed and breakfast",
    "guest-house": "guest house", "tommorow": "tomorrow", "tomorow": "tomorrow", "pls": "please",
    "plz": "please", "thx": "thanks", "ty": "thank you", "wednsday": "wednesday", "wendesday": "wednesday",
    "thrusday": "thursday", "thurs": "thursday", "tues": "tuesday", "weds": "wednesday",
    "saterday": "saturday", "fri": "friday", "resturant": "restaurant",
    "restaraunt": "restaurant", "restuarant": "restaurant", "hotle": "hotel", "moderatly": "moderately",
    "expencive": "expensive", "cheep": "cheap", "atraction": "attraction", "musuem": "museum",
    "collage": "college", "postal code": "postcode", "post code": "postcode", "zip code": "postcode",
    "zipcode": "postcode", "telephone": "phone", "e mail": "email", "frm": "from", "wat": "what",
    "ppl": "people", "tmrw": "tomorrow", "tmr": "tomorrow", "2moro": "tomorrow", "2day": "today",
    "tonite": "tonight",
}
#: "Cambridge" misspelt by one letter ("cambrdge", "camrbidge"): the lexicon never matches it fuzzily (it is
#: part of too many venue names), so the city is put right here
_CAMBRIDGE = re.compile(r"\bc[a-z]{6,9}\b")
_SPELL_RE = re.compile(r"\b(" + "|".join(re.escape(k)
                                         for k in sorted(_SPELLING, key=len, reverse=True)) + r")\b")

_ESCAPE = re.compile(r"[\x1b\u241b]\[[0-9;?]*[ -/]*[@-~]|[\x1b\u241b]")
#: day abbreviations that are also words ("I sat", "c'mon", "wed"): only after a word that asks for a day
_SHORT_DAYS = {"mon": "monday", "wed": "wednesday", "sat": "saturday", "sun": "sunday", "tue": "tuesday",
               "thu": "thursday", "thur": "thursday"}
_SHORT_DAY_RE = re.compile(r"\b(on|this|next|by|until|till|from|for|every|and|or|to) ("
                           + "|".join(_SHORT_DAYS) + r")\b")

_CONTRACTIONS = [
    (re.compile(r"\b(do|does|did|is|are|was|were|could|would|should|ca|wo|have|has|had|need) n'?t\b"),
     r"\1n't"),
    (re.compile(r"\b(i|you|we|they|he|she|it|that|there|what|who|let) '(m|s|re|ve|ll|d)\b"), r"\1'\2"),
    (re.compile(r"\bdont\b"), "don't"), (re.compile(r"\bdoesnt\b"), "doesn't"),
    (re.compile(r"\bim\b"), "i'm"), (re.compile(r"\bcant\b"), "can't"), (re.compile(r"\bwont\b"), "won't"),
    (re.compile(r"\bisnt\b"), "isn't"), (re.compile(r"\bdidnt\b"), "didn't"),
    (re.compile(r"\bcannot\b"), "can't"),
]


_POSSESSIVE = re.compile(r"\b(\w+)'s\b")
_KEEP_S = {"it", "that", "what", "there", "he", "she", "who", "let", "here", "where", "how", "this", "when",
           "why"}


def clean(text: str) -> str:
    """Lower-case, ASCII-fold, drop punctuation (keeping ``:`` ``'`` ``&`` ``.`` between digits), fix common
    spellings.

    >>> clean("I'd like a CHEAP place in the center, please!")
    "i'd like a cheap place in the centre please"
    """
    t = _ESCAPE.sub(" ", text[:MAX_CHARS])  # terminal colour codes pasted in (raw, or as the shown ␛)
    t = unicodedata.normalize("NFKD", t)
    t = "".join(c for c in t if not unicodedata.combining(c))
    t = t.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'").lower()
    t = re.sub(r"(?<=\d)\.(?=\d)", ":", t)  # 5.15pm → 5:15pm
    t = re.sub(r"(?<=\d)\s*:\s*(?=\d)", ":", t)  # tokenised "17 : 15"
    t = re.sub(r"(?<=\d)[\s-]?ish\b", "", t)  # "7ish", "7:30-ish": about then
    t = re.sub(r"\b([01]?\d|2[0-3])h([0-5]\d)\b", r"\1:\2", t)  # "17h30"
    t = re.sub(r"[^a-z0-9:'&\- ]+", " ", t)
    t = re.sub(r"(?<![a-z])-|-(?![a-z])", " ", t)
    t = squash(t)
    for pat, rep in _CONTRACTIONS:
        t = pat.sub(rep, t)
    t = re.sub(r"(\w) '(s|m|re|ve|ll|d)\b", r"\1'\2", t)
    t = _POSSESSIVE.sub(lambda m: m.group(0) if m.group(1) in _KEEP_S else m.group(1) + "s", t)
    t = _SPELL_RE.sub(lambda m: _SPELLING[m.group(1)], t)
    t = _CAMBRIDGE.sub(_cambridge, t)
    t = _SHORT_DAY_RE.sub(lambda m: f"{m.group(1)} {_SHORT_DAYS[m.group(2)]}", t)
    t = re.sub(r"\bst\b", "saint", t)
    return t


def _cambridge(m: re.Match[str]) -> str:
    from rapidfuzz.distance import OSA

    w = m.group(0)
    return "cambridge" if w != "cambridge" and OSA.distance(w, "cambridge", score_cutoff=1) <= 1 else w


@cache
def _number_words() -> tuple[dict[str, int], re.Pattern[str]]:
    """Every English number word or phrase from 0 to 99 with its value, from num2words ("forty-five" and
    "forty five"), and the pattern that finds them, hundreds composed: "two hundred", "a hundred and twenty",
    "one hundred five". Built on first use, so importing this module does not import num2words.
    """
    from num2words import num2words

    below_100: dict[str, int] = {}
    for n in range(100):
        words = num2words(n, lang="en")
        below_100[words] = below_100[words.replace("-", " ")] = n
    # longest first, so that "twenty five" wins over "twenty"
    alternatives = "|".join(sorted(map(re.escape, below_100), key=len, reverse=True))
    digits = "|".join(w for w, n in below_100.items() if 1 <= n <= 9)
    pattern = re.compile(rf"\b(?:(?P<h>a|{digits}) hundred(?: (?:and )?(?P<rest>{alternatives}))?"
                         rf"|(?P<n>{alternatives}))\b")
    return below_100, pattern


def _number(m: re.Match[str]) -> str:
    below_100 = _number_words()[0]
    if m.group("n"):
        return str(below_100[m.group("n")])
    hundreds = 1 if m.group("h") == "a" else below_100[m.group("h")]
    return str(hundreds * 100 + (below_100[m.group("rest")] if m.group("rest") else 0))


_SPECIAL = [
    (re.compile(r"\b(just )?(myself|me) (alone|only)\b"), "1 people"),
    (re.compile(r"\b(just|only) (me|myself|1 person|one person)\b"), "1 people"),
    (re.compile(r"\b(for|by) myself\b"), "1 people"),
    (re.compile(r"\b(just|only) for (me|myself|1|one)\b(?! nights?| days?| weeks?)"), "for 1 people"),
    (re.compile(r"\b(a )?couple of (people|persons|us|nights|days|guests)\b"), r"2 \2"),
    (re.compile(r"\b(me|myself|i) and (a|my|one) (friend|wife|husband|partner|colleague|son|daughter|mother|"
                r"father|mom|mum|dad|boyfriend|girlfriend|fiance|fiancee|spouse|sister|brother|boss|coworker)\b"),
     "2 people"),
    (re.compile(r"\b(travell?ing|staying|going|eating|dining|be) (alone|solo|by myself|on my own)\b"),
     r"\1 1 people"),
    (re.compile(r"\bmy (wife|husband|partner|friend|girlfriend|boyfriend) and (i|me)\b"), "2 people"),
    (re.compile(r"\bboth of us\b"), "2 people"),
    (re.compile(r"\b(a|one) single (person|ticket)\b"), "1 people"),
    (re.compile(r"\ba (night|day|week)\b"), r"1 \1"),
]


def words_to_numbers(text: str) -> str:
    """Digits for number words (0 to 999, the words of num2words), keeping the text otherwise as it is.

    Digits stay as they are ("0915", "2 2"); "N hundred" is composed only for N from one to nine, so a
    spoken time such as "nineteen hundred" stays "19 hundred".

    >>> words_to_numbers("a table for three people at twenty five past six")
    'a table for 3 people at 25 past 6'
    >>> words_to_numbers("sixty-two pounds, or a hundred and twenty")
    '62 pounds, or 120'
    """
    for pat, rep in _SPECIAL:
        text = pat.sub(rep, text)

    text = _number_words()[1].sub(_number, text)
    text = re.sub(r"\b(\d+)(st|nd|rd|th)\b", r"\1", text)
    return re.sub(r"\b1 week\b", "7 days", text)


@dataclass(frozen=True)
class TimeMention:
    """A clock time found in a text: ``text[start:end]`` gave ``value`` (``HH:MM``)."""

    start: int
    end: int
    value: str
    explicit: bool  # written with minutes, am/pm or o'clock (a bare "at 5" is not explicit)


_AMPM = r"\s*(a\s?m|p\s?m|o'?\s?clock|oclock)?"
_CLOCK = re.compile(r"\b([01]?\d|2[0-4]):([0-5]\d)" + _AMPM + r"\b")
_HOUR_AMPM = re.compile(r"\b(1[0-2]|0?[1-9])\s*(a\s?m|p\s?m|o'?\s?clock|oclock)\b")
_PHRASE = re.compile(
    r"\b(quarter|half|[1-5]?\d)(?: minutes)? (past|after|to|til|till|before) ([01]?\d|2[0-3])\b" + _AMPM
)
_FOURDIGIT = re.compile(r"\b(?:at|by|after|before|around|about|leave|leaves|arrive|arrives)\s+([01]\d|"
                        r"2[0-3])([0-5]\d)\b")
_BARE = re.compile(
    r"\b(?:at|by|after|before|around|about|until|till|from|leaves?|arrives?|leaving|arriving|depart(?:ing|s)?)\s+"
    r"(?:about |around |approximately )?(1[0-2]|0?[1-9]|1[3-9]|2[0-3])\b"
    r"(?! (?:people|persons|person|guests|adults|of us|nights?|days?|stars?|tickets?|seats?|minutes?|hours?|"
    r"pounds?|that|which|who|of|with|serv\w*|more|other|thing|place|restaurant|hotel|attraction|train|taxi|"
    r"for \d+ (?:nights?|days?)))"
)
_SPOKEN = re.compile(r"\b(?:(?:at|by|after|before|around|about|until|till|leave|arrive)\s+)?([01]?\d|"
                     r"2[0-3]) ([0-5]\d)(?:\s*(a\s?m|p\s?m))?\b(?! (?:people|persons|nights?|days?|minutes?|"
                     r"pounds?))")
_HALF_H = re.compile(r"\bhalf ([1-9]|1[0-2])\b(?! (?:hours?|minutes?|people|persons|guests|nights?|days?|"
                     r"pounds?|tickets?|an? |of |dozen))")
_OH_MINUTES = re.compile(r"\b([01]?\d|2[0-3]) (?:oh|o) ([1-9])\b(?:\s*(a\s?m|p\s?m))?")
_HOURS = re.compile(r"\b([01]?\d|2[0-3]):?([0-5]\d)\s*(?:hrs|hr|hours|h)\b")  # "1300hrs", "13:00 hours"
_WORDTIME = re.compile(r"\b(noon|midday|midnight|lunchtime|lunch time)\b")
_PM_AFTER = re.compile(r"^\s*(?:in the )?(evening|afternoon|tonight|at night|pm)\b")
_EVENING = re.compile(r"\b(tonight|this evening|in the evening|dinner|supper)\b")
_AM_AFTER = re.compile(r"^\s*(?:in the )?(morning|am)\b")


def _fmt(h: int, m: int) -> str:
    return f"{h % 24:02d}:{m:02d}" if not (h == 24 and m == 0) else "24:00"


def _hour(h: int, suffix: str | None, after: str, evening_upto: int = 0) -> int:
    """``h`` on the 24-hour clock: "am"/"pm" said with it or after it ("in the morning") decide; otherwise an
    hour from 1 to ``evening_upto`` is taken as afternoon or evening ("at 4" → 16)."""
    s = (suffix or "").replace(" ", "")
    s = s if s in ("am", "pm") else ""  # "o'clock" says neither
    if s == "pm" or (not s and _PM_AFTER.match(after)):
        return h + 12 if h < 12 else h
    if s == "am" or _AM_AFTER.match(after):
        return 0 if h == 12 else h
    return h + 12 if 1 <= h <= evening_upto else h


def find_times(text: str) -> list[TimeMention]:
    """Clock times in a cleaned, number-normalised text, left to right.

    >>> [t.value for t in find_times("leave after quarter past 5 pm and arrive by 19:45")]
    ['17:15', '19:45']
    """
    found: list[TimeMention] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, h: int, m: int, explicit: bool) -> None:
        if any(s < end and start < e for s, e in taken) or h > 24 or m > 59:
            return
        taken.append((start, end))
        found.append(TimeMention(start, end, _fmt(h, m), explicit))

    for mt in _HOURS.finditer(text):
        add(mt.start(), mt.end(), int(mt.group(1)), int(mt.group(2)), True)
    for mt in _CLOCK.finditer(text):
        # "leave at 2:15": nobody wants a train, table or taxi at 2 at night without saying "am"
        h = _hour(int(mt.group(1)), mt.group(3), text[mt.end():],
                  4 if not mt.group(3) and len(mt.group(1)) == 1 else 0)
        add(mt.start(), mt.end(), h, int(mt.group(2)), True)
    for mt in _PHRASE.finditer(text):
        q, rel, hour = mt.group(1), mt.group(2), int(mt.group(3))
        mins = 15 if q == "quarter" else 30 if q == "half" else int(q)
        if rel in ("after",) and q not in ("quarter", "half"):
            continue
        h = _hour(hour, mt.group(4), text[mt.end():])
        total = h * 60 + (-mins if rel in ("to", "til", "till", "before") else mins)
        if not mt.group(4) and 1 <= total // 60 <= 6 and not _AM_AFTER.match(text[mt.end():]):
            total += 12 * 60  # "half past six", "quarter to seven": the evening, as a bare "at 6" is
        add(mt.start(), mt.end(), (total // 60) % 24, total % 60, True)
    for mt in _HALF_H.finditer(text):  # British "half six" = 6:30
        add(mt.start(), mt.end(), _hour(int(mt.group(1)), None, text[mt.end():], 6), 30, True)
    for mt in _OH_MINUTES.finditer(text):  # "seventeen oh five" → "17 oh 5"
        h = _hour(int(mt.group(1)), mt.group(3), text[mt.end():])
        add(mt.start(), mt.end(), h, int(mt.group(2)), True)
    for mt in _SPOKEN.finditer(text):  # ASR style: "five fifteen pm" → "5 15 pm"
        if mt.group(3) or mt.group(0)[:1].isalpha() or mt.group(2) in ("00", "15", "30", "45"):
            h = _hour(int(mt.group(1)), mt.group(3), text[mt.end():],
                      6 if not mt.group(3) and mt.group(0)[:1].isalpha() else 0)
            add(mt.start(1), mt.end(), h, int(mt.group(2)), True)
    for mt in _HOUR_AMPM.finditer(text):
        h = _hour(int(mt.group(1)), mt.group(2), text[mt.end():], 6 if "clock" in mt.group(2) else 0)
        add(mt.start(), mt.end(), h, 0, True)
    for mt in _WORDTIME.finditer(text):
        add(mt.start(), mt.end(), 0 if mt.group(1) == "midnight" else 12, 0, True)
    for mt in _FOURDIGIT.finditer(text):
        add(mt.start(1), mt.end(), int(mt.group(1)), int(mt.group(2)), True)
    for mt in _BARE.finditer(text):
        evening = _EVENING.search(text[max(0, mt.start() - 25): mt.end() + 20]) is not None
        h = _hour(int(mt.group(1)), None, text[mt.end():], 11 if evening else 6)  # "at 4"; "dinner at 7"
        add(mt.start(1), mt.end(1), h, 0, False)
    found.sort(key=lambda t: t.start)
    return found


_VOCAB = ("north south east west centre central cheap expensive moderate moderately monday tuesday "  # noqa: SIM905
          "wednesday thursday\n"
          "friday saturday sunday restaurant restaurants hotel hotels guesthouse guesthouses attraction "
          "attractions museum museums\n"
          "college colleges theatre cinema architecture entertainment nightclub swimming train trains taxi "
          "parking internet wifi\n"
          "people nights tickets arrive arriving arrival leave leaving depart departing departure "
          "destination address postcode\n"
          "phone number reference entrance booking reserve reservation please thanks thank cambridge "
          "peterborough stevenage\n"
          "broxbourne norwich leicester birmingham stansted stortford london liverpool street airport "
          "african asian oriental\n"
          "british chinese european french gastropub indian international italian japanese korean lebanese "
          "mediterranean mexican\n"
          "portuguese seafood spanish turkish vietnamese vegetarian three seven eight eleven twelve twenty "
          "thirty fourty forty\n"
          "fifty quarter after before afternoon evening morning tomorrow tonight somewhere something "
          "anything expensive price\n"
          "pricerange stars star rating looking recommend another different free boat concert sports "
          "church churches park").split()
_VOCAB += ["welsh", "greek", "german", "polish", "russian", "scottish", "swedish", "danish", "tuscan",
           "halal", "kosher", "moroccan", "persian", "caribbean", "brazilian", "belgian", "australian",
           "indonesian", "malaysian", "singaporean", "cantonese", "barbeque", "polynesian", "venetian",
           "catalan", "basque", "afghan", "cuban", "jamaican", "irish", "swiss", "thai", "fusion", "creative",
           "traditional", "unusual"]
_BY_FIRST: dict[str, list[str]] = {}
for _w in _VOCAB:
    _BY_FIRST.setdefault(_w[0], []).append(_w)
_KNOWN = set(_VOCAB) | {"worth", "forth", "mouth", "brain", "drain", "trait", "cheat", "these", "those",
                        "there", "three", "their", "where", "which", "while", "would", "could", "should",
                        "maybe", "about", "leaves", "starts", "plans", "place", "places", "table", "tables",
                        "party", "great", "thing", "things", "think", "train's", "parks", "stays", "staying",
                        "nightly", "booked", "books", "prices", "priced", "pricey", "leave", "least", "lease",
                        "arrives", "arrived", "depart", "departs", "departed", "numbers", "phones", "number",
                        "colleague", "colleagues", "spots"}


def _known() -> set[str]:
    """Words never corrected: the vocabulary itself plus every word of the NLU's value lists."""
    global _KNOWN_ALL
    if _KNOWN_ALL is None:
        from parley.engine.systems.mw import patterns as P

        words = set(_KNOWN)
        for phrase in [*P.FOODS, *P.ATTRACTION_TYPES, *P.AREAS]:
            words.update(phrase.split())
        _KNOWN_ALL = words
    return _KNOWN_ALL


_KNOWN_ALL: set[str] | None = None


def fix_typos(text: str) -> str:
    """Correct one-letter slips in the words the NLU keys on ("chinse" → "chinese", "nroth" → "north").

    Only words of 5+ letters that are not vocabulary themselves, against vocabulary words with the same first
    letter, within one edit (two for words of 8+ letters; transpositions count as one).
    """
    from rapidfuzz.distance import OSA

    known = _known()

    def fix(m: re.Match[str]) -> str:
        w = m.group(0)
        if len(w) < 5 or w in known:
            return w
        limit = 1 if len(w) < 8 else 2
        best, dist = w, limit + 1
        for cand in _BY_FIRST.get(w[0], ()):
            if abs(len(cand) - len(w)) > limit:
                continue
            dd = OSA.distance(w, cand, score_cutoff=limit)
            if dd < dist:
                best, dist = cand, dd
        return best

    return re.sub(r"\b[a-z]+\b", fix, text)
