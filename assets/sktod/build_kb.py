"""Builds assets/sktod/knowledge.json, the embedded review KB (team-written phrases, deterministic).

Run from the repo root: ``python assets/sktod/build_kb.py``. Every phrase (assets/sktod/phrases.py) was
written for parley; the entity names and facts (cuisine, price range, parking, internet) are MultiWOZ venues
(MIT). Reviews combine an aspect's subject and predicate with an opening, a time phrase and an ending, so the
KB holds thousands of different sentences and no sentence appears twice. Opinions follow each venue's profile:
the chance that a review of an aspect is positive, hand-set for twelve venues, otherwise drawn at random but
kept consistent with the database (no praise for the wifi of a hotel without internet; cheap venues are more
often good value). The output uses the DSTC11 track 5 knowledge format.
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import phrases as P  # noqa: E402  (the phrase banks beside this script)

REVIEWS_PER_VENUE = 6
# venue → {aspect: chance that a review of that aspect is positive}; hand-set for these, drawn for the others
ENTITIES = {
    "hotel": {
        "acorn guest house": {"wifi": 0.8, "breakfast": 0.9, "noise": 0.3, "parking": 0.7, "staff": 0.8},
        "ashley hotel": {"wifi": 0.3, "cleanliness": 0.7, "parking": 0.9, "price": 0.8, "noise": 0.5},
        "gonville hotel": {"location": 0.9, "staff": 0.8, "price": 0.3, "room": 0.7, "breakfast": 0.6},
        "university arms hotel": {"location": 0.95, "room": 0.8, "price": 0.2, "staff": 0.9, "noise": 0.7},
        "cityroomz": {"room": 0.2, "cleanliness": 0.4, "location": 0.9, "price": 0.7, "wifi": 0.6},
        "the lensfield hotel": {
            "staff": 0.9,
            "breakfast": 0.7,
            "parking": 0.3,
            "noise": 0.8,
            "cleanliness": 0.9,
        },
    },
    "restaurant": {
        "pizza hut city centre": {"food": 0.5, "price": 0.8, "wait": 0.3, "staff": 0.6, "location": 0.9},
        "the golden curry": {"food": 0.9, "atmosphere": 0.6, "price": 0.4, "staff": 0.8, "drinks": 0.5},
        "restaurant alimentum": {"food": 0.85, "atmosphere": 0.9, "price": 0.3, "staff": 0.8, "wait": 0.6},
        "yu garden": {"food": 0.7, "cleanliness": 0.4, "price": 0.7, "staff": 0.5, "atmosphere": 0.4},
        "nandos": {"food": 0.6, "price": 0.8, "wait": 0.7, "atmosphere": 0.5, "drinks": 0.3},
        "meze bar": {"food": 0.8, "atmosphere": 0.85, "drinks": 0.7, "price": 0.6, "staff": 0.4},
    },
}
MUST = {"hotel": ("room", "staff"), "restaurant": ("food", "staff")}  # every venue has reviews of these


def profile(domain: str, row: dict, rng: random.Random) -> dict[str, float]:
    """Six aspects with a chance of praise, consistent with the venue's database row."""
    bank = P.HOTEL if domain == "hotel" else P.RESTAURANT
    rest = sorted(a for a in bank if a not in MUST[domain])
    aspects = list(MUST[domain]) + rng.sample(rest, k=4)
    out = {a: rng.choice((0.15, 0.35, 0.6, 0.8, 0.95)) for a in aspects}
    price = {"cheap": 0.85, "moderate": 0.6, "expensive": 0.35}.get(str(row.get("pricerange")))
    if "price" in out and price is not None:
        out["price"] = price
    for amenity in ("parking", "internet"):
        aspect = "wifi" if amenity == "internet" else amenity
        if domain == "hotel" and str(row.get(amenity, "yes")) == "no":
            out[aspect] = 0.05  # a hotel without it: guests complain, nobody praises it
    return out


def plural(subject: str) -> bool:
    """"my noodles" takes "were"; "the fish and chips" and "the hummus" take "was"."""
    head = re.split(r" (?:between|for|on|by|in|of|we) ", subject)[0]  # "the wait between courses": the wait
    last = head.split()[-1]
    return last.endswith("s") and not last.endswith(("ss", "us", "chips")) and last not in ("bravas",)


class Writer:
    """Draws sentences that appear nowhere else in the KB."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def _fresh(self, make: Callable[[], str]) -> str:
        for _ in range(400):
            s = make()
            key = s.lower()
            if s and key not in self.used:
                self.used.add(key)
                return s
        raise RuntimeError("phrase banks exhausted: add phrases to phrases.py")

    def aspect(self, bank: P.Bank, positive: bool, dishes: tuple[str, ...], restaurant: bool,
               cores: set[str]) -> str:
        """One sentence; ``cores`` holds the subject + predicate pairs the venue has used already (a venue's
        reviews never say the same thing in the same words with only another opening)."""
        r = self.rng
        side = "pos" if positive else "neg"

        def make() -> str:
            if r.random() < 0.2:
                return r.choice(bank["own_" + side])
            opening = r.choice(P.OPEN_POS if positive else P.OPEN_NEG)
            pred = r.choice(bank[side])
            when = "" if pred.startswith("is ") else r.choice(P.WHEN_R if restaurant else P.WHEN)
            end = r.choice(P.END_POS if positive else P.END_NEG)
            subj = r.choice(bank["subj"]).format(dish=r.choice(dishes))
            if plural(subj):
                pred = re.sub(r"^was\b", "were", re.sub(r"^is\b", "are", pred))
            core = f"{subj} {pred}".lower()
            if core in cores:
                return ""  # refused by _fresh: try another combination
            cores.add(core)
            text = f"{opening}{subj} {pred}{when}{end}."
            return text[:1].upper() + text[1:]

        return self._fresh(make)

    def opener(self, domain: str) -> str:
        """How the stay or the meal came about (no venue name: every sentence would look like every
        question)."""
        r = self.rng
        what = P.STAY if domain == "hotel" else P.VISIT

        def make() -> str:
            text = r.choice(P.OPENERS[domain]).format(who=r.choice(P.WHO), what=r.choice(what),
                                                      when=r.choice(P.WHEN_VISIT))
            return text[:1].upper() + text[1:]

        return self._fresh(make)


def build() -> dict:
    from parley.engine.mwdb import load_db

    db = load_db()
    rng = random.Random(15)
    writer = Writer(random.Random(7))
    out: dict[str, dict] = {}
    eid = 0
    for domain in ("hotel", "restaurant"):
        bank = P.HOTEL if domain == "hotel" else P.RESTAURANT
        out[domain] = {}
        names = list(ENTITIES[domain]) + [n for n in db.values(domain, "name") if n not in ENTITIES[domain]]
        for name in names:
            row = db.find(domain, name)
            assert row, f"{name} is not in the MultiWOZ {domain} DB"
            prof = ENTITIES[domain].get(name) or profile(domain, row, rng)
            dishes = P.DISHES.get(str(row.get("food")), P.DEFAULT_DISHES)
            reviews = {}
            cores: set[str] = set()
            for r in range(REVIEWS_PER_VENUE):
                aspects = rng.sample(sorted(prof), k=3 if r % 2 else 2)
                if r < len(MUST[domain]) and MUST[domain][r] in prof and MUST[domain][r] not in aspects:
                    aspects[0] = MUST[domain][r]
                sents = [writer.opener(domain)]
                good = 0
                for a in aspects:
                    positive = rng.random() < prof[a]
                    good += positive
                    sents.append(writer.aspect(bank[a], positive, dishes, domain == "restaurant", cores))
                reviews[str(r)] = {
                    "traveler_type": rng.choice(
                        ("Solo travelers", "Couples", "Families", "Business travelers", "Friends")
                    ),
                    "sentences": {str(i): s for i, s in enumerate(sents)},
                }
            faqs = {
                str(i): {"question": q, "answer": rng.choice(ans)} for i, (q, ans) in enumerate(P.FAQ[domain])
            }
            out[domain][str(eid)] = {"name": name.upper(), "reviews": reviews, "faqs": faqs}
            eid += 1
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    path = Path(__file__).with_name("knowledge.json")
    path.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
