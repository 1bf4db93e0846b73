"""What a reply says, read from its text alone (for the fact audit, :mod:`engine.scoring.facts`).

:class:`Reader` splits a reply into sentences and finds in each the things it names — venues of the MultiWOZ
databases, train ids, hospital departments, the police station — and the values it states: phone numbers,
postcodes, booking references, clock times, sums of money, taxi cars, counts, and the attribute words of a
venue (area, price range, stars, food, type). It knows nothing of how the reply was made.

>>> from parley.engine.mwdb import load_db
>>> r = Reader(load_db())
>>> s = r.sentences("How about Curry Garden? It serves indian food in the centre, expensive price range.")
>>> [m.id for m in s[0].mentions], attributes(s[1].masked)
(['curry garden'], [('food', 'indian'), ('area', 'centre'), ('pricerange', 'expensive')])
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from parley.engine.mwdb import MultiwozDB

VENUES = ("restaurant", "hotel", "attraction")

PHONE = re.compile(r"(?<![\d£.])0\d{4} ?\d{6}(?!\d)")
POSTCODE = re.compile(r"(?i)\b(?:cb|pe)\d{1,2} ?\d?[a-z]{2,3}\b")
_CODE = re.compile(r"(?<![\w#])#?([A-Z0-9]{8})(?!\w)")
_REF_WORDS = re.compile(r"\b(?:reference|confirmation|booking number|ref)\b", re.I)
TRAIN_ID = re.compile(r"\b(?i:tr) ?(\d{4})\b")
TIME = re.compile(r"\b([01]?\d|2[0-4]):([0-5]\d)\b")
MONEY = re.compile(r"£ ?(\d+(?:\.\d\d?)?)|\b(\d+(?:\.\d\d?)?) ?(?:pounds?|gbp)\b", re.I)
NUMBER_WORDS = {"no": 0, "zero": 0, "one": 1, "a single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
#: (not "no": "there is no train booked yet" counts nothing)
_NUM = r"(\d+|" + "|".join(w for w, n in NUMBER_WORDS.items() if n) + r")"
#: "There are 5 restaurants that match", "I found 2 places to stay", "I have 4 trains that fit"
COUNT = re.compile(r"\b(?:there (?:are|is)|i (?:found|have|'ve got|can offer)|we have|i see)\s+" + _NUM
                   + r"\s+(?:(?:different|matching|possible|such|other)\s+)?(restaurants?|"
                   r"places? to (?:stay|eat)|hotels?|guest ?houses?|attractions?|places?|venues?|options?|"
                   r"trains?|departments?|police stations?|colleges?|museums?|theatres?|parks?|nightclubs?|"
                   r"cinemas?|pools?)\b",
                   re.I)
NOUN_DOMAIN = {"restaurant": "restaurant", "place to eat": "restaurant", "place to stay": "hotel",
               "hotel": "hotel", "guesthouse": "hotel", "guest house": "hotel", "attraction": "attraction",
               "college": "attraction", "museum": "attraction", "theatre": "attraction", "park": "attraction",
               "nightclub": "attraction", "cinema": "attraction", "pool": "attraction", "train": "train",
               "department": "hospital", "police station": "police"}
AREAS = ("north", "south", "east", "west", "centre")
_AREA = re.compile(r"\b(?:in|to) the (north|south|east|west|centre|center)\b(?! of (?:england|london))", re.I)
_PRICE = re.compile(r"\b(cheap|moderate(?:ly priced)?|expensive)\b(?!r|st)", re.I)
_STARS = re.compile(r"\b([0-5])[- ]star\b|\b(?:with|has|have|rated) ([0-5]) stars?\b|\b(unrated)\b"
                    r"|\b(no star rating)\b", re.I)
HOTEL_TYPES = {"guesthouse": "guesthouse", "guest house": "guesthouse", "bed and breakfast": "guesthouse",
               "hotel": "hotel"}
ATTRACTION_TYPES = {"museum": "museum", "college": "college", "nightclub": "nightclub", "theatre": "theatre",
                    "historic building": "architecture", "church": "architecture", "park": "park",
                    "entertainment venue": "entertainment", "swimming pool": "swimmingpool",
                    "boat trip": "boat", "cinema": "cinema", "multiple sports venue": "mutliple sports",
                    "concert hall": "concerthall"}
_SPLIT = re.compile(r"(?<!\bSt\.)(?<!\bst\.)(?<!\bNo\.)(?<!\bno\.)(?<!\ba\.m\.)(?<!\bp\.m\.)(?<=[.!?])\s+"
                    r"(?=[A-Z0-9\"'(])|(?<=:)\s+(?=[A-Z][a-z]+ [a-z])")
QUESTION_START = re.compile(r"^(?:shall|would|do|does|did|can|could|may|is|are|will|what|which|where|when|"
                            r"how|anything|is there)\b", re.I)


@dataclass(frozen=True)
class Mention:
    """Something the text names: a venue (``domain`` restaurant/hotel/attraction and its DB name), a train
    (``train``, its id), a hospital department (``hospital``) or the police station (``police``)."""

    domain: str
    id: str
    start: int
    end: int


@dataclass(frozen=True)
class Sentence:
    text: str
    mentions: tuple[Mention, ...]
    #: the text with every mention replaced by ``@`` of the same length (attribute words of names hidden)
    masked: str

    @property
    def question(self) -> bool:
        """A question ("Shall I book it?", "Would you like the address?") states nothing."""
        return self.text.rstrip().endswith("?") or bool(QUESTION_START.match(self.text))

    def venues(self) -> list[Mention]:
        return [m for m in self.mentions if m.domain in VENUES]


class Reader:
    """Sentences and mentions of the MultiWOZ databases' entities in a text."""

    def __init__(self, db: MultiwozDB) -> None:
        self.db = db
        names: dict[str, tuple[str, str]] = {}
        for domain in VENUES:
            for row in db.rows(domain):
                names[str(row["name"]).lower()] = (domain, str(row["name"]).lower())
        for row in db.rows("hospital"):
            names[str(row["department"]).lower()] = ("hospital", str(row["department"]).lower())
        names["addenbrookes hospital"] = ("hospital", "")
        for row in db.rows("police"):
            names[str(row["name"]).lower()] = ("police", str(row["name"]).lower())
        self.names = names
        alts = sorted(names, key=len, reverse=True)
        self._names = re.compile(r"(?<![\w'])(" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in alts)
                                 + r")(?=(?:'s)?(?:[^\w']|$))", re.I)
        #: a one-word name or "the <word>" is an everyday word unless written as a name ("May I ask")
        self._capitalised_only = {n for n in names if len(n.split()) == 1
                                  or (n.startswith("the ") and len(n.split()) == 2)}

    def mentions(self, text: str) -> list[Mention]:
        out: list[Mention] = []
        for m in self._names.finditer(text):
            key = re.sub(r"\s+", " ", m.group(1).lower())
            if key in self._capitalised_only and not all(w[:1].isupper() for w in m.group(1).split()):
                continue
            domain, vid = self.names[key]
            out.append(Mention(domain, vid, m.start(), m.end()))
        for m in TRAIN_ID.finditer(text):
            out.append(Mention("train", f"TR{m.group(1)}", m.start(), m.end()))
        return sorted(out, key=lambda x: x.start)

    def sentences(self, text: str) -> list[Sentence]:
        out = []
        for part in _SPLIT.split(text.strip()):
            if not part.strip():
                continue
            ms = self.mentions(part)
            masked = part
            for m in ms:
                masked = masked[: m.start] + "@" * (m.end - m.start) + masked[m.end:]
            out.append(Sentence(part, tuple(ms), masked))
        return out


def references(text: str) -> list[str]:
    """Booking references in a text: 8 upper-case letters and digits, said as a reference (or mixing both)."""
    worded = bool(_REF_WORDS.search(text))
    return [m.group(1) for m in _CODE.finditer(text)
            if worded or (re.search(r"\d", m.group(1)) and re.search(r"[A-Z]", m.group(1)))]


def number(word: str) -> int | None:
    w = word.lower()
    return int(w) if w.isdigit() else NUMBER_WORDS.get(w)


def noun_domain(noun: str) -> str | None:
    n = re.sub(r"\s+", " ", noun.lower())
    n = re.sub(r"(?<=[a-z])s(?= to |$)", "", n)  # plural → singular ("places to stay", "trains")
    return NOUN_DOMAIN.get(n) or NOUN_DOMAIN.get(n.replace("places", "place"))


def attributes(masked: str) -> list[tuple[str, str]]:
    """``(slot, value)`` of the area, price range, stars, food and type words of a sentence, in order."""
    found: list[tuple[int, str, str]] = []
    for m in _AREA.finditer(masked):
        found.append((m.start(), "area", "centre" if m.group(1).lower() == "center" else m.group(1).lower()))
    for m in _PRICE.finditer(masked):
        level = m.group(1).lower().split()[0].replace("moderately", "moderate")
        found.append((m.start(), "pricerange", level))
    for m in _STARS.finditer(masked):
        value = m.group(1) or m.group(2) or "0"
        found.append((m.start(), "stars", value))
    for m in _foods().finditer(masked):
        found.append((m.start(), "food", m.group(1).lower()))
    for m in _types().finditer(masked):
        word = m.group(1).lower()
        found.append((m.start(), "type", HOTEL_TYPES.get(word) or ATTRACTION_TYPES[word]))
    return [(s, v) for _, s, v in sorted(found)]


@lru_cache(maxsize=1)
def _foods() -> re.Pattern[str]:
    from parley.engine.mwdb import load_db

    foods = sorted(load_db().values("restaurant", "food"), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, foods)) + r")\b(?= (?:food|restaurant|place|cuisine))",
                      re.I)


@lru_cache(maxsize=1)
def _types() -> re.Pattern[str]:
    words = sorted([*HOTEL_TYPES, *ATTRACTION_TYPES], key=len, reverse=True)
    alts = "|".join(map(re.escape, words))
    return re.compile(r"\b(?:an?|the) (?:[\w-]+ ){0,3}?(" + alts + r")s?\b(?! \w+ing)", re.I)


def car(text: str, colours: list[str], makes: list[str]) -> str | None:
    """The taxi named in a text ("a grey volvo"), as ``colour make``."""
    m = re.search(r"\b(" + "|".join(colours) + r") (" + "|".join(makes) + r")\b", text, re.I)
    return f"{m.group(1).lower()} {m.group(2).lower()}" if m else None
