"""Mentions in lexicalised system replies (venue names, train ids, phones, addresses, postcodes, booking
references) and DB spellings of state values: what the MultiWOZ metrics need to read any system's text.

Delexicalised output uses mwzeval's placeholders: ``[name]``, ``[trainid]``, ``[phone]``, ``[address]``,
``[postcode]``, ``[reference]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from parley.engine.mwdb import MultiwozDB, load_db
from parley.jsontypes import json_object
from parley.text import alnum, squash

#: placeholders of the mentions that matter for Inform/Success (mwzeval's requestable set + name)
PLACEHOLDERS: tuple[str, ...] = ("name", "trainid", "phone", "address", "postcode", "reference")
NAMED_DOMAINS: tuple[str, ...] = ("restaurant", "hotel", "attraction")


# -- mentions in text ----------------------------------------------------------------------------------------
_TRAINID = re.compile(r"\bTR\s?\d{4}\b", re.IGNORECASE)
_PHONE = re.compile(r"(?<![\w])(?:\+44\s?)?0\d{3,4}[\s-]?\d{3}[\s-]?\d{3,4}(?![\w])")
_POSTCODE = re.compile(r"\bc\.?\s?b\.?\s?\d{1,2}\s?,?\s?\d\s?[a-z]{2}\b", re.IGNORECASE)
_REFERENCE = re.compile(r"(?<![\w#])#?([A-Z0-9]{8})(?![\w])")
_REF_CONTEXT = re.compile(r"(ref|reference|confirmation|booking)\s*(number|no\.?|code|#)?\s*(is|:)?\s*:?\s*$",
                          re.IGNORECASE)


def _norm(text: str) -> str:
    """Lower-case, ``&`` → ``and``, apostrophes dropped with the space the corpus tokeniser put before
    them."""
    t = text.lower().replace("’", "'").replace("&", " and ")
    t = re.sub(r"\s*'\s*", "", t)
    return squash(t)


# -- placeholders in delexicalised text ----------------------------------------------------------------------
PLACEHOLDER_PATTERN = re.compile(r"\[([\w\s]+)\](?:es|s|-s|-es)?")
PLACEHOLDER_PREFIX = re.compile(r"^(value|restaurant|hotel|attraction|train|taxi|hospital|police)_")
#: placeholder slot (after the prefix) → the mention it stands for
_SLOTS = {"name": "name", "phone": "phone", "address": "address", "postcode": "postcode", "post": "postcode",
          "reference": "reference", "ref": "reference", "trainid": "trainid", "train_id": "trainid",
          "id": "trainid"}
_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


def placeholder_mentions(response: str) -> frozenset[str]:
    """Which of :data:`PLACEHOLDERS` a delexicalised response gives: ``[name]``, ``[phone]``, …, also with a
    domain or ``value_`` prefix (``[restaurant_phone]``, ``[value_reference]``, ``[train_id]``) or a plural
    ``s``. The one reader of mentions: lexicalised text is read through :meth:`Delexicaliser.delexicalise`."""
    found = set()
    for m in PLACEHOLDER_PATTERN.finditer(response.lower()):
        raw = m.group(1).strip().replace(" ", "")
        prefix = PLACEHOLDER_PREFIX.match(raw)
        slot = raw[prefix.end():] if prefix else raw
        if slot == "id" and prefix and prefix.group(1) not in ("train", "value"):
            continue  # [hospital_id] is no train id
        if raw == "train":
            slot = "trainid"
        if slot in _SLOTS:
            found.add(_SLOTS[slot])
    return frozenset(found)


#: slot names of mwzeval's states (MultiWOZ 2.2) → parley's
_STATE_SLOTS = {"leaveat": "leaveAt", "leave": "leaveAt", "arriveby": "arriveBy", "arrive": "arriveBy"}


def scoring_state(state: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """A belief state in mwzeval's input format (``{domain: {slot: value}}``, MultiWOZ 2.2 or parley slot
    names) as the metrics read it: parley's slot names, values stripped and lower-cased."""
    out: dict[str, dict[str, str]] = {}
    for domain, slots in state.items():
        d = {}
        for slot, value in json_object(slots).items():
            key = str(slot).lower().replace(" ", "")
            d[_STATE_SLOTS.get(key, key)] = str(value).strip().lower()
        out[str(domain).lower()] = d
    return out


class Delexicaliser:
    """Finds venue names, train ids, phones, addresses, postcodes and booking references in a system reply."""

    def __init__(self, db: MultiwozDB | None = None) -> None:
        self.db = db or load_db()
        names: set[str] = set()
        for domain in NAMED_DOMAINS:
            names.update(_norm(v) for v in self.db.values(domain, "name"))
        addresses: set[str] = set()
        for domain in ("restaurant", "hotel", "attraction", "hospital", "police"):
            for row in self.db.rows(domain):
                a = row.get("address")
                if isinstance(a, str) and len(a) > 3:
                    addresses.add(_norm(a).rstrip(". "))
        self._names = self._alternation(names)
        self._addresses = self._alternation(addresses)

    @staticmethod
    def _alternation(items: Iterable[str]) -> re.Pattern[str]:
        parts = sorted(
            (r"[\s,.]+".join(re.escape(w) for w in re.split(r"[\s,.]+", i) if w) for i in items if i),
            key=len,
            reverse=True,
        )
        return re.compile(r"(?<![\w])(?:" + "|".join(parts) + r")(?![\w])")

    def _references(self, text: str) -> list[tuple[int, int]]:
        out = []
        for m in _REFERENCE.finditer(text):
            tok = m.group(1)
            if tok.isdigit() or _TRAINID.fullmatch(tok):
                continue
            has_digit = any(c.isdigit() for c in tok)
            if has_digit or _REF_CONTEXT.search(text[max(0, m.start() - 40):m.start()]):
                out.append(m.span())
        return out

    def delexicalise(self, text: str) -> str:
        """The reply with mentions replaced by ``[name]``, ``[trainid]``, ``[phone]``, ``[address]``,
        ``[postcode]``, ``[reference]`` (lower-cased, apostrophes dropped: the mwzeval input format).

        Square brackets already in the text lose their brackets first (``[train_id]`` → ``train_id``): a
        placeholder a system left unfilled tells the user nothing, so it is no mention."""
        t = _BRACKETED.sub(lambda m: f" {m.group(1)} ", text)
        for rx, ph in ((_TRAINID, "trainid"), (_PHONE, "phone"), (_POSTCODE, "postcode")):
            t = rx.sub(f" [{ph}] ", t)
        spans = self._references(t)
        for start, end in reversed(spans):
            t = t[:start] + " [reference] " + t[end:]
        t = _norm(t)
        t = self._addresses.sub("[address]", t)
        t = self._names.sub("[name]", t)
        return squash(t)

    def mentions(self, text: str) -> frozenset[str]:
        """Which of :data:`PLACEHOLDERS` the reply contains."""
        return placeholder_mentions(self.delexicalise(text))


_DELEX: dict[int, Delexicaliser] = {}


def delexicaliser(db: MultiwozDB | None = None) -> Delexicaliser:
    """A shared :class:`Delexicaliser` for ``db`` (the bundled DB by default)."""
    d = db or load_db()
    dx = _DELEX.get(id(d))
    if dx is None or dx.db is not d:
        dx = _DELEX[id(d)] = Delexicaliser(d)
    return dx


_CANON: dict[tuple[int, str, str, str], str] = {}


def canonical_value(domain: str, slot: str, value: object, db: MultiwozDB) -> str:
    """A state value spelled the way the DB spells it, when it is a near miss (``night club`` → ``nightclub``,
    ``christ college`` → ``christs college``, parking ``free`` → ``yes``): the fuzzy matching mwzeval's DB
    does."""
    v = str(value).strip().lower()
    key = (id(db), domain, slot, v)
    if key in _CANON:
        return _CANON[key]
    out = v
    if slot in ("parking", "internet") and v in ("free", "y"):
        out = "yes"
    elif slot in ("name", "type", "food", "area", "pricerange", "department", "departure", "destination"):
        known = db.values(domain, slot)
        if v and v not in known and known:
            squashed = {alnum(k): k for k in known}
            sv = alnum(v)
            if sv in squashed:
                out = squashed[sv]
            elif slot == "name":
                from rapidfuzz import fuzz, process

                best = process.extractOne(sv, list(squashed), scorer=fuzz.ratio, score_cutoff=88)
                if best is not None:
                    out = squashed[best[0]]
    _CANON[key] = out
    return out


def canonical_state(domain: str, slots: Mapping[str, object], db: MultiwozDB) -> dict[str, str]:
    """:func:`canonical_value` applied to every informable slot of one domain's state."""
    return {k: canonical_value(domain, k, v, db) for k, v in slots.items() if not k.startswith("book_")}
