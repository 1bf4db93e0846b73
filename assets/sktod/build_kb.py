"""Builds assets/sktod/knowledge.json, the embedded review KB (team-written phrases, deterministic).

Run from the repo root: ``python assets/sktod/build_kb.py``. Every sentence below was written for parley; the
entity names are MultiWOZ venues (MIT). The output uses the DSTC11 track 5 knowledge format.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# aspect → (positive phrasings, negative phrasings); "{n}" is the venue name
HOTEL = {
    "wifi": (["The wifi was fast enough to stream films in the room.",
              "Internet worked well everywhere, even in the garden.",
              "I could join video calls without any trouble on the wifi."],
             ["The wifi kept dropping, which made working from the room impossible.",
              "Internet was painfully slow in the evenings.",
              "I had to go to the lobby to get any wifi signal at all."]),
    "parking": (["Parking on site was easy and free.",
                 "There was always a space in the car park when we came back.",
                 "Having a secure garage for the car was a big plus."],
                ["Finding a parking space was a nightmare.",
                 "The car park is tiny and we had to leave the car on a side street.",
                 "They charge a lot for parking, which nobody mentioned when we booked."]),
    "breakfast": (["Breakfast had plenty of choice, from fresh fruit to a full cooked plate.",
                   "The morning buffet was generous and everything tasted fresh.",
                   "I loved the homemade jams at breakfast."],
                  ["Breakfast was a disappointment, with cold toast and weak coffee.",
                   "The buffet ran out of most things by half past eight.",
                   "For the price, the breakfast was rather poor."]),
    "noise": (["The room was quiet and I slept through the night.",
               "Even though it is close to the road, we never heard the traffic.",
               "It is a peaceful place, perfect for a restful weekend."],
              ["Our room faced the street and it was noisy until late.",
               "The walls are thin and we could hear the neighbours talking.",
               "Loud doors slamming in the corridor woke me up twice."]),
    "cleanliness": (["The room was spotless when we arrived.",
                     "Housekeeping did a great job and the bathroom sparkled.",
                     "Everything felt clean and freshly aired."],
                    ["The carpet was stained and the room smelled musty.",
                     "I found hair in the shower and dust under the bed.",
                     "The bathroom was not clean when we checked in."]),
    "staff": (["The staff were friendly and went out of their way to help.",
               "Reception gave us great tips for walks around the city.",
               "The owner welcomed us warmly and remembered our names."],
              ["The man at the front desk was rude when we asked for extra towels.",
               "Staff seemed uninterested and it took ages to get help.",
               "Nobody was at reception when we arrived late, which was stressful."]),
    "price": (["For what you get, the price is very reasonable.",
               "It was great value compared with other places in town.",
               "Affordable rates and no hidden extras."],
              ["It felt overpriced for such a basic room.",
               "The rates are high for what is offered.",
               "We paid far too much for a small room."]),
    "room": (["The bed was comfortable and the room was spacious.",
              "Our room had a lovely view over the gardens.",
              "The room was bright with plenty of storage."],
             ["The room was cramped and the bed sagged in the middle.",
              "Our room was tiny and the furniture looked tired.",
              "The mattress was so hard that I woke up with a sore back."]),
    "location": (["The location is perfect for walking into the centre.",
                  "It is close to the bus stop, so getting around was easy.",
                  "A short stroll took us to the colleges and the river."],
                 ["It is a long walk from the centre, so we took taxis every day.",
                  "The area around the building felt a bit run down.",
                  "There is not much nearby, so you need a car."]),
}
RESTAURANT = {
    "food": (["The food was delicious and beautifully presented.",
              "Every dish we ordered was full of flavour.",
              "The portions were generous and the sauces were excellent."],
             ["The food was bland and arrived lukewarm.",
              "My main course was overcooked and dry.",
              "The dishes tasted like they came out of a packet."]),
    "staff": (["Our waiter was attentive and made good suggestions.",
               "Service was friendly and quick.",
               "The staff handled our large group with a smile."],
              ["The waiter was rude and forgot half of our order.",
               "Service was slow and we had to ask three times for the bill.",
               "Staff ignored us for twenty minutes after we sat down."]),
    "atmosphere": (["The atmosphere was cosy and relaxed.",
                    "Lovely decor and soft lighting made it feel romantic.",
                    "It has a lively, fun vibe on weekend evenings."],
                   ["The atmosphere was dull and the room felt empty.",
                    "The music was far too loud to have a conversation.",
                    "The decor is dated and the lighting is harsh."]),
    "price": (["Prices are fair for the quality of the food.",
               "It is great value, especially the lunch menu.",
               "Cheap and cheerful, and the bill was lower than expected."],
              ["It is overpriced for what you get.",
               "The bill was much higher than we expected for small plates.",
               "Drinks in particular are very pricey."]),
    "cleanliness": (["The tables and toilets were clean.",
                     "Everything looked spotless, including the open kitchen."],
                    ["Our table was sticky and the floor was dirty.",
                     "The toilets were not clean at all."]),
    "wait": (["Our food came out quickly even though it was busy.",
              "We did not have to wait long for a table."],
             ["We waited almost an hour for our mains.",
              "Even with a booking we had to wait a long time for a table."]),
    "drinks": (["They have a good selection of wines by the glass.",
                "The cocktails were creative and well made."],
               ["The beer choice was limited and the wine list is short.",
                "My drink was watered down."]),
    "location": (["It is right in the centre, handy before a show.",
                  "Easy to reach by bus and close to the shops."],
                 ["It is a bit out of the way, so plan a taxi.",
                  "Hard to find, tucked away down a side street."]),
}
OPENERS = {
    "hotel": ["We stayed at {n} for a weekend.", "I spent three nights at {n} on a work trip.",
              "My family booked {n} for a short break.", "I stayed at {n} while visiting friends.",
              "We chose {n} for our anniversary."],
    "restaurant": ["We had dinner at {n} last Friday.", "I took my parents to {n} for lunch.",
                   "A group of us celebrated a birthday at {n}.", "I ate at {n} on my own before a concert.",
                   "We tried {n} after reading about it."],
}
TRAVELERS = ["Solo travelers", "Couples", "Families", "Business travelers", "Friends"]
FAQ = {
    "hotel": [("Are pets allowed?", ["Yes, small dogs are welcome for a small fee.", "No, pets are not allowed."]),
              ("Is smoking allowed in the rooms?", ["No, all rooms are non-smoking.",
                                                    "Smoking is only allowed in the garden area."]),
              ("Is there luggage storage?", ["Yes, reception can store bags for the day.",
                                             "No, there is no luggage storage."])],
    "restaurant": [("Do they have vegetarian options?", ["Yes, several dishes are vegetarian.",
                                                         "Only a couple of starters are vegetarian."]),
                   ("Do they take reservations?", ["Yes, tables can be booked ahead.",
                                                   "No, it is walk-in only."]),
                   ("Is there outdoor seating?", ["Yes, there are a few tables outside in summer.",
                                                  "No, all seating is indoors."])],
}
# venue → {aspect: probability that a review of that aspect is positive}; hand-set for these, seeded random for
# the other MultiWOZ hotels and restaurants (see profiles())
ENTITIES = {
    "hotel": {
        "acorn guest house": {"wifi": .8, "breakfast": .9, "noise": .3, "parking": .7, "staff": .8},
        "ashley hotel": {"wifi": .3, "cleanliness": .7, "parking": .9, "price": .8, "noise": .5},
        "gonville hotel": {"location": .9, "staff": .8, "price": .3, "room": .7, "breakfast": .6},
        "university arms hotel": {"location": .95, "room": .8, "price": .2, "staff": .9, "noise": .7},
        "cityroomz": {"room": .2, "cleanliness": .4, "location": .9, "price": .7, "wifi": .6},
        "the lensfield hotel": {"staff": .9, "breakfast": .7, "parking": .3, "noise": .8, "cleanliness": .9},
    },
    "restaurant": {
        "pizza hut city centre": {"food": .5, "price": .8, "wait": .3, "staff": .6, "location": .9},
        "the golden curry": {"food": .9, "atmosphere": .6, "price": .4, "staff": .8, "drinks": .5},
        "restaurant alimentum": {"food": .85, "atmosphere": .9, "price": .3, "staff": .8, "wait": .6},
        "yu garden": {"food": .7, "cleanliness": .4, "price": .7, "staff": .5, "atmosphere": .4},
        "nandos": {"food": .6, "price": .8, "wait": .7, "atmosphere": .5, "drinks": .3},
        "meze bar": {"food": .8, "atmosphere": .85, "drinks": .7, "price": .6, "staff": .4},
    },
}


def profiles(db, domain: str, rng: random.Random) -> dict[str, dict[str, float]]:
    """The hand-set venues first, then every other venue of the DB with a seeded random profile."""
    bank = HOTEL if domain == "hotel" else RESTAURANT
    out = dict(ENTITIES[domain])
    for name in db.values(domain, "name"):
        if name not in out:
            aspects = rng.sample(sorted(bank), k=5)
            out[name] = {a: rng.choice((0.15, 0.4, 0.6, 0.85, 0.95)) for a in aspects}
    return out


def build() -> dict:
    from parley.engine.mwdb import load_db

    db = load_db()
    rng = random.Random(7)
    out: dict[str, dict] = {}
    eid = 0
    for domain in ENTITIES:
        bank = HOTEL if domain == "hotel" else RESTAURANT
        out[domain] = {}
        for name, profile in profiles(db, domain, random.Random(f"{domain}-profiles")).items():
            assert db.find(domain, name), f"{name} is not in the MultiWOZ {domain} DB"
            title = " ".join(w.capitalize() for w in name.split())
            reviews = {}
            for r in range(6):
                aspects = rng.sample(sorted(profile), k=3 if r % 2 else 2)
                sents = [rng.choice(OPENERS[domain]).format(n=title)]
                for a in aspects:
                    pos, neg = bank[a]
                    sents.append(rng.choice(pos if rng.random() < profile[a] else neg))
                reviews[str(r)] = {"traveler_type": rng.choice(TRAVELERS),
                                   "sentences": {str(i): s for i, s in enumerate(sents)}}
            faqs = {str(i): {"question": q, "answer": rng.choice(ans)} for i, (q, ans) in enumerate(FAQ[domain])}
            out[domain][str(eid)] = {"name": name.upper(), "reviews": reviews, "faqs": faqs}
            eid += 1
    return out


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    path = Path(__file__).with_name("knowledge.json")
    path.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
