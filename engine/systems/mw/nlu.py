"""Rule NLU: domain, intents, slot values and requests of one user utterance, resolved in dialogue context.

:func:`parse` cleans the text, finds venue names and stations (:mod:`lexicon`), masks them, turns number words
into digits, then reads categorical values, counts, days and times with the patterns of :mod:`patterns`. Each
value is assigned to a domain slot using the cue words around it and the context (active domain, the slot the
system asked for last, the venues already in the state).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.mwdb import BOOKABLE, INFORMABLE
from engine.systems.mw import patterns as P
from engine.systems.mw.lexicon import Lexicon, NameMention
from engine.systems.mw.normalise import clean, find_times, fix_typos, words_to_numbers

PRIMARY = ("taxi", "train", "police", "hospital")


@dataclass(frozen=True)
class NluContext:
    """What the NLU may know about the dialogue so far."""

    active_domain: str | None = None
    sys_requested: tuple[str, ...] = ()  # slots the system asked for last turn ("leaveAt", "book_people", ...)
    state: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    offered: Mapping[str, str] = field(default_factory=dict)
    offer_domain: str | None = None  # the domain of the offer / booking question the system just made
    venues: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # attributes of offered/named venues


@dataclass(frozen=True)
class NluResult:
    """What one user utterance says: ``inform`` as ``(domain, slot, value)``, ``requests`` as ``(domain, slot)``."""

    text: str
    domain: str | None
    domains: tuple[str, ...] = ()
    intents: tuple[str, ...] = ()
    inform: tuple[tuple[str, str, str], ...] = ()
    requests: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "domain": self.domain, "domains": list(self.domains), "intents": list(self.intents),
                "inform": [list(x) for x in self.inform], "requests": [list(x) for x in self.requests]}


def _slots(domain: str) -> tuple[str, ...]:
    return INFORMABLE.get(domain, ()) + BOOKABLE.get(domain, ())


class _Builder:
    """Collects informs with a position so later mentions of a slot win (corrections: "north, no, east")."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], tuple[int, str]] = {}

    def add(self, domain: str | None, slot: str, value: str, pos: int) -> None:
        if domain is None or slot not in _slots(domain):
            return
        key = (domain, slot)
        if key not in self.items or self.items[key][0] <= pos:
            self.items[key] = (pos, value)

    def result(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((d, s, v) for (d, s), (_, v) in sorted(self.items.items(), key=lambda kv: kv[1][0]))


def _domain_for(slot: str, primary: str | None, mentioned: list[str], ctx: NluContext) -> str | None:
    """The domain a slot value most likely belongs to."""
    order = [d for d in [primary, *mentioned, ctx.active_domain] if d]
    for d in order:
        if slot in _slots(d):
            return d
    defaults = {"food": "restaurant", "stars": "hotel", "parking": "hotel", "internet": "hotel", "book_stay": "hotel",
                "pricerange": "restaurant", "area": "restaurant", "book_time": "restaurant",
                "book_day": "restaurant", "book_people": "restaurant", "day": "train", "leaveAt": "train",
                "arriveBy": "train", "departure": "train", "destination": "train", "type": "attraction",
                "department": "hospital"}
    return defaults.get(slot) if not order else None


def parse(text: str, ctx: NluContext, lex: Lexicon) -> NluResult:
    """Understand one user utterance in context (never raises)."""
    t = clean(text)
    if not t:
        return NluResult(text="", domain=ctx.active_domain, intents=("empty",))
    names = lex.find_names(t)
    # mask names with placeholders so number words inside names ("restaurant two two") stay untouched
    masked, holders = t, {}
    for i, nm in reversed(list(enumerate(names))):
        key = f"NAME{i}X"
        holders[key] = nm
        masked = masked[: nm.start] + key + masked[nm.end:]
    tn = words_to_numbers(fix_typos(masked))
    where = {k: tn.find(k) for k in holders}
    plain = re.sub(r"NAME\dX", " ", tn)  # text without names, for keyword matching

    intents = _intents(t)
    # domains mentioned, by position
    mentions: list[tuple[int, str]] = []
    # "the same day as the hotel", "near the restaurant": references, not new requests for those domains
    scan = re.sub(r"\b(?:as|near|close to|nearby|next to|around|than) (?:the|my|our|that) \w+(?: booking| reservation)?"
                  r"|\b(?:the|my|our) (?:restaurant|hotel|train|taxi) (?:reservation|booking)",
                  lambda m: " " * len(m.group(0)), plain)
    if ctx.active_domain == "taxi" or P.DOMAIN_WORDS["taxi"].search(plain):
        # "from the hotel to the museum": references to venues, not new requests for those domains
        scan = P.REF_RE.sub(lambda m: " " * len(m.group(0)), scan)
    for dom, pat in P.DOMAIN_WORDS.items():
        for m in pat.finditer(scan):
            mentions.append((m.start(), dom))
    taxi_ctx = any(d == "taxi" for _, d in mentions) or (ctx.active_domain == "taxi" and not any(
        d in ("train", "restaurant", "hotel", "attraction") for _, d in mentions))
    for key, nm in holders.items():
        if nm.domain == "department":
            mentions.append((where[key], "hospital"))
        elif nm.domain == "station":
            cued = bool(re.search(r"\b(from|leav\w*|depart\w*|arriv\w* (in|at)|going to|go to|get to|travel\w* to"
                                  r"|heading to|train to)\s+$", tn[:where[key]]))
            if (nm.value != "cambridge" or cued or any(d == "train" for _, d in mentions)) and not taxi_ctx:
                mentions.append((where[key], "train"))
        elif not taxi_ctx:
            mentions.append((where[key], nm.domain))
    mentions.sort()
    mentioned = list(dict.fromkeys(d for _, d in mentions))
    if "taxi" in mentioned:
        primary: str | None = "taxi"
    elif "affirm" in intents and ctx.offer_domain and ctx.offer_domain == ctx.active_domain and (
            "book" in intents or re.search(r"\b\d+ people\b|\d:\d\d", tn)) and not re.search(
            r"\b(also|as well|another|too|looking for|need an?)\b", plain):
        primary = ctx.active_domain  # "yes please, ... (and something about the train)": still the offer
    else:
        # a domain the user brings up now wins over the one already being talked about
        fresh = [d for d in mentioned if d != ctx.active_domain]
        primary = fresh[0] if fresh else (mentioned[0] if mentioned else None)
    if primary is None and FOOD_ONLY.search(plain):
        primary = "restaurant"
    domain = primary or ctx.active_domain
    b = _Builder()
    _categorical(plain, domain, mentioned, ctx, b)
    _counts(plain, domain, mentioned, ctx, b)
    _times(tn, domain, mentioned, ctx, b, intents)
    _places(tn, t, holders, where, domain, ctx, b, taxi_ctx)
    _same(plain, domain, ctx, b)
    _dontcare(plain, domain, ctx, b)
    requests = _requests(plain, text, domain, intents, ctx)
    if requests and "request" not in intents:
        intents = (*intents, "request")
    return NluResult(text=t, domain=domain, domains=tuple(mentioned), intents=intents, inform=b.result(),
                     requests=requests)


FOOD_ONLY = re.compile(r"\b(food|cuisine|restaurant)\b")


def _intents(t: str) -> tuple[str, ...]:
    out = []
    checks = [("greet", P.GREET_RE), ("thanks", P.THANKS_RE), ("bye", P.BYE_RE), ("affirm", P.AFFIRM_RE),
              ("negate", P.NEGATE_RE), ("book", P.BOOK_RE), ("nobook", P.NOBOOK_RE), ("reqalts", P.REQALTS_RE),
              ("recommend", P.RECOMMEND_RE), ("correct", P.CORRECT_RE)]
    for name, pat in checks:
        if pat.search(t):
            out.append(name)
    if "nobook" in out and "book" in out:
        out.remove("book")
    if "bye" in out and re.search(r"\bno thank", t) and not P.BYE_RE.search(re.sub(r"\bno thank(s| you)", "", t)) \
            and len(t.split()) > 5:
        out.remove("bye")  # "no thanks, I don't want to book": a refusal, not a goodbye
    if "bye" in out and "negate" in out and len(t.split()) <= 6:
        out.remove("negate")
    return tuple(out)


def _categorical(plain: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: _Builder) -> None:
    for m in P.FOOD_RE.finditer(plain):
        word = m.group(1)
        if word in ("world", "traditional", "unusual", "creative", "christmas", "fish", "english", "curry",
                    "pizza", "noodles", "sushi") and not re.search(r"\b(food|cuisine|restaurant|place|serves?)\b",
                                                                   plain):
            continue
        b.add("restaurant", "food", P.FOODS[word], m.start())
    for m in P.AREA_RE.finditer(plain):
        val = P.AREAS.get(m.group(1), m.group(1))
        after = plain[m.end(): m.end() + 12]
        if re.match(r"\s*(bound|street|road|american|indian|african|european)", after):
            continue
        b.add(_domain_for("area", domain, mentioned, ctx), "area", val, m.start())
    for m in P.PRICE_RE.finditer(plain):
        if re.search(r"\bhow $", plain[: m.start()]):
            continue  # "how expensive is it?" asks
        d = _domain_for("pricerange", domain if domain in ("restaurant", "hotel") else None,
                        [x for x in mentioned if x in ("restaurant", "hotel")], ctx)
        b.add(d, "pricerange", P.price_value(m.group(1)), m.start())
    for m in P.STARS_RE.finditer(plain):
        val = next((g for g in m.groups() if g), "0")
        b.add("hotel", "stars", val, m.start())
    for m in P.PARKING_RE.finditer(plain):
        before = plain[max(0, m.start() - 40): m.start()]
        neg = _negated(before)
        if re.search(r"(doesn't|does not|don't|do not) (matter|care|mind|need to (include|have)|have to (include|have))"
                     r"|not (important|needed|necessary)|either way",
                     plain[max(0, m.start() - 40): m.end() + 30]):
            b.add("hotel", "parking", "dontcare", m.start())
        else:
            b.add("hotel", "parking", "no" if neg else "yes", m.start())
    for m in P.INTERNET_RE.finditer(plain):
        before = plain[max(0, m.start() - 40): m.start()]
        neg = _negated(before)
        if re.search(r"(doesn't|does not|don't|do not) (matter|care|mind|need to (include|have)|have to (include|have))"
                     r"|not (important|needed|necessary)|either way",
                     plain[max(0, m.start() - 40): m.end() + 30]):
            b.add("hotel", "internet", "dontcare", m.start())
        else:
            b.add("hotel", "internet", "no" if neg else "yes", m.start())
    for m in re.finditer(r"\b(guest ?houses?|bed and breakfasts?|b and b)\b", plain):
        if not re.search(r"\b(not|no|rather than|instead of)( an?)?\s+$", plain[: m.start()]):
            b.add("hotel", "type", "guesthouse", m.start())
    if domain == "hotel" or "hotel" in mentioned:
        for m in re.finditer(r"\b((should|must|needs? to|has to|would like it to|prefer(ably)?|rather) be an? hotel"
                             r"|hotel rather than|hotel instead|not an? guest ?house|proper hotel|actual hotel"
                             r"|hotel not an? guest|type of hotel|hotel type)\b", plain):
            b.add("hotel", "type", "hotel", m.start())
    if domain == "attraction" or "attraction" in mentioned or domain is None:
        for m in P.ATYPE_RE.finditer(plain):
            word = m.group(1)
            if word in ("park", "parks") and re.match(r"\s*(my car|the car|ing)", plain[m.end():]):
                continue
            if word in ("pool", "pools", "club", "clubs", "sports", "concert", "swimming") and domain not in (
                    "attraction", None):
                continue
            b.add("attraction", "type", P.ATTRACTION_TYPES[word], m.start())
    for m in P.DAY_RE.finditer(plain):
        d = domain if domain in ("train", "restaurant", "hotel") else None
        d = d or next((x for x in mentioned if x in ("train", "restaurant", "hotel")), None)
        d = d or _domain_for("day", None, [], ctx) or _domain_for("book_day", None, [], ctx)
        if d == "train":
            b.add("train", "day", m.group(1), m.start())
        elif d in ("restaurant", "hotel"):
            b.add(d, "book_day", m.group(1), m.start())


_RANGE = re.compile(r"\bfrom (" + "|".join(P.DAYS) + r") (?:through|to|until|till|thru) (" + "|".join(P.DAYS) + r")\b")


def _negated(before: str) -> bool:
    """Is the amenity named right after ``before`` negated ("doesn't need parking", not "no, I need parking")?"""
    m = P.NEG_BEFORE.search(before)
    if not m:
        return False
    # "no, I just need free parking": that "no" answers something else
    return not (m.group(1) == "no" and re.match(r"no\s+(i|we|but|just|only|it|actually)\b", before[m.start():]))


def _counts(plain: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: _Builder) -> None:
    used: set[int] = set()
    m = _RANGE.search(plain)
    if m and (domain == "hotel" or "hotel" in mentioned):  # "from tuesday through thursday": 2 nights
        nights = (P.DAYS.index(m.group(2)) - P.DAYS.index(m.group(1))) % 7 or 7
        b.add("hotel", "book_day", m.group(1), m.end())
        b.add("hotel", "book_stay", str(nights), m.end())
    for m in P.STAY_RE.finditer(plain):
        val = m.group(1) or m.group(2)
        if domain in ("train", "taxi", "restaurant") and "hotel" not in mentioned:
            continue
        b.add("hotel", "book_stay", str(int(val)), m.start())
        used.add(m.start())
    for m in P.PEOPLE_RE.finditer(plain):
        val = next(g for g in m.groups() if g)
        if int(val) == 0 or int(val) > 30:
            continue
        bare_for = m.group(3) is not None
        if bare_for and domain not in ("restaurant", "hotel", "train"):
            continue
        d = _domain_for("book_people", domain, mentioned, ctx)
        b.add(d, "book_people", str(int(val)), m.start())
        used.add(m.start())
    if ctx.sys_requested and not b.items:
        want = [s for s in ctx.sys_requested if s in ("book_people", "book_stay", "stars")]
        nums = [m for m in P.BARE_NUM_RE.finditer(plain) if m.start() not in used]
        if want and len(nums) == 1:
            slot = want[0]
            d = "hotel" if slot in ("book_stay", "stars") else _domain_for(slot, domain, mentioned, ctx)
            b.add(d, slot, str(int(nums[0].group(1))), nums[0].start())


def _times(tn: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: _Builder,
           intents: tuple[str, ...]) -> None:
    for tm in find_times(tn):
        before = tn[max(0, tm.start - 40): tm.start]
        arrive = P.TIME_CUES_ARRIVE.search(before)
        leave = P.TIME_CUES_LEAVE.search(before)
        cue = None
        if arrive and leave:
            cue = "arrive" if arrive.start() > leave.start() and arrive.group(1) not in (
                "by", "before", "until", "till") else "leave"
        elif arrive:
            cue = "arrive"
        elif leave:
            cue = "leave"
        d = domain
        if d not in ("train", "taxi", "restaurant"):
            d = next((x for x in mentioned if x in ("train", "taxi", "restaurant")), None) or (
                "restaurant" if P.TIME_CUES_BOOK.search(tn) and d != "hotel" else ctx.active_domain)
        if d == "restaurant":
            if cue == "leave" and re.search(r"\b(after|from)\W*$", before) and "book" not in intents:
                continue
            b.add("restaurant", "book_time", tm.value, tm.start)
            continue
        if d not in ("train", "taxi"):
            if "book_time" in ctx.sys_requested:
                b.add("restaurant", "book_time", tm.value, tm.start)
            continue
        if cue is None:
            asked = [s for s in ctx.sys_requested if s in ("leaveAt", "arriveBy")]
            slot = asked[0] if asked else "leaveAt"
        else:
            slot = "arriveBy" if cue == "arrive" else "leaveAt"
        b.add(d, slot, tm.value, tm.start)


def _ref_name(kind: str, ctx: NluContext) -> str | None:
    if kind in ("place", "venue", "there", "here"):
        # "from there": the venue of the domain being talked about, else the last one named
        doms = [ctx.active_domain] if ctx.active_domain in ("restaurant", "hotel", "attraction") else []
        doms += [d for d in ("restaurant", "attraction", "hotel") if d not in doms]
        for dom in doms:
            val = ctx.state.get(dom, {}).get("name") or ctx.offered.get(dom)
            if val:
                return val
        return None
    dom = P.REF_DOMAIN.get(kind, "attraction")
    return ctx.state.get(dom, {}).get("name") or ctx.offered.get(dom)


def _places(tn: str, t: str, holders: dict[str, NameMention], where: dict[str, int], domain: str | None,
            ctx: NluContext, b: _Builder, taxi_ctx: bool) -> None:
    places: list[tuple[int, int, str, NameMention | None]] = []  # (start, priority, value, mention)
    for key, mention in holders.items():
        if mention.domain == "department":
            b.add("hospital", "department", mention.value, where[key])
            continue
        places.append((where[key], where[key], mention.value, mention))
    if taxi_ctx:
        for m in P.REF_RE.finditer(tn):
            val = _ref_name(m.group(1), ctx)
            if val:
                places.append((m.start(), m.start(), val, None))
        if not holders and re.search(r"\bbetween (?:the|these|those) (?:2|two)(?: places| locations| venues)?\b"
                                     r"|\bbetween them\b", tn):
            # "a taxi between the two places": from the venue being talked about to the other one
            named: list[tuple[str, str]] = []
            for d in ("restaurant", "hotel", "attraction"):
                v = ctx.state.get(d, {}).get("name") or ctx.offered.get(d)
                if v:
                    named.append((d, v))
            if len(named) >= 2:
                last = next((x for x in named if x[0] == ctx.active_domain), named[-1])
                first = next(x for x in named if x != last)
                b.add("taxi", "departure", last[1], 0)
                b.add("taxi", "destination", first[1], 1)
        for m in re.finditer(r"\b(?:from|to|get|leave|leaving) (there|here)\b", tn):
            val = _ref_name(m.group(1), ctx)
            if val:  # position 0: any place named explicitly in the same turn wins
                places.append((m.start(1), -1, val, None))
    places.sort()
    travel = "taxi" if taxi_ctx else ("train" if domain == "train" else None)
    for start, prio, value, nm in places:
        before = tn[max(0, start - 45): start]
        frm = P.PLACE_FROM.search(before)
        to = P.PLACE_TO.search(before)
        is_station = nm is not None and nm.domain == "station"
        if travel == "train" and not is_station:
            if nm is not None:
                b.add(nm.domain, "name", nm.value, start)
            continue
        if travel is None:
            if nm is not None and not is_station:
                b.add(nm.domain, "name", nm.value, start)
            elif is_station and (frm or to) and (value != "cambridge" or domain == "train"):
                b.add("train", "departure" if frm and (not to or frm.start() > to.start()) else "destination", value,
                      start)
            continue
        if frm and to:
            slot = "departure" if frm.start() > to.start() else "destination"
        elif frm and not re.search(r"\bat\s+(?:the\s+)?$", before):
            slot = "departure"
        elif to:
            slot = "destination"
        elif frm:  # "at X" in a taxi context: a pick-up point
            slot = "departure"
        else:
            asked = [s for s in ctx.sys_requested if s in ("departure", "destination")]
            have = {**ctx.state.get(travel, {}), **{s: v for (d, s), (_, v) in b.items.items() if d == travel}}
            if asked:
                slot = asked[0]
            elif have.get("departure") and not have.get("destination"):
                slot = "destination"
            elif have.get("destination") and not have.get("departure"):
                slot = "departure"
            else:
                slot = "departure" if travel == "train" and value != "cambridge" else "destination"
        b.add(travel, slot, value, prio)


_SAME = re.compile(r"\b(?:same|that) (day|night|area|part of town|side of town|price ?range|price|group|party"
                   r"|number of people|amount of people|people|number|time)\b")
_SAME_SLOTS = {"day": ("day", "book_day"), "night": ("day", "book_day"), "area": ("area",),
               "part of town": ("area",), "side of town": ("area",), "price range": ("pricerange",),
               "pricerange": ("pricerange",), "price": ("pricerange",), "group": ("book_people",),
               "party": ("book_people",), "number of people": ("book_people",), "amount of people": ("book_people",),
               "people": ("book_people",), "number": ("book_people",), "time": ("book_time", "leaveAt", "arriveBy")}


def _same(plain: str, domain: str | None, ctx: NluContext, b: _Builder) -> None:
    """"the same day / area / group as before": copy the value from another domain of the state."""
    if domain is None:
        return
    for m in _SAME.finditer(plain):
        what = m.group(1)
        if what is None:
            continue
        for src in _SAME_SLOTS.get(what, ()):
            sources = list(ctx.state.items()) + [(d, v) for d, v in ctx.venues.items()]
            for other, slots in sources:
                if other == domain or src not in slots or slots[src] == "dontcare":
                    continue
                target = src
                if src in ("day", "book_day"):
                    target = "day" if domain == "train" else "book_day"
                if target not in _slots(domain) or (domain, target) in b.items:
                    continue
                b.add(domain, target, slots[src], m.start())


def _dontcare(plain: str, domain: str | None, ctx: NluContext, b: _Builder) -> None:
    m = P.DONTCARE_RE.search(plain)
    if not m:
        # "no" to "do you have a preference for the area?"
        asked = [s for s in ctx.sys_requested if s not in ("pref", "book") and not s.startswith("book_")]
        if "pref" in ctx.sys_requested and asked and domain and P.NEGATE_RE.search(plain) and not any(
                d == domain and s == asked[0] for d, s in b.items) and not b.items:
            b.add(domain, asked[0], "dontcare", 0)
        return
    span = plain[max(0, m.start() - 30): m.end() + 30]
    slot = None
    slots_named: list[str] = []
    for word, s in (("area", "area"), ("part of town", "area"), ("location", "area"), ("where", "area"),
                    ("price", "pricerange"), ("cost", "pricerange"), ("food", "food"), ("cuisine", "food"),
                    ("star", "stars"), ("type", "type"), ("kind", "type"), ("parking", "parking"),
                    ("internet", "internet"), ("wifi", "internet"), ("time", "leaveAt"), ("leave", "leaveAt"),
                    ("arrive", "arriveBy"), ("day", "day"), ("name", "name")):
        if word in span and s not in slots_named:
            slots_named.append(s)
    slot = slots_named[0] if slots_named else None
    if slot is None:
        asked = [s for s in ctx.sys_requested if s not in ("pref", "book") and not s.startswith("book_")]
        slot = asked[0] if asked else None
    if slot is None or domain is None:
        return
    if slot == "type" and domain == "restaurant":
        slot = "food"
    for one in slots_named[1:3] if re.search(r"\b(or|and|nor)\b", span) else ():
        # "no specific area or price": every slot named
        one = "food" if one == "type" and domain == "restaurant" else one
        if not any(s == one and d == domain for d, s in b.items):
            b.add(domain, one, "dontcare", m.start())
    if any(s == slot and d == domain for d, s in b.items):
        return
    b.add(domain, slot, "dontcare", m.start())


def _requests(plain: str, raw: str, domain: str | None, intents: tuple[str, ...],
              ctx: NluContext) -> tuple[tuple[str, str], ...]:
    if not (P.REQUEST_CUE.search(plain) or "?" in raw or P.QUESTION_START.search(plain)):
        return ()
    out: list[tuple[str, str]] = []
    d = domain or ctx.active_domain or ""
    for pat, slot in P.REQUESTS:
        if not pat.search(plain):
            continue
        s = slot
        if slot == "price":
            s = {"train": "price", "attraction": "entrance fee", "restaurant": "pricerange",
                 "hotel": "pricerange"}.get(d, "price")
        if slot == "type" and d == "restaurant":
            s = "food"
        if slot in ("phone",) and d == "taxi":
            s = "phone"
        if slot == "car type" and d != "taxi":
            continue
        if slot in ("trainID", "duration", "arriveBy", "leaveAt") and d not in ("train", "taxi"):
            if slot in ("trainID", "duration"):
                d2 = "train"
                out.append((d2, s))
            continue
        if slot == "stars" and d != "hotel":
            continue
        if (d, s) not in out:
            out.append((d, s))
    # "do they have free parking / wifi?" asked about a venue already on the table
    if re.match(r"^(do|does|is|are|has|have|will|can)\b", plain) and d == "hotel" and (
            ctx.offered.get("hotel") or ctx.state.get("hotel", {}).get("name")):
        for word, slot in (("parking", "parking"), ("wifi", "internet"), ("internet", "internet")):
            if word in plain:
                out.append(("hotel", slot))
    return tuple(out)
