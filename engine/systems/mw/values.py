"""Slot values that need little context: categorical values, amenities, days, counts and clock times."""

from __future__ import annotations

import re
from datetime import date, timedelta

from parley.engine.systems.mw import patterns as P
from parley.engine.systems.mw.frames import Builder, NluContext, domain_for
from parley.engine.systems.mw.normalise import TimeMention, find_times

#: "parking doesn't matter", "wifi is not important", ... around an amenity mention
_DONTCARE_AMENITY = re.compile(
    r"(doesn't|does not|don't|do not) (really )?(matter|care|mind|need to (include|have)|have to (include|"
    r"have))|not (important|needed|necessary)|either way")

#: "west, not south", "rather than the north", "instead of cheap": the value after it is the one ruled out
_RULED_OUT = re.compile(r"\b(?:not|rather than|instead of|but not)(?: in| on)?(?: the| an?)? $")


def _ruled_out(plain: str, found: list[re.Match[str]], m: re.Match[str]) -> bool:
    """``m`` is negated and the sentence names another value of the same slot, which then wins."""
    return len({x.group(1) for x in found}) > 1 and bool(_RULED_OUT.search(plain[max(0, m.start() - 20):
                                                                                 m.start()]))


_CHEAPER = re.compile(r"\b(?:(?<!the )cheaper(?! (?:price|side|end|range|part))|less expensive|less pricey|"
                      r"less costly|more affordable|more reasonabl[ey](?: priced)?|lower[- ]priced|"
                      r"not as expensive|not so expensive)\b")
_DEARER = re.compile(r"\b(?:more expensive|pricier|more upscale|more upmarket|higher[- ]end|more luxurious|"
                     r"fancier|posher)\b")
_LEVELS = ("cheap", "moderate", "expensive")


def _comparative(plain: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: Builder
                 ) -> re.Match[str] | None:
    """"Anything cheaper?" after expensive ones: moderate (one level down); "something pricier": one up."""
    m = _CHEAPER.search(plain) or _DEARER.search(plain)
    if m is None:
        return None
    d = domain_for("pricerange", domain if domain in ("restaurant", "hotel") else None,
                   [x for x in mentioned if x in ("restaurant", "hotel")], ctx)
    now = ctx.state.get(d or "", {}).get("pricerange") or ctx.venues.get(d or "", {}).get("pricerange")
    if d is None or now not in _LEVELS:
        return None
    step = -1 if m.re is _CHEAPER else 1
    b.add(d, "pricerange", _LEVELS[max(0, min(2, _LEVELS.index(now) + step))], m.start())
    return m


def categorical(plain: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: Builder) -> None:
    """Food, area, price range, stars, parking, internet, hotel and attraction types, days."""
    foods = list(P.FOOD_RE.finditer(plain))
    for m in foods:
        word = m.group(1)
        if _ruled_out(plain, foods, m):
            continue
        if word in ("world", "traditional", "unusual", "creative", "christmas", "fish", "english", "curry",
                    "pizza", "noodles", "sushi") \
                and not re.search(r"\b(food|cuisine|restaurant|place|serves?)\b", plain):
            continue
        b.add("restaurant", "food", P.FOODS[word], m.start())
    areas = list(P.AREA_RE.finditer(plain))
    for m in areas:
        val = P.AREAS.get(m.group(1), m.group(1))
        after = plain[m.end(): m.end() + 12]
        if re.match(r"\s*(bound|street|road|american|indian|african|european)", after) \
                or _ruled_out(plain, areas, m):
            continue
        b.add(domain_for("area", domain, mentioned, ctx), "area", val, m.start())
    prices = list(P.PRICE_RE.finditer(plain))
    cmp = _comparative(plain, domain, mentioned, ctx, b)
    if cmp is not None:  # "anything cheaper?": the level below the one talked about, not "cheap"
        prices = [m for m in prices if m.end() <= cmp.start() or m.start() >= cmp.end()]
    strong = [m for m in prices if re.match(r"(cheap|moderate|expensive|inexpensive)", m.group(1))]
    for m in strong or prices:  # "moderate ..., I am on a budget": the price level named wins over the hint
        if re.search(r"\bhow $", plain[: m.start()]) or _ruled_out(plain, strong or prices, m):
            continue  # "how expensive is it?" asks
        d = domain_for("pricerange", domain if domain in ("restaurant", "hotel") else None,
                        [x for x in mentioned if x in ("restaurant", "hotel")], ctx)
        b.add(d, "pricerange", P.price_value(m.group(1)), m.start())
    for m in P.STARS_RE.finditer(plain):
        val = next((g for g in m.groups() if g), "0")
        b.add("hotel", "stars", val, m.start())
    for slot, regex in (("parking", P.PARKING_RE), ("internet", P.INTERNET_RE)):
        for m in regex.finditer(plain):
            # the words around this amenity, not across another one or a new clause ("... parking. I do not
            # care about internet" says nothing about the parking)
            before = re.split(r"\b(?:wifi|internet|parking|and|but|i|we)\b",
                              plain[max(0, m.start() - 40): m.start()])
            after = re.split(r"\b(?:wifi|internet|parking|and|but|i|we)\b", plain[m.end(): m.end() + 30])[0]
            if _DONTCARE_AMENITY.search(before[-1] + " " + m.group(0) + " " + after) or (
                    len(before) == 1 and _DONTCARE_AMENITY.search(before[0])):
                b.add("hotel", slot, "dontcare", m.start())
            else:
                near = plain[max(0, m.start() - 40): m.start()]
                # "... doesn't have parking but has wifi": a negation before "but" / "I" is another clause's
                near = re.split(r"\b(?:but|however|though|although|whereas|i|we)\b", near)[-1]
                value = "yes"
                if negated(near):  # "I don't need parking" is no requirement; "one without parking" is
                    value = "dontcare" if re.search(r"\b(need|needs|require|necessary|"
                                                    r"bother)\w*\W+(?:\w+\W+){0,3}$",
                                                     near) else "no"
                b.add("hotel", slot, value, m.start())
    for m in re.finditer(r"\b(guest ?houses?|bed and breakfasts?|b and b)\b", plain):
        if re.search(r"\b(hotels? or (an? )?|either (an? )?(hotel )?(or )?(an? )?)$",
                     plain[: m.start()]) or re.match(
                r"\s*(or (an? )?(hotel|other|something else)|either)", plain[m.end():]):
            b.add("hotel", "type", "dontcare", m.start())  # "a hotel or a guesthouse, either is fine"
        elif not re.search(r"\b(not|no|rather than|instead of|don't (want|need|like)|do not (want|need|like)"
                           r"|doesn't have to be|without)( an?| any| to stay in an?)?\s+$",
                           plain[: m.start()]):
            b.add("hotel", "type", "guesthouse", m.start())
    if domain == "hotel" or "hotel" in mentioned:
        for m in re.finditer(r"\b(be an? hotel(?! or)|(?:it|that|which|and) is an? hotel(?! or)|"
                             r"hotel rather than|hotel instead|not an? guest ?(?:house|room)|"
                             r"(?:one|1) of the hotels|(?:make it|change (?:it|that) to|switch to) an? hotel|"
                             r"(?:proper|actual|regular|normal|real) hotel|(?:be|is) an? (?:hotel type|"
                             r"type of hotel)|and an? type of hotel|hotel for sure|hotel not an? guest|"
                             r"(any of (them|those)|go with|"
                             r"i'd rather have) an? hotel|(don't|do not) want an? guest ?house)\b", plain):
            if not re.search(r"\bguest ?house type of hotel\b", plain):
                b.add("hotel", "type", "hotel", m.start())
    if domain == "attraction" or "attraction" in mentioned or domain is None:
        for m in P.ATYPE_RE.finditer(plain):
            word = m.group(1)
            if word in ("park", "parks") and (re.match(r"\s*(my car|the car|our car|for free|ing)",
                                                       plain[m.end():])
                                              or re.search(r"\b(can|could|to) $", plain[: m.start()])):
                continue  # "somewhere I can park for free": the verb
            if word in ("pool", "pools", "club", "clubs", "sports", "concert", "swimming") and domain not in (
                    "attraction", None):
                continue
            b.add("attraction", "type", P.ATTRACTION_TYPES[word], m.start())
    days = [(m.group(1), m.start()) for m in P.DAY_RE.finditer(plain)] + relative_days(plain, ctx.today)
    for day, start in days:
        if len({x for x, _ in days}) > 1 and _RULED_OUT.search(plain[max(0, start - 20): start]):
            continue  # "sunday not saturday"
        d = domain if domain in ("train", "restaurant", "hotel") else None
        if re.search(r"\b(?:\d+ nights?|staying|stay)\b[\w ]{0,25}$", plain[:start]):
            d = "hotel"  # "... staying 5 nights starting wednesday. I also need a train": the stay's day
        d = d or next((x for x in mentioned if x in ("train", "restaurant", "hotel")), None)
        d = d or domain_for("day", None, [], ctx) or domain_for("book_day", None, [], ctx)
        if d == "train":
            b.add("train", "day", day, start)
        elif d in ("restaurant", "hotel"):
            b.add(d, "book_day", day, start)


_RELATIVE = re.compile(r"\b(?:(?:the )?day after (?P<two>tomorrow)|(?P<one>tomorrow)|(?P<zero>today|tonight|"
                       r"this (?:evening|afternoon|morning)))\b")
#: "that's all I need today", "thanks for your help today": "today" as a closing, not a day
_TODAY_CLOSING = re.compile(r"\b(?:need|needed|needing|all|help|helping|everything|will do|'ll do|done|set|"
                            r"that's it|that is it|for now|much)(?: \S+){0,2} $")


def relative_days(plain: str, today: date | None) -> list[tuple[str, int]]:
    """Weekdays of "today", "tonight", "tomorrow", "the day after tomorrow" counted from ``today``, with
    their positions; none without a date (a corpus dialogue has none)."""
    if today is None:
        return []
    out = []
    for m in _RELATIVE.finditer(plain):
        if m.group("zero") and _TODAY_CLOSING.search(plain[max(0, m.start() - 30): m.start()]):
            continue
        ahead = 2 if m.group("two") else 1 if m.group("one") else 0
        out.append((P.DAYS[(today + timedelta(days=ahead)).weekday()], m.start()))
    return out


_RANGE = re.compile(r"\b(?:from )?(" + "|".join(P.DAYS) + r")(?: night)? (?:through|to|until|till|thru) ("
                    + "|".join(P.DAYS) + r")\b")


def negated(before: str) -> bool:
    """Is the amenity named right after ``before`` negated ("doesn't need parking", not "no, I need
    parking")?"""
    m = P.NEG_BEFORE.search(before)
    if not m:
        return False
    # "no, I just need free parking": that "no" answers something else
    return not (m.group(1) == "no" and re.match(r"no\s+(i|we|but|just|only|it|actually)\b",
                                                before[m.start():]))


def counts(plain: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: Builder) -> None:
    """People, nights (also "from tuesday through thursday"), and bare numbers answering a system question."""
    used: set[int] = set()
    m = _RANGE.search(plain)
    if m and (domain == "hotel" or "hotel" in mentioned):  # "from tuesday through thursday": 2 nights
        nights = (P.DAYS.index(m.group(2)) - P.DAYS.index(m.group(1))) % 7 or 7
        b.add("hotel", "book_day", m.group(1), m.end())
        b.add("hotel", "book_stay", str(nights), m.end())
    for m in P.STAY_RE.finditer(plain):
        val = next(g for g in m.groups() if g)
        val = "1" if val == "single" else val
        if (domain in ("train", "taxi", "restaurant") and "hotel" not in mentioned) or int(val) == 0:
            continue
        b.add("hotel", "book_stay", str(int(val)), m.start())
        used.add(m.start())
    for m in P.PEOPLE_RE.finditer(plain):
        val = next(g for g in m.groups() if g)
        if int(val) == 0 or int(val) > 30:
            continue
        bare_for = m.group(3) is not None
        d = domain_for("book_people", domain, mentioned, ctx)
        if bare_for and domain not in ("restaurant", "hotel", "train"):
            # "book it for 2, and I also need a museum": the booking is the one being talked about
            if ctx.active_domain not in ("restaurant", "hotel", "train") or not re.search(
                    r"\b(?:book|reserve|reservation|table|tickets?|seats?)\b(?:\s+\S+){0,2}\s*$",
                    plain[: m.start()]):
                continue
            d = ctx.active_domain
        if re.search(r"\b(tickets?|seats?|passengers)\b", m.group(0)) and (
                ctx.active_domain == "train" or "train" in mentioned):
            d = "train"  # "yes, 5 tickets. I also need a hotel": the tickets are the train's
        b.add(d, "book_people", str(int(val)), m.start())
        used.add(m.start())
    party = _party_size(plain)
    if party is None and domain == "train" and "book_people" not in ctx.state.get("train", {}):
        m = _ONE_TICKET.search(plain)
        party = (1, m.end()) if m else None
    if party is not None and not any(s == "book_people" for _, s in b.items) and (
            domain in ("restaurant", "hotel", "train") or "book_people" in ctx.sys_requested):
        b.add(domain_for("book_people", domain, mentioned, ctx), "book_people", str(party[0]), party[1])
    if ctx.sys_requested and not b.items:
        want = [s for s in ctx.sys_requested if s in ("book_people", "book_stay", "stars")]
        nums = [m for m in P.BARE_NUM_RE.finditer(plain) if m.start() not in used
                and not _CLOCK_NUM.match(plain, m.end()) and not _CLOCK_BEFORE.search(plain[:m.start()])
                and not (m.group(1) == "1" and _PRONOUN_ONE.search(plain[:m.start()])) and int(m.group(1))]
        if want and (want[0] not in ("book_stay", "stars") or domain in (None, "hotel")) and len(nums) == 1:
            slot = want[0]  # (not "a taxi to the museum at 5 am" after "how many stars?")
            d = "hotel" if slot in ("book_stay", "stars") else domain_for(slot, domain, mentioned, ctx)
            b.add(d, slot, str(int(nums[0].group(1))), nums[0].start())


#: a number that is an hour: "5 am", "at 5", "quarter past 5"
_CLOCK_NUM = re.compile(r"\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|hrs?|h)\b")
_CLOCK_BEFORE = re.compile(r"\b(?:at|after|before|by|until|around|past|to)\s*$")
#: "one" as a pronoun: "another one", "that one", "a cheaper one"
_PRONOUN_ONE = re.compile(r"\b(?:another|that|this|the|which|any|other|different|new|a|an|\w+er)\s*$")
_OTHERS = (r"(?:friends?|companions?|colleagues?|co-?workers?|kids|children|sons|daughters|grandchildren|"
           r"family members|guests|buddies|mates|others|other (?:people|persons|guests|adults))")
#: the speaker plus N others: "coming with four of my friends", "three other people will be with me"
_PLUS_ONE = re.compile(
    r"\b(?:with|and|plus|bringing|me and|myself and|besides me) (?:my |our )?(\d{1,2}) (?:of (?:my|our) )?"
    + _OTHERS + r"|\b(\d{1,2}) other (?:people|persons|guests|adults)\b|\b(?:my|our) (\d{1,2}) " + _OTHERS
    + r"(?= and (?:i|me|myself)\b| (?:will|are|is) (?:be )?(?:joining|coming|with))|\b(\d{1,2}) " + _OTHERS
    + r" (?:(?:will|are) (?:be )?)?(?:joining|coming with|travell?ing with|with) me\b")
#: two: "my wife and I", "me and my husband"
_KIN = (r"(?:wife|husband|partner|boyfriend|girlfriend|friend|fiance|fiancee|mum|mom|dad|mother|father|son|"
        r"daughter|sister|brother)")
_COUPLE = re.compile(r"\b(?:my|our) " + _KIN + r" and (?:i|me|myself)\b|\b(?:me|myself) and (?:my|a) " + _KIN
                     + r"\b(?! (?:is|are|will|want|would|need)\b)")
#: one: "it'll just be me", "I will be the only one staying"
_SOLO = re.compile(r"\b(?:just|only) (?:be )?(?:me|myself|for me|for myself)\b|\bby myself\b|"
                   r"\b(?:i'll|i will|i'm|i am) (?:be )?(?:the only one|alone|travell?ing alone|on my own)\b|"
                   r"\b(?:only|just) (?:1|one) (?:person|guest|adult|traveller|traveler)\b|\bjust for me\b")


#: a train ticket for the speaker alone: "please book me", "book it for me", "one ticket"
_ONE_TICKET = re.compile(r"\bbook me\b(?! (?:an? |the )?(?:table|room|taxi|cab|"
                         r"(?:\S+ )?(?:hotel|restaurant)))"
                         r"|\b(?:book|get|reserve|buy)(?: it| that| one| a seat| the train| that train)? "
                         r"for me\b(?! and| too)|\b(?:1|one) (?:single )?(?:tickets?|seat)\b(?! each)")


def _party_size(plain: str) -> tuple[int, int] | None:
    """How many people when the user counts themselves in words ("me and 3 friends"): (count, position)."""
    m = _PLUS_ONE.search(plain)
    if m:
        n = int(next(g for g in m.groups() if g))
        return (n + 1, m.end()) if 0 < n < 30 else None
    m = _COUPLE.search(plain)
    if m:
        return 2, m.end()
    m = _SOLO.search(plain)
    return (1, m.end()) if m else None


#: the taxi's pick-up: "the taxi should be here by", "can it be at the hotel by", "I need it by"
_PICKUP = re.compile(r"\b(?:taxi|cab|car|it|they|you) (?:to |should |will |would |can |could |must )?be "
                     r"(?:here|there|at|outside)\b[\w' ]*$"
                     r"|\bneed (?:it|one|a taxi|the taxi|a cab) (?:by|at)\s*$")


#: :func:`times` found a departure or arrival time in a correction and nothing in the dialogue it can be for
STRAY = "stray"


def _trip_in_state(ctx: NluContext) -> str | None:
    """The train or taxi of the dialogue a corrected time is for: the one with a time, else the one there is
    (the later one in the state when both are)."""
    trips = [d for d in ctx.state if d in ("train", "taxi") and ctx.state[d]]
    timed = [d for d in trips if {"leaveAt", "arriveBy"} & set(ctx.state[d])]
    found = timed or trips
    return found[-1] if found else None


def _event_cue(tn: str, start: int, end: int) -> str | None:
    """For a time said with another event of the user's ("dinner at 8", "my meeting at 10"): "arrive" when
    the trip is to reach it, "leave" when it leaves after it, "other" when the time is only the event's; None
    for a time said with no event."""
    before = tn[max(0, start - 60): start]
    if not P.EVENT_TIME.search(before):
        return None
    if P.EVENT_ARRIVE.search(before):
        return "arrive"
    if P.EVENT_LEAVE.search(before):
        return "leave"
    after = tn[end:]
    if P.EVENT_ARRIVE_AFTER.search(after):
        return "arrive"
    if P.EVENT_LEAVE_AFTER.search(after):
        return "leave"
    return "other"


_MORNING = re.compile(r"\b(?:am|a m|morning|breakfast|brunch)\b")


def _table_time(tn: str, tm: TimeMention) -> str:
    """A table's time: one said in words or as a bare hour from 7 to 9 ("at 7", "half seven", "quarter to
    eight") is the evening unless the morning is said; a clock written in digits ("9:15") stays as written,
    as the corpus annotates it."""
    h = int(tm.value[:2])
    if 7 <= h <= 9 and ":" not in tn[tm.start:tm.end] and not _MORNING.search(tn[max(0, tm.start - 30):
                                                                                     tm.end + 25]):
        return f"{h + 12}:{tm.value[3:]}"
    return tm.value


def _near_table(value: str, ctx: NluContext) -> str:
    """A bare hour for a taxi ("get there by 7") on the side of the clock of the table booked ("19:15")."""
    booked = ctx.state.get("restaurant", {}).get("book_time", "")
    if not re.fullmatch(r"\d\d:\d\d", booked) or int(value[:2]) >= 12:
        return value
    h, at = int(value[:2]), int(booked[:2])
    return f"{h + 12}:{value[3:]}" if abs(h + 12 - at) < abs(h - at) else value


def times(tn: str, domain: str | None, mentioned: list[str], ctx: NluContext, b: Builder,
          intents: tuple[str, ...]) -> str | None:
    """Clock times, assigned to leaveAt / arriveBy / book_time from the cue words before them.

    A correction of a departure or arrival time said while something else is talked about ("no, I meant
    leaving after quarter past 5" while hotels are discussed) goes to the train or taxi of the state; the
    domain it went to is returned, or :data:`STRAY` when there is none to take it."""
    moved: str | None = None
    for tm in find_times(tn):
        before = tn[max(0, tm.start - 50): tm.start]
        arrive = P.TIME_CUES_ARRIVE.search(before)
        leave = P.TIME_CUES_LEAVE.search(before)
        cue = None
        if arrive and leave:
            cue = "arrive" if arrive.start() > leave.start() and arrive.group(1) not in (
                "by", "before", "until", "till", "no later than") else "leave"
        elif arrive:
            cue = "arrive"
        elif leave:
            cue = "leave"
        d = domain
        if d == "taxi" and _PICKUP.search(before):
            cue = "leave"  # "the taxi should be here by 10:00": the pick-up time
        event = _event_cue(tn, tm.start, tm.end)
        if event is not None and (d in ("train", "taxi") or (d not in ("restaurant", "hotel") and any(
                x in ("train", "taxi") for x in mentioned))):
            if event == "other":
                continue  # "I have dinner at 8": not the train's time
            cue = event
        if d not in ("train", "taxi", "restaurant"):
            d = next((x for x in mentioned if x in ("train", "taxi", "restaurant")), None) or (
                "restaurant" if P.TIME_CUES_BOOK.search(tn) and d != "hotel" else ctx.active_domain)
        if d == "restaurant":
            if cue == "leave" and re.search(r"\b(after|from)\W*$", before) and "book" not in intents:
                continue
            b.add("restaurant", "book_time", _table_time(tn, tm), tm.start)
            continue
        if d not in ("train", "taxi") and cue is not None and "correct" in intents \
                and "book_time" not in ctx.sys_requested:
            d = moved = _trip_in_state(ctx) or STRAY
        if d not in ("train", "taxi"):
            if "book_time" in ctx.sys_requested:
                b.add("restaurant", "book_time", tm.value, tm.start)
            continue
        if cue is None:
            asked = [s for s in ctx.sys_requested if s in ("leaveAt", "arriveBy")]
            slot = asked[0] if asked else "leaveAt"
        else:
            slot = "arriveBy" if cue == "arrive" else "leaveAt"
        value = tm.value
        if d == "taxi" and not tm.explicit:
            value = _near_table(value, ctx)
        # "arrive by midnight": the end of the day (the timetable writes after-midnight arrivals as 24:xx)
        b.add(d, slot, "24:00" if slot == "arriveBy" and value == "00:00" else value, tm.start)
    return moved
