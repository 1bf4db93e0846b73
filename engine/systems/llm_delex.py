"""Delexicalised drafts for ``llm``: the model rewrites ``[name] is a [stars] star [type] in the [area].`` and
the values are filled in after generation, so it can neither drop nor invent a name, number or reference.

:func:`delexicalise` replaces every value the acts (and the offered venue) put into the template draft with a
placeholder named after its slot; :func:`check_placeholders` says why a rewrite may not be used (a placeholder
dropped, made up or repeated, a number written out, a refusal, ...); :func:`fill` puts the values back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from parley.engine.systems.llm_check import LIST_SLOTS, REFUSALS, shape_reason

#: act/venue slot → placeholder name (one word the small model copies easily)
SLOT_NAMES = {"name": "name", "food": "food", "area": "area", "pricerange": "pricerange", "stars": "stars",
              "type": "type", "phone": "phone", "address": "address", "postcode": "postcode",
              "reference": "reference", "ref": "reference", "book_time": "time", "time": "time",
              "book_day": "day", "day": "day", "book_people": "people", "people": "people",
              "book_stay": "nights", "stay": "nights", "trainID": "trainid", "leaveAt": "leaves",
              "arriveBy": "arrives", "price": "price", "duration": "duration", "choice": "count",
              "car type": "car", "entrance fee": "fee", "departure": "from", "destination": "to",
              "department": "department", "openhours": "hours",
              "price single": "price", "price double": "price", "price family": "price"}  # room prices
VENUE_SLOTS = ("name", "food", "area", "pricerange", "stars", "type", "phone", "address", "postcode")
_PLACEHOLDER = re.compile(r"\[([a-z]+\d?)\]")
_TYPE_WORDS = {"swimmingpool": "swimming pool", "mutliple sports": "multiple sports venue",
               "concerthall": "concert hall", "entertainment": "entertainment venue",
               "architecture": "historic building", "boat": "boat trip"}


def _forms(slot: str, value: str) -> list[str]:
    """The spellings the template NLG may have given a value."""
    v = str(value).strip()
    forms = {v, v.lower(), v.upper(), v.title(), _TYPE_WORDS.get(v.lower(), v)}
    if slot in ("name", "departure", "destination", "address", "department"):
        forms.add(" ".join(w[:1].upper() + w[1:] for w in v.split()))
    items = v.split(", ")
    if slot in LIST_SLOTS and len(items) > 1:  # a list of values, said "east, north and south"
        said = ", ".join(_TYPE_WORDS.get(x.lower(), x) for x in items[:-1])
        forms.add(said + " and " + _TYPE_WORDS.get(items[-1].lower(), items[-1]))
    return sorted((f for f in forms if f), key=len, reverse=True)


def delexicalise(text: str, acts: Sequence[Mapping[str, object]], venue: Mapping[str, object] | None = None,
                 ) -> tuple[str, dict[str, str]]:
    """``(draft with placeholders, {placeholder: the text it replaced})``; values not found stay as they
    are."""
    pairs: list[tuple[str, str]] = []
    for a in acts:
        slot, value = a.get("slot"), a.get("value")
        if slot and value not in (None, "", "?", "none", "dontcare") and str(a.get("act")) != "request":
            pairs.append((str(slot), str(value)))
    for slot in VENUE_SLOTS:
        if venue and isinstance(venue.get(slot), str | int) and str(venue[slot]) not in ("", "?"):
            pairs.append((slot, str(venue[slot])))
    found: list[tuple[int, int, str, str]] = []  # (start, end, placeholder base, matched text)
    bases = {(SLOT_NAMES.get(slot), value) for slot, value in pairs}
    for slot, value in sorted(pairs, key=lambda p: -len(p[1])):
        base = SLOT_NAMES.get(slot)
        if base is None or (len(value) < 2 and not value.isdigit()):
            continue
        for form in _forms(slot, value):
            for m in re.finditer(r"(?<![\w\[])" + re.escape(form) + r"(?![\w\]])", text):
                owner = _owner(text, m.end()) or _time_owner(text, m.start())  # "4-star": the stars' 4
                if owner != base and ((owner and (owner, value) in bases) or (
                        base in ("stars", "nights") and len({b for b, v in bases if v == value}) > 1)):
                    continue
                if not any(s < m.end() and m.start() < e for s, e, _, _ in found):
                    found.append((m.start(), m.end(), base, m.group(0)))
    mapping: dict[str, str] = {}
    by_text: dict[tuple[str, str], str] = {}
    out, last = [], 0
    for start, end, base, matched in sorted(found):
        key = by_text.get((base, matched))
        if key is None:
            n = sum(1 for k in mapping if k == base or k.startswith(base) and k[len(base):].isdigit())
            key = base if n == 0 else f"{base}{n + 1}"
            by_text[(base, matched)] = key
            mapping[key] = matched
        out.append(text[last:start] + f"[{key}]")
        last = end
    out.append(text[last:])
    return "".join(out), mapping


_OWNERS = (("stars", re.compile(r"-? ?stars?\b")), ("people", re.compile(r" (people|guests|persons?)\b")),
           ("nights", re.compile(r" nights?\b")))


def _owner(text: str, end: int) -> str | None:
    """The placeholder a number belongs to by the word after it ("4-star" → stars), if any."""
    return next((base for base, rx in _OWNERS if rx.match(text, end)), None)


_TIME_OWNERS = (("arrives", re.compile(r"(arriv\w*|gets? in|get there)( at| by| before)?\s*$")),
                ("leaves", re.compile(r"(leav\w*|depart\w*)( at| after| from)?\s*$")))


def _time_owner(text: str, start: int) -> str | None:
    """The time placeholder a time belongs to by the words before it ("arriving by 10:00" → arrives)."""
    before = text[max(0, start - 25):start]
    return next((base for base, rx in _TIME_OWNERS if rx.search(before)), None)


def placeholders(text: str) -> list[str]:
    return _PLACEHOLDER.findall(text)


def check_placeholders(reply: str, draft: str) -> str | None:
    """Why a rewrite of the delexicalised ``draft`` may not be shown (``None`` when it is fine)."""
    if not reply.strip():
        return "empty output"
    if REFUSALS.search(reply):
        return "the model refused or talked about itself"
    want, got = placeholders(draft), placeholders(reply)
    missing = [p for p in dict.fromkeys(want) if p not in got]
    if missing:
        return "dropped placeholders: " + ", ".join(missing)
    extra = [p for p in dict.fromkeys(got) if p not in want]
    if extra:
        return "made-up placeholders: " + ", ".join(extra)
    if any(got.count(p) > max(1, want.count(p)) for p in set(got)):
        return "repeated a placeholder"
    if re.search(r"\[[^\]]*$|^[^\[]*\]|\[\s*\]", reply) or re.search(r"\d", _PLACEHOLDER.sub("", reply)):
        return "wrote a value itself"
    return shape_reason(reply, draft, questions=max(draft.count("?"), 1))


def fill(text: str, mapping: Mapping[str, str]) -> str:
    """Put the values back ("[name]" → "Da Vinci Pizzeria")."""
    return _PLACEHOLDER.sub(lambda m: mapping.get(m.group(1), m.group(0)), text)


def sentences(text: str) -> list[str]:
    """The sentences of a draft (split after . ! ? followed by a space)."""
    return [x for x in re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+", text.strip()) if x]


_WORD = re.compile(r"[a-z]{4,}")
#: "no", "not", "n't", "never", ...: a rewrite that adds one says the opposite of the draft ("but I [count]
#: not")
_NEGATION = re.compile(r"\b(?:no|not|never|nothing|none|nobody|cannot)\b|n't\b")


#: a finite verb: an auxiliary, or a verb of the system's sentences
_VERB = re.compile(r"\b(?:is|are|was|were|am|be|been|has|have|had|do|does|did|can|could|will|would|shall|"
                   r"should|may|might|must|need|needs|want|like|prefer|serves?|leaves?|arrives?|departs?|gets?|"
                   r"costs?|takes?|found|find|booked|book|reserved|reserve|match(?:es)?|fits?|call|reach|pick|"
                   r"look|try|"
                   r"change|drop|suggest|recommend|enjoy|go|help|let|know|tell|thank|thanks|welcome|offers?|"
                   r"ask|visit|stay|travel(?:l?ing)?|leaving|arriving|got|made|make)\b|'(?:s|re|ve|ll|d|m)\b")


def check_sentence(out: str, sentence: str, lexical: bool = True) -> str | None:
    """Why a rewrite of one draft sentence may not replace it: the placeholder check, one sentence, no new
    negation, no word three times, short; with ``lexical`` it must also keep half the sentence's own words and
    add at most two (a small model otherwise drifts to another topic)."""
    reason = check_placeholders(out, sentence)
    if reason:
        return reason
    if placeholders(out) != placeholders(sentence):
        return "moved a placeholder"
    if len(re.findall(r"[.!?](?=\s+\S)", out)) > len(re.findall(r"[.!?](?=\s+\S)", sentence)):
        return "wrote more than one sentence"
    if len(_NEGATION.findall(out.lower())) > len(_NEGATION.findall(sentence.lower())):
        return "added a negation"
    words = re.findall(r"[a-z']+", _PLACEHOLDER.sub(" ", out.lower()))
    if any(words.count(w) >= 3 and words.count(w) > sentence.lower().count(w) for w in set(words)):
        return "repeated itself"
    grams = [" ".join(words[i:i + 4]) for i in range(len(words) - 3)]
    if any(grams.count(g) > 1 and sentence.lower().count(g) < 2 for g in grams):
        return "repeated itself"
    plain_in, plain_out = _PLACEHOLDER.sub(" ", sentence.lower()), _PLACEHOLDER.sub(" ", out.lower())
    if _VERB.search(plain_in) and not _VERB.search(plain_out) and not out.rstrip().endswith("?"):
        return "lost its verb"
    keep = set(_WORD.findall(_PLACEHOLDER.sub(" ", sentence.lower())))
    have = set(_WORD.findall(_PLACEHOLDER.sub(" ", out.lower())))
    if lexical and keep and len(keep & have) < 0.5 * len(keep):
        return "changed the subject"
    if lexical and len(have - keep - FRIENDLY) > 2:
        return "added content"
    if len(out) > 1.8 * len(sentence) + 30:
        return "too long"
    return None


#: words a rewording may add without adding content
FRIENDLY = frozenset(["lovely", "great", "good", "nice", "wonderful", "happy", "glad", "sure", "please",
                      "would", "like", "love", "could", "help", "really", "very", "just", "also", "that",
                      "with", "your", "there", "here", "this", "will", "have", "what", "when", "which",
                      "some", "more", "definitely", "certainly", "absolutely", "perfect", "fine", "well",
                      "today", "right", "away", "found", "looks", "sounds", "seems", "quite", "place", "spot",
                      "option", "choice"])


def rewrite(draft: str, generate: Callable[[str], str],
            check: Callable[[str, str], str | None] = check_sentence,
            limit: int = 0) -> tuple[str, int, int, list[str]]:
    """Rewrite a delexicalised draft sentence by sentence with ``generate(sentence) -> raw``; a sentence whose
    rewrite fails ``check(rewrite, sentence) -> reason | None`` (:func:`check_sentence` by default) keeps the
    draft's wording, and so do the sentences after the first ``limit`` (0: none). Returns ``(text, sentences
    reworded, sentences to reword, reasons)``."""
    parts: list[str] = []
    reasons: list[str] = []
    done = tried = 0
    todo = sentences(draft)
    for sent in todo:
        words = _WORD.findall(_PLACEHOLDER.sub(" ", sent.lower()))
        if len(words) < 2 or (limit and tried >= limit):  # "Done!", "[name]:" — nothing to reword
            parts.append(sent)
            continue
        tried += 1
        raw = " ".join(generate(sent).split())
        why = check(raw, sent)
        if why is None:
            parts.append(raw)
            done += raw != sent  # a sentence the model copied counts as not reworded
        else:
            parts.append(sent)
            reasons.append(why)
    return " ".join(parts), done, sum(1 for x in todo
                                      if len(_WORD.findall(_PLACEHOLDER.sub(" ", x.lower()))) >= 2), \
        reasons
