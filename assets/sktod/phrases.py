"""Phrase banks of the embedded review KB (written for parley; see build_kb.py).

Each aspect has subjects ("the wifi"), positive and negative predicates ("was fast and reliable") and a few
sentences of their own; build_kb.py combines them with openings, time phrases and endings so that no sentence
repeats anywhere in the KB. ``{dish}`` is filled with a dish of the restaurant's cuisine.
"""

from __future__ import annotations

Bank = dict[str, tuple[str, ...]]

HOTEL: dict[str, Bank] = {
    "wifi": {
        "subj": ("the wifi", "the internet connection", "the wireless internet", "the wifi signal"),
        "pos": ("was fast and reliable", "worked well in every corner of the building", "never dropped once",
                "was quick enough to stream films", "coped with two laptops and a video call",
                "was easy to connect to and stayed steady", "was surprisingly strong"),
        "neg": ("kept dropping out", "was painfully slow", "barely reached our room",
                "cut out every few minutes", "was too weak for a video call",
                "slowed to a crawl in the evenings",
                "needed a new password every day and still failed"),
        "own_pos": ("Getting online was never a problem.", "Working remotely from the room was easy.",
                    "Streaming a film in bed worked without a hitch."),
        "own_neg": ("Getting online was a daily struggle.", "I gave up on the internet and used my phone.",
                    "Anyone who needs to work online should look elsewhere."),
    },
    "parking": {
        "subj": ("the parking", "the car park", "parking on site", "the private parking"),
        "pos": ("was free and easy to use", "always had a space for us", "was secure and well lit",
                "made arriving by car simple", "was right by the entrance"),
        "neg": ("was full every evening", "was tiny and awkward to get into", "cost far more than expected",
                "had no free spaces after six", "was a long walk from the door"),
        "own_pos": ("Arriving by car was painless.", "We never had to hunt for a space."),
        "own_neg": ("We had to leave the car on a side street.",
                    "Driving there was a mistake because of the parking."),
    },
    "breakfast": {
        "subj": ("the breakfast", "the morning buffet", "the cooked breakfast", "breakfast"),
        "pos": ("was generous and freshly made", "had something for everyone",
                "was the best part of the stay", "came with good coffee and warm bread",
                "was served with a smile and plenty of choice", "kept us going until lunch"),
        "neg": ("was cold and rather sad", "ran out of most things by half past eight",
                "was poor for the price", "came with weak coffee and stale toast",
                "was the same every single day", "was slow to arrive"),
        "own_pos": ("I still think about the homemade jams.", "The eggs were cooked exactly how I asked."),
        "own_neg": ("We ended up eating breakfast at a cafe instead.",
                    "The coffee in the morning was undrinkable."),
    },
    "noise": {
        "subj": ("the room", "our room", "the building", "the street outside"),
        "pos": ("was peaceful at night", "was quiet enough to sleep with the window open",
                "was calm and restful", "never kept us awake"),
        "neg": ("was noisy until late", "let in the sound of traffic all night",
                "was loud in the early morning", "echoed with doors slamming in the corridor"),
        "own_pos": ("We slept soundly every night.", "It is a quiet spot, ideal for a restful weekend.",
                    "Not a sound from the neighbours."),
        "own_neg": ("The walls are thin and we heard every conversation next door.",
                    "Earplugs are a must here.",
                    "Loud guests in the corridor woke me twice."),
    },
    "cleanliness": {
        "subj": ("the room", "the bathroom", "everything", "the bedding"),
        "pos": ("was spotless when we arrived", "was cleaned carefully every day",
                "smelled fresh and looked tidy", "was immaculate"),
        "neg": ("was dusty and not properly cleaned", "smelled musty", "had stains that put us off",
                "was grubby in the corners"),
        "own_pos": ("Housekeeping did a wonderful job.", "You could tell the place is looked after."),
        "own_neg": ("I found hair in the shower on the first day.", "Housekeeping seemed to skip our room."),
    },
    "staff": {
        "subj": ("the staff", "the receptionist", "the owner", "the team at the front desk"),
        "pos": ("was friendly and helpful", "went out of their way to help us",
                "gave us great tips for the city", "welcomed us warmly",
                "sorted out a problem with our booking in minutes"),
        "neg": ("was rude when we asked for towels", "seemed uninterested in helping",
                "was nowhere to be found", "ignored our request for a quieter room",
                "was curt and unfriendly"),
        "own_pos": ("Nothing was too much trouble for them.", "We felt genuinely looked after."),
        "own_neg": ("Nobody was at reception when we arrived late.",
                    "It took three requests to get a towel."),
    },
    "price": {
        "subj": ("the price", "the room rate", "the stay", "the bill"),
        "pos": ("was very reasonable for what we got", "was great value compared with other places in town",
                "had no hidden extras", "felt fair for the location"),
        "neg": ("felt steep for such a basic room", "was high for what is offered",
                "came with surprise extras", "was hard to justify"),
        "own_pos": ("It is good value for money.", "We would happily pay the same again."),
        "own_neg": ("It is overpriced for what you get.", "There are better deals nearby for less money."),
    },
    "room": {
        "subj": ("the room", "our room", "our bedroom"),
        "pos": ("was spacious and comfortable", "had a lovely view over the gardens", "was bright and airy",
                "had a very comfortable bed", "had plenty of storage"),
        "neg": ("was cramped and dated", "had a bed that sagged in the middle",
                "was tiny with tired furniture", "had a mattress so hard that my back ached",
                "looked straight onto a brick wall"),
        "own_pos": ("I slept better than at home.", "The view from our window was lovely."),
        "own_neg": ("The furniture had seen better days.", "There was barely room to open a suitcase."),
    },
    "location": {
        "subj": ("the location", "the area", "the neighbourhood", "the position"),
        "pos": ("is perfect for walking into the centre", "is close to the bus stop",
                "is handy for the station", "is a short stroll from the colleges and the river"),
        "neg": ("is a long walk from the centre", "feels a bit run down", "is far from the sights",
                "has very little nearby"),
        "own_pos": ("Everything we wanted to see was within walking distance.",
                    "Getting around was easy from here."),
        "own_neg": ("We needed a taxi every time we went out.", "You really need a car to stay here."),
    },
    "bathroom": {
        "subj": ("the bathroom", "the shower", "the en suite"),
        "pos": ("was modern and clean", "had great water pressure", "was large with a proper bath"),
        "neg": ("was tiny and dated", "had a weak shower", "had no hot water one morning"),
        "own_pos": ("The towels were soft and plentiful.",),
        "own_neg": ("The shower leaked all over the floor.",),
    },
}

RESTAURANT: dict[str, Bank] = {
    "food": {
        "subj": ("the {dish}", "the food", "my {dish}", "every dish", "the {dish} we shared"),
        "pos": ("was delicious", "was full of flavour", "was cooked perfectly", "was fresh and generous",
                "tasted homemade", "was beautifully presented",
                "was the best I have had in a while"),
        "neg": ("was bland", "was overcooked and dry", "arrived lukewarm",
                "tasted like it came from a packet", "was greasy", "was far too salty",
                "was small for the price"),
        "own_pos": ("We cleaned our plates.", "The portions were generous."),
        "own_neg": ("Half of the dishes came back to the kitchen.",
                    "The menu promised more than the plate delivered."),
    },
    "staff": {
        "subj": ("our waiter", "the service", "the staff", "the waitress", "the manager"),
        "pos": ("was attentive and friendly", "was quick and cheerful", "made good suggestions",
                "handled our large group with a smile", "checked on us without hovering"),
        "neg": ("was rude", "forgot half of our order", "was slow and disorganised",
                "ignored us for twenty minutes", "brought the wrong dishes twice"),
        "own_pos": ("We felt well looked after all evening.",),
        "own_neg": ("We had to ask three times for the bill.",),
    },
    "atmosphere": {
        "subj": ("the atmosphere", "the decor", "the dining room", "the room"),
        "pos": ("was cosy and relaxed", "was lively and fun", "felt romantic",
                "was stylish without being stuffy"),
        "neg": ("was dull", "was far too loud for conversation", "felt dated", "was cold and empty"),
        "own_pos": ("It is a lovely place for a date.",),
        "own_neg": ("The harsh lighting spoiled the mood.",),
    },
    "price": {
        "subj": ("the price", "the bill", "the set menu", "the lunch deal"),
        "pos": ("was fair for the quality", "was great value", "was lower than expected",
                "was cheap and cheerful"),
        "neg": ("was steep for small plates", "was higher than we expected", "felt overpriced",
                "added up quickly with drinks"),
        "own_pos": ("Good food without breaking the bank.",),
        "own_neg": ("You pay a lot for the name.",),
    },
    "cleanliness": {
        "subj": ("the tables", "the toilets", "the floors"),
        "pos": ("were spotless", "were clean and well kept", "looked immaculate"),
        "neg": ("were sticky", "were not clean at all", "looked neglected"),
        "own_pos": ("Everything looked spotless.",),
        "own_neg": ("The floor was dirty under our table.",),
    },
    "wait": {
        "subj": ("the wait", "the wait for food", "the wait between courses"),
        "pos": ("was short even though it was busy", "was reasonable for a Saturday night",
                "was barely noticeable"),
        "neg": ("was almost an hour", "dragged on far too long", "tested our patience"),
        "own_pos": ("We were in and out in under an hour.",),
        "own_neg": ("We waited ages between courses.",),
    },
    "drinks": {
        "subj": ("the cocktails", "the drinks", "the wines by the glass", "the beers on tap"),
        "pos": ("were excellent", "were creative and well made", "were reasonably priced",
                "suited every taste"),
        "neg": ("were few and expensive", "were watered down", "were overpriced", "were limited"),
        "own_pos": ("They know their wine.",),
        "own_neg": ("My drink arrived after the food.",),
    },
    "location": {
        "subj": ("the location", "the restaurant", "the spot"),
        "pos": ("is right in the centre", "is easy to reach by bus", "is handy before a show"),
        "neg": ("is a bit out of the way", "is hard to find down a side street", "is far from everything"),
        "own_pos": ("It is easy to find.",),
        "own_neg": ("Plan a taxi, it is out of the way.",),
    },
}

DISHES = {
    "italian": ("pasta", "pizza", "risotto", "tiramisu", "lasagne"),
    "chinese": ("dumplings", "fried rice", "noodles", "crispy duck", "spring rolls"),
    "indian": ("curry", "naan", "biryani", "samosas", "dal"),
    "asian oriental": ("noodles", "ramen", "stir fry", "bao buns", "laksa"),
    "european": ("steak", "fish stew", "risotto", "chocolate tart", "soup"),
    "modern european": ("lamb", "sea bass", "tasting menu", "risotto", "souffle"),
    "british": ("pie", "roast", "fish and chips", "sticky toffee pudding", "sausages"),
    "gastropub": ("burger", "pie", "fish and chips", "roast", "steak"),
    "mediterranean": ("mezze", "falafel", "grilled fish", "hummus", "lamb"),
    "spanish": ("tapas", "paella", "croquetas", "chorizo", "patatas bravas"),
    "french": ("steak frites", "onion soup", "duck", "creme brulee", "mussels"),
    "thai": ("green curry", "pad thai", "satay", "tom yum soup", "sticky rice"),
    "japanese": ("sushi", "ramen", "tempura", "teriyaki", "miso soup"),
    "seafood": ("fish", "crab", "oysters", "seafood platter", "lobster"),
    "mexican": ("tacos", "burritos", "nachos", "enchiladas", "guacamole"),
    "turkish": ("kebab", "mezze", "grilled halloumi", "pide", "baklava"),
}
DEFAULT_DISHES = ("main course", "starter", "dessert", "chef's special", "soup of the day")
OPEN_POS = ("", "Happily, ", "I was pleased that ", "To our delight, ", "I must say ", "Honestly, ")
OPEN_NEG = ("", "Sadly, ", "Unfortunately, ", "I was disappointed that ", "Annoyingly, ", "Frankly, ")
WHEN = ("", " during our stay", " on both nights", " this time", " from start to finish", " throughout")
WHEN_R = ("", " that evening", " on our visit", " this time", " from start to finish")
END_POS = ("", ", which was a real plus", ", which we appreciated", ", so no complaints there")
END_NEG = ("", ", which was a shame", ", which spoiled things a little", ", so be warned")
STAY = ("a weekend", "three nights", "a short work trip", "a family visit", "our anniversary", "a graduation",
        "a conference", "a city break", "two nights", "a week")
WHO = ("We", "I", "My partner and I", "Our family", "A group of us", "My colleague and I")
VISIT = ("dinner", "lunch", "a birthday meal", "a quick bite before the theatre", "a family lunch",
         "a business lunch", "a date night", "Sunday lunch")
WHEN_VISIT = ("last spring", "in March", "over Easter", "in the summer", "last month", "a few weeks ago",
              "in December", "on a rainy weekend", "last autumn", "during the holidays")
OPENERS = {
    "hotel": (
        "{who} stayed here for {what} {when}.",
        "{who} booked this place for {what} {when}.",
        "This was our base for {what} {when}.",
        "{who} picked this place for {what} {when}.",
    ),
    "restaurant": (
        "{who} came here for {what} {when}.",
        "{who} booked a table here for {what} {when}.",
        "{who} tried this place for {what} {when}.",
        "{who} ended up here for {what} {when}.",
    ),
}

FAQ = {
    "hotel": (
        ("Are pets allowed?", ("Yes, small dogs are welcome for a small fee.", "No, pets are not allowed.")),
        ("Is smoking allowed in the rooms?", ("No, all rooms are non-smoking.",
                                              "Smoking is only allowed in the garden.")),
        ("Is there luggage storage?", ("Yes, reception can keep bags for the day.",
                                       "No, there is no luggage storage.")),
        ("What time is check-in?", ("Check-in is from 2pm.", "Check-in starts at 3pm.")),
        ("Is the building wheelchair accessible?", ("Yes, there is step-free access and a lift.",
                                                    "No, the rooms are up a flight of stairs.")),
    ),
    "restaurant": (
        ("Do they have vegetarian options?", ("Yes, several dishes are vegetarian.",
                                              "Only a couple of starters are vegetarian.")),
        ("Do they take reservations?", ("Yes, tables can be booked ahead.", "No, it is walk-in only.")),
        ("Is there outdoor seating?", ("Yes, there are a few tables outside in summer.",
                                       "No, all seating is indoors.")),
        ("Do they offer takeaway?", ("Yes, everything on the menu can be taken away.",
                                     "No, they only serve food in the restaurant.")),
        ("Are children welcome?", ("Yes, there is a children's menu.", "Children are welcome until 7pm.")),
    ),
}
