"""Belief states and dialogue acts as end-to-end TOD checkpoints write them: parsing and serialising.

Belief-state syntaxes (``[belief] style`` of a format file, see :mod:`engine.systems.hf_common`):

- ``bracket`` (UBAR, PPTOD, MinTL): ``[restaurant] food chinese area centre [hotel] stars 4``
- ``triples`` (SimpleTOD): ``restaurant food chinese , restaurant area centre``
- ``brace`` (AuGPT): ``restaurant {area = centre, food = chinese} hotel {stars = 4}`` (slots sorted)

``[belief] mode`` is ``full`` (the model writes the whole state each turn) or ``delta`` (MinTL-style updates
merged into the previous state; the value ``<null>`` or ``none`` deletes a slot).

Act syntaxes (``[act] style``): ``bracket`` (UBAR/PPTOD: ``[restaurant] [inform] name food [request] area``)
and ``triples`` (SimpleTOD: ``restaurant inform name , restaurant request area``).

Anything the parser cannot place — an unknown domain, a slot the domain does not have, a fragment without a
value — is returned in :attr:`Parsed.invalid` rather than silently dropped, so a system can fall back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from parley.engine.mwdb import BOOKABLE, DOMAINS, INFORMABLE, normalise_time
from parley.engine.types import DialogueAct
from parley.text import fold, squash

if TYPE_CHECKING:
    from parley.engine.systems.hf_common import Format

NULL_VALUES = frozenset({"", "none", "not mentioned", "<null>", "<none>", "null", "nan"})
DONTCARE_VALUES = frozenset({"dontcare", "don't care", "do n't care", "dont care", "any", "doesn't care"})
ACT_DOMAINS = (*DOMAINS, "general", "booking")

State = dict[str, dict[str, str]]


@dataclass(frozen=True)
class Parsed:
    """A parsed belief state and the fragments that could not be placed."""

    state: State
    invalid: tuple[str, ...] = field(default_factory=tuple)


def _slot_vocab(fmt: Format, domain: str) -> list[str]:
    """Model-side slot names that may appear in ``domain``, longest first (multi-word names matched greedily).
    """
    names: set[str] = set()
    for key in fmt.slots:
        d, dot, s = key.rpartition(".")
        if not dot:
            names.add(key)
        elif d == domain:
            names.add(s)
    for s in (*INFORMABLE.get(domain, ()), *BOOKABLE.get(domain, ())):
        names.add(s.lower())
        names.add(s.lower().replace("_", " "))
    names.update(fmt.belief_ignore)
    return sorted(names, key=lambda n: (-len(n.split()), -len(n)))


def canonical_slot(fmt: Format, domain: str, slot: str) -> str:
    """Model slot name → parley slot name (``leave`` → ``leaveAt``, ``book people`` → ``book_people``)."""
    s = slot.strip().lower()
    mapped = fmt.slots.get(f"{domain}.{s}") or fmt.slots.get(s)
    if mapped:
        return mapped
    for name in (*INFORMABLE.get(domain, ()), *BOOKABLE.get(domain, ())):
        if s in (name.lower(), name.lower().replace("_", " ")):
            return name
    return re.sub(r"\s+", "_", s)


def model_slot(fmt: Format, domain: str, slot: str) -> str:
    """parley slot name → the model's name for it (inverse of :func:`canonical_slot`)."""
    for key, value in fmt.slots.items():
        d, dot, s = key.rpartition(".")
        if value == slot and (not dot or d == domain) and (dot or f"{domain}.{s}" not in fmt.slots):
            return s
    return slot.replace("_", " ") if slot.startswith("book_") else slot.lower()


def known_slot(domain: str, slot: str) -> bool:
    return slot in INFORMABLE.get(domain, ()) or slot in BOOKABLE.get(domain, ())


def clean_value(slot: str, value: str) -> str | None:
    v = fold(value)
    if v in NULL_VALUES:
        return None
    if v in DONTCARE_VALUES:
        return "dontcare"
    if slot in ("leaveAt", "arriveBy", "book_time"):
        v = normalise_time(v.replace(" : ", ":"))
    return v


class _Builder:
    def __init__(self, fmt: Format) -> None:
        self.fmt = fmt
        self.state: State = {}
        self.deletions: set[tuple[str, str]] = set()
        self.invalid: list[str] = []

    def put(self, domain: str, slot: str, value: str) -> None:
        domain = domain.strip("[] ").lower()
        if slot.strip().lower() in self.fmt.belief_ignore:
            return
        name = canonical_slot(self.fmt, domain, slot) if slot.strip() else ""
        if domain not in DOMAINS or not known_slot(domain, name):
            self.invalid.append(squash(f"{domain} {slot} {value}"))
            return
        v = clean_value(name, value)
        if v is None:
            self.deletions.add((domain, name))
            return
        self.state.setdefault(domain, {})[name] = v


def _split_slots(fmt: Format, domain: str, words: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """``(slot, value)`` pairs of one domain's words, and the words before the first slot name."""
    vocab = _slot_vocab(fmt, domain)
    out: list[tuple[str, list[str]]] = []
    stray: list[str] = []
    i = 0
    while i < len(words):
        hit = None
        for name in vocab:
            n = name.split()
            if [w.lower() for w in words[i:i + len(n)]] == n:
                hit = n
                break
        # a slot name directly after another slot name is a value ("type hotel", "name parking lot")
        if hit and not (out and not out[-1][1]):
            out.append((" ".join(hit), []))
            i += len(hit)
            continue
        (out[-1][1] if out else stray).append(words[i])
        i += 1
    return [(s, " ".join(v)) for s, v in out], stray


def parse_belief_checked(text: str, fmt: Format, previous: Mapping[str, Mapping[str, str]] | None = None
                         ) -> Parsed:
    """Parse a generated belief state into ``{domain: {slot: value}}`` (parley slot names, lower-case values).

    Segment markers are stripped. In ``delta`` mode the state is ``previous`` updated by the parsed slots.
    """
    body = text
    for marker in (fmt.belief_start, fmt.belief_end):
        if marker:
            body = body.replace(marker, " ")
    body = body.strip()
    b = _Builder(fmt)
    if fmt.belief_style == "bracket":
        head = re.split(r"\[\s*[a-z]+\s*\]", body, maxsplit=1, flags=re.I)[0].strip()
        if head:
            b.invalid.append(head)
        for m in re.finditer(r"\[\s*([a-z]+)\s*\]([^\[]*)", body, flags=re.I):
            domain = m.group(1).lower()
            pairs, stray = _split_slots(fmt, domain, m.group(2).split())
            if stray:
                b.invalid.append(f"[{domain}] {' '.join(stray)}")
            for slot, value in pairs:
                b.put(domain, slot, value)
    elif fmt.belief_style == "triples":
        for part in body.split(","):
            words = part.strip(" .").split()
            if not words:
                continue
            pairs, stray = _split_slots(fmt, words[0].lower(), words[1:])
            if len(words) < 3 or not pairs or stray or len(pairs) > 1:
                b.invalid.append(" ".join(words))
                continue
            b.put(words[0], *pairs[0])
    else:  # brace
        rest = re.sub(r"([a-z]+)\s*\{([^}]*)\}", " ", body, flags=re.I).strip()
        if rest:
            b.invalid.append(rest)
        for m in re.finditer(r"([a-z]+)\s*\{([^}]*)\}", body, flags=re.I):
            for pair in m.group(2).split(","):
                slot, eq, value = pair.partition("=")
                if eq:
                    b.put(m.group(1), slot, value)
                elif pair.strip():
                    b.invalid.append(f"{m.group(1)} {pair.strip()}")
    state = b.state
    if fmt.belief_mode == "delta":
        merged: State = {d: dict(s) for d, s in (previous or {}).items()}
        for d, slots in state.items():
            merged.setdefault(d, {}).update(slots)
        for d, slot in b.deletions:
            merged.get(d, {}).pop(slot, None)
        state = {d: s for d, s in merged.items() if s}
    return Parsed(state, tuple(b.invalid))


def parse_belief(text: str, fmt: Format, previous: Mapping[str, Mapping[str, str]] | None = None) -> State:
    """:func:`parse_belief_checked` without the list of invalid fragments."""
    return parse_belief_checked(text, fmt, previous).state


def format_belief(state: Mapping[str, Mapping[str, object]], fmt: Format, markers: bool = True) -> str:
    """Serialise a state the way the model writes it (training targets, ``full`` histories,
    ``{prev_belief}``)."""
    parts: list[str] = []
    for domain, slots in state.items():
        items = [(model_slot(fmt, domain, s), str(v)) for s, v in slots.items() if v not in (None, "")]
        if not items:
            continue
        if fmt.belief_style == "bracket":
            parts.append(f"[{domain}] " + " ".join(f"{s} {v}" for s, v in items))
        elif fmt.belief_style == "triples":
            parts.append(" , ".join(f"{domain} {s} {v}" for s, v in items))
        else:
            parts.append(f"{domain} {{" + ", ".join(f"{s} = {v}" for s, v in sorted(items)) + "}")
    body = (" , " if fmt.belief_style == "triples" else " ").join(parts)
    return fmt.segment(fmt.belief_start, body, fmt.belief_end) if markers else body


def belief_update(state: Mapping[str, Mapping[str, str]], previous: Mapping[str, Mapping[str, str]] | None
                  ) -> State:
    """The slots of ``state`` that are new or changed since ``previous`` (a ``delta`` format's belief segment;
    slots dropped since are not written)."""
    prev = previous or {}
    out: State = {}
    for domain, slots in state.items():
        changed = {s: v for s, v in slots.items() if prev.get(domain, {}).get(s) != v}
        if changed:
            out[domain] = changed
    return out


def belief_target(state: Mapping[str, Mapping[str, str]], previous: Mapping[str, Mapping[str, str]] | None,
                  fmt: Format) -> str:
    """What the model writes as this turn's belief segment (without markers): the whole state (``full``) or
    the update since ``previous`` (``delta``), which :func:`parse_belief_checked` merges back."""
    return format_belief(belief_update(state, previous) if fmt.belief_mode == "delta" else state, fmt,
                         markers=False)


# ---- dialogue acts -----------------------------------------------------------------------------------------

def format_acts(acts: list[tuple[str, str, str]], fmt: Format) -> str:
    """``[(domain, act, slot), ...]`` (lower case, slot ``none`` for slot-less acts) in the format's act
    syntax."""
    if fmt.act_style == "triples":
        return " , ".join(f"{d} {a} {s}" for d, a, s in acts)
    out: list[str] = []
    last: tuple[str, str] | None = None
    for d, a, s in acts:
        if last is None or last[0] != d:
            out.append(f"[{d}] [{a}]")
        elif last[1] != a:
            out.append(f"[{a}]")
        if s and s != "none":
            out.append(s)
        last = (d, a)
    return " ".join(out)


def parse_acts(act: str, style: str = "bracket") -> tuple[DialogueAct, ...]:
    """Act text → act dicts ``{act, domain, slot, value}`` (best effort; values are not in the act text)."""
    out: list[DialogueAct] = []
    if style == "triples":
        for part in act.split(","):
            words = part.split()
            if len(words) >= 2 and words[0] in ACT_DOMAINS:
                slot = " ".join(words[2:]) or None
                out.append({"act": words[1], "domain": words[0], "slot": None if slot == "none" else slot,
                            "value": None})
        return tuple(out)
    domain: str | None = None
    intent: str | None = None
    for tok in act.split():
        m = re.fullmatch(r"\[([a-z_]+)\]", tok)
        if m:
            word = m.group(1)
            if word in ACT_DOMAINS:
                domain, intent = word, None
            else:
                intent = word
                out.append({"act": intent, "domain": domain, "slot": None, "value": None})
        elif intent is not None:
            if out and out[-1]["act"] == intent and out[-1]["slot"] is None:
                out[-1]["slot"] = tok
            else:
                out.append({"act": intent, "domain": domain, "slot": tok, "value": None})
    return tuple(out)
