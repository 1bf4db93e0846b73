"""Slot values that depend on the dialogue: places and references, "the same day as ...", don't-care answers
and requests."""

from __future__ import annotations

import re

from parley.engine.systems.mw import patterns as P
from parley.engine.systems.mw.frames import Builder, NluContext, slots_of
from parley.engine.systems.mw.lexicon import NameMention


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
    current = ctx.state.get(dom, {}).get("name") or ctx.offered.get(dom)
    # "the guesthouse" / "the museum" when the dialogue holds several venues of a domain: the one of that kind
    want = {"guesthouse": "guesthouse", "guest house": "guesthouse", "b and b": "guesthouse",
            "bed and breakfast": "guesthouse", "hotel": "hotel", "museum": "museum", "college": "college",
            "church": "architecture", "theatre": "theatre", "cinema": "cinema", "pool": "swimmingpool",
            "park": "park", "gallery": "museum", "club": "nightclub", "nightclub": "nightclub"}.get(kind)
    held = [n for d, n in ctx.bookings if d == dom] + list(ctx.offer_history.get(dom, ()))
    held += [current] if current else []
    if want and current and ctx.held.get(current, {}).get("type") != want:
        typed = [n for n in held if ctx.held.get(n, {}).get("type") == want]
        if typed:
            return typed[-1]
    return current


#: "the first one you said", "the second place you mentioned", "the previous one", "the other one": a venue
#: the system offered earlier, by its place in the list of offers (trains are left out: "the first train" is
#: the earliest)
_ORDINAL = re.compile(
    r"\bthe (?P<n>first|1st|second|2nd|third|3rd|previous|earlier|other|last|latest) "
    r"(?P<noun>one|place|option|suggestion|restaurant|hotel|guest ?house|attraction)s?"
    r"(?P<said> (?:that |which )?(?:you |u )?(?:said|mentioned|suggested|offered|recommended|named|gave|"
    r"told me(?: about)?|talked about))?\b")
_NTH = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "last": -1, "latest": -1}
_NOUN_DOMAIN = {"restaurant": "restaurant", "hotel": "hotel", "guesthouse": "hotel", "guest house": "hotel",
                "attraction": "attraction"}


def _fits(ctx: NluContext, dom: str, name: str) -> bool:
    """Whether a venue offered earlier meets the constraints the user has now."""
    have = ctx.held.get(name)
    want = {s: v for s, v in ctx.state.get(dom, {}).items() if s != "name" and not s.startswith("book_")
            and v != "dontcare"}
    return have is None or all(have[s] == v for s, v in want.items() if have.get(s))


def offered_earlier(t: str, holders: dict[str, NameMention], domain: str | None, ctx: NluContext,
                    b: Builder) -> bool:
    """A venue the system offered earlier, named by its place ("I'll take the first one you said"). "The
    other one" is the one before that still meets the user's constraints; with none, False is returned:
    the user asks for another one."""
    if holders:
        return True  # a venue named outright wins
    for m in _ORDINAL.finditer(t):
        dom = _NOUN_DOMAIN.get(m.group("noun")) or domain
        seen = ctx.offer_history.get(dom or "", ())
        n = m.group("n")
        if n in ("previous", "earlier", "other"):
            current = ctx.state.get(dom or "", {}).get("name") or ctx.offered.get(dom or "")
            before = [v for v in seen if v != current and _fits(ctx, dom or "", v)]
            value = before[-1] if before and len(seen) >= 2 else None
            if value is None and seen:
                return False
        elif n in ("last", "latest") and not m.group("said"):
            value = None  # "the last one" alone is too vague ("the last one was too far")
        else:
            i = _NTH[n]
            value = seen[i] if -len(seen) <= i < len(seen) and (len(seen) >= 2 or m.group("said")) else None
        if value:
            b.add(dom, "name", value, m.start())
            return True
    return True


_STATION = re.compile(r"(?<!police )\b(?:the )?(?:(?:train|railway|rail) )?station\b")


def places(tn: str, t: str, holders: dict[str, NameMention], where: dict[str, int], domain: str | None,
            ctx: NluContext, b: Builder, taxi_ctx: bool) -> None:
    """Venue names, stations and references ("the hotel", "there") as names, departures or destinations."""
    places: list[tuple[int, int, str, NameMention | None]] = []  # (start, priority, value, mention)
    pair: tuple[str, str] | None = None  # "between the two places": the two venues
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
        if not holders and re.search(r"\bbetween (?:the |these |those |both |my |our )?(?:(?:2|"
                                     r"two) )?(?:places?|locations?|venues?|spots?|sites?)\b|"
                                     r"\bbetween (?:them|both|the (?:2|two))\b|\bboth places\b", tn):
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
                pair = (last[1], first[1])
        for m in _STATION.finditer(tn):  # "from the train station": Cambridge's, unless a station is named
            if not re.search(r"NAME\dX\s*$", tn[: m.start()]):
                places.append((m.start(), m.start(), "cambridge", None))
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
                b.add("train", "departure" if frm and (not to or frm.start() > to.start()) else "destination",
                      value, start)
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
            have = {**ctx.state.get(travel, {}), **{s: v for (d, s),
                                                    (_, v) in b.items.items() if d == travel}}
            if asked:
                slot = asked[0]
            elif have.get("departure") and not have.get("destination"):
                slot = "destination"
            elif have.get("destination") and not have.get("departure"):
                slot = "departure"
            else:
                slot = "departure" if travel == "train" and value != "cambridge" else "destination"
        b.add(travel, slot, value, prio)
    ends = (b.items.get(("taxi", "departure"), (0, ""))[1], b.items.get(("taxi", "destination"), (0, ""))[1])
    if pair and ends[0] == ends[1] and ends[0] in pair:
        # "between the two places so I get to the restaurant": one end named, the other is the other place
        b.add("taxi", "departure", pair[1] if ends[0] == pair[0] else pair[0], 10**6)

_SAME = re.compile(r"\b(?:same|that|(?:my|our|the) (?:entire|whole)|all (?:of )?(?:my|our|the)) (day|night|"
                   r"area|part of town|side of town|section of town|section|location|neighbou?rhood|vicinity"
                   r"|price ?range|price|group|party|number of people|amount of people"
                   r"|people|number|time)\b")
_SAME_SLOTS = {"day": ("day", "book_day"), "night": ("day", "book_day"), "area": ("area",),
               "part of town": ("area",), "side of town": ("area",),
               "section of town": ("area",), "section": ("area",), "location": ("area",),
               "neighborhood": ("area",), "neighbourhood": ("area",), "vicinity": ("area",),
               "price range": ("pricerange",), "pricerange": ("pricerange",), "price": ("pricerange",),
               "group": ("book_people",), "party": ("book_people",), "number of people": ("book_people",),
               "amount of people": ("book_people",), "people": ("book_people",), "number": ("book_people",),
               "time": ("book_time", "leaveAt", "arriveBy")}


_NEAR = re.compile(r"\b(?:near|close to|nearby|next to|not far from|walking distance (?:of|from|to)|around)"
                   r" (?:(?:the|my|our|that) (restaurant|hotel|guest ?house|attraction|museum|college|church|"
                   r"theatre|cinema|park|pool|club|nightclub|gallery|place)|it|there|them)\b")


#: "in time for my reservation", "by the booked time": the restaurant's booking time
_FOR_BOOKING = re.compile(r"\b(?:(?:in time )?for|before|by|at) (?:my|our|the|that) (?:reservations?|"
                          r"bookings?|table|booked time|booking time|reservation time|dinner reservation)\b"
                          r"|\b(?:get|be|arrive)\w* (?:to|at|there)(?: the restaurant)? (?:in|on) time\b")


def same(plain: str, domain: str | None, ctx: NluContext, b: Builder) -> None:
    """"the same day / area / group as before": copy the value from another domain of the state; "near the
    restaurant": the area of that venue; a taxi "in time for my reservation": arriving by the booked time."""
    if domain is None:
        return
    booked = ctx.state.get("restaurant", {}).get("book_time")
    m = _FOR_BOOKING.search(plain)
    if domain == "taxi" and booked and m and not any(s in ("arriveBy", "leaveAt") for _, s in b.items):
        b.add("taxi", "arriveBy", booked, m.start())
    m = _NEAR.search(plain)
    if m and "area" in slots_of(domain) and not any(s == "area" for _, s in b.items):
        if m.group(1) is None:  # "near it": the venue talked about until now
            other = ctx.active_domain or ""
        else:
            ref = m.group(1).replace(" ", "")
            other = {"restaurant": "restaurant", "hotel": "hotel", "guesthouse": "hotel"}.get(ref,
                                                                                              "attraction")
        area = ctx.venues.get(other, {}).get("area") or ctx.state.get(other, {}).get("area")
        if other != domain and area and area != "dontcare":
            b.add(domain, "area", area, m.start())
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
                if target not in slots_of(domain) or (domain, target) in b.items:
                    continue
                b.add(domain, target, slots[src], m.start())


def dontcare(plain: str, domain: str | None, ctx: NluContext, b: Builder) -> None:
    """Don't-care answers, for the slots named near them or the slot the system just asked for."""
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
        if re.search(r"\b" + word, span) and s not in slots_named:  # "star", not the "star" of "starting"
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


_HOW_MANY = re.compile(r"\bhow many (?:trains|restaurants|hotels|places|guest ?houses|attractions|options|"
                       r"colleges|museums|of them|are there|choices|matches)\b")
_ROOM_PRICE = re.compile(r"\b(?:how much|cost|costs|a night|per night|rooms?|rates?)\b")
_RESERVATIONS = re.compile(r"\b(?:take|takes|accept|accepts|do|does) (?:reservations?|bookings?)\b")


def requests_in(plain: str, raw: str, domain: str | None, intents: tuple[str, ...],
              ctx: NluContext) -> tuple[tuple[str, str], ...]:
    """Attributes the user asks for, as ``(domain, slot)``."""
    if not (P.REQUEST_CUE.search(plain) or "?" in raw or P.QUESTION_START.search(plain)):
        return ()
    out: list[tuple[str, str]] = []
    d = domain or ctx.active_domain or ""
    for pat, slot in P.REQUESTS:
        if not pat.search(plain):
            continue
        s = slot
        if slot == "price" and d == "hotel" and _ROOM_PRICE.search(plain):  # "how much is a double room?"
            for kind in dict.fromkeys(re.findall(r"\b(single|double|family)\b", plain)) or [""]:
                out.append(("hotel", f"price {kind}".strip()))
            continue
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
    if _HOW_MANY.search(plain) and d in ("restaurant", "hotel", "attraction", "train"):
        out.append((d, "choice"))  # "how many trains are there?"
    if _RESERVATIONS.search(plain) and d in ("restaurant", "hotel", "attraction"):
        out.append((d, "takesbookings"))  # "do they take reservations?"
    # "do they have free parking / wifi?" asked about a venue already on the table
    if re.match(r"^(do|does|is|are|has|have|will|can)\b", plain) and d == "hotel" and (
            ctx.offered.get("hotel") or ctx.state.get("hotel", {}).get("name")):
        for word, slot in (("parking", "parking"), ("wifi", "internet"), ("internet", "internet")):
            if word in plain:
                out.append(("hotel", slot))
    return tuple(out)
