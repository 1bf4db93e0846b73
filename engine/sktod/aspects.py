"""A small aspect lexicon for hotel and restaurant reviews (team-written), used by selection features and by
the aspect-aware sentiment of the generator."""

from __future__ import annotations

import re
from functools import lru_cache

from parley.text import tokens

#: aspect → (phrase used in answers, keywords/stems matched at word starts)
ASPECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "wifi": ("the wifi", ("wifi", "wi-fi", "wi fi", "internet", "wireless", "connection", "signal", "online",
                          "bandwidth")),
    "parking": ("the parking", ("parking", "park ", "parked", "car ", "cars", "garage", "vehicle")),
    "breakfast": ("the breakfast", ("breakfast", "morning meal", "buffet", "brunch")),
    "noise": ("the noise level", ("noise", "noisy", "quiet", "loud", "peaceful", "sleep", "soundproof",
                                  "traffic")),
    "cleanliness": ("the cleanliness", ("clean", "dirty", "spotless", "tidy", "hygien", "dust", "stain",
                                        "filth", "sanit", "housekeep", "mess", "smell")),
    "staff": ("the staff", ("staff", "service", "friendly", "rude", "helpful", "reception", "waiter",
                            "waitress", "server", "host", "manager", "employee", "attentive", "welcom",
                            "front desk")),
    "food": ("the food", ("food", "dish", "meal", "taste", "tasty", "delicious", "menu", "portion", "flavo",
                          "cook", "overcook", "undercook", "chef", "cuisine", "fresh", "dessert", "course",
                          "main", "starter", "bland", "salty", "spic", "sauce", "plate", "pasta", "pizza",
                          "noodle", "curry", "rice", "steak", "burger", "fish", "chicken", "dumpling",
                          "sushi", "ramen", "tapas")),
    # dietary options are a neighbouring aspect of the food, not the food itself
    "dietary": ("the dietary options", ("vegetarian", "vegan", "gluten", "halal", "kosher", "allerg",
                                        "dietary")),
    "atmosphere": ("the atmosphere", ("atmospher", "ambienc", "ambianc", "decor", "décor", "vibe", "music",
                                      "cozy", "cosy", "romantic", "lighting", "interior", "design", "style")),
    "price": ("the prices", ("price", "value", "expensive", "cheap", "cost", "worth", "money", "afford",
                             "overpriced", "pricey", "budget", "fee", "charge", "bill")),
    "location": ("the location", ("location", "located", "area", "walk", "distance", "central", "close to",
                                  "near", "transport", "bus", "station", "neighbo", "access")),
    "room": ("the rooms", ("room", "bed", "spacious", "cramped", "view", "mattress", "pillow", "furnish",
                           "size")),
    "bathroom": ("the bathrooms", ("bathroom", "shower", "toilet", "water pressure", "towel", "bath ")),
    "drinks": ("the drinks", ("drink", "beer", "wine", "cocktail", "alcohol", "bar ", "coffee", "tea ")),
    "outdoor": ("the outdoor seating", ("outdoor", "outside", "patio", "terrace", "garden", "seating")),
    "wait": ("the waiting times", ("wait", "slow", "quick", "prompt", "queue", "speed")),
    "amenities": ("the amenities", ("pool", "gym", "laundry", "luggage", "safe ", "amenit", "facilit",
                                    "fridge", "kettle", "air condition", "heating", "elevator", "lift")),
    "checkin": ("check-in", ("check-in", "check in", "checkin", "check-out", "checkout", "arrival")),
}

_LETTER = re.compile(r"[a-z]")


@lru_cache(maxsize=65536)
def aspects_of(text: str) -> frozenset[str]:
    """Aspects whose keywords occur in ``text`` (keywords match at a word start, case-blind)."""
    t = " " + " ".join(re.findall(r"[a-z0-9'\-é]+", text.lower())) + " "
    found = set()
    for name, (_, kws) in ASPECTS.items():
        for kw in kws:
            if " " + kw in t:
                found.add(name)
                break
    return frozenset(found)


#: "worth it", "worthwhile": a cue of value naming no aspect ("is the decor worth it?" asks about the decor)
_VALUE_CUE = re.compile(r"\bworth(?:while|y)?\b", re.I)


def named_aspects(question: str) -> frozenset[str]:
    """The aspects a question names: a value cue ("worth it") reads as the prices only when the question
    names nothing else ("is the decor worth it?" asks about the decor; "is it worth the money?" about the
    prices)."""
    found = aspects_of(question)
    if "price" in found and len(found) > 1 and "price" not in aspects_of(_VALUE_CUE.sub(" ", question)):
        return found - {"price"}
    return found


def snippet_aspects(text: str, name: str = "") -> frozenset[str]:
    """Aspects of a review sentence or FAQ, not counting the venue's own name ("Dojo Noodle Bar" is no
    food)."""
    if name:
        words = [w for w in tokens(name.lower()) if w not in ("the", "and", "of")]
        if words:
            text = re.sub(r"\b(?:the\s+)?" + r"\W+".join(map(re.escape, words)) + r"\b", " ", text,
                          flags=re.I)
    return aspects_of(text)


def aspect_phrase(aspects: frozenset[str] | set[str]) -> str:
    """A noun phrase for answers ("the wifi"); the first aspect by lexicon order, or "it"."""
    for name in ASPECTS:
        if name in aspects:
            return ASPECTS[name][0]
    return "it"


def aspect_word(aspects: frozenset[str] | set[str]) -> str:
    """The bare aspect word for the ABSA-enhanced generator input ("wifi is great")."""
    for name in ASPECTS:
        if name in aspects:
            return (ASPECTS[name][0].removeprefix("the ").split()[-1] if name != "outdoor"
                    else "outdoor seating")
    return "experience"
