"""Synthetic MultiWOZ-format corpora written for parley's tests and benchmarks (no sentence from any data
set)."""

from __future__ import annotations

import json
from pathlib import Path

AREAS = ("north", "south", "east", "west", "centre")
FOODS = ("chinese", "indian", "italian", "british", "european")


def dialogue(k: int, turns: int = 3) -> dict:
    area, food = AREAS[k % 5], FOODS[(k // 5) % 5]
    users = [f"i am looking for a {food} place to eat in the {area}", "what is their phone number ?",
             "could you also tell me the postcode ?", "that is all , thank you"]
    systems = [
        f"there are a few {food} restaurants in the {area} . any price range ?",
        "their phone number is 01223 000000 .",
        "the postcode is cb1 1aa .",
        "you are welcome . goodbye .",
    ]
    log: list[dict] = []
    for i in range(turns):
        log.append({"text": users[i % len(users)], "metadata": {}})
        log.append(
            {
                "text": systems[i % len(systems)],
                "metadata": {"restaurant": {"book": {"booked": []}, "semi": {"food": food, "area": area}}},
            }
        )
    return {"goal": {"restaurant": {"info": {"food": food, "area": area}, "reqt": ["phone"]}}, "log": log}


def write_corpus(path: Path, n: int, turns: int = 3) -> Path:
    """``n`` dialogues of ``turns`` user turns each, streamed to ``path`` (ids SYN00000, SYN00001, …)."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write("{")
        for k in range(n):
            fh.write(("," if k else "") + f'\n"SYN{k:05d}.json": ' + json.dumps(dialogue(k, turns)))
        fh.write("\n}\n")
    return path
