"""Sentence-level checks of the fact audit (:mod:`engine.scoring.facts`): each value a sentence states about
its subject — phone, postcode, address, area, price range, stars, food, type, entrance fee, opening hours,
room prices, a train's id, times, journey time and price — against the database row of that subject, and
every count ("I have 5 trains that fit", "there are no cheap guesthouses in the north", "without the area
there are 3") against the rows that meet the constraints in force.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from parley.engine.mwdb import HOSPITAL, MultiwozDB
from parley.engine.scoring import claims as C
from parley.engine.scoring.factdb import hhmm, matching, trains_by_id
from parley.engine.scoring.factmemory import Entity
from parley.jsontypes import json_object

#: the words a reply uses for a slot, → the slot
SLOT_WORDS = {"phone number": "phone", "phone": "phone", "contact number": "phone", "number": "phone",
              "address": "address", "postcode": "postcode", "post code": "postcode", "area": "area",
              "price range": "pricerange", "food": "food", "star rating": "stars", "train id": "trainID",
              "train number": "trainID", "price": "price", "ticket price": "price", "fare": "price",
              "journey time": "duration", "travel time": "duration", "duration": "duration",
              "departure time": "leaveAt", "arrival time": "arriveBy", "entrance fee": "entrance fee",
              "admission": "entrance fee", "type": "type", "opening hours": "openhours",
              "reference number": "reference", "reference": "reference", "car": "car"}
_WORDS = "|".join(sorted(map(re.escape, SLOT_WORDS), key=len, reverse=True))
#: "The phone number of @@@ is X.", "@@@'s postcode is X.", "For @@@, the area is X.", "Address: X."
SLOT_ANSWER = re.compile(
    r"(?:^|\b(?:the|its|their)\s)(" + _WORDS + r")(?: of @+| at @+| for @+)? (?:is|are|will be) "
    r"(?P<v1>.+?)\.?$"
    r"|@+'s? (" + _WORDS + r") (?:is|are) (?P<v2>.+?)\.?$"
    r"|^for @+, the (" + _WORDS + r") (?:is|are) (?P<v3>.+?)\.?$"
    r"|^(" + _WORDS + r"): (?P<v4>.+?)\.?$", re.I)
ROOM_PRICE = re.compile(r"\b(single|double|family) rooms? (?:at @+ |there )?(?:costs?|is|are)(?: about)? "
                        r"(?:£ ?)?(\d+(?:\.\d\d)?)(?: pounds)?", re.I)
LEAVES = re.compile(r"\b(?:leav\w*|depart\w*)(?: \w+){0,2}? (?:at |after )?(\d\d?:\d\d)", re.I)
ARRIVES = re.compile(r"\b(?:arriv\w*|gets? in|reach\w*)(?: \w+){0,2}? (?:at |by |in )?(\d\d?:\d\d)", re.I)
DURATION = re.compile(r"\b(\d+) minutes\b", re.I)
UNKNOWN = re.compile(r"^(?:unknown|not known|not listed|not available|i don't know|i do not know)\b", re.I)
TAXI_CUE = re.compile(r"\b(?:taxi|driver|car|cab)\b", re.I)

Report = Callable[[str, str, str], None]  # (kind, what the reply says, what is true)


def norm(text: str) -> str:
    """Letters and digits, lower case, single spaces ("Hills Rd, Cambridge" → "hills rd cambridge")."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower().replace("&", " and ")))


class Rows:
    """DB look-ups of the audit's subjects."""

    def __init__(self, db: MultiwozDB) -> None:
        self.db = db

    def row(self, e: Entity | None) -> Mapping[str, object] | None:
        if e is None:
            return None
        if e.domain == "hospital":
            dept = self.db.find("hospital", e.id) if e.id else None
            return {**HOSPITAL, **(dept or {})}
        if e.domain == "police":
            rows = self.db.rows("police")
            return dict(rows[0]) if rows else None
        if e.domain == "train":
            trains = trains_by_id(self.db, e.id)
            return trains[0] if trains else None
        return self.db.find(e.domain, e.id)


def slot_answers(s: C.Sentence) -> list[tuple[str, str]]:
    """``(slot, value as written)`` of "the X is Y" answers in a sentence."""
    out = []
    for m in SLOT_ANSWER.finditer(s.masked):
        word = next(g for g in (m.group(1), m.group(3), m.group(5), m.group(7)) if g)
        span = next(i for i in ("v1", "v2", "v3", "v4") if m.group(i))
        value = s.text[m.start(span): m.end(span)].strip()
        out.append((SLOT_WORDS[word.lower()], value))
    return out


def check_value(slot: str, said: str, e: Entity, row: Mapping[str, object],
                train_rows: list[Mapping[str, object]],
                report: Report) -> bool:
    """One value said of ``e`` against its row; returns whether it was checkable (a fact)."""
    if slot in ("reference", "car"):
        return False  # references and taxis are checked against the bookings, not a row
    if slot == "trainID" and e.domain == "train":
        if not C.TRAIN_ID.search(said) or said.upper().replace(" ", "") != e.id:
            report("trainID", said, e.id)
        return True
    rows = train_rows if e.domain == "train" and train_rows else [row]
    key = {"price": "price", "phone": "phone"}.get(slot, slot)
    if e.domain == "hotel" and slot == "price":
        key = "pricerange"
    truths = [str(r.get(key, "")) for r in rows if r.get(key) not in (None, "")]
    if not truths:
        return False
    unknown = all(t in ("?", "") for t in truths)
    if UNKNOWN.match(said):
        if not unknown:
            report(slot, said, truths[0])
        return True
    if unknown:
        report(slot, said, "unknown")
        return True
    if slot in ("leaveAt", "arriveBy"):
        time = C.TIME.search(said)
        ok = time is not None and any(hhmm(time.group(0)) == hhmm(t) for t in truths)
    elif slot in ("phone", "postcode", "trainID"):
        ok = any(norm(said).replace(" ", "") == norm(t).replace(" ", "") for t in truths)
    elif slot in ("price", "entrance fee", "duration"):
        ok = any(_same_amount(said, t) for t in truths)
    elif slot == "stars":
        ok = any(norm(said).split()[:1] == [t] or (t == "0" and "unrated" in said.lower()) for t in truths)
    elif slot == "type":
        ok = any(norm(C.ATTRACTION_TYPES.get(said.lower(), C.HOTEL_TYPES.get(said.lower(), said))) == norm(t)
                 or norm(said) == norm(t) for t in truths)
    else:
        ok = any(norm(said) == norm(t) or (slot == "openhours" and norm(t) in norm(said)) for t in truths)
    if not ok:
        report(slot, said, truths[0])
    return True


def _same_amount(said: str, truth: str) -> bool:
    if norm(said) == norm(truth):
        return True
    a, b = C.MONEY.search(said) or re.search(r"(\d+(?:\.\d+)?)", said), re.search(r"(\d+(?:\.\d+)?)", truth)
    if "free" in said.lower() or "free" in truth.lower():
        return "free" in said.lower() and "free" in truth.lower()
    if not a or not b:
        return False
    x = next(g for g in a.groups() if g)
    return abs(float(x) - float(b.group(1))) < 0.005


def check_attributes(s: C.Sentence, e: Entity, row: Mapping[str, object], report: Report) -> int:
    """Area, price range, stars, food and type words said of a venue."""
    n = 0
    for slot, value in C.attributes(s.masked):
        if e.domain not in C.VENUES or (slot == "food" and e.domain != "restaurant") \
                or (slot == "stars" and e.domain != "hotel") \
                or (slot == "pricerange" and e.domain == "attraction"):
            continue
        if slot == "type" and ((e.domain == "hotel") != (value in ("hotel", "guesthouse"))
                               or e.domain == "restaurant"):
            continue
        truth = str(row.get(slot, "")).lower()
        n += 1
        if truth != value:
            report(slot, value, truth or "unknown")
    return n


def check_room_prices(s: C.Sentence, row: Mapping[str, object], report: Report) -> int:
    n = 0
    prices = json_object(row.get("price"))
    for m in ROOM_PRICE.finditer(s.masked):
        n += 1
        truth = prices.get(m.group(1).lower()) if prices else None
        if truth is None or abs(float(str(truth)) - float(m.group(2))) >= 0.005:
            report("room price", f"{m.group(1)} {m.group(2)}", f"{m.group(1)} {truth or 'unknown'}")
    return n


def check_train(s: C.Sentence, rows: list[Mapping[str, object]], report: Report,
                booked_people: int | None) -> int:
    """Times, journey time and price said of a train (``rows``: the rows with its id that fit)."""
    n = 0
    for pat, slot in ((LEAVES, "leaveAt"), (ARRIVES, "arriveBy")):
        for m in pat.finditer(s.masked):
            n += 1
            if not any(hhmm(m.group(1)) == hhmm(str(r[slot])) for r in rows):
                report(slot, m.group(1), str(rows[0][slot]))
    for m in DURATION.finditer(s.masked):
        n += 1
        if not any(str(r.get("duration", "")).startswith(m.group(1) + " ") for r in rows):
            report("duration", m.group(0), str(rows[0].get("duration")))
    for m in C.MONEY.finditer(s.masked):
        said = float(next(g for g in m.groups() if g))
        unit = [float(str(r["price"]).split()[0]) for r in rows if str(r.get("price", "")).split()]
        want = [u * booked_people for u in unit] if booked_people else unit
        n += 1
        if not any(abs(said - w) < 0.005 for w in want):
            report("price", m.group(0), f"{want[0]:.2f} pounds" if want else "unknown")
    return n


NOOFFER = re.compile(r"\b(?:couldn't find any|could not find any|there are no|nothing matches: no|"
                      r"i have no|we have no|no matches for)\s+(.+?)\.?$", re.I)
#: "no restaurants" said with nothing to narrow them: a claim that there are none at all
_BARE = re.compile(r"(?:restaurants|places to stay|hotels|guesthouses|attractions|trains)", re.I)
_RELAXED = r"(price range|star rating|area|type|food|parking|internet|name|day|departure time|arrival time)"
#: the one venue left when a constraint is dropped, worded by the dropped slot ("I do have one in the east
#: instead", "a 4-star one", "one without free parking"), in the order tried: slot → pattern of its value
_INSTEAD = (("area", r"one in the (north|south|east|west|centre)"),
            ("pricerange",
             r"one in the (cheap|moderate|expensive) price range|an? (cheap|moderate|expensive) one"),
            ("food", r"one (?:serving|that serves|with) ([a-z ]+?) (?:food|cuisine)"),
            ("stars", r"an? (\d)[- ]star (?:one|place|hotel|guesthouse)|one with (\d) stars?"),
            ("parking", r"one with(?:out)? free (parking)"),
            ("internet", r"one with(?:out)? free (wifi|internet)"),
            ("type", r"(?<=\bhave )an? ([a-z ]+?)"))
INSTEAD = tuple((slot, re.compile(r"\b(?:" + p + r")(?: instead| if)\b", re.I)) for slot, p in _INSTEAD)
RELAX = re.compile(r"\b(?:if you drop|without|if we change) the (?P<word>" + _RELAXED[1:-1] + r")\b"
                   r"|\bwith (?P<with>" + _RELAXED[1:-1] + r") (?P<values>[a-z0-9, -]+) instead\b"  # older
                   r"|\b(?:" + "|".join(p for _, p in _INSTEAD) + r")(?: instead| if)\b", re.I)
_RELAX_N = re.compile(r"\b(?:there (?:are|is)|there's|i do have|i have|i've got)\s+(\d+|one|an?)\b", re.I)
_EXAMPLES = re.compile(r"\((?:for example|e\.g\.|such as) (.+?)\)"
                       r"|\b(?:such as|e\.g\.|to) ([a-z0-9 ,-]+?)[.?]", re.I)
#: the words of the relaxed slot → the slot
_RELAXED_SLOTS = {"price range": "pricerange", "star rating": "stars"}


def relaxed(text: str) -> tuple[str, str] | None:
    """``(slot, values said)`` of a sentence offering what there is when one constraint is dropped ("If you
    drop the area, there are 3 (for example east)", "I do have one in the east instead"), or ``None``."""
    for slot, rx in INSTEAD:
        m = rx.search(text)
        if m:
            value = next(g for g in m.groups() if g)
            return slot, "" if slot in ("parking", "internet") else value
    m = RELAX.search(text)
    if m is None or not (m.group("word") or m.group("with")):
        return None
    word = (m.group("word") or m.group("with")).lower()
    e = _EXAMPLES.search(text)
    examples = m.group("values") or ((e.group(1) or e.group(2) or "") if e else "")
    return SLOT_WORDS.get(word) or _RELAXED_SLOTS.get(word, word), examples


_AMENITY = r"(?:free )?(?:parking|wifi|internet)"
#: amenities a "no such venues" sentence asks for or rules out: "with parking", "with free parking and free
#: wifi", "without free parking or free wifi"
_AMENITIES = re.compile(r"\b(with|without) (" + _AMENITY + r"(?:(?:,| and| or) " + _AMENITY + r")*)\b")


def describe(domain: str, text: str, stations: list[str]) -> dict[str, str]:
    """The constraints a "no such venues" sentence lists ("cheap 4-star guesthouses in the north with
    free parking and free wifi", "trains from Ely to Cambridge on monday leaving after 10:00")."""
    t = text.lower()
    cons: dict[str, str] = {}
    if domain == "train":
        for slot, pat in (("departure", r"\bfrom ([a-z ]+?)(?= to | on | leaving| arriving|$)"),
                          ("destination", r"\bto ([a-z ]+?)(?= on | leaving| arriving| from |$)"),
                          ("day", r"\bon (\w+day)\b"), ("leaveAt", r"leaving after (\d\d?:\d\d)"),
                          ("arriveBy", r"arriving by (\d\d?:\d\d)")):
            m = re.search(pat, t)
            if m and (slot not in ("departure", "destination") or m.group(1) in stations):
                cons[slot] = m.group(1)
        return cons
    m = re.search(r"\bin the (north|south|east|west|centre)\b", t)
    if m:
        cons["area"] = m.group(1)
    for m in _AMENITIES.finditer(t):  # "with free parking and free wifi", "... but without free wifi"
        for slot, word in (("parking", r"\bparking\b"), ("internet", r"\b(?:wifi|internet)\b")):
            if re.search(word, m.group(2)):
                cons[slot] = "yes" if m.group(1) == "with" else "no"
    m = re.search(r"\bcalled (.+?)(?= in the | with | without |$)", t)
    if m:
        cons["name"] = m.group(1)
    head = re.split(r"\b(?:in the|called|with|without)\b", t)[0].strip()
    words = head.split()
    if words and words[0] in ("cheap", "moderate", "expensive"):
        cons["pricerange"] = words.pop(0)
    if words and re.fullmatch(r"\d-star|unrated", words[0]):
        w = words.pop(0)
        cons["stars"] = "0" if w == "unrated" else w[0]
    noun = " ".join(words)
    for plural, slot, value in (("guesthouses", "type", "guesthouse"), ("hotels", "type", "hotel")):
        if domain == "hotel" and noun.endswith(plural):
            cons[slot] = value
    if domain == "restaurant":
        food = re.sub(r"\s*restaurants?$", "", noun).strip()
        if food:
            cons["food"] = food
    if domain == "attraction":
        kind = re.sub(r"s$", "", noun.replace("attractions", "").strip())
        if kind:
            cons["type"] = C.ATTRACTION_TYPES.get(kind, kind)
    return cons


def check_counts(s: C.Sentence, domain: str | None, cons: Mapping[str, str], db: MultiwozDB,
                 report: Report) -> int:
    """Counts of matching venues or trains, "no such ..." sentences and relaxed counts."""
    n = 0
    for m in C.COUNT.finditer(s.text):
        said, d = C.number(m.group(1)), C.noun_domain(m.group(2))
        d = d if d in ("restaurant", "hotel", "attraction", "train") else None
        if said is None or d is None:
            continue
        n += 1
        have = len(matching(db, d, {**(cons if d == domain else {})}))
        if said != have:
            report("count", m.group(0), f"{have} match {dict(cons) if d == domain else {}}")
    none = NOOFFER.search(s.text)
    if none and domain:
        stations = db.values("train", "departure")
        want = describe(domain, none.group(1), stations)
        if want or _BARE.fullmatch(none.group(1).strip()):
            n += 1
            have = len(matching(db, domain, want))
            if have:
                report("count", none.group(0), f"{have} match {want}")
    return n


def check_relax(s: C.Sentence, domain: str | None, cons: Mapping[str, str], db: MultiwozDB,
                report: Report) -> int:
    """A relaxed count ("without the area there are 3", "I do have one in the east instead") and the values
    it gives as examples, against the rows that meet every constraint in force but the dropped one."""
    said_slot = relaxed(s.text)
    k = _RELAX_N.search(s.text)
    if said_slot is None or not domain or not k:
        return 0
    slot, examples = said_slot
    rest = {k2: v for k2, v in cons.items() if k2 != slot}
    rows = matching(db, domain, rest)
    said = 1 if k.group(1).lower() in ("one", "a", "an") else int(k.group(1))
    if said != len(rows):
        report("count", s.text, f"{len(rows)} match {rest}")
    values = {str(r.get(slot, "")).lower() for r in rows}
    for v in re.split(r",\s*|\s+and\s+|\s+or\s+", examples.lower()):
        v = C.ATTRACTION_TYPES.get(v, v) if slot == "type" else v
        if v and v not in values and slot in ("area", "pricerange", "stars", "type", "food"):
            report(slot, v, f"one of {sorted(values)}")
    return 1
