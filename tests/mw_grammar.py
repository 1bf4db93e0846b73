"""A small grammar of user turns for the embedded ``multiwoz`` system, as hypothesis strategies.

Every sentence here is written for parley's tests; slot values (areas, foods, venue names, stations, days,
departments) are drawn from the MultiWOZ database (``parley.engine.mwdb.load_db``). A conversation is a list
of turns, each one sentence kind (a request for a domain, a constraint, booking details, a question about the
offered venue, yes/no, a correction, don't-care, thanks/bye, empty or junk) with optional noise on top
(lower-casing, dropped punctuation, a typo, a repeated word, emoji, ANSI colour codes, a very long turn).
Failures shrink to the fewest, simplest turns.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

from parley.engine.mwdb import load_db

DB = load_db()
NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight")


def _vals(domain: str, slot: str) -> Any:
    return st.sampled_from(DB.values(domain, slot))


AREA = _vals("restaurant", "area")
PRICE = _vals("restaurant", "pricerange")
FOOD = _vals("restaurant", "food")
ATTR_TYPE = _vals("attraction", "type")
STATION = _vals("train", "departure")
DAY = _vals("train", "day")
DEPT = _vals("hospital", "department")
STARS = st.sampled_from(("2", "3", "4"))
NAME = st.sampled_from(DB.values("restaurant", "name") + DB.values("hotel", "name")
                       + DB.values("attraction", "name"))
COUNT = st.integers(1, 8).flatmap(lambda n: st.sampled_from((str(n), NUMBER_WORDS[n - 1]))) | st.sampled_from(
    ("0", "zero", "100", "twenty", "a dozen", "-1", "999999", "1.5"))


@st.composite
def clock(draw: Any) -> str:
    """A time of day in one of many spellings: 18:30, 6.30pm, half past six, 1830hrs, 7 pm, quarter to 8."""
    h = draw(st.integers(5, 22))
    m = draw(st.sampled_from((0, 15, 30, 45)))
    h12 = h % 12 or 12
    ampm = "pm" if h >= 12 else "am"
    forms = [f"{h:02d}:{m:02d}", f"{h}:{m:02d}", f"{h12}.{m:02d}{ampm}", f"{h:02d}{m:02d}hrs",
             f"{h12}:{m:02d} {ampm}"]
    if m == 0:
        forms += [f"{h12} {ampm}", f"{h12} o'clock", f"{NUMBER_WORDS[h12 - 1] if h12 <= 8 else h12} {ampm}"]
    if m == 30:
        forms += [f"half past {NUMBER_WORDS[h12 - 1] if h12 <= 8 else h12}", f"half {h12}"]
    if m == 15:
        forms.append(f"quarter past {h12}")
    if m == 45:
        forms.append(f"quarter to {h12 % 12 + 1}")
    forms += [f"{h}.{m:02d}", f"{h:02d}{m:02d}", f"{h12}:{m:02d}{ampm}", f"{h12}{ampm}"]
    odd = ("noon", "midnight", "12am", "24:00", "25:00", "half six", "7 in the evening", "00:00", "23:59")
    return draw(st.sampled_from(forms) | st.sampled_from(odd))


def _fmt(template: str, **parts: Any) -> Any:
    """A strategy filling ``template``'s ``{name}`` fields from the given strategies."""
    return st.fixed_dictionaries(parts).map(lambda d: template.format(**d))


def _one_of(*options: Any) -> Any:
    return st.one_of(*[st.just(o) if isinstance(o, str) else o for o in options])


REQUESTS = {
    "restaurant": _one_of(
        _fmt("I'm looking for a {p} restaurant in the {a}.", p=PRICE, a=AREA),
        _fmt("Can you find me a place that serves {f} food?", f=FOOD),
        _fmt("I want {f} food in the {a}, something {p}", f=FOOD, a=AREA, p=PRICE),
        "I need somewhere to eat.",
        _fmt("Is there a restaurant called {n}?", n=NAME)),
    "hotel": _one_of(
        _fmt("I need a {p} hotel in the {a} with free parking.", p=PRICE, a=AREA),
        _fmt("Find me a guesthouse with {s} stars and wifi", s=STARS),
        _fmt("I'm looking for a place to stay in the {a}.", a=AREA),
        "I need a hotel, internet is a must but no parking needed",
        _fmt("we want a {s} star hotel", s=STARS)),
    "attraction": _one_of(
        _fmt("Is there a {t} in the {a}?", t=ATTR_TYPE, a=AREA),
        _fmt("I'd like to visit a {t}.", t=ATTR_TYPE),
        _fmt("What is there to do in the {a} of town?", a=AREA),
        _fmt("Tell me about {n}.", n=NAME)),
    "train": _one_of(
        _fmt("I need a train from {x} to {y} on {d}.", x=STATION, y=STATION, d=DAY),
        _fmt("I need a train to {y} leaving after {t}", y=STATION, t=clock()),
        _fmt("Are there trains from {x} on {d} arriving by {t}?", x=STATION, d=DAY, t=clock()),
        _fmt("train from cambridge to {y} on {d} please, leaving at {t}", y=STATION, d=DAY, t=clock())),
    "taxi": _one_of(
        _fmt("I need a taxi from {x} to {y}.", x=NAME, y=NAME),
        _fmt("Book me a taxi to {y} at {t}", y=NAME, t=clock()),
        _fmt("Can I get a cab from {x} leaving at {t}?", x=NAME, t=clock()),
        _fmt("I need a taxi to arrive at {y} by {t}", y=NAME, t=clock())),
    "hospital": _one_of(
        _fmt("I'm looking for the hospital's {d} department.", d=DEPT),
        "Where is the nearest hospital?",
        "I got injured and need a hospital"),
    "police": _one_of("I need the police station.", "I was robbed, where is the police?",
                      "What's the phone number for the police station?"),
}

CONSTRAINT = _one_of(
    _fmt("in the {a} please", a=AREA), _fmt("something {p}", p=PRICE), _fmt("{f} food", f=FOOD),
    _fmt("{s} stars", s=STARS), "with free parking", "it should have free wifi", "a guesthouse please",
    _fmt("a {t} would be nice", t=ATTR_TYPE), _fmt("on {d}", d=DAY), _fmt("leaving after {t}", t=clock()),
    _fmt("I want to arrive by {t}", t=clock()), _fmt("going to {y}", y=STATION),
    _fmt("departing from {x}", x=STATION), _fmt("the {a}", a=AREA))

BOOKING = _one_of(
    _fmt("Book it for {n} people on {d} at {t}.", n=COUNT, d=DAY, t=clock()),
    _fmt("yes please, {n} people, {n2} nights from {d}", n=COUNT, n2=COUNT, d=DAY),
    _fmt("for {n} people", n=COUNT), _fmt("at {t} on {d}", t=clock(), d=DAY),
    _fmt("we will stay {n} nights", n=COUNT), _fmt("{n} tickets please", n=COUNT),
    "please book it", "can you make a reservation?", "book it and give me the reference number")

QUESTION = _one_of(
    "is it expensive?", "does it have parking?", "what's the postcode?", "what is the phone number",
    "and the address?", "does it have free wifi?", _fmt("is it in the {a}?", a=AREA),
    _fmt("is it {p}?", p=PRICE), _fmt("does it serve {f} food?", f=FOOD), "how many stars does it have?",
    "what's the entrance fee?", "what time does it leave?", "how long is the journey?",
    "how much is a ticket?", "what area is it in?", _fmt("is it a {s} star place?", s=STARS),
    "what type of place is it?", "what's the reference number?", "what kind of car is it?")

YESNO = st.sampled_from(("yes", "yes please", "sure, that works", "no", "no thanks", "nope", "ok", "yeah"))

CORRECTION = _one_of(
    _fmt("no, I meant the {a}", a=AREA), _fmt("actually make it {p}", p=PRICE),
    _fmt("sorry, {f} not {f2}", f=FOOD, f2=FOOD), _fmt("actually make it {n} people", n=COUNT),
    _fmt("no, I meant {d}", d=DAY), _fmt("no, I meant leaving after {t}", t=clock()),
    _fmt("actually make it {t}", t=clock()), _fmt("no I meant arriving by {t}", t=clock()),
    _fmt("actually I'd rather go to {y}", y=STATION), _fmt("change that to {n} nights", n=COUNT),
    "actually make it a hotel", "actually make it a guesthouse", _fmt("no, {s} stars", s=STARS),
    _fmt("no, I meant {n}", n=NAME), _fmt("actually the {n} please", n=NAME),
    _fmt("sorry, I meant from {x}", x=STATION), _fmt("make that {d}, not {d2}", d=DAY, d2=DAY))

DONTCARE = st.sampled_from(("I don't mind", "any area is fine", "doesn't matter",
                            "I don't care about the price", "any time is fine", "whatever you recommend",
                            "no preference"))
CLOSING = st.sampled_from(("thanks", "thank you, that's all", "bye", "great, goodbye!", "that's everything"))
JUNK = st.sampled_from(("", " ", "???", "asdf qwerty", "🙂🙂", "...", "hmm", "1234", "\t", "no no no no",
                        "the the the", "@#$%", "ok ok"))
ANOTHER = st.sampled_from(("is there another one?", "any other options?", "something else please",
                           "can you recommend one?", "a different one please"))

ONE = st.one_of(CONSTRAINT, BOOKING, QUESTION, YESNO, CORRECTION, DONTCARE, CLOSING, JUNK, ANOTHER,
                *REQUESTS.values())
#: one sentence, or two in one turn ("yes please. what's the postcode?")
TURN = ONE | st.tuples(ONE, st.sampled_from((". ", " and ", ", ", " ")), ONE).map("".join)

_ANSI = ("\x1b[31m", "\x1b[0m", "\x1b[1;32m", "␛[33m")


@st.composite
def noisy(draw: Any, sentence: Any) -> str:
    """A sentence with at most a few kinds of noise."""
    text: str = draw(sentence)
    kinds = draw(st.sets(st.sampled_from(("lower", "nopunct", "typo", "repeat", "emoji", "ansi", "long",
                                          "upper")), max_size=2))
    words = text.split()
    if "typo" in kinds and words:
        i = draw(st.integers(0, len(words) - 1))
        w = words[i]
        if len(w) > 3:
            j = draw(st.integers(0, len(w) - 2))
            words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    if "repeat" in kinds and words:
        i = draw(st.integers(0, len(words) - 1))
        words.insert(i, words[i])
    text = " ".join(words)
    if "lower" in kinds:
        text = text.lower()
    if "upper" in kinds:
        text = text.upper()
    if "nopunct" in kinds:
        text = re.sub(r"[.,?!']", "", text)
    if "emoji" in kinds:
        text = text + draw(st.sampled_from((" 😊", " 👍🏽", "🙏", " ❤️ ❤️")))
    if "ansi" in kinds:
        text = draw(st.sampled_from(_ANSI)) + text + "\x1b[0m"
    if "long" in kinds:
        text = " ".join([text] * draw(st.integers(20, 60)))
    return text


def conversations(max_segments: int = 3, max_follow: int = 4) -> Any:
    """A conversation: one to ``max_segments`` requests for a domain, each followed by any turns."""
    segment = st.tuples(st.sampled_from(sorted(REQUESTS)).flatmap(lambda d: noisy(REQUESTS[d])),
                        st.lists(noisy(TURN), max_size=max_follow)).map(lambda t: [t[0], *t[1]])
    return st.lists(segment, min_size=1, max_size=max_segments).map(lambda ss: [u for s in ss for u in s])
