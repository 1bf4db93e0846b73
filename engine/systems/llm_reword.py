"""Does a reworded ``llm`` reply still say what the template draft says, in grammatical English?

Rules over the text only, independent of the model that wrote the reply:

- :func:`engine.systems.llm_act.read` — what a reply *does* (a confirmation stays a confirmation, an offer
  stays an offer, a question asks for the same slots: :func:`engine.systems.llm_act.act_reason`).
- :func:`grammar_problems` — articles and number agreement on the filled-in text ("a 2 restaurants",
  "1 nights", "a italian place", "there is 3 hotels") and placeholders in a role their value cannot have
  ("guests from [people]", "[nights] people", "[count] museum" for a count of 2).
- :func:`reword_reason` — both, plus facts the draft does not state (a table for a hotel stay, free wifi):
  why a rewording may not replace the draft (``None`` when it may).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from parley.engine.systems.llm_act import _PH, _sentences, act_reason

# -- grammar -------------------------------------------------------------------------------------------------
#: nouns the system counts: singular → plural
NOUNS = {"restaurant": "restaurants", "hotel": "hotels", "guesthouse": "guesthouses", "place": "places",
         "option": "options", "choice": "choices", "train": "trains", "taxi": "taxis",
         "attraction": "attractions", "museum": "museums", "college": "colleges", "night": "nights",
         "person": "people", "guest": "guests",
         "adult": "adults", "ticket": "tickets", "seat": "seats", "room": "rooms", "table": "tables",
         "star": "stars", "day": "days", "minute": "minutes", "hour": "hours", "match": "matches",
         "result": "results", "department": "departments", "station": "stations", "venue": "venues",
         "spot": "spots", "one": "ones", "pound": "pounds", "church": "churches", "park": "parks",
         "theatre": "theatres", "cinema": "cinemas", "pool": "pools", "gallery": "galleries"}
PLURALS = frozenset(NOUNS.values())
SINGULARS = frozenset(NOUNS)
_LINKS = frozenset({"of", "for", "with", "in", "at", "on", "to", "and", "or", "from", "by", "that", "which",
                    "who", "is", "are", "has", "have", "there", "it", "i", "you", "we", "they"})
#: a/an exceptions by sound, not spelling
_A_VOWEL_LETTER = re.compile(r"^(uni|use|usu|uti|eu|ewe|one|once|ur[aeiou]|u[bcfgklmnprst][aeiou]|ubiq)")
_AN_CONSONANT_LETTER = re.compile(r"^(hour|honou?r|honest|heir|herb)")
#: what may follow a number placeholder (a following word from these sets) or precede it
ROLE_NEXT = {"people": {"people", "persons", "person", "guests", "guest", "adults", "of", "tickets", "ticket",
                        "seats", "seat"},
             "nights": {"nights", "night"}, "stars": {"star", "stars", "-star"}}
ROLE_PREV = {"people": {"for", "of", "party", "table", "booking", "and", ","}, "stars": {"rating"}}
FOOD_NEXT = {"food", "cuisine", "restaurant", "restaurants", "place", "places", "dishes", "meal", "spot",
             "one", "ones", "kitchen", "cooking", "[type]", ",", ""}
FOOD_PREV = {"serves", "serving", "serve", "of", "is", "'s", "as", "g", "example", ",", ":", "and", "or",
             "offers", "for", "to"}
#: what must come right before a placeholder (its value is not a phrase of its own)
#: what may not come right before a placeholder
ROLE_NOT_AFTER = {"trainid": {"from", "to", "at", "by"}}
ROLE_AFTER = {"car": {"a", "an", "the", "your", "is", ":"},
              "area": {"the", "as", "g", "example", ",", "or", "and", "is", ":", "to", "in"},
              "price": {"is", "at", "for", "of", "costs", "cost", "total", "(", ":", ",", "be", "only",
                        "just", "pay", "paid", "comes", "to"}}
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\[[a-z]+\d?\]|\d+(?::\d+)?|[,;:(]")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'").replace("-star", " -star"))


_NUMBER_WORDS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})


def _is_number(tok: str) -> bool:
    return tok.isdigit() or tok in _NUMBER_WORDS


_QUESTION_START = re.compile(r"^\s*(?:(?:and|but|so|or|also|then|now|just)\s+)?"
                             r"(?:(?:for|on|at|in|from|to|with|by|until|about)\s+)?"
                             r"(?:could|can|would|will|shall|should|may|might|do|does|did|is|are|was|were|have|"
                             r"has|what|which|when|where|who|whom|whose|how|why|any|anything|something|need|"
                             r"want|fancy|ok|okay|right|or not)\b")


def is_question(sentence: str) -> bool:
    """Whether a sentence ending in "?" is worded as a question (one of its clauses starts like one)."""
    clauses = re.split(r"[,;:\u2014-]\s*", _PH.sub("it", sentence.lower().replace("’", "'")).rstrip(" ?"))
    return any(_QUESTION_START.match(c) for c in clauses)


_MIXED = re.compile(r"^\s*(?:where|when|what|which|how)\b(?!.*\b(?:tell|know|ask)\b)"
                    r".*\band (?:where|when|what|which|how)(?: \w+)? you(?:'re| are| would|'d| will)\b")
_OPENER = re.compile(r"^\s*(?:sure|of course|certainly|absolutely|okay|ok|great)\b[,!]")


def sentence_problems(sentences: list[str]) -> list[str]:
    """Problems of whole sentences: a statement with a question mark, a direct question joined to an
    indirect one ("Where are you leaving from and where you're going?"), "e g" for "e.g.", and an opener
    such as "Sure," after the first sentence."""
    out = []
    for k, s in enumerate(sentences):
        low = s.lower().replace("’", "'")
        if s.rstrip().endswith("?") and not is_question(s):
            out.append(f"'{s}': a statement with a question mark")
        if s.rstrip().endswith("?") and _MIXED.search(low):
            out.append(f"'{s}': a direct question joined to an indirect one")
        if re.search(r"\be[ ,]g\b", low):
            out.append(f"'{s}': 'e g' for 'e.g.'")
        if k and _OPENER.match(low):
            out.append(f"'{s}': an opener in the middle of the reply")
    return out


def grammar_problems(text: str) -> list[str]:
    """Articles and number agreement in a filled-in reply, and :func:`sentence_problems`: each problem as
    ``'<words>': <what>``. Words are read sentence by sentence ("... for you. You could ..." doubles no
    word)."""
    problems = sentence_problems(_sentences(text))
    for sentence in _sentences(text):
        problems += _word_problems(_tokens(sentence))
    return problems


def _word_problems(toks: list[str]) -> list[str]:
    """The article and agreement problems of one sentence's tokens."""
    problems: list[str] = []

    def add(i: int, j: int, what: str) -> None:
        problems.append(f"'{' '.join(toks[i:j])}': {what}")

    for i, tok in enumerate(toks):
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if tok in ("a", "an") and nxt:
            if _is_number(nxt) and nxt != "one" and toks[i + 2:i + 3] not in (["star"], ["-star"]):
                add(i, i + 3, "an article before a count")
                continue
            for j in range(i + 1, min(i + 4, len(toks))):  # "a great restaurants", "a 2 restaurants"
                if toks[j] in _LINKS or toks[j] in SINGULARS:
                    break
                if toks[j] in PLURALS and toks[j] != "people":
                    add(i, j + 1, "a singular article before a plural noun")
                    break
            if nxt.isalpha():
                vowel = nxt[0] in "aeiou"
                if tok == "a" and vowel and not _A_VOWEL_LETTER.match(nxt):
                    add(i, i + 2, "'an' before a vowel sound")
                elif tok == "an" and not vowel and not _AN_CONSONANT_LETTER.match(nxt):
                    add(i, i + 2, "'a' before a consonant sound")
        if tok.isdigit() and nxt:
            n = int(tok)
            if n == 1 and nxt in PLURALS and nxt != "stars":
                add(i, i + 2, "one of a plural noun")
            elif n != 1 and nxt in SINGULARS and nxt not in ("star", "one") and not (
                    nxt in ("night", "day", "minute", "hour", "person") and toks[i + 2:i + 3] and
                    toks[i + 2] in ("stay", "trip", "journey", "ride", "booking", "table", "visit")):
                add(i, i + 2, "a plural count with a singular noun")
        if tok in ("is", "'s") and i and toks[i - 1] == "there" and nxt.isdigit() and int(nxt) != 1:
            add(i - 1, i + 3, "'there is' before a plural count")
        if tok == "are" and i and toks[i - 1] == "there" and nxt == "1":
            add(i - 1, i + 3, "'there are' before one")
        if nxt == tok and tok.isalpha() and tok not in ("bye", "very", "no"):
            add(i, i + 2, "a doubled word")
    return problems


#: words that name what a value is; a placeholder right after one of another kind is in the wrong role
KIND_WORDS = {"reference": "reference", "ref": "reference", "phone": "phone", "telephone": "phone",
              "call": "phone", "reach": "phone", "ring": "phone", "contact": "phone", "address": "address",
              "postcode": "postcode", "train": "trainid", "price": "price", "cost": "price", "costs": "price",
              "total": "price", "fee": "price", "leave": "leaves", "leaves": "leaves", "leaving": "leaves",
              "depart": "leaves", "departs": "leaves", "departure": "leaves", "arrive": "arrives",
              "arrives": "arrives", "arriving": "arrives", "arrival": "arrives", "called": "name",
              "named": "name"}
KINDS = frozenset(KIND_WORDS.values())
#: a count may stand alone after these ("there are [count]", "I do have [count] if ...")
COUNT_PREV = frozenset({"are", "have", "has", "found", "is", "'s", "of", "there", "with", "about", "only",
                        "all", "just", "see", "got"})


def _role(base: str, tok: str, toks: list[str], i: int, value: str) -> list[str]:
    """What is wrong with placeholder ``tok`` (base name ``base``) at ``toks[i]``."""
    nxt = toks[i + 1] if i + 1 < len(toks) else ""
    prev = toks[i - 1] if i else ""
    around = " ".join(toks[max(i - 1, 0):i + 2])
    out = []
    if base == "pricerange" and toks[i + 1:i + 3] == ["price", "range"] and prev not in ("the", "a", ",", ""):
        out.append(f"'{around} range': [pricerange] price range without 'the'")
    if base == "food" and nxt not in FOOD_NEXT and prev not in FOOD_PREV:
        out.append(f"'{around}': [food] out of its role")
    if base == "name" and (nxt in PLURALS or nxt in SINGULARS):
        out.append(f"'{tok} {nxt}': [name] used as a word")
    if base in ROLE_NOT_AFTER and prev in ROLE_NOT_AFTER[base]:
        out.append(f"'{prev} {tok}': [{base}] out of its role")
    if base in ROLE_AFTER and prev not in ROLE_AFTER[base]:
        out.append(f"'{prev} {tok}': [{base}] out of its role")
    free = prev in ROLE_PREV.get(base, ()) or (base == "stars" and "rating" in toks[max(i - 3, 0):i])
    if base in ROLE_NEXT and nxt not in ROLE_NEXT[base] and not free:
        out.append(f"'{around}': [{base}] out of its role")
    if base in KINDS and prev not in ("of", "for"):  # "the reference is [name]", "reach [x] on [reference]"
        kind = next((KIND_WORDS[t] for t in reversed(toks[max(i - 4, 0):i]) if t in KIND_WORDS), None)
        if kind and kind != base and not (base == "name" and kind in ("phone", "price")):
            out.append(f"'{' '.join(toks[max(i - 3, 0):i + 1])}': [{base}] where a {kind} belongs")
    if base == "count":
        noun = next((t for t in toks[i + 1:i + 4] if t in PLURALS or t in SINGULARS), None)
        if noun is None and prev not in COUNT_PREV:
            out.append(f"'{around}': [count] counts nothing")
        if noun and value.isdigit() and (noun in PLURALS) != (int(value) != 1) and noun != "people":
            number = "plural" if noun in PLURALS else "singular"
            out.append(f"'{tok} {noun}': a count of {value} with a {number} noun")
    return out


def role_problems(delex: str, mapping: Mapping[str, str]) -> list[str]:
    """Placeholders in a role their value cannot have: ``[people]`` that is not a party size, ``[nights]``
    not followed by nights, ``[stars]`` not followed by star(s), ``[food]`` not food, ``[name]`` used as a
    word, a value where another kind of value belongs ("the reference is [name]"), ``[count]`` of a singular
    noun when it is more than one (and the reverse)."""
    toks = _tokens(delex)
    problems = []
    for i, tok in enumerate(toks):
        m = re.fullmatch(r"\[([a-z]+)(\d?)\]", tok)
        if m:
            problems += _role(m.group(1), tok, toks, i, mapping.get(tok[1:-1], ""))
    return problems


# -- facts the draft does not state --------------------------------------------------------------------------
#: groups of words naming one fact; a rewording may use a group only when the draft does
FACTS = {
    "restaurant": r"\b(restaurants?|tables?|dine|dining|meals?|eat|eatery|cuisine|food)\b",
    "hotel": r"\b(hotels?|rooms?|stay|accommodation|guest ?houses?|lodging|b&b)\b",
    "train": r"\b(trains?|rail|railway|tickets?|seats?|journey)\b",
    "taxi": r"\b(taxis?|cabs?|car|driver|pick you up)\b",
    "parking": r"\bparking\b", "internet": r"\b(internet|wifi|wi-fi)\b", "breakfast": r"\bbreakfast\b",
    "price": r"\b(cheap|expensive|moderate(ly)?|pricey|affordable|budget|inexpensive|upscale)\b",
    "area": r"\b(north|south|east|west|centre|center|central|downtown)\b",
    "free": r"\bfree\b", "view": r"\bviews?\b",
    "single room": r"\bsingle\b", "double room": r"\bdouble\b", "family room": r"\bfamily\b",
}
_FACTS = {k: re.compile(v) for k, v in FACTS.items()}
_SLOT_FACT = {"food": "restaurant", "time": "restaurant", "nights": "hotel", "stars": "hotel",
              "trainid": "train", "leaves": "train", "arrives": "train", "car": "taxi", "area": "area",
              "pricerange": "price"}


def added_facts(reply: str, draft: str) -> list[str]:
    """Fact groups (see :data:`FACTS`) the reply names and the draft does not."""
    d, r = _PH.sub(" ", draft.lower()), _PH.sub(" ", reply.lower())
    have = {k for k, rx in _FACTS.items() if rx.search(d)}
    have |= {_SLOT_FACT[p] for p in _PH.findall(draft.lower()) if p in _SLOT_FACT}
    if have & {"hotel"}:
        have.add("price") if "[pricerange]" in draft else None
    return sorted(k for k, rx in _FACTS.items() if rx.search(r) and k not in have)


def reword_reason(reply: str, draft: str, mapping: Mapping[str, str]) -> str | None:
    """Why the delexicalised rewording ``reply`` may not replace the delexicalised ``draft`` (``None``: it
    may). ``mapping`` gives the placeholders' values."""
    why = act_reason(reply, draft)
    if why:
        return why
    facts = added_facts(reply, draft)
    if facts:
        return "added facts: " + ", ".join(facts)
    roles = [p for p in role_problems(reply, mapping) if p not in role_problems(draft, mapping)]
    if roles:
        return "ungrammatical: " + roles[0]
    problems = grammar_problems(for_grammar(reply, mapping))
    if problems:
        return "ungrammatical: " + problems[0]
    return None


#: placeholders whose values take part in the grammar (articles, agreement); names, references, phones,
#: addresses and ids stay placeholders ("A And B Guest House" is no article)
GRAMMAR_SLOTS = frozenset({"food", "pricerange", "type", "area", "count", "people", "nights", "stars", "day"})


def for_grammar(delex: str, mapping: Mapping[str, str]) -> str:
    """``delex`` with the values that matter for grammar filled in (see :data:`GRAMMAR_SLOTS`)."""
    def value(m: re.Match[str]) -> str:
        return mapping.get(m.group(1), m.group(0)) if m.group(2) in GRAMMAR_SLOTS else m.group(0)

    return re.sub(r"\[(([a-z]+)\d?)\]", value, delex)
