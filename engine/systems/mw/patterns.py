"""Regular expressions and word lists of the rule NLU (all over cleaned, number-normalised lower-case
text)."""

from __future__ import annotations

import re


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


DOMAIN_WORDS: dict[str, re.Pattern[str]] = {
    "taxi": rx(r"\b(taxi|taxis|cab|cabs|car to|car from|a car|ride to|ride from|pick me up|pickup|"
               r"pick up|picked up)\b"),
    "train": rx(r"\b(trains?|rail|railway|tickets? to|commute)\b(?! station)"),
    "police": rx(r"\b(police|robbed|stolen|theft|crime|mugged|burglary)\b"),
    "hospital": rx(r"\b(hospital|clinic|department|injured|injury|ill|sick|emergency|a&e|doctor|ward)\b"),
    "restaurant": rx(r"\b(restaurants?|food|eat|eating|dine|dining|dinner|lunch|brunch|cuisine|meal|"
                     r"table for|a table|place to eat|somewhere to eat|bite|serves?|serving)\b"),
    "hotel": rx(r"\b(hotels?|guest ?houses?|bed and breakfast|accommodations?|lodging|place to stay|"
                r"somewhere to stay|where to stay|stay(ing)?|rooms?|(?<!day )nights?|star|stars|wifi|"
                r"internet|parking)\b"),
    "attraction": rx(r"\b(attractions?|museums?|colleges?|theatres?|churche?s?|cinemas?|parks?|pools?|"
                     r"swimming|boats?|boating|punting|night ?clubs?|clubs?|architecture|entertainment|"
                     r"sights?|sightseeing|galler(y|ies)|things to do|something fun|fun to do|fun things|"
                     r"to visit|(?:some)?places? (?:i|we) (?:can|could) go|go see|to see|places to go|"
                     r"place to go|something to do|there to do|entertaining|concert ?halls?|sports|"
                     r"pass (?:a few|some|a couple of) hours|somewhere to go|entrance fee|tourist)\b"),
}

FOODS = {
    "african": "african", "asian oriental": "asian oriental", "asian": "asian oriental",
    "oriental": "asian oriental", "british": "british", "english": "british", "chinese": "chinese",
    "european": "european", "french": "french", "gastropub": "gastropub", "gastro pub": "gastropub",
    "gastro-pub": "gastropub", "pub food": "gastropub", "indian": "indian", "international": "international",
    "italian": "italian", "japanese": "japanese", "sushi": "japanese", "korean": "korean",
    "lebanese": "lebanese", "mediterranean": "mediterranean", "mexican": "mexican",
    "modern european": "modern european", "north american": "north american", "american": "north american",
    "portuguese": "portuguese", "portugese": "portuguese", "seafood": "seafood", "sea food": "seafood",
    "fish": "seafood", "spanish": "spanish", "tapas": "spanish", "thai": "thai", "turkish": "turkish",
    "vietnamese": "vietnamese", "pizza": "italian", "curry": "indian", "noodles": "asian oriental",
    # cuisines the DB lacks but users ask for (kept so the state is right and the policy can say "no match")
    "afghan": "afghan", "australian": "australian", "austrian": "austrian", "basque": "basque",
    "belgian": "belgian", "brazilian": "brazilian", "caribbean": "caribbean", "catalan": "catalan",
    "corsica": "corsica", "corsican": "corsica", "cuban": "cuban", "danish": "danish", "eritrean": "eritrean",
    "fusion": "fusion", "german": "german", "greek": "greek", "halal": "halal", "hungarian": "hungarian",
    "indonesian": "indonesian", "irish": "irish", "jamaican": "jamaican", "kosher": "kosher",
    "malaysian": "malaysian", "middle eastern": "middle eastern", "moroccan": "moroccan",
    "persian": "persian", "polish": "polish", "polynesian": "polynesian", "russian": "russian",
    "scandinavian": "scandinavian", "scottish": "scottish", "singaporean": "singaporean",
    "steakhouse": "steakhouse", "swedish": "swedish", "swiss": "swiss", "traditional": "traditional",
    "tuscan": "tuscan", "unusual": "unusual", "venetian": "venetian", "vegetarian": "vegetarian",
    "welsh": "welsh", "world": "world", "barbeque": "barbeque", "bbq": "barbeque", "bistro": "bistro",
    "canapes": "canapes", "christmas": "christmas", "creative": "creative", "crossover": "crossover",
    "cantonese": "cantonese", "sri lankan": "sri lankan", "australasian": "australasian",
    "light bites": "light bites", "caribean": "caribbean", "panasian": "panasian", "pan asian": "panasian",
    "eastern european": "eastern european", "northern european": "northern european",
    "latin american": "latin american", "modern american": "modern american",
    "modern eclectic": "modern eclectic", "modern global": "modern global",
    "modern english": "modern english", "molecular gastronomy":
    "molecular gastronomy", "new zealand": "new zealand", "north african": "north african",
    "north indian": "north indian", "south african": "south african", "south indian": "south indian",
    "romanian": "romanian", "the americas": "the americas",
}
FOOD_RE = rx(r"\b(" + "|".join(sorted(map(re.escape, FOODS), key=len, reverse=True)) + r")(?:e?s)?\b")

AREA_RE = rx(r"\b(north|south|east|west|centre|central|city centre|town centre|downtown|middle of town"
             r"|middle of (?:the )?(?:city|cambridge)|heart of (?:the )?(?:town|city|cambridge)"
             r"|centre of town|northern|southern|eastern|western|northside|southside|eastside|westside)\b")
AREAS = {"northern": "north", "southern": "south", "eastern": "east", "western": "west", "central": "centre",
         "northside": "north", "southside": "south", "eastside": "east", "westside": "west",
         "city centre": "centre", "town centre": "centre", "downtown": "centre", "middle of town": "centre",
         "centre of town": "centre", "middle of the city": "centre", "middle of city": "centre",
         "middle of cambridge": "centre", "middle of the cambridge": "centre", "heart of town": "centre",
         "heart of the town": "centre", "heart of the city": "centre", "heart of city": "centre",
         "heart of cambridge": "centre", "heart of the cambridge": "centre"}

PRICE_RE = rx(r"\b(not (?:too |that |so |really )?cheap|cheap(er|est|ly)?|inexpensive|budget|low[- ]cost|"
              r"low[- ]price[d]?|affordable|"
              r"(?:not|isn't|aren't|(?:least|less)) (?:too |that |very )?expensive|moderate(ly)?( priced)?|"
              r"modest(ly)?( priced)?|mid[- ]?range|medium|"
              r"reasonabl[ey]( priced)?|average|middle(?! of)|fair(ly)? priced|expensive|upscale|high[- ]end|"
              r"high quality|fine dining|fancy|pricey|pricy|luxur(y|ious)|posh|upmarket|high[- ]price[d]?|"
              r"prices are low|cheaply)\b")


def price_value(word: str) -> str:
    if word.startswith("not") and word.endswith("cheap"):
        return "moderate"  # "something not too cheap"
    if word.startswith(("cheap", "inexpensive", "budget", "low", "afford", "not", "isn't", "aren't", "least",
                        "less", "prices are low")):
        return "cheap"
    if word.startswith(("moderate", "modest", "mid", "medium", "reasonabl", "average", "middle", "fair")):
        return "moderate"
    return "expensive"


ATTRACTION_TYPES = {
    "museum": "museum", "museums": "museum", "college": "college", "colleges": "college",
    "theatre": "theatre", "theatres": "theatre", "architecture": "architecture",
    "architectural": "architecture", "church": "architecture", "churches": "architecture",
    "entertainment": "entertainment", "boat": "boat", "boats": "boat", "boating": "boat", "punting": "boat",
    "park": "park", "parks": "park", "nightclub": "nightclub", "night club": "nightclub",
    "nightclubs": "nightclub", "night clubs": "nightclub", "club": "nightclub", "clubs": "nightclub",
    "swimming pool": "swimmingpool", "swimming pools": "swimmingpool", "pool": "swimmingpool",
    "pools": "swimmingpool", "swimming": "swimmingpool", "swimmingpool": "swimmingpool", "cinema": "cinema",
    "cinemas": "cinema", "movies": "cinema", "movie theatre": "cinema", "multiple sports": "mutliple sports",
    "sports": "mutliple sports", "concert hall": "concerthall", "concerthall": "concerthall",
    "concert": "concerthall", "gallery": "museum", "galleries": "museum",
}
ATYPE_RE = rx(r"\b(" + "|".join(sorted(map(re.escape, ATTRACTION_TYPES), key=len, reverse=True)) + r")\b")

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAY_RE = rx(r"\b(" + "|".join(DAYS) + r")s?\b")

STARS_RE = rx(r"\b([0-5])[ -]?stars?\b|\bstar rating of ([0-5])\b|\brated ([0-5])\b|\b([0-5]) star rating\b"
              r"|\bstars? of ([0-5])\b"
              r"|\bstars? rating (?:of )?([0-5])\b|\bzero[ -]stars?\b")
PEOPLE_RE = rx(r"\b(\d{1,2}) (?:people|persons?|guests?|adults?|of us|(?:train )?tickets?|seats?|travell?ers|"
               r"passengers|pax|diners|ppl|in my party|in our party|in the party)\b|\b(?:party|group|table|"
               r"booking|reservation|tickets?|seats?) (?:of|for) (\d{1,2})\b(?!:| nights?| days?| stars?)"
               r"|(?<!looking )(?<!look )(?<!search )\bfor (\d{1,2})\b(?!:| nights?| days?| stars?| pm| am|"
               r" o'?clock| minutes| pounds| in the| that| which| with| in | near| of )")
STAY_RE = rx(r"\b(\d{1,2}) (?:nights?|days?)\b(?! out)|\ba (single) night\b"
             r"|\b(?:stay|staying) (?:for )?(\d{1,2})\b"
             r"(?! (?:people|persons?|guests?|adults?|of us|stars?))")
BARE_NUM_RE = rx(r"(?<!:)\b(\d{1,2})\b(?!:)")

PARKING_RE = rx(r"\b(parking|park my car|park the car|park our car|place to park|car park|park for free|"
                r"(?:i|we) can park)\b")
INTERNET_RE = rx(r"\b(wifi|internet|wireless|online access)\b")
NEG_BEFORE = rx(r"\b(no|not|don't|doesn't|dont|without|won't|n't)\b(?:\s+\S+){0,5}\s*$")
DONTCARE_RE = rx(r"\b(don't care|doesn't matter|does not matter|do not care|dont care|no preferences?|"
                 r"(?:don't|do not) (?:really|much|particularly) care|(?:doesn't|does not) (?:much|really)"
                 r" matter|"
                 r"(?:don't|do not) have an? (?:\w+ ){0,2}preference|no (?:\w+ ){1,2}preference|"
                 r"not (?:too |that |really )?(?:worried|fussed|concerned) about|"
                 r"any (?:area|part|price|type|kind|food|cuisine|time|day|star|will do|is fine)|anywhere|"
                 r"anything(?: is fine| will do)?|not (?:really )?(?:picky|particular|fussy)|either (?:is|"
                 r"will|one)|whatever(?! the case)|i don't mind|no particular|doesn't really matter|"
                 r"not important|(?:isn't|is not|aren't|are not) (?:really |that |too )?important|either way|"
                 r"(?<!there )any of them|any one|not bothered|flexible|i'm easy|no specific|"
                 r"don't have a preference|any (?:will be|is|would be) (?:fine|ok|okay|good)|"
                 r"(?<!there )any of those|"
                 r"either (?:\w+ ){0,3}(?:is|are|will be|would be) (?:fine|ok|okay|good)|"
                 r"open to (?:any|the|whatever) (?:price|area|location|part|type|kind|food|cuisine|star)|"
                 r"any time|anytime|doesn't matter|no specific time|no particular time|(?:don't|do not|"
                 r"doesn't|does not) (?:have|need) (?:a|any) (?:specific|particular|preferred|certain)|"
                 r"(?:doesn't|does not|don't|do not) (?:need|have) to (?:have|include|be)|optional|"
                 r"not (?:a )?(?:big deal|concern|an issue|necessary|required))\b")

REQUESTS: list[tuple[re.Pattern[str], str]] = [
    (rx(r"\b(phone|number to call|contact number|contact details|phone numbers|telephone|call them)\b"),
     "phone"),
    (rx(r"\b(address|addresses|where is it|where are they|located|location|where exactly|street)\b"),
     "address"),
    (rx(r"\b(postcode|postcodes)\b"), "postcode"),
    (rx(r"\b(entrance fee|entry fee|admission|entrance|cost to get in|cost to enter|charge to get in)\b"),
     "entrance fee"),
    (rx(r"\b(train id|train number|trainid|id of the train|id number|train's id|the id)\b"), "trainID"),
    (rx(r"\b(travel time|how long|duration|journey time|length of the (?:trip|journey|ride))\b"), "duration"),
    (rx(r"\b(arrival time|(?:when|what time) (?:does|will|would) (?:it|th(?:at|is)(?: one| 1| train)?|"
        r"the train) (?:arrive|get (?:in|there))|time it arrives"
        r"|arrive at what time|when it arrives|what time will i arrive|when do i arrive|arrives? when)\b"),
     "arriveBy"),
    (rx(r"\b(departure time|(?:when|what time) (?:does|will|would) (?:it|th(?:at|is)(?: one| 1| train)?|"
        r"the train) (?:leave|depart)|time it leaves|leaves? when|departs? when|when it leaves|"
        r"what time it leaves|(?:what time|when) (?:will|does|do|would) (?:it|they|the (?:taxi|car|driver)) "
        r"(?:pick (?:me|us) up|come|get here))\b"), "leaveAt"),
    (rx(r"\b(reference|confirmation|ref number|booking number|conf number)\b"), "reference"),
    (rx(r"\b(car type|type of car|kind of car|what car|which car|make of car|car make|model|colou?r|"
        r"what type of vehicle|what kind of vehicle|look for|looking out for|look out for)\b"), "car type"),
    (rx(r"\b(what (?:kind|type) of food|what food|type of food|kind of food|cuisine|what do they serve)\b"),
     "food"),
    (rx(r"\b(what area|which area|part of town|what part|which part|side of town|area is|area of)\b"),
     "area"),
    (rx(r"\b(how much|price|prices|cost|costs|fare|price range|pricerange|expensive is|cheap is)\b"),
     "price"),
    (rx(r"\b(star rating|how many stars|stars does|rating|(?:the|its|their) stars?(?! of))\b"), "stars"),
    (rx(r"\b(what type of|what kind of|type of attraction|kind of attraction|what is it)\b"), "type"),
    (rx(r"\b(opening hours|open hours|when (?:is|are) (?:it|they) open|what time (?:does|do) (?:it|"
        r"they) (?:open|close))\b"), "openhours"),
    (rx(r"\b(the name|its name|what is it called|what's it called|name of)\b"), "name"),
]
QUESTION_START = rx(r"^(what|whats|what's|which|where|when|how|can|could|may|would|do|does|is|are|has|have|"
                    r"will|please (give|tell|send|provide)|i need the|i'd like the|i would like the|give me|"
                    r"tell me|get me the|and the|also the|may i|and what|and their|i need their|"
                    r"i'd like their)\b")
REQUEST_CUE = rx(r"\b(what|whats|what's|which|where|when|how|give me|tell me|get me|can i (?:get|have)|"
                 r"could i (?:get|have)|i need the|i'd like the|i would like the|i need their|i'd also like|"
                 r"may i have|may i get|provide|do you have the|do you know|send me|and the|also need|"
                 r"need to know|want to know|let me know|could you give|can you give|could you tell|"
                 r"can you tell|information|info|details|\?|their|phone number|postcode|address|"
                 r"reference number|train id|entrance fee|travel time|car type)\b")

GREET_RE = rx(r"^(hi|hello|hey|hiya|good (morning|afternoon|evening)|greetings|howdy)\b")
THANKS_RE = rx(r"\b(thanks|thank you|thank|cheers|appreciate|ta|thankyou|thx)\b")
BYE_RE = rx(r"\b(bye|goodbye|good bye|that's all|that is all|that will be all|that'll be all|nothing else|"
            r"that's it|that is it|all i need|i'm all set|i am all set|have a (good|nice|great) (day|night|"
            r"evening|one)|that should be all|that's everything|that is everything|no more|i'm done|"
            r"no that's all|no thank you|no thanks|all set)\b")
AFFIRM_RE = rx(r"^(yes|yeah|yep|yup|yea|sure|ok|okay|please do|please book|that works|sounds good|"
               r"sounds great|sounds perfect|great|perfect|fine|absolutely|definitely|of course|correct|"
               r"right|alright|that would be (great|good|fine|perfect|nice|wonderful)|go ahead|book it|do it|"
               r"that's fine|that's great|that's perfect|please|i would (?:like that|love that|appreciate)|"
               r"i'd like that|lovely|excellent|why not)\b")
NEGATE_RE = rx(r"^(no|nope|nah|not|negative|actually no)\b")
BOOK_RE = rx(r"\b(book|booking|reserve|reservation|reserved|make a reservation|get a table|table for|"
             r"get tickets|buy tickets|purchase|get me tickets|i'll take it|i will take it|i'd like to take|"
             r"tickets? for)\b")
NOBOOK_RE = rx(r"\b(don't (?:need to |want to )?book|no need to book|not (?:ready )?to book|not book|"
               r"don't make|no booking|not yet|just (?:the )?(?:info|information|looking|want|need)|"
               r"no reservation|won't need (?:a|to) book|not at this time|not right now|maybe later|"
               r"book it myself|book later)\b")
REQALTS_RE = rx(r"\b(another (one|option|place|restaurant|hotel|train|suggestion)|something else|"
                r"different (one|place|restaurant|hotel|option|area)|other options|any others|"
                r"anything else (?:available|similar)|a different|other choices|what else|any more|"
                r"another(?=[\s?!.]*$))\b")
RECOMMEND_RE = rx(r"\b(recommend|recommendation|suggest|suggestion|pick one|which one|your choice|"
                  r"surprise me|your favou?rite|whichever|any of them|any one|best|choose one|you choose|"
                  r"up to you)\b")
#: "is there an earlier one?", "anything later?": the train before / after the one offered
EARLIER_RE = rx(r"\b(?:earlier|sooner)\b(?! than)(?!.*\blater\b)")
LATER_RE = rx(r"\b(?:an?|any(?:thing)?|something|one|is there|the next) (?:(?:bit|little) )?later\b(?! than)"
              r"|\blater (?:one|train|departure|option|time)\b|\bnext (?:one|train)\b")
CORRECT_RE = rx(r"\b(i meant|i mean|sorry,? (?:i|it)|actually|correction|change (?:it|that|the)|instead|"
                r"rather|make (?:it|that)|not (?:the )?(?:north|south|east|west|centre|cheap|expensive|"
                r"moderate))\b")

TIME_CUES_ARRIVE = rx(r"(arriv\w*|gets? (?:me |us )?(there|to|in|into|back)|be there|be at|be in|reach\w*|by|"
                      r"before|"
                      r"no later than|until|till|latest|in time|arrival)\W*(?:\S+\W+){0,5}$")
TIME_CUES_LEAVE = rx(r"(leav\w*|depart\w*|after|from|pick(ed)? (me |us )?up|pickup|go at|departure|"
                     r"(?<!no )later than|earliest|starting|going|set off|head out|"
                     r"travel(l?ing)? at)\W*(?:\S+\W+){0,6}$")
#: another event of the user's day, said with its time ("I have dinner at 8", "my meeting starts at 10")
_EVENT = (r"(?:dinner|lunch|breakfast|brunch|supper|meeting|show|concert|appointment|performance|play|match|"
          r"game|party|wedding|interview|conference|class|lecture|film|movie|talk|gig|exam|ceremony|service|"
          r"tour|event)s?(?: (?:is|starts?|begins?|ends?|finishes|tomorrow|tonight|today|planned|booked))?"
          r" (?:at|for|from)\s*$")
EVENT_TIME = rx(r"\b" + _EVENT)
#: ... that the trip is tied to: reaching it ("arrive before my dinner at 8", "in time for a show at 7:30"),
#: or leaving after it ("after my lunch at 1")
EVENT_ARRIVE = rx(r"\b(?:before|by|for|until|till|ahead of|prior to|in time for)(?: (?:my|our|the|a|an|this|"
                  r"that|his|her|their))?(?: \S+)? " + _EVENT)
EVENT_LEAVE = rx(r"\b(?:after|following|once|when)(?: (?:my|our|the|a|an|this|that|his|her|their))?(?: \S+)? "
                 + _EVENT)
#: ... or tied to it after the time: "so I need to get there before that", "I can leave after it"
EVENT_ARRIVE_AFTER = rx(r"^[^.?!;]{0,60}?\b(?:(?:before|by) (?:that|then|it\b(?! \w))|in time(?! to leave))")
EVENT_LEAVE_AFTER = rx(r"^[^.?!;]{0,60}?\b(?:after (?:that|it|then|this)\b|afterwards)")
TIME_CUES_BOOK = rx(r"\b(table|reservation|book|booking|reserve|dinner|lunch|eat|dine|meal|for \d+ people)\b")

PLACE_FROM = rx(r"\b(from|leaving|leave|leaves|depart|departing|departs|out of|pick (?:me |us )?up(?: at|"
                r" from)?|pickup (?:at|from)|picked up (?:at|from)|starting (?:at|from)|start (?:at|from)|"
                r"coming from|between)\s+(?:the\s+)?$")
PLACE_TO = rx(r"\b(to|into|towards|toward|going|go|arrive (?:at|in)|arriving (?:at|in)|arrives (?:at|in)|"
              r"get to|headed|heading|destination|for|reach|bound for|travel(l?ing)? to|take me|take us|"
              r"to be at|in)\s+(?:the\s+)?(?:\S+\s+)?$")
REF_RE = rx(r"\b(?:the|my|our|your|that|this) (hotel|guesthouse|guest house|restaurant|attraction|museum|"
            r"college|church|theatre|cinema|pool|park|gallery|club|nightclub|place|venue|b and b|"
            r"bed and breakfast)\b")
REF_DOMAIN = {"hotel": "hotel", "guesthouse": "hotel", "guest house": "hotel", "b and b": "hotel",
              "bed and breakfast": "hotel", "restaurant": "restaurant"}
TRAIN_ID_RE = rx(r"\btr ?(\d{4})\b")
