"""Joint goal accuracy under TRADE's normalisation (Wu et al., ACL 2019), beside parley's own (``dst_eval``).

Most published MultiWOZ trackers report JGA the way TRADE's code computed it; parley's own scoring is more
forgiving (names matched to their DB spelling, times written ``HH:MM``, a leading "the" dropped), so the same
predictions read higher under it. This module re-implements TRADE's rules — written for parley from the
published description and behaviour, not copied:

- only the five domains TRADE evaluated (hotel, train, restaurant, attraction, taxi);
- a gold value is the corpus value lower-cased and tokenised as TRADE's data preparation did (``b&b`` → "bed
  and breakfast", hyphens and slashes spelled out, punctuation and ``'s`` split off, digit runs joined),
  then cleaned by TRADE's label fixes: known typos and synonyms ("center", "guesthouse", "mutliple sports",
  "4 stars" …), don't-care spellings, and values that name nothing (they are dropped here; TRADE kept them
  as "none", a turn it could then never get right);
- a predicted value goes through the same two steps; names, times and other values are then compared as
  strings: no fuzzy name matching, "5:45" ≠ "05:45", "the cambridge punter" ≠ "cambridge punter".

>>> s = TradeScores()
>>> s.add({"hotel": {"type": "guesthouse", "area": "center"}}, {"hotel": {"semi": {"type": "guest house",
...       "area": "centre"}, "book": {"booked": []}}})
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

DOMAINS = ("hotel", "train", "restaurant", "attraction", "taxi")
DONTCARE = frozenset({"dontcare", "dont care", "don't care", "do not care", "does not care", "any"})
NOTHING = frozenset({"", "none", "not mentioned", "not men", "not mendtioned", "not", "fun", "art"})

#: typos and synonyms of labels, by kind of slot (learnt from the published label fixes; written here)
_SAME: dict[str, dict[str, str]] = {
    "type": {"guesthouse": "guest house", "guesthouses": "guest house", "guest": "guest house",
             "swimmingpool": "swimming pool", "pool": "swimming pool", "mutliple sports": "multiple sports",
             "mutiple sports": "multiple sports", "sports": "multiple sports", "concerthall": "concert hall",
             "concert": "concert hall", "night club": "nightclub", "mus": "museum", "musuem": "museum",
             "colleges": "college", "coll": "college", "architectural": "architecture", "ol": "architecture",
             "churches": "church"},
    "area": {"center": "centre", "cen": "centre", "ce": "centre", "cent": "centre", "scentre": "centre",
             "city center": "centre", "town center": "centre", "town centre": "centre", "in town": "centre",
             "center of town": "centre", "centre of town": "centre", "near city center": "centre",
             "centre of cambridge": "centre", "east side": "east", "east area": "east",
             "in the north": "north", "north part of town": "north", "no": "north",
             "west part of town": "west", "we": "west", "the south": "south"},
    "pricerange": {"mode": "moderate", "mo": "moderate", "moderate ly": "moderate", "ch": "cheap"},
    "day": {"next friday": "friday", "monda": "monday", "we": "wednesday"},
    "stars": {"4 star": "4", "4 stars": "4", "3 star hotel": "3", "3 .": "3"},
    "internet": {"y": "yes", "n": "no", "free": "yes", "free internet": "yes", "does not": "no"},
    "parking": {"y": "yes", "n": "no", "free parking": "free", "does not": "no"},
}
#: values that are no value of that slot (a label slip)
_NOT_OF: dict[tuple[str, str], frozenset[str]] = {
    ("hotel", "type"): frozenset({"nigh", "moderate ly priced", "bed and breakfast", "centre", "venetian",
                                  "intern", "a cheap er hotel"}),
    ("hotel", "internet"): frozenset({"4"}), ("hotel", "pricerange"): frozenset({"2"}),
    ("attraction", "type"): frozenset({"gastropub", "la raza", "galleria", "gallery", "science", "m"}),
    ("restaurant", "area"): frozenset({"stansted airport", "cambridge", "silver street", "moderate"}),
    ("attraction", "area"): frozenset({"norwich", "ely", "museum", "same area as hotel", "moderate"}),
    ("hotel", "area"): frozenset({"moderate"}), ("restaurant", "book_day"): frozenset({"t", "no"}),
    ("hotel", "book_day"): frozenset({"t", "no"}), ("train", "day"): frozenset({"t", "no"}),
    ("stars", ""): frozenset({"0 star rarting"}), ("area", ""): frozenset({"cb30aq"}),
}
_HOTEL_TYPE_HOTEL = frozenset({"hotel with free parking and free wifi", "4", "3 star hotel"})


def trade_text(value: str) -> str:
    """A value tokenised the way TRADE's data preparation wrote its labels."""
    v = value.strip().lower().replace("\u2018", "'").replace("\u2019", "'")
    v = re.sub(r"b ?& ?b|\bb and b\b", "bed and breakfast", v)
    v = v.replace(";", ",").replace("/", " and ").replace("-", " ")
    v = re.sub(r"[\"<>@()]", "", v)
    v = re.sub(r"(?<!\d)([?.,!])|([?.,!])(?!\d)", lambda m: f" {m.group(0)} ", v)  # not inside "3.50"
    v = re.sub(r"'s\b", " 's", v)
    v = re.sub(r"^'|'$|'(?=\s)|(?<=\s)'", " ", v)
    tokens = v.split()
    joined: list[str] = []
    for tok in tokens:  # "01223 350 068" → "01223350068"
        if joined and tok.isdigit() and joined[-1].isdigit():
            joined[-1] += tok
        else:
            joined.append(tok)
    return " ".join(joined)


def trade_value(domain: str, slot: str, raw: object) -> str | None:
    """The value TRADE would compare for ``domain``-``slot`` (None: no value)."""
    v = trade_text(str(raw))
    if v in NOTHING:
        return None
    if v in DONTCARE:
        return "dontcare"
    kind = slot.removeprefix("book_") if slot.startswith("book_") else slot
    v = _SAME.get(kind, {}).get(v, v)
    if v in _NOT_OF.get((domain, slot), ()) or v in _NOT_OF.get((kind, ""), ()):
        return None
    if domain == "hotel" and slot == "type" and v in _HOTEL_TYPE_HOTEL:
        return "hotel"
    return v


def trade_gold(metadata: Mapping[str, object]) -> set[tuple[str, str, str]]:
    """The gold ``(domain, slot, value)`` set of one system turn's corpus metadata (``semi`` slots by name,
    ``book`` slots as ``book_<slot>``, ``booked`` left out)."""
    out: set[tuple[str, str, str]] = set()
    for domain in DOMAINS:
        frame = metadata.get(domain) if isinstance(metadata, Mapping) else None
        if not isinstance(frame, Mapping):
            continue
        slots = {**{k: v for k, v in (frame.get("semi") or {}).items()},
                 **{f"book_{k}": v for k, v in (frame.get("book") or {}).items() if k != "booked"}}
        for slot, raw in slots.items():
            if isinstance(raw, str | int | float) and not isinstance(raw, bool):
                value = trade_value(domain, slot, raw)
                if value is not None:
                    out.add((domain, slot, value))
    return out


def trade_pred(state: Mapping[str, Mapping[str, object]]) -> set[tuple[str, str, str]]:
    """A predicted belief state ``{domain: {slot: value}}`` as TRADE would compare it."""
    out: set[tuple[str, str, str]] = set()
    for domain in DOMAINS:
        for slot, raw in (state.get(domain) or {}).items():
            value = trade_value(domain, slot, raw)
            if value is not None:
                out.add((domain, slot, value))
    return out


@dataclass
class TradeScores:
    """Running JGA under TRADE's normalisation (``add`` takes a predicted state and the corpus metadata)."""

    turns: int = 0
    joint: int = 0

    def add(self, pred: Mapping[str, Mapping[str, object]], metadata: Mapping[str, object]) -> bool:
        ok = trade_pred(pred) == trade_gold(metadata)
        self.turns += 1
        self.joint += ok
        return ok

    @property
    def jga(self) -> float:
        return self.joint / self.turns if self.turns else 0.0
