"""Delexicalised drafts for ``llm``: the model rewrites ``[name] is a [stars] star [type] in the [area].`` and
the values are filled in after generation, so it can neither drop nor invent a name, number or reference.

:func:`delexicalise` replaces every value the acts (and the offered venue) put into the template draft with a
placeholder named after its slot; :func:`check_placeholders` says why a rewrite may not be used (a placeholder
dropped, made up or repeated, a number written out, a refusal, ...); :func:`fill` puts the values back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from parley.engine.systems.llm_check import REFUSALS, shape_reason

#: act/venue slot → placeholder name (one word the small model copies easily)
SLOT_NAMES = {"name": "name", "food": "food", "area": "area", "pricerange": "pricerange", "stars": "stars",
              "type": "type", "phone": "phone", "address": "address", "postcode": "postcode",
              "reference": "reference", "ref": "reference", "book_time": "time", "time": "time",
              "book_day": "day", "day": "day", "book_people": "people", "people": "people",
              "book_stay": "nights", "stay": "nights", "trainID": "trainid", "leaveAt": "leaves",
              "arriveBy": "arrives", "price": "price", "duration": "duration", "choice": "count",
              "car type": "car", "entrance fee": "fee", "departure": "from", "destination": "to",
              "department": "department", "openhours": "hours"}
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
    return sorted((f for f in forms if f), key=len, reverse=True)


def delexicalise(text: str, acts: Sequence[Mapping[str, Any]], venue: Mapping[str, Any] | None = None,
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
    for slot, value in sorted(pairs, key=lambda p: -len(p[1])):
        base = SLOT_NAMES.get(slot)
        if base is None or (len(value) < 2 and not value.isdigit()):
            continue
        for form in _forms(slot, value):
            for m in re.finditer(r"(?<![\w\[])" + re.escape(form) + r"(?![\w\]])", text):
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
    return [x for x in re.split(r"(?<=[.!?])\s+", text.strip()) if x]


_WORD = re.compile(r"[a-z]{4,}")
#: "no", "not", "n't", "never", ...: a rewrite that adds one says the opposite of the draft ("but I [count]
#: not")
_NEGATION = re.compile(r"\b(?:no|not|never|nothing|none|nobody|cannot)\b|n't\b")


def check_sentence(out: str, sentence: str) -> str | None:
    """Why a rewrite of one draft sentence may not replace it: the placeholder check, plus it must keep some
    of the sentence's own words (the small model otherwise drifts to another topic) and stay short."""
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
    keep = set(_WORD.findall(_PLACEHOLDER.sub(" ", sentence.lower())))
    have = set(_WORD.findall(_PLACEHOLDER.sub(" ", out.lower())))
    if keep and len(keep & have) < 0.5 * len(keep):
        return "changed the subject"
    if len(have - keep - FRIENDLY) > 2:
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


def rewrite(draft: str, generate: Any) -> tuple[str, int, int, list[str]]:
    """Rewrite a delexicalised draft sentence by sentence with ``generate(sentence) -> raw``; a sentence whose
    rewrite fails :func:`check_sentence` keeps the draft's wording. Returns ``(text, sentences rewritten,
    sentences, reasons)``."""
    parts: list[str] = []
    reasons: list[str] = []
    done = 0
    todo = sentences(draft)
    for sent in todo:
        words = _WORD.findall(_PLACEHOLDER.sub(" ", sent.lower()))
        if len(words) < 2:  # "Done!", "[name]:" — nothing to reword
            parts.append(sent)
            continue
        raw = " ".join(generate(sent).split())
        why = check_sentence(raw, sent)
        if why is None:
            parts.append(raw)
            done += 1
        else:
            parts.append(sent)
            reasons.append(why)
    return " ".join(parts), done, sum(1 for x in todo
                                      if len(_WORD.findall(_PLACEHOLDER.sub(" ", x.lower()))) >= 2), \
        reasons
