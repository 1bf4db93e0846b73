"""Reply templates of the embedded system (written for parley). Several variants per act; the NLG picks one
with a seeded random generator. Placeholders are ``str.format`` fields."""

from __future__ import annotations

GENERAL = {
    "greet": ["Hello!", "Hi there!", "Hello, welcome to the Cambridge information line."],
    "domain": ["I can help with restaurants, hotels, attractions, trains, taxis, the hospital or the police. "
               "What do you need?",
               "What can I help you find today: a restaurant, a hotel, something to see, a train or a taxi?",
               "How can I help? I know about places to eat and stay, attractions, trains and taxis in "
               "Cambridge."],
    "repeat": ["Sorry, I didn't catch that. Could you say it again?",
               "I'm not sure I understood. Could you rephrase that?",
               "Sorry, could you tell me again what you're looking for?"],
    "time_for": ["Sorry, what is that time for? I have no train or taxi for you yet: shall I look for one?",
                 "Which booking should that time go to? There is no train or taxi yet: do you need one?"],
    "welcome": ["You're welcome!", "My pleasure.", "Glad I could help."],
    "reqmore": ["Is there anything else I can help with?", "Can I help with anything else?",
                "Anything else you need?"],
    "bye": ["Goodbye, and enjoy your time in Cambridge!", "Thanks for calling. Have a great day!",
            "Bye! Have a lovely trip."],
}

NOUN = {"restaurant": ("restaurant", "restaurants"), "hotel": ("place to stay", "places to stay"),
        "attraction": ("attraction", "attractions"), "train": ("train", "trains"), "taxi": ("taxi", "taxis"),
        "hospital": ("department", "departments"), "police": ("police station", "police stations")}

CHOICE = ["There are {n} {nouns} that match.", "I found {n} {nouns} for you.", "I have {n} {nouns} that fit."]

OFFER = {
    "restaurant": ["How about {name}? It serves {food} food in the {area}, {pricerange} price range.",
                   "{Name} is a {pricerange} {food} restaurant in the {area}.",
                   "I'd suggest {name}, a {food} place in the {area} with {pricerange} prices."],
    "hotel": ["How about {name}? It's a {stars}-star {type} in the {area}, {pricerange} price range.",
              "{Name} is a {pricerange} {type} in the {area} with {stars} stars.",
              "I'd recommend {name}, a {stars}-star {type} in the {area} ({pricerange})."],
    "attraction": ["How about {name}? It's a {type} in the {area}.", "{Name} is a nice {type} in the {area}.",
                   "You could visit {name}, a {type} in the {area}."],
    "train": ["{trainID} leaves at {leaveAt} and arrives at {arriveBy}.",
              "There's {trainID}, leaving at {leaveAt} and arriving by {arriveBy}.",
              "I'd suggest {trainID}: it departs at {leaveAt} and gets in at {arriveBy}."],
}

BOOK_QUESTION = {
    "restaurant": ["Would you like me to book a table?", "Shall I reserve a table for you?",
                   "Do you want me to make a reservation?"],
    "hotel": ["Would you like me to book a room?", "Shall I book it for you?",
              "Do you want me to reserve a room?"],
    "train": ["Shall I book seats on it?", "Would you like me to book tickets?",
              "Do you want tickets for it?"],
}

MORE_INFO = {
    "attraction": ["Would you like the address or the entrance fee?",
                   "Shall I give you the address and phone number?",
                   "Do you want any more details, like the entrance fee?"],
}

BOOKED = {
    "restaurant": ["Done! Your table at {name} is booked for {book_people} on {book_day} at {book_time}. "
                   "The reference number is {reference}.",
                   "Booked: {name}, {book_day} at {book_time}, {book_people} people. Your reference is "
                   "{reference}.",
                   "I've reserved a table for {book_people} at {name} on {book_day} at {book_time}. "
                   "Reference: {reference}."],
    "hotel": ["Done! {Name} is booked for {book_people} people, {book_stay} nights from {book_day}. "
              "The reference number is {reference}.",
              "Your room at {name} is reserved from {book_day} for {book_stay} nights, {book_people} guests. "
              "Reference: {reference}.",
              "Booked: {name}, {book_stay} nights starting {book_day} for {book_people}. "
              "Your reference is {reference}."],
    "train": ["I've booked {book_people} tickets on {trainID}; the total is {price}, payable at the station. "
              "Reference: {reference}.",
              "Done: {book_people} seats on {trainID} for {price} in total. The reference number is "
              "{reference}.",
              "Your tickets on {trainID} are booked for {book_people} people ({price}). Reference: "
              "{reference}."],
    "taxi": ["Your taxi is booked: look out for a {car}. The driver's number is {phone}.",
             "Booked! A {car} will pick you up; you can reach the driver on {phone}.",
             "I've booked a {car} for you. Contact number: {phone}."],
}

NOOFFER = ["Sorry, I couldn't find any {what}.", "I'm afraid there are no {what}.",
           "Unfortunately nothing matches: no {what}."]
RELAX = ["If you drop the {slot}, there are {n} (for example {values}). Would that work?",
         "I do have {n} if we change the {slot}, such as {values}. Shall I look at those?",
         "Without the {slot} there are {n}, e.g. {values}. Would you like one of them?"]
RELAX_ONE = ["There is one if we change the {slot} to {values}. Would that work?",
             "I do have {instead} instead. Shall I go with that?"]
#: the one venue left when a constraint is dropped, worded by the dropped slot ("I do have one in the east
#: instead"); ``{value}`` is its value, ``{a}`` its article; parking and internet by their yes / no
INSTEAD = {"area": "one in the {value}", "pricerange": "one in the {value} price range",
           "food": "one serving {value} food", "stars": "a {value}-star one", "type": "{a} {value}",
           "parking:yes": "one with free parking", "parking:no": "one without free parking",
           "internet:yes": "one with free wifi", "internet:no": "one without free wifi"}
#: the amenities a search can ask for, as a no-match reply words them ("with free parking and free wifi")
AMENITIES = {"parking": "free parking", "internet": "free wifi"}
RELAX_NOVALUES = ["There are {n} if we change the {slot}. Would you like that?"]
RELAX_NOVALUES_ONE = ["There is one if we change the {slot}. Would you like that?"]
CONSTRAINTS = ["Could you try different requirements?", "Would you like to change something and try again?"]
NOBOOK_REF = ["You haven't booked anything there yet. Shall I make a booking?"]
#: no train fits before / after the one on the table
NO_MORE = {"earlier": "{trainID}, leaving at {leaveAt} and arriving by {arriveBy}, is the first train "
                      "that fits.",
           "later": "{trainID}, leaving at {leaveAt} and arriving by {arriveBy}, is the last train "
                    "that fits."}
#: answers about the taxi booked
TAXI_INFORM = {"car type": "Your taxi is a {value}.", "phone": "The driver's number is {value}.",
               "departure": "It picks you up at {value}.", "destination": "It takes you to {value}.",
               "leaveAt": "It leaves at {value}.", "arriveBy": "It gets you there by {value}."}

ASK = {
    "food": "what type of food you'd like", "area": "which part of town you prefer",
    "pricerange": "your price range", "type:hotel": "whether you'd like a hotel or a guesthouse",
    "type:attraction": "what kind of place you'd like to visit", "departure": "where you're leaving from",
    "destination": "where you're going", "day": "what day you're travelling", "leaveAt":
    "when you'd like to leave or arrive", "arriveBy": "when you need to arrive", "book_day": "the day",
    "book_time": "the time", "book_people": "how many people", "book_stay": "how many nights",
    "constraints": "what else I should look for", "name": "the name of the place",
    "stars": "how many stars you'd like",
}
ASK_FRAME = ["Could you tell me {what}?", "Can you let me know {what}?", "May I ask {what}?"]

SLOT_WORDS = {
    "phone": "phone number", "address": "address", "postcode": "postcode", "area": "area", "pricerange":
    "price range", "food": "food", "stars": "star rating", "trainID": "train ID", "price": "price",
    "duration":
    "journey time", "leaveAt": "departure time", "arriveBy": "arrival time", "entrance fee": "entrance fee",
    "type": "type", "internet": "internet", "parking": "parking", "name": "name",
    "openhours": "opening hours", "department": "department", "reference": "reference number",
    "car type": "car", "day": "day", "departure":
    "departure station", "destination": "destination", "book_people": "number of people", "book_day": "day",
    "book_time": "time", "book_stay": "number of nights",
}
INFORM = ["The {slot} is {value}.", "Its {slot} is {value}.", "{Slot}: {value}."]
INFORM_NAMED = ["The {slot} of {Name} is {value}.", "{Name}'s {slot} is {value}.",
                "For {Name}, the {slot} is {value}."]

#: yes/no answers about the venue on the table: slot → (yes, no), ``{value}`` is the venue's own value
CHECK = {
    "area": ("Yes, it's in the {value}.", "No, it's in the {value}."),
    "pricerange": ("Yes, it's in the {value} price range.", "No, it's in the {value} price range."),
    "food": ("Yes, it serves {value} food.", "No, it serves {value} food."),
    "stars": ("Yes, it has {value} stars.", "No, it has {value} stars."),
    "type": ("Yes, it's a {value}.", "No, it's a {value}."),
    "parking": ("Yes, it has free parking.", "No, it doesn't have free parking."),
    "internet": ("Yes, it has free wifi.", "No, it doesn't have free wifi."),
}
#: after a "no": offer to search with the value the user asked about
CHECK_ALT = {
    "area": "Shall I look for one in the {value} instead?",
    "pricerange": "Shall I look for a {value} one instead?",
    "food": "Shall I look for a place serving {value} food instead?",
    "stars": "Shall I look for one with {value} stars instead?",
    "type": "Shall I look for a {value} instead?",
    "parking": "Shall I look for one with free parking instead?",
    "internet": "Shall I look for one with free wifi instead?",
}
