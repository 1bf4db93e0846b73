"""Entity tracking (ET) as in the SK-TOD paper: fuzzy n-gram matching of normalised entity names.

Every entity name (plus its aliases from an entity-mapping file, plus variants from a few normalisation rules)
is compared with every n-gram of each dialogue turn, n = the alias length in words, with rapidfuzz's LCS-based
``ratio``; a score ≥ ``threshold`` (0.95) is a mention. The output is the set of entities of the *last* turn
that mentions any. A mention inside a longer mention of another entity in the same turn is dropped ("nandos"
within "nandos city centre").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from parley.engine.sktod.knowledge import Entity, KnowledgeBase
from parley.text import tokens

#: generic trailing/leading words a speaker often leaves out (normalisation rule, never applied alone)
_GENERIC = ("hotel", "restaurant", "guest house", "guesthouse", "bed and breakfast", "b and b", "the")


def normalise(text: str) -> str:
    """Lower case, ``&`` → ``and``, apostrophes dropped, punctuation → spaces, ``guesthouse`` → ``guest
    house``."""
    t = text.lower().replace("&", " and ").replace("'", "").replace("’", "")
    t = " ".join(tokens(t))
    t = re.sub(r"\bguesthouses?\b", "guest house", t)
    t = re.sub(r"\bb and b\b", "bed and breakfast", t)
    t = re.sub(r"\bcenter\b", "centre", t)
    return t


def name_variants(name: str, aliases: Sequence[str] = ()) -> set[str]:
    """Normalised forms a speaker may use for ``name``: the name, its aliases, and the name without a leading
    "the" or a generic suffix (only when what is left is not itself generic and has ≥ 4 letters)."""
    base = normalise(name)
    out = {base} | {normalise(a) for a in aliases}
    for v in list(out):
        if v.startswith("the "):
            out.add(v[4:])
    for v in list(out):
        for g in _GENERIC[:-1]:
            g_n = normalise(g)
            if v.endswith(" " + g_n):
                rest = v[: -len(g_n) - 1].strip()
                if len(rest.replace(" ", "")) >= 4 and rest not in {normalise(x) for x in _GENERIC}:
                    out.add(rest)
    return {v for v in out if v}


@dataclass(frozen=True)
class Mention:
    entity: Entity
    turn: int
    start: int  # word offsets in the normalised turn
    end: int
    alias: str
    score: float


class EntityTracker:
    """Finds the entities a dialogue is about (see module docstring)."""

    def __init__(self, kb: KnowledgeBase, mapping: Mapping[str, Sequence[str]] | None = None,
                 threshold: float = 0.95) -> None:
        self.kb = kb
        self.threshold = threshold
        mapping = mapping or {}
        self._by_n: dict[int, tuple[list[Entity], list[str]]] = {}
        own = {normalise(e.name) for e in kb.entities()}
        for e in kb.entities():
            key = e.name.lower()
            aliases = list(mapping.get(key, ())) + list(mapping.get(normalise(e.name), ()))
            # an alias that is another entity's own name points at that entity ("nandos" vs "nandos city
            # centre")
            aliases = [a for a in aliases if normalise(a) not in own or normalise(a) == normalise(e.name)]
            for v in sorted(name_variants(e.name, aliases)):
                ents, names = self._by_n.setdefault(len(v.split()), ([], []))
                ents.append(e)
                names.append(v)

    def mentions(self, text: str, turn: int = 0) -> list[Mention]:
        """Entity mentions in one turn (the longest, then best, per entity; mentions contained in a longer
        mention of another entity are dropped)."""
        import numpy as np
        from rapidfuzz import fuzz, process

        words = normalise(text).split()
        if not words:
            return []
        cut = self.threshold * 100
        found: dict[tuple[str, int], Mention] = {}
        for n, (ents, names) in self._by_n.items():
            if n > len(words):
                continue
            grams = [" ".join(words[i: i + n]) for i in range(len(words) - n + 1)]
            m = process.cdist(names, grams, scorer=fuzz.ratio, score_cutoff=cut, dtype=np.float32)
            for ai, gi in zip(*np.nonzero(m), strict=True):
                cand = Mention(ents[ai], turn, int(gi), int(gi) + n, names[ai], float(m[ai, gi]) / 100)
                prev = found.get(cand.entity.key)
                if prev is None or (n, cand.score) > (prev.end - prev.start, prev.score):
                    found[cand.entity.key] = cand
        ms = list(found.values())
        return [m for m in ms if not any(
            o is not m and o.start <= m.start and m.end <= o.end and (o.end - o.start) > (m.end - m.start)
            for o in ms)]

    def track(self, turns: Sequence[str]) -> list[Entity]:
        """Entities of the last turn that mentions any (empty when no turn does)."""
        for i in range(len(turns) - 1, -1, -1):
            ms = self.mentions(turns[i], i)
            if ms:
                return [m.entity for m in sorted(ms, key=lambda m: m.start)]
        return []
