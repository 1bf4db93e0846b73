"""The shared slot-value span detector: which parts of a user turn are slot values the rewriters must protect.

``find_spans(text)`` returns the protected spans of ``text`` as ``engine.types.Span`` (character offsets into
``text``; ``text[start:end] == value``). It finds

- database values (engine/mwdb.py): venue names, areas, food types, price ranges, hotel/attraction types,
  hospital departments, train stations (slot ``departure``/``destination`` by the preposition before them),
  days;
- times (``13:45``, ``5:30 pm``, ``7pm``) and spoken times ("eleven o'clock", "half past six", "quarter to
  7", "six thirty", "seven p.m.", "ten in the morning", "noon"; number words as num2words spells them, with
  a space or a hyphen) with a slot guessed from the words before them (``arriveBy`` after "arrive"/"by",
  ``leaveAt`` after "leave"/"after"/"depart", ``book_time`` otherwise);
- counts: a number before "people"/"persons"/"guests" (``book_people``), "nights" (``book_stay``), "stars"
  (``stars``).

Matching is done on word n-grams compared without spaces and punctuation, so "saint john 's college" matches
the database's "saint johns college" and "guest house" matches "guesthouse"; n-grams that miss are compared
with rapidfuzz (ratio ≥ 90) against the values of similar length, which catches small misspellings
("cambrige"). The vocabulary is built once per database and results are cached per text.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from parley.engine.types import Span

#: longest value in words we look for
MAX_NGRAM = 8
#: rapidfuzz ratio a near-miss n-gram needs
FUZZY_CUTOFF = 90.0
#: a key must have at least this many characters to be matched fuzzily (short words give false hits)
FUZZY_MIN_LEN = 7

def _words(s: str) -> tuple[str, ...]:
    return tuple(s.split())


_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_BREAK = re.compile(r"[.!?;,:]")
#: "am"/"pm" after a digit time: "p.m." keeps its dot, "pm." leaves the sentence's full stop out
_DIGIT_AMPM = r"[ap](?:\.m\.|\.?m\b)"
_TIME = re.compile(
    rf"(?<![\w:.])(?:(?:[01]?\d|2[0-3])[:.][0-5]\d(?:\s?{_DIGIT_AMPM})?|(?:1[0-2]|0?[1-9])\s?{_DIGIT_AMPM})"
    r"(?![\w:])",
    re.IGNORECASE | re.ASCII)
#: what follows a number that is a count or an amount, not a clock time ("ten to twelve people")
_NOT_TIME = (r"(?!\s+(?:people|persons?|guests?|adults?|nights?|days?|stars?|minutes?|hours?|pounds?|"
             r"tickets?|seats?|rooms?|years?)\b)")


@lru_cache(maxsize=1)
def _spoken_time() -> tuple[re.Pattern[str], frozenset[str]]:
    """Spoken clock times, built once from num2words' English number words; and the words one of which every
    spoken time holds (a text with none of them is not searched)."""
    from num2words import num2words

    hints = {w for n in range(1, 60) for w in _WORD.findall(num2words(n, lang="en"))}
    hints.update(_words("quarter half noon midday midnight clock oclock minute minutes morning afternoon "
                        "evening night"))

    def alt(nums: range) -> str:  # longest first, so "twenty five" wins over "twenty"
        ws = sorted((num2words(n, lang="en") for n in nums), key=len, reverse=True)
        return "(?:" + "|".join(w.replace("-", r"[\s-]+") for w in ws) + ")"

    hour = rf"(?:{alt(range(1, 13))}|1[0-2]|0?[1-9])"
    hour24 = alt(range(1, 24))
    minute = rf"(?:{alt(range(10, 60))}|o[h']?\s+{alt(range(1, 10))})"
    part = (rf"(?:{alt(range(1, 30))}|[1-9]|[12]\d)\s+minutes?|(?:a\s+)?quarter|half|"
            rf"{alt(range(5, 30, 5))}")
    ampm = r"[ap](?:\.\s?m\.|\s?m\b)"  # "p.m." keeps its dot, "pm." leaves the full stop out
    daypart = r"(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night)"
    tail = rf"(?:\s*{ampm}|\s+{daypart})"
    some = rf"(?:{alt(range(2, 13))}|1[0-2]|0?[1-9])"  # not "one": "is there one in the afternoon?"
    forms = (
        rf"{hour}\s*o['’]?\s?clock{tail}?",  # eleven o'clock, 7 o'clock in the evening
        rf"(?:{part})\s+(?:past|to|after|till?)\s+{hour}{tail}?",  # half past six, quarter to 7
        rf"half\s+{alt(range(1, 13))}{tail}?",  # half six (half past six)
        rf"{hour24}\s+{minute}{tail}?",  # six thirty, seventeen oh five pm
        rf"{alt(range(13, 24))}\s+hundred(?:\s+hours)?",  # nineteen hundred (hours)
        rf"{alt(range(1, 13))}\s*{ampm}|{some}\s+{daypart}",  # seven pm, 7 in the morning, ten at night
        r"(?:(?:twelve|12)\s+)?(?:noon|midday|midnight)",
    )
    return (re.compile(r"(?<![\w'’.:-])(?:" + "|".join(forms) + r")(?![\w'’-])" + _NOT_TIME, re.IGNORECASE),
            frozenset(hints))


_NUMBER_WORDS = _words(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
)
_COUNT = re.compile(
    r"(?<![\w.:])(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")(?=\s+(?:-\s*)?(people|persons?|guests?|adults?|"
    r"nights?|stars?|star)\b)",
    re.IGNORECASE | re.ASCII,
)
_COUNT_SLOT = {
    "people": "book_people",
    "person": "book_people",
    "persons": "book_people",
    "guest": "book_people",
    "guests": "book_people",
    "adult": "book_people",
    "adults": "book_people",
    "night": "book_stay",
    "nights": "book_stay",
    "star": "stars",
    "stars": "stars",
}

#: slots whose values are too generic to protect as words ("yes", "no", "0")
_SKIP_SLOTS = frozenset({"parking", "internet", "stars"})
_SKIP_VALUES = frozenset({"yes", "no", "none", "free", "the", "a", "?", "dontcare"})
#: which (domain, slot) wins when one value belongs to several
_SLOT_PRIORITY = (
    "name", "department", "destination", "departure", "type", "food", "pricerange", "area", "day"
)
_STOPWORDS = frozenset(
    _words("i a an the to for in at on of and or is it me my we you be by from with that this")
)


def _key(s: str) -> str:
    return "".join(m.group(0) for m in _WORD.finditer(s.lower()))


class Values(Protocol):
    """Where slot values come from (:class:`engine.mwdb.MultiwozDB`): ``(domain, slot, value)`` triples."""

    def all_values(self) -> Iterable[tuple[str, str, str]]: ...


class _Vocab:
    """Lookup tables built once per database."""

    def __init__(self, db: Values) -> None:
        entries: dict[str, list[tuple[str, str]]] = defaultdict(list)
        nwords: dict[str, int] = {}
        for domain, slot, value in db.all_values():
            if slot in _SKIP_SLOTS or value in _SKIP_VALUES:
                continue
            for alias in _aliases(value):
                k = _key(alias)
                nwords.setdefault(k, len(_WORD.findall(alias)))
                if k and (domain, slot) not in entries[k]:
                    entries[k].append((domain, slot))
        self.entries: dict[str, tuple[str | None, str]] = {}
        for k, pairs in entries.items():
            pairs.sort(key=lambda p: _SLOT_PRIORITY.index(p[1]) if p[1] in _SLOT_PRIORITY else 99)
            domains = {d for d, s in pairs if s == pairs[0][1]}
            single = len(domains) == 1 and pairs[0][1] != "day"
            self.entries[k] = (pairs[0][0] if single else None, pairs[0][1])
        #: (key length, words) → keys, for fuzzy matching n-grams of the same word count
        self.by_len: dict[tuple[int, int], list[str]] = defaultdict(list)
        for k in self.entries:
            if len(k) >= FUZZY_MIN_LEN:
                self.by_len[(len(k), nwords[k])].append(k)
        self.max_key = max((len(k) for k in self.entries), default=0)


def _aliases(value: str) -> list[str]:
    out = [value]
    if value.startswith("the ") and len(value) >= 11:
        out.append(value[4:])
    return out


_vocab_lock = threading.Lock()
_vocabs: dict[int, tuple[Values, _Vocab]] = {}


def _vocab(db: Values) -> _Vocab:
    with _vocab_lock:
        hit = _vocabs.get(id(db))
        if hit is None or hit[0] is not db:
            hit = (db, _Vocab(db))
            _vocabs[id(db)] = hit
        return hit[1]


def _default_db() -> Values:
    from parley.engine.mwdb import load_db

    return load_db()


def find_spans(text: str, db: Values | None = None, *, fuzzy: bool = True) -> tuple[Span, ...]:
    """Protected slot-value spans of ``text``, sorted by position and never overlapping."""
    if not text or not text.strip():
        return ()
    if db is None:
        return _find_default(text, fuzzy)
    return _find(text, _vocab(db), fuzzy)


@lru_cache(maxsize=8192)
def _find_default(text: str, fuzzy: bool) -> tuple[Span, ...]:
    return _find(text, _vocab(_default_db()), fuzzy)


#: how many words before a time are read for its slot (a clock time counts as one word)
TIME_LOOKBACK = 5
_SENTENCE_END = re.compile(r"[.!?;]")


def _time_slot(text: str, start: int, times: list[tuple[int, int]]) -> str:
    """``arriveBy`` / ``leaveAt`` / ``book_time`` from the cue words among the :data:`TIME_LOOKBACK` words
    before ``start``, in the same sentence; each time in ``times`` before it counts as one word ("leave at
    18:00 or at twelve noon": "18:00" is one word, so "leave" is still in sight)."""
    pieces: list[str] = []  # the text before ``start``, every time in it replaced by one placeholder word
    pos = 0
    for s, e in sorted(t for t in times if t[1] <= start):
        pieces += [text[pos:s], " 0 "]
        pos = e
    before = "".join([*pieces, text[pos:start]]).lower()
    before = _SENTENCE_END.split(before)[-1]
    for w in reversed(_WORD.findall(before)[-TIME_LOOKBACK:]):
        if w.startswith("arriv") or w in ("by", "before", "until"):
            return "arriveBy"
        if w.startswith("leav") or w.startswith("depart") or w in ("after", "from"):
            return "leaveAt"
    return "book_time"


def _place_slot(text: str, start: int) -> str:
    words = _WORD.findall(text[max(0, start - 30):start].lower())[-3:]
    for w in reversed(words):
        if w in ("from", "leaving", "departing", "depart", "leave"):
            return "departure"
        if w in ("to", "into", "towards", "arriving", "arrive", "going", "destination"):
            return "destination"
    return "destination"


def _find(text: str, vocab: _Vocab, fuzzy: bool) -> tuple[Span, ...]:
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    toks = [(m.start(), m.end(), m.group(0).lower()) for m in _WORD.finditer(text)]
    spoken, hints = _spoken_time()
    if not hints.isdisjoint(t[2] for t in toks):
        taken += [(m.start(), m.end()) for m in spoken.finditer(text)]
    taken += [(m.start(), m.end()) for m in _TIME.finditer(text) if free(m.start(), m.end())]
    spans += [Span(a, b, _time_slot(text, a, taken), text[a:b]) for a, b in taken]
    for m in _COUNT.finditer(text):
        if free(m.start(1), m.end(1)):
            slot = _COUNT_SLOT.get(m.group(2).lower(), "book_people")
            spans.append(
                Span(m.start(1), m.end(1), slot, m.group(1), "hotel" if slot != "book_people" else None)
            )
            taken.append((m.start(1), m.end(1)))

    n = len(toks)
    i = 0
    while i < n:
        found = None
        key = ""
        keys: list[str] = []
        for j in range(i, min(n, i + MAX_NGRAM)):
            if j > i and _BREAK.search(text, toks[j - 1][1], toks[j][0]):
                break  # a value never runs across a sentence or clause boundary ("restaurant . I")
            key += toks[j][2]
            if len(key) > vocab.max_key + 2:
                break
            keys.append(key)
        for length in range(len(keys), 0, -1):
            k = keys[length - 1]
            hit = vocab.entries.get(k)
            if (
                hit is None
                and fuzzy
                and length <= 4
                and len(k) >= FUZZY_MIN_LEN
                and toks[i][2] not in _STOPWORDS
            ):
                hit = _fuzzy(k, length, vocab)
            if hit is not None:
                a, b = toks[i][0], toks[i + length - 1][1]
                if free(a, b):
                    found = (a, b, hit, length)
                    break
        if found:
            a, b, (domain, slot), length = found
            if slot in ("destination", "departure"):
                slot = _place_slot(text, a)
            spans.append(Span(a, b, slot, text[a:b], domain))
            taken.append((a, b))
            i += length
        else:
            i += 1
    spans.sort(key=lambda s: s.start)
    return tuple(spans)


def _fuzzy(k: str, n_words: int, vocab: _Vocab) -> tuple[str | None, str] | None:
    from rapidfuzz import fuzz

    best: tuple[float, str] | None = None
    for ln in range(len(k) - 1, len(k) + 2):
        for cand in vocab.by_len.get((ln, n_words), ()):
            if n_words == 1 and cand[0] != k[0]:
                continue
            score = fuzz.ratio(k, cand, score_cutoff=FUZZY_CUTOFF)
            if score and (best is None or score > best[0]):
                best = (score, cand)
    return vocab.entries[best[1]] if best else None


def spans_in(text: str, spans: tuple[Span, ...]) -> tuple[Span, ...]:
    """Keep only spans that are still valid for ``text`` (``text[start:end] == value``)."""
    return tuple(s for s in spans if 0 <= s.start <= s.end <= len(text) and text[s.start:s.end] == s.value)


#: requestable attributes (canonical name → how users say it); what a request asks for must survive a rewrite
REQUESTABLE: dict[str, str] = {
    "phone": r"(?:tele)?phone(?: ?numbers?| no\.?)?|contact (?:numbers?|details)",
    "postcode": r"post ?codes?|zip ?codes?",
    "address": r"(?:full )?address(?:es)?",
    "reference": r"(?:booking |confirmation )?reference(?: numbers?| no\.?| codes?)?|ref(?: number)?|"
                 r"confirmation numbers?",
    "price": r"(?:ticket |entrance |entry |admission )?(?:prices?|fees?|fares?|costs?)|price ?range",
    "time": r"(?:travel|journey|departure|arrival|leaving|leave|arrive|pick ?up|opening) times?|"
            r"times?|duration|how long",
    "trainid": r"train (?:id|ids|numbers?)",
    "car": r"car ?type|type of car|make of (?:the )?car|(?:the )?car",
    "stars": r"star ratings?|(?:the )?ratings?|stars",
    "area": r"area|part of town|side of town|location",
    "food": r"food type|type of food|cuisine",
    "parking": r"(?:free )?parking",
    "internet": r"wi-?fi|internet",
    "type": r"type of (?:attraction|place|hotel)|attraction type",
    "name": r"names?",
}
_REQUESTS = re.compile(r"(?<![\w'])(?:" + "|".join(f"(?P<{k}>{v})" for k, v in REQUESTABLE.items())
                       + r")(?![\w'])",
                       re.IGNORECASE)


def find_requests(text: str) -> tuple[Span, ...]:
    """Mentions of requestable attributes in ``text`` ("phone number", "postcode", "reference", "price",
    "travel time", …) as spans whose ``slot`` is the attribute's canonical name (a key of
    :data:`REQUESTABLE`)."""
    out: list[Span] = []
    for m in _REQUESTS.finditer(text):
        kind = m.lastgroup or "request"
        out.append(Span(m.start(), m.end(), kind, m.group(0)))
    return tuple(out)
