"""Goal cards for live testers: ``make_goal("random" | DIALOGUE_ID, seed)``.

A random goal samples one or two domains, takes a real DB row for each venue domain and turns two or three of
its attributes into constraints (so the goal can be met), picks requested attributes and, for bookable
domains, booking details. A dialogue id takes the goal of that MultiWOZ dialogue from a corpus file
(``dialogues=`` or ``$PARLEY_MULTIWOZ``). Either way the result is a MultiWOZ-format goal ``{domain: {"info",
"reqt", "book"?}}`` plus ``"id"`` and ``"message"`` (sentences in parley's own wording), so live sessions are
scored with the same Inform/Success code as corpus replays.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from parley.engine.mwdb import MultiwozDB, load_db
from parley.errors import ParleyError


class GoalError(ParleyError, ValueError):
    """No goal can be made (unknown dialogue id, no corpus file); the message is for the user."""


_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CONSTRAINTS = {"restaurant": ("food", "pricerange", "area"),
                "hotel": ("type", "pricerange", "area", "stars", "parking", "internet"),
                "attraction": ("type", "area")}
_REQUESTS = {"restaurant": ("phone", "address", "postcode"), "hotel": ("phone", "address", "postcode"),
             "attraction": ("phone", "address", "postcode", "entrance fee"),
             "train": ("trainID", "price", "duration")}
_SAY_REQ = {
    "phone": "phone number",
    "address": "address",
    "postcode": "postcode",
    "entrance fee": "entrance fee",
    "trainID": "train ID",
    "price": "ticket price",
    "duration": "travel time",
    "car type": "car type",
}


def _phrase(domain: str, slot: str, value: str) -> str:
    if slot == "pricerange":
        return f"in the {value} price range"
    if slot == "area":
        return f"in the {value}" if value == "centre" else f"in the {value} of town"
    if slot == "stars":
        return f"rated {value} stars"
    if slot in ("parking", "internet"):
        what = "free parking" if slot == "parking" else "free wifi"
        return f"with {what}" if value == "yes" else f"(no need for {what})"
    if slot == "food":
        return f"serving {value} food"
    if slot == "type":
        return f"of the type '{value}'"
    return f"{slot} {value}"


def _venue(rng: random.Random, db: MultiwozDB, domain: str) -> tuple[dict[str, str], list[str]]:
    row = rng.choice(db.rows(domain))
    slots = [s for s in _CONSTRAINTS[domain] if isinstance(row.get(s), str) and row[s] not in ("", "?")]
    chosen = rng.sample(slots, k=min(len(slots), rng.randint(2, 3)))
    info = {s: str(row[s]).lower() for s in chosen}
    article = "an" if domain[0] in "aeiou" else "a"
    lines = [
        f"You are looking for {article} {domain} "
        + ", ".join(_phrase(domain, s, v) for s, v in info.items())
        + "."
    ]
    return info, lines


def _clock(minutes: int) -> str:
    minutes = max(0, min(minutes, 23 * 60 + 45))
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _train(rng: random.Random, db: MultiwozDB) -> tuple[dict[str, str], list[str]]:
    row = rng.choice(db.rows("train"))
    info: dict[str, str] = {"departure": str(row["departure"]), "destination": str(row["destination"]),
                            "day": str(row["day"])}
    h, m = (int(x) for x in str(row["leaveAt"]).split(":"))
    # a train arriving after midnight meets no arrive-by time of its day: its goal is a departure time
    if rng.random() < 0.5 or str(row["arriveBy"]) < str(row["leaveAt"]):
        info["leaveAt"] = _clock((h * 60 + m) // 15 * 15)
        when = f"leave after {info['leaveAt']}"
    else:
        ah, am = (int(x) for x in str(row["arriveBy"]).split(":"))
        info["arriveBy"] = _clock(-(-(ah * 60 + am) // 15) * 15)
        when = f"arrive by {info['arriveBy']}"
    return info, [f"You need a train from {info['departure']} to {info['destination']} on {info['day']}; "
                  f"it should {when}."]


def random_goal(seed: int | None = None, db: MultiwozDB | None = None) -> dict[str, object]:
    """A satisfiable random goal over one or two domains (see the module docstring)."""
    db = db or load_db()
    rng = random.Random(seed)
    first = rng.choice(("restaurant", "hotel", "attraction", "train"))
    domains = [first]
    if rng.random() < 0.6:
        domains.append(
            rng.choice([d for d in ("restaurant", "hotel", "attraction", "train", "taxi") if d != first])
        )
    goal: dict[str, object] = {}
    message: list[str] = []
    names: list[str] = []
    for d in domains:
        if d == "taxi":
            places = names + db.values("attraction", "name")
            a, b = (names[0], rng.choice(db.values("attraction", "name"))) if names else rng.sample(places, 2)
            info = {"departure": a, "destination": b, "leaveAt": _clock(rng.randrange(8 * 60, 21 * 60, 15))}
            goal[d] = {"info": info, "reqt": ["car type", "phone"]}
            message.append(f"You also want a taxi from {a} to {b}, leaving after {info['leaveAt']}. "
                           "Ask for the car type and the contact number.")
            continue
        info, lines = _train(rng, db) if d == "train" else _venue(rng, db, d)
        if d != "train":
            names.extend(str(r["name"]) for r in db.query(d, info)[:1])
        reqt = sorted(rng.sample(_REQUESTS[d], k=rng.randint(1, 2)))
        entry: dict[str, object] = {"info": info, "reqt": reqt}
        if d in ("restaurant", "hotel", "train") and rng.random() < 0.5:
            people = str(rng.randint(1, 6))
            if d == "restaurant":
                book = entry["book"] = {
                    "people": people,
                    "day": rng.choice(_DAYS),
                    "time": _clock(rng.randrange(11 * 60, 21 * 60, 15)),
                }
                lines.append(
                    f"Book a table for {people} on {book['day']} at {book['time']} "
                    "and get the reference number."
                )
            elif d == "hotel":
                book = entry["book"] = {"people": people, "day": rng.choice(_DAYS),
                                        "stay": str(rng.randint(1, 4))}
                lines.append(f"Book it for {people} people, {book['stay']} night(s) from "
                             f"{book['day']}, and get the reference number.")
            else:
                entry["book"] = {"people": people}
                lines.append(f"Book {people} ticket(s) and get the reference number.")
        lines.append("Find out the " + " and the ".join(_SAY_REQ[r] for r in reqt) + ".")
        goal[d] = entry
        message.extend(lines)
    goal["message"] = message
    goal["id"] = f"random-{seed}" if seed is not None else "random"
    return goal


def corpus_goal(dialogue_id: str, dialogues: str | Path | None = None) -> dict[str, object]:
    """The goal of one corpus dialogue (its message sentences are the corpus's own)."""
    from parley.engine.scoring.corpus import CorpusError, load_corpus

    path = dialogues or os.environ.get("PARLEY_MULTIWOZ")
    if not path:
        raise GoalError(f"goal {dialogue_id!r} needs a MultiWOZ dialogue file: set PARLEY_MULTIWOZ to a "
                        "test.json(.zip) or use --goal random")
    try:
        found = load_corpus(path, ids=[dialogue_id])
    except CorpusError as e:
        raise GoalError(str(e)) from None
    if not found:
        raise GoalError(f"no dialogue {dialogue_id!r} in {path}")
    goal = dict(found[0].goal)
    goal["id"] = found[0].id
    return goal


def make_goal(which: str = "random", seed: int | None = None, *, dialogues: str | Path | None = None,
              db: MultiwozDB | None = None) -> dict[str, object]:
    """``"random"`` → :func:`random_goal`; anything else is a MultiWOZ dialogue id (:func:`corpus_goal`)."""
    if which.strip().lower() == "random":
        return random_goal(seed, db)
    return corpus_goal(which.strip(), dialogues)
