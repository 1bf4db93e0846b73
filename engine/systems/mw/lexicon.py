"""The NLU vocabulary read off the MultiWOZ databases plus hand-written synonyms.

:class:`Lexicon` finds venue names and train stations in a cleaned text: exact alias look-up over word n-grams
first, then rapidfuzz for misspellings of long names (scores ≥ 88 on names of 6+ characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from parley.engine.mwdb import MultiwozDB

# aliases → canonical station names (the train DB's departure/destination values)
STATION_ALIASES = {
    "kings cross": "london kings cross", "london kings cross": "london kings cross",
    "kings x": "london kings cross", "liverpool street": "london liverpool street",
    "london liverpool": "london liverpool street", "liverpool st": "london liverpool street",
    "birmingham": "birmingham new street", "birmingham new street": "birmingham new street",
    "stansted": "stansted airport", "stansted airport":
    "stansted airport", "bishops stortford": "bishops stortford", "bishop stortford": "bishops stortford",
    "stortford": "bishops stortford", "kings lynn": "kings lynn", "king lynn": "kings lynn", "peterborough":
    "peterborough", "leicester": "leicester", "ely": "ely", "norwich": "norwich", "stevenage": "stevenage",
    "broxbourne": "broxbourne", "cambridge": "cambridge",
}

# words that look like names but are common English: only taken as names in a naming context
RISKY_NAMES = {"ask", "the place", "good luck", "the junction", "home from home", "the gallery", "avalon",
               "cote", "nusha", "ely", "j restaurant", "the man on the moon", "tenpin", "limehouse",
               "allenbell"}
_NAMING_CONTEXT = re.compile(r"\b(called|named|at|about|for|book|reserve|to|from|is|visit|info on|in|"
                             r"into|leaving|leave|leaves|departing|depart|departs|out of|near)\s+(?:the\s+)?$"
                             r"|^\s*(?:the\s+)?$")
#: names that are everyday phrases ("the place", "the junction"): only when called so or visited
_PHRASE_NAMES = {"place", "the place", "junction", "the junction"}
_STRONG_CONTEXT = re.compile(r"\b(called|named|visit|visiting|go to|get to|info on|about)\s+(?:the\s+)?$")
_GENERIC = {"restaurant", "hotel", "guest house", "guesthouse", "the", "house", "cafe", "bar", "college",
            "museum", "gallery", "church", "theatre", "cinema", "pool", "park", "lodge", "centre",
            "cambridge", "city", "kitchen", "the restaurant", "the hotel", "bed and breakfast", "hall",
            "garden", "the museum"}


_GENERIC_WORDS = {"the", "restaurant", "hotel", "guest", "house", "guesthouse", "and", "bar", "cafe",
                  "college", "museum", "gallery", "church", "theatre", "cinema", "pool", "park", "lodge",
                  "centre", "cambridge", "city", "kitchen", "bed", "breakfast", "hall", "garden", "gardens",
                  "of", "at", "a", "in", "on", "street", "road", "station", "train", "to", "from", "for",
                  "by", "b"}
_STOP = {"the", "a", "an", "and", "to", "from", "for", "in", "on", "at", "of", "by", "is", "it", "i", "me",
         "my", "you", "we", "need", "want", "would", "like", "book", "find", "get", "also", "please", "with",
         "that", "this", "there", "what", "where", "any", "some", "or", "be", "are", "can", "could", "no",
         "yes", "not", "train", "trains", "taxi", "cab", "ticket", "tickets", "leaving", "going", "arriving",
         "departing", "travelling", "traveling", "heading"}


def _risky(alias: str) -> bool:
    return (alias in RISKY_NAMES or ("the " + alias) in RISKY_NAMES
            or alias in ("place", "junction", "gallery"))


def _common_words() -> set[str]:
    from parley.engine.systems.mw import patterns as P

    words = set(P.FOODS) | set(P.ATTRACTION_TYPES) | set(P.DAYS) | set(P.AREAS)
    words |= {"north", "south", "east", "west", "centre", "expensive", "moderate", "cheap", "parking",
              "internet", "guesthouse", "reference", "address", "postcode", "number", "people", "train",
              "taxi", "thanks", "please", "station", "tickets", "leaving", "arriving", "departure",
              "destination", "restaurant", "attraction", "something", "another", "anything", "information",
              "looking", "booking", "reservation"}
    return words


_COMMON = _common_words()


def _distinct(text: str) -> str:
    return " ".join(w for w in text.split() if w not in _GENERIC_WORDS)


_SMALL_WORDS = {"of", "at", "a", "in", "on", "to", "from", "for", "by", "and", "the"}


def _venue_words_out(text: str) -> str:
    """``text`` without the venue-type words of :func:`_distinct` but with its small words."""
    return " ".join(w for w in text.split() if w not in _GENERIC_WORDS or w in _SMALL_WORDS)


@dataclass(frozen=True)
class NameMention:
    """A venue name (domain ``restaurant``/``hotel``/``attraction``), a train station (domain ``station``) or
    a hospital department (domain ``department``)."""

    start: int
    end: int
    domain: str
    value: str
    score: float


def _variants(name: str) -> set[str]:
    n = name.lower().strip()
    out = {n, n.replace("'", ""), n.replace("-", " ")}
    if n.startswith("the "):
        out.add(n[4:])
    else:
        out.add("the " + n)
    for suffix in (" restaurant", " hotel", " guest house", " guesthouse", " restaurant and bar",
                   " cambridge", " and bar", " cafe"):
        if n.endswith(suffix) and len(n) - len(suffix) >= 4:
            base = n[: -len(suffix)]
            out.add(base)
            out.add(base.removeprefix("the "))
    out.update({v.replace("guest house", "guesthouse") for v in list(out)})
    out.update({v.replace("guesthouse", "guest house") for v in list(out)})
    out.update({v.replace(" and ", " & ") for v in list(out)})
    out.update({v.replace("saint ", "st ") for v in list(out)})
    return {v.strip() for v in out if v.strip() and v.strip() not in _GENERIC}


class Lexicon:
    """Aliases of every venue name and station, with the domain each belongs to."""

    def __init__(self, db: MultiwozDB) -> None:
        self.db = db
        self.alias: dict[str, tuple[str, str]] = {}  # alias → (domain, canonical)
        for domain in ("restaurant", "hotel", "attraction"):
            for name in db.values(domain, "name"):
                for v in _variants(name):
                    self.alias.setdefault(v, (domain, name))
        for alias, station in STATION_ALIASES.items():
            self.alias.setdefault(alias, ("station", station))
        for dept in db.values("hospital", "department"):
            for v in {dept, dept.replace(" department", ""), dept.replace(" unit", ""), dept + " department",
                      dept.replace("paediatric", "pediatric"), dept.replace("haematology", "hematology")}:
                if v not in _GENERIC and len(v) > 3:
                    self.alias.setdefault(v, ("department", dept))
        # misspellings and shortenings seen in ordinary use
        extra = {"holiday inn": ("hotel", "express by holiday inn cambridge"),
                 "the marriott": ("hotel", "huntingdon marriott hotel"),
                 "marriott": ("hotel", "huntingdon marriott hotel"),
                 "huntingdon marriott": ("hotel", "huntingdon marriott hotel"),
                 "botanic gardens": ("attraction", "cambridge university botanic gardens"),
                 "botanical gardens": ("attraction", "cambridge university botanic gardens"),
                 "corn exchange": ("attraction", "the cambridge corn exchange"),
                 "kettles yard": ("attraction", "kettle's yard"),
                 "christs college": ("attraction", "christ's college"),
                 "cherry hinton water park": ("attraction", "cherry hinton water play")}
        for k, (d, canon) in extra.items():
            if canon in db.values(d, "name") or canon.replace("'", "") in db.values(d, "name"):
                self.alias.setdefault(k, (d, canon if canon in db.values(d, "name")
                                          else canon.replace("'", "")))
        self.max_len = max(len(a.split()) for a in self.alias)
        # fuzzy keys: the distinctive words of each alias ("j restaurant" → "j": too short, never fuzzy)
        self.fuzzy: dict[str, str] = {}
        for a in self.alias:
            if self.alias[a][0] == "department":
                continue  # "admission fees" is not the theatre admissions unit: departments only exactly
            key = _distinct(a)
            if len(key) >= 6 and not _risky(a) and key not in _COMMON:
                self.fuzzy.setdefault(key, a)
        self.fuzzy_keys = list(self.fuzzy)

    def find_names(self, text: str) -> list[NameMention]:
        """Non-overlapping venue/station names in ``text`` (cleaned), longest first, left to right."""
        from rapidfuzz import fuzz, process

        tokens = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", text)]
        cands: list[NameMention] = []
        n = len(tokens)
        for i in range(n):
            for k in range(min(self.max_len, n - i), 0, -1):
                start, end = tokens[i][0], tokens[i + k - 1][1]
                gram = text[start:end]
                hit = self.alias.get(gram)
                if hit is not None:
                    if _risky(gram) and not _NAMING_CONTEXT.search(text[:start]):
                        continue
                    if gram in _PHRASE_NAMES and not _STRONG_CONTEXT.search(text[:start]):
                        continue
                    cands.append(NameMention(start, end, hit[0], hit[1], 100.0 + len(gram)))
                    break
        # fuzzy pass over the n-grams not already covered by an exact hit
        covered = [(c.start, c.end) for c in cands]
        grams: list[tuple[int, int, str]] = []
        for k in range(2, min(self.max_len, 6) + 1):
            for i in range(0, n - k + 1):
                start, end = tokens[i][0], tokens[i + k - 1][1]
                if any(s <= start and end <= e for s, e in covered):
                    continue
                grams.append((start, end, text[start:end]))
        for i in range(n):
            start, end, tok = tokens[i]
            if len(tok) >= 6 and not any(s <= start and end <= e for s, e in covered):
                grams.append((start, end, tok))
        for start, end, gram in grams:
            if "#" in gram:
                continue
            words = gram.split()
            if words[0] in _STOP or words[-1] in _STOP:
                continue
            key = _distinct(gram)
            if len(key) < 6 or key in _COMMON or (" " not in key and len(key) < 7):
                continue
            best = process.extractOne(key, self.fuzzy_keys, scorer=fuzz.ratio, score_cutoff=88)
            # small words inside the span count too: "ride on a boat" is not "rice boat"
            if best is not None and fuzz.ratio(_venue_words_out(gram), best[0]) < 80:
                continue
            if best is not None:
                dom, canon = self.alias[self.fuzzy[best[0]]]
                cands.append(NameMention(start, end, dom, canon, float(best[1]) + len(gram) / 100))
        cands.sort(key=lambda c: (-c.score, -(c.end - c.start)))
        chosen: list[NameMention] = []
        for c in cands:
            if all(c.end <= o.start or o.end <= c.start for o in chosen):
                chosen.append(c)
        chosen.sort(key=lambda c: c.start)
        return chosen


@lru_cache(maxsize=4)
def lexicon_for(db: MultiwozDB) -> Lexicon:
    """One lexicon per loaded database (building it takes a few milliseconds)."""
    return Lexicon(db)
