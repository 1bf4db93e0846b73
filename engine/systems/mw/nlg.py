"""Template NLG: dialogue acts → one short reply (see :mod:`templates` for the wording)."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Mapping, Sequence

from parley.engine.systems.mw import templates as T
from parley.engine.types import DialogueAct
from parley.jsontypes import JSONValue


class _Fill(dict[str, object]):
    """``str.format_map`` mapping: missing fields read as "unknown"; ``{Name}`` capitalises ``{name}``."""

    def __missing__(self, key: str) -> str:
        low = key[:1].lower() + key[1:]
        if low != key and low in self:
            return _cap(str(self[low]))
        return "unknown"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _title(value: str) -> str:
    """Venue names read better in title case ("Pizza Hut City Centre"); ids and times stay as they are."""
    if any(c.isdigit() for c in value) and not value.replace(" ", "").isalpha():
        return value
    return string.capwords(value)


def _pretty(slot: str, value: str) -> str:
    if slot in ("name", "departure", "destination", "department"):
        return _title(value)
    if slot == "type":
        return {"swimmingpool": "swimming pool", "mutliple sports": "multiple sports venue",
                "concerthall": "concert hall", "nightclub": "nightclub",
                "entertainment": "entertainment venue", "architecture": "historic building",
                "boat": "boat trip"}.get(value, value)
    if slot == "address":
        return _title(value)
    if slot == "postcode":
        return value.upper()
    return value


def realise(acts: Sequence[DialogueAct], venue: Mapping[str, JSONValue] | None, rng: random.Random) -> str:
    """Word the acts of one decision; deterministic for a given ``rng`` state."""
    out: list[str] = []
    fill = _Fill()
    if venue:
        for k, v in venue.items():
            if isinstance(v, str | int | float):
                fill[k] = _pretty(k, str(v))
    for a in acts:
        slot, value = a.get("slot"), a.get("value")
        if slot and value is not None:
            fill[slot] = _pretty(slot, str(value))
    asked: list[str] = []
    informs: list[str] = []
    # answers about a venue name it once when nothing else in the turn does (offers and bookings do)
    subject = _subject(acts, venue)
    tail: list[str] = []  # "anything else?" goes last
    i = 0
    while i < len(acts):
        a = acts[i]
        act, dom, slot, value = a["act"], a["domain"] or "", a.get("slot"), a.get("value")
        i += 1
        if dom == "general" and act == "reqmore":
            tail.append(rng.choice(T.GENERAL["reqmore"]))
            continue
        if dom == "general":
            if act == "request":
                out.append(rng.choice(T.GENERAL[value if value in ("repeat", "time_for") else "domain"]))
            else:
                out.append(rng.choice(T.GENERAL[act]))
            continue
        if act == "inform" and slot == "choice":
            one, many = T.NOUN.get(dom, ("option", "options"))
            out.append(rng.choice(T.CHOICE).format(n=value, nouns=many if value != "1" else one))
        elif act == "offer":
            if dom in T.OFFER:
                out.append(rng.choice(T.OFFER[dom]).format_map(fill))
            else:
                out.append(f"How about {_pretty('name', str(value))}?")
            # the offer sentence already describes the venue
            while i < len(acts) and acts[i]["act"] == "inform" and acts[i]["domain"] == dom \
                    and acts[i]["slot"] in ("food", "area", "pricerange", "type", "stars",
                                            "leaveAt", "arriveBy"):
                i += 1
        elif act == "request" and slot == "book":  # after any answers given in the same turn
            tail.insert(0, rng.choice(T.BOOK_QUESTION.get(dom, T.BOOK_QUESTION["hotel"])))
        elif act == "request":
            key = f"{slot}:{dom}" if f"{slot}:{dom}" in T.ASK else str(slot)
            asked.append(T.ASK.get(key, f"the {T.SLOT_WORDS.get(str(slot), slot)}"))
        elif act == "book":
            if dom == "taxi":
                out.append(rng.choice(T.BOOKED["taxi"]).format_map(_Fill(fill, car=value)))
            else:
                fill.setdefault("name", _pretty("name", str(fill.get("trainID", ""))))
                out.append(rng.choice(T.BOOKED.get(dom, T.BOOKED["restaurant"])).format_map(
                    _Fill(fill, reference=value)))
            # the booking sentence already says these
            while i < len(acts) and acts[i]["act"] == "inform" and acts[i]["domain"] == dom:
                i += 1
        elif act == "nooffer":
            cons = []
            while i < len(acts) and acts[i]["act"] == "inform" and acts[i]["slot"] != "choice":
                cons.append(acts[i])
                i += 1
            out.append(rng.choice(T.NOOFFER).format(what=_describe(dom, cons)))
        elif act == "select":
            n = acts[i]["value"] if i < len(acts) and acts[i]["slot"] == "choice" else "some"
            i += 1 if n != "some" else 0
            word = T.SLOT_WORDS.get(str(slot), str(slot))
            yesno = slot in ("parking", "internet")  # "change the parking to no" says nothing
            values = and_list([_pretty(str(slot), v) for v in str(value).split(", ")]) if value else ""
            if values and n == "1":
                frame = T.RELAX_ONE[-1] if yesno else rng.choice(T.RELAX_ONE)
                out.append(frame.format(slot=word, values=values, instead=_instead(str(slot), values)))
            elif values and not yesno:
                out.append(rng.choice(T.RELAX).format(slot=word, n=n, values=values))
            else:
                out.append(rng.choice(T.RELAX_NOVALUES_ONE if n == "1" else T.RELAX_NOVALUES).format(
                    slot=word, n=n))
        elif act in ("affirm", "negate") and slot in T.CHECK:
            yes, no = T.CHECK[str(slot)]
            # the value is the venue's yes/no, the act says if it was wanted
            if slot in ("parking", "internet"):
                line = yes if value == "yes" else no
                line = line if act == "affirm" or value == "no" else line.replace("Yes, it", "It")
            else:
                line = (yes if act == "affirm" else no).format(value=_pretty(str(slot), str(value)))
            if subject:
                line, subject = _named(line, subject), None
            informs.append(line)
        elif act == "reqalt" and slot in T.CHECK_ALT:
            tail.insert(0, T.CHECK_ALT[str(slot)].format(value=_pretty(str(slot), str(value))))
        elif act == "nomore":  # "TR2000, leaving at 09:00, is the first train that fits."
            out.append(T.NO_MORE[str(slot)].format_map(fill))
            while i < len(acts) and acts[i]["act"] == "inform" and acts[i]["domain"] == dom:
                i += 1
        elif act == "nobook":
            out.append(rng.choice(T.NOBOOK_REF))
        elif act == "inform":
            if dom in ("hospital", "police") and slot == "name":
                out.append(f"{_title(str(value))}:")
                continue
            if slot in ("internet", "parking"):
                what = "free wifi" if slot == "internet" else "free parking"
                line = (f"Yes, it has {what}." if value == "yes" else f"No, it doesn't have {what}."
                        if value == "no" else f"I don't know about {what} there.")
                if subject and dom in _VENUES:
                    line, subject = _named(line, subject), None
                informs.append(line)
                continue
            if dom == "taxi" and slot in T.TAXI_INFORM:  # the taxi booked: "Your taxi is a grey volvo."
                informs.append(T.TAXI_INFORM[str(slot)].format(value=_pretty(str(slot), str(value))))
                continue
            if slot == "car type":
                informs.append(f"It's a {value}.")
                continue
            if str(slot).startswith("price ") and dom == "hotel":  # "A double room at X costs 70 pounds ..."
                where = f" at {subject}" if subject else ""
                line = (f"A {str(slot)[6:]} room{where} costs {value} a night." if value != "unknown"
                        else f"I don't have the price of a {str(slot)[6:]} room{where}.")
                informs.append(line)
                continue
            if slot == "takesbookings":
                name = subject or "it"
                informs.append(f"Yes, {name} takes reservations, and I can book it for you." if value == "yes"
                               else f"I can't make reservations for {name}; you can just go there.")
                continue
            if slot == "name" and dom in _VENUES:
                informs.append(f"It's called {_title(str(value))}.")
                subject = None
                continue
            word = T.SLOT_WORDS.get(str(slot), str(slot))
            frames = T.INFORM
            if subject and dom in (*_VENUES, "train"):
                frames, subject = [f.replace("{Name}", subject) for f in T.INFORM_NAMED], None
            informs.append(rng.choice(frames).format(slot=word, Slot=_cap(word), value=_pretty(str(slot),
                                                                                           str(value))))
        elif act == "reqmore":
            out.append(rng.choice(T.MORE_INFO.get(dom, T.GENERAL["reqmore"])))
    if informs:
        out.extend(informs)
    if asked:
        out.append(rng.choice(T.ASK_FRAME).format(what=and_list(asked)))
    out.extend(tail)
    text = " ".join(s for s in out if s)
    text = text.replace(" 0-star ", " unrated ").replace("with 0 stars", "with no star rating")
    text = re.sub(r"\b([Aa]) (?=[aeiou]\w)", r"\1n ", text)  # not inside names: "A And B Guest House"
    text = re.sub(r"\b1 (night|guest|ticket|seat)s\b", r"1 \1", text).replace(" 1 people", " 1 person")
    return text or rng.choice(T.GENERAL["reqmore"])


_VENUES = ("restaurant", "hotel", "attraction")


def _subject(acts: Sequence[DialogueAct], venue: Mapping[str, JSONValue] | None) -> str | None:
    """The venue's name when this turn answers about it without offering or booking it (which name it)."""
    name = venue.get("name") or venue.get("trainID") if venue else None
    if not name or any(a["act"] in ("offer", "book") for a in acts):
        return None
    if not any(a["domain"] in (*_VENUES, "train") and a["act"] in ("inform", "affirm", "negate")
               for a in acts):
        return None
    return _title(str(name))


def _named(line: str, name: str) -> str:
    """"Yes, it's in the north." → "Yes, Acorn Guest House is in the north." (first sentence about a
    venue)."""
    for pro, verb in (("it's", "is"), ("it has", "has"), ("it doesn't", "doesn't"), ("it serves", "serves")):
        for lead in ("Yes, ", "No, ", ""):
            start = lead + (pro if lead else pro[:1].upper() + pro[1:])
            if line.startswith(start):
                return lead + name + " " + verb + line[len(start):]
    return line


def _instead(slot: str, value: str) -> str:
    """The one venue left when ``slot`` is dropped (``value``: its value, worded): "one in the east", "an
    entertainment venue"."""
    frame = T.INSTEAD.get(f"{slot}:{value}") or T.INSTEAD.get(slot, "one with the {value} " + slot)
    return frame.format(value=value, a="an" if value[:1] in "aeiou" else "a")


def _describe(domain: str, cons: list[DialogueAct]) -> str:
    """'cheap italian restaurants in the north', 'trains from ely to cambridge on monday'."""
    c = {a.get("slot") or "": str(a.get("value")) for a in cons}
    if domain == "train":
        parts = ["trains"]
        if "departure" in c:
            parts.append(f"from {_title(c['departure'])}")
        if "destination" in c:
            parts.append(f"to {_title(c['destination'])}")
        if "day" in c:
            parts.append(f"on {c['day']}")
        if "leaveAt" in c:
            parts.append(f"leaving after {c['leaveAt']}")
        if "arriveBy" in c:
            parts.append(f"arriving by {c['arriveBy']}")
        return " ".join(parts)
    noun = {"restaurant": "restaurants", "hotel": "places to stay",
            "attraction": "attractions"}.get(domain, domain)
    if domain == "hotel" and c.get("type") in ("hotel", "guesthouse"):
        noun = c["type"] + "s"
    if domain == "attraction" and "type" in c:
        noun = _pretty("type", c["type"])
        noun += "" if noun.endswith("s") else "es" if noun.endswith("ch") else "s"  # "multiple sports venues"
    adj = " ".join(x for x in ("free" if c.get("entrance fee") == "free" else None, c.get("pricerange"),
                                f"{c['stars']}-star" if "stars" in c else None, c.get("food")) if x)
    tail = []
    if "name" in c:
        tail.append(f"called {_title(c['name'])}")
    if "area" in c:
        tail.append(f"in the {c['area']}")
    has = [what for slot, what in T.AMENITIES.items() if c.get(slot) == "yes"]
    lacks = [what for slot, what in T.AMENITIES.items() if c.get(slot) == "no"]
    if has:  # "with free parking and free wifi", "with free parking but without free wifi"
        tail.append("with " + and_list(has))
    if lacks:
        tail.append(("but " if has else "") + "without " + and_list(lacks, "or"))
    return " ".join(x for x in (adj, noun, *tail) if x)


def and_list(items: Sequence[str], last: str = "and") -> str:
    """Items as an English list: "east", "east and west", "east, west and north" (``last``: the word before
    the last item, "or" after a negation)."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} " + items[-1]
