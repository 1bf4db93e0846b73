"""Rule NLU: domain, intents, slot values and requests of one user utterance, resolved in dialogue context.

:func:`parse` cleans the text, finds venue names and stations (:mod:`lexicon`), masks them, turns number words
into digits, then reads categorical values, counts, days and times with the patterns of :mod:`patterns`. Each
value is assigned to a domain slot using the cue words around it and the context (active domain, the slot the
system asked for last, the venues already in the state).
"""

from __future__ import annotations

import re

from parley.engine.systems.mw import patterns as P
from parley.engine.systems.mw.asked import asked_about
from parley.engine.systems.mw.frames import PRIMARY, Builder, NluContext, NluResult, slots_of
from parley.engine.systems.mw.lexicon import Lexicon, NameMention
from parley.engine.systems.mw.normalise import clean, fix_typos, words_to_numbers
from parley.engine.systems.mw.remarks import drop_remarks
from parley.engine.systems.mw.resolve import dontcare, offered_earlier, places, requests_in, same
from parley.engine.systems.mw.values import STRAY, categorical, counts, times
from parley.engine.systems.mw.venueq import entrance_fee, venue_checks

__all__ = ["PRIMARY", "NluContext", "NluResult", "parse"]


def parse(text: str, ctx: NluContext, lex: Lexicon) -> NluResult:
    """Understand one user utterance in context (never raises)."""
    text = drop_remarks(text, keep_alone=ctx.active_domain is None)
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
    asked = asked_about(t, plain, holders, ctx, lex)
    if asked is not None:  # a question about a record the dialogue holds: nothing new is asked for
        keep = tuple(i for i in intents if i in ("greet", "thanks"))
        return NluResult(text=t, domain=asked.domain, domains=(asked.domain,), intents=(*keep, "request"),
                         inform=((asked.domain, "name", asked.key),) if asked.named else (),
                         requests=tuple((asked.domain, s) for s in asked.slots),
                         about=(asked.domain, asked.key))
    # domains mentioned, by position
    mentions: list[tuple[int, str]] = []
    # "the same day as the hotel", "near the restaurant": references, not new requests for those domains
    scan = re.sub(r"\b(?:as|near|close to|nearby|next to|around|than) (?:the|my|our|that) \w+(?: booking|"
                  r" reservation)?|\b(?:the|my|our) (?:restaurant|hotel|train|taxi) (?:reservation|booking)"
                  r"|\b(?:same|that) (?:day|night|time) (?:as |that )?(?:my|our) (?:restaurant|hotel|train)",
                  lambda m: " " * len(m.group(0)), plain)
    if ctx.active_domain in ("train", "taxi"):  # "arrive before my dinner at 8": an event, no restaurant
        scan = _OWN_MEAL.sub(lambda m: " " * len(m.group(0)), scan)
    if ctx.active_domain == "taxi" or P.DOMAIN_WORDS["taxi"].search(plain):
        # "from the hotel to the museum": references to venues, not new requests for those domains
        scan = P.REF_RE.sub(lambda m: " " * len(m.group(0)), scan)
    refs: list[tuple[int, str]] = []
    for dom, pat in P.DOMAIN_WORDS.items():
        for m in pat.finditer(scan):
            if dom in ("restaurant", "hotel") and (ctx.state.get(dom) or ctx.offered.get(dom)) \
                    and re.search(r"\b(?:the|my|our|that|this) $", scan[: m.start()]):
                refs.append((m.start(), dom))  # "the restaurant" already talked about
            else:
                mentions.append((m.start(), dom))
    if not mentions:  # "what's the phone number of the restaurant?": that one is the subject
        mentions = refs
    # answering the taxi's "where from / to / when?": places are trip ends, whatever words come with them
    trip_asked = ctx.active_domain == "taxi" and any(
        s in ("departure", "destination", "leaveAt", "arriveBy")
        for s in ctx.sys_requested) and not re.search(
        r"\b(trains?(?! station)|book a (room|table)|also (need|want|looking))\b", plain)
    taxi_ctx = any(d == "taxi" for _, d in mentions) or trip_asked or (
        ctx.active_domain == "taxi"
        and not any(d in ("train", "restaurant", "hotel", "attraction") for _, d in mentions))
    if trip_asked:  # ... unless the user asks for one ("I need a place to stay now")
        mentions = [(i, d) for i, d in mentions if d not in ("train", "restaurant", "hotel", "attraction")
                    or _ASKS_FOR.search(plain[max(0, i - 40): i])]
    for key, nm in holders.items():
        if nm.domain == "department":
            mentions.append((where[key], "hospital"))
        elif nm.domain == "station":
            cued = bool(re.search(r"\b(from|leav\w*|depart\w*|arriv\w* (in|at)|going to|go to|get to|"
                                  r"travel\w* to|heading to|train to|coming (?:in)?to|to be at)\s+$",
                                  tn[:where[key]]))
            # "travelling to Cambridge and looking for a restaurant": a trip, not a train request
            cued = cued and not any(d in ("restaurant", "hotel", "attraction") for _, d in mentions)
            if (nm.value != "cambridge" or cued or any(d == "train" for _, d in mentions)) and not taxi_ctx:
                mentions.append((where[key], "train"))
        elif not taxi_ctx and not (_NEAR_NAME.search(tn[:where[key]]) and (
                mentions or ctx.active_domain in ("restaurant", "hotel", "attraction"))):
            mentions.append((where[key], nm.domain))  # "a hotel near Kettle's Yard": a hotel search
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
    src = scan if taxi_ctx else plain  # about the taxi: "the restaurant" is a trip end
    food = FOOD_ONLY.search(src) or CUISINE.search(src)
    if primary is None and food and (not trip_asked or _ASKS_FOR.search(src[max(0, food.start() - 40):
                                                                             food.start()])):
        primary = "restaurant"  # "a cheap italian place"
    domain = primary or ctx.active_domain
    b = Builder()
    categorical(scan if taxi_ctx else plain, domain, mentioned, ctx, b)  # "to the guesthouse": a trip end
    counts(plain, domain, mentioned, ctx, b)
    moved = times(tn, domain, mentioned, ctx, b, intents)
    if moved == STRAY and not b.items:
        intents = (*intents, "stray_time")  # a corrected time with no train or taxi to be for: ask
    elif moved and {d for d, _ in b.items} == {moved}:
        domain = moved  # "no, I meant leaving after 5" while hotels are discussed: the train is talked about
    places(tn, t, holders, where, domain, ctx, b, taxi_ctx)
    if not offered_earlier(t, holders, domain, ctx, b):  # words, not digits: "the first one"
        intents = (*intents, "reqalts")  # "the other one" and no other offer fits: another one
    same(plain, domain, ctx, b)
    _near_named(tn, holders, where, domain, lex, b)
    dontcare(plain, domain, ctx, b)
    if primary and primary != ctx.active_domain and primary in P.DOMAIN_WORDS:
        first = next(P.DOMAIN_WORDS[primary].finditer(scan), None)
        if first is not None:
            _earlier_topic(b, primary, ctx, first.start(), tn)
    _guessed_names(t, holders, lex, b)
    checks = venue_checks(tn, b, ctx, holders)
    filters, fee_asked = entrance_fee(plain, domain, mentioned, ctx)
    requests = tuple(dict.fromkeys((*requests_in(plain, text, domain, intents, ctx), *fee_asked)))
    # "I don't care what kind of food": no question about the food
    requests = tuple(r for r in requests if b.items.get(r, (0, ""))[1] != "dontcare")
    if checks:
        # a question about the venue on the table: its domain is the one being talked about
        domain = checks[0][0] if domain not in {d for d, _, _ in checks} else domain
        requests = tuple(r for r in requests if (r[0], r[1]) not in {(d, s) for d, s, _ in checks})
    if any(s == "takesbookings" for _, s in requests):  # "do they take reservations?" books nothing yet
        intents = tuple(i for i in intents if i != "book")
    if (requests or checks) and "request" not in intents:
        intents = (*intents, "request")
    return NluResult(text=t, domain=domain, domains=tuple(mentioned), intents=intents, inform=b.result(),
                     requests=requests, checks=checks, filters=filters)


def _guessed_names(t: str, holders: dict[str, NameMention], lex: Lexicon, b: Builder) -> None:
    """A name only guessed at (misspelt or in part: "be funky and fun") that the turn's own area, price or
    type rules out ("... something in the north") was no name."""
    for nm in holders.values():
        said = t[nm.start:nm.end].removeprefix("the ")
        if (nm.score >= 100 and said == nm.value.removeprefix("the ")) \
                or nm.domain not in ("restaurant", "hotel", "attraction") \
                or b.items.get((nm.domain, "name"), (0, ""))[1] != nm.value:
            continue
        row = lex.db.find(nm.domain, nm.value) or {}
        if any(d == nm.domain and s in ("area", "pricerange", "type", "food") and v != "dontcare"
               and str(row.get(s, v)).lower() != v for (d, s), (_, v) in b.items.items()):
            del b.items[(nm.domain, "name")]


_BOOK_SLOTS = {"book_people": "book_people", "book_time": "book_time", "book_stay": "book_stay",
               "book_day": "day", "day": "book_day"}


def _earlier_topic(b: Builder, primary: str, ctx: NluContext, split: int, tn: str) -> None:
    """Booking details said before the new domain is brought up belong to the one being talked about ("book
    the Worth House for 6 people, 5 nights from Wednesday. I'll also need a train")."""
    old = ctx.active_domain
    if old not in ("restaurant", "hotel", "train"):
        return
    # positions of clock times are in ``tn`` (names as NAMEnX), the others in the text without names
    holders = [m.start() for m in re.finditer(r"NAME\dX", tn)]
    for (dom, slot), (pos, value) in list(b.items.items()):
        if dom != primary or slot not in _BOOK_SLOTS:
            continue
        target = slot if slot in slots_of(old) else _BOOK_SLOTS[slot]
        if target not in slots_of(old) or (old, target) in b.items:
            continue
        plain_pos = pos - 5 * sum(1 for h in holders if h < pos) if slot == "book_time" else pos
        if plain_pos < split:
            del b.items[(dom, slot)]
            b.add(old, target, value, pos)


#: a venue named as a landmark: "a restaurant close to Kettle's Yard", "within walking distance of X"
_NEAR_NAME = re.compile(r"\b(?:near|close to|nearby|next to|not far from|walking distance (?:of|from|to)|"
                        r"around|in the vicinity of|same area as|same part of town as) (?:the )?$")


def _near_named(tn: str, holders: dict[str, NameMention], where: dict[str, int], domain: str | None,
                lex: Lexicon, b: Builder) -> None:
    """The area of a venue named as a landmark, for the venue sought ("a cheap hotel near the Jinling")."""
    if domain not in ("restaurant", "hotel", "attraction") or (domain, "area") in b.items:
        return
    for key, nm in holders.items():
        if nm.domain in ("restaurant", "hotel", "attraction") and nm.domain != domain \
                and _NEAR_NAME.search(tn[:where[key]]):
            row = lex.db.find(nm.domain, nm.value)
            if row and row.get("area"):
                b.add(domain, "area", str(row["area"]), where[key])
                return


#: a meal the user has planned already ("before my dinner", "I have lunch at 1"): no restaurant search
_OWN_MEAL = re.compile(r"\b(?:my|our|have|having|got|attend|attending)(?: an?)? "
                       r"(?:dinner|lunch|brunch|breakfast|meal)s?\b"
                       r"(?! (?:place|restaurant|table|booking|reservation))")
#: the user asks for something ("I'll actually need a restaurant", "are there any museums")
_ASKS_FOR = re.compile(r"\b(?:need|want|would like|'d like|looking for|find|recommend|book|are there|"
                       r"is there|do you have|suggest)\b(?:\s+\S+){0,4}\s*$")
FOOD_ONLY = re.compile(r"\b(food|cuisine|restaurant)\b")
#: cuisines that name nothing else ("british" could be a museum, "world" a trip)
CUISINE = re.compile(r"\b(italian|chinese|indian|thai|japanese|korean|mexican|lebanese|turkish|vietnamese|"
                     r"french|spanish|portuguese|mediterranean|gastropub|seafood|african|north american|"
                     r"modern european|asian oriental|european|international|tapas|sushi|pizza|noodles|"
                     r"curry)\b")


def _intents(t: str) -> tuple[str, ...]:
    out = []
    checks = [("greet", P.GREET_RE), ("thanks", P.THANKS_RE), ("bye", P.BYE_RE), ("affirm", P.AFFIRM_RE),
              ("negate", P.NEGATE_RE), ("book", P.BOOK_RE), ("nobook", P.NOBOOK_RE),
              ("reqalts", P.REQALTS_RE), ("recommend", P.RECOMMEND_RE), ("correct", P.CORRECT_RE),
              ("earlier", P.EARLIER_RE), ("later", P.LATER_RE)]
    for name, pat in checks:
        if pat.search(t):
            out.append(name)
    if "nobook" in out and "book" in out:
        out.remove("book")
    if "bye" in out and re.search(r"\bno thank", t) \
            and not P.BYE_RE.search(re.sub(r"\bno thank(s| you)", "", t)) and len(t.split()) > 5:
        out.remove("bye")  # "no thanks, I don't want to book": a refusal, not a goodbye
    if "bye" in out and "negate" in out and len(t.split()) <= 6:
        out.remove("negate")
    return tuple(out)
