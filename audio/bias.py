"""Contextual biasing: the recogniser is told which names the system under test knows, and near-misses are
snapped to them when the match is sure.

A system that implements :class:`parley.engine.vocabulary.Vocabulary` gives its names (venues, stations,
foods, areas). For each spoken turn (:func:`parley.audio.voice.transcriber`):

1. Whisper's prompt carries the dialogue's last turns (``initial_prompt``: the system's last reply usually
   names what the tester will answer about).
2. The first transcript is compared, window by window, with every name by how it sounds
   (:mod:`parley.audio.phonetics`); the names it comes close to (:meth:`Biaser.candidates`) become Whisper's
   ``hotwords`` for a second pass, which usually spells them right. No close name: no second pass.
3. What still misses a name narrowly is *snapped* to it (:meth:`Biaser.snap`) — only when the sounds match
   well, clearly better than any other name, and the words replaced are not plain English the tester may
   have meant (a sentence that names nothing is left as it is). Spoken times Whisper writes as bare digits
   ("at 915") get their colon, and "half pass 7" its "past".
4. With the turn's audio at hand, unsure words that sound too unlike any name to snap may still become one
   Whisper itself confirms by ear, and a time's "-teen"/"-ty" minutes are checked the same way
   (:mod:`parley.audio.confirm`).

Every change is kept with the transcript (``heard`` before, the snaps made), so a stored turn shows what the
recogniser said and what was changed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from parley.audio.cleanup import WORD, drop_tail, plain, tidy, trim_to
from parley.audio.phonetics import Phonetics, phonetics
from parley.audio.times import fix_times
from parley.engine.vocabulary import KnownNames, vocabulary_of

#: defaults of the matching thresholds (0-100, rapidfuzz ratios of phonetic keys)
SNAP_SCORE = 80.0      # the least similarity for a snap
SNAP_MARGIN = 6.0      # how much better than the next name
CANDIDATE_SCORE = 62.0  # the least similarity for a name to become a hotword
MAX_HOTWORDS = 8
TOOK_MARGIN = 8.0       # a second pass is kept for a name this close to the best candidate
#: a word this common (wordfreq Zipf) is plain English: a window made only of such words is snapped only when
#: its sounds match a name almost exactly
COMMON_ZIPF = 4.2
PLAIN_SNAP_SCORE = 88.0
#: the least similarity of the words that set a name apart from others ending the same way
DISTINCT_SCORE = 65.0
MAX_PROMPT_CHARS = 300
#: a word the recogniser gave less than this probability is one it was unsure of
UNSURE = 0.6
Recognise = Callable[..., Any]  # (hotwords=, initial_prompt=) → audio.asr.Transcript
Score = Callable[[list[str]], list[float]]  # texts → how likely each is for the turn's audio
_SMALL = {"and", "of", "the", "a", "at", "on", "in", "by", "de", "du", "la"}


@dataclass(frozen=True)
class Snap:
    """One change: ``heard`` (the recogniser's words) became ``name`` (``kind``), at ``score``: how alike they
    sound (0-100) when ``by`` is ``sound``; by ``ear``, how much less likely Whisper found the sentence with
    the name than as heard (log-probability, :mod:`parley.audio.confirm`)."""

    heard: str
    name: str
    kind: str | None
    score: float
    by: str = "sound"

    def to_json(self) -> dict[str, Any]:
        return {"heard": self.heard, "name": self.name, "kind": self.kind, "score": self.score, "by": self.by}


@dataclass(frozen=True)
class _Name:
    name: str
    kind: str | None
    words: tuple[str, ...]
    key: str


def display(name: str) -> str:
    """A database name as a person writes it: "pizza hut cherry hinton" → "Pizza Hut Cherry Hinton"."""
    words = name.split()
    return " ".join(w if (i and w in _SMALL) else w[:1].upper() + w[1:] for i, w in enumerate(words))


def _core(words: list[str] | tuple[str, ...]) -> list[str]:
    """Words without a leading "the" (said or not, it is the same name)."""
    return list(words[1:]) if len(words) > 1 and words[0].lower() == "the" else list(words)


class Biaser:
    """The names of one system, indexed by sound (see the module doc). Thread-safe after construction."""

    def __init__(self, names: KnownNames, *, phon: Phonetics | None = None, snap_score: float = SNAP_SCORE,
                 snap_margin: float = SNAP_MARGIN, candidate_score: float = CANDIDATE_SCORE) -> None:
        self.names = names
        self.phon = phon or phonetics()
        self.snap_score = snap_score
        self.snap_margin = snap_margin
        self.candidate_score = candidate_score
        self.phon.keys({w for n in names.names() for w in n.replace("-", " ").split()})
        index = []
        for kind, group in names.kinds:
            for name in group:
                words = tuple(_core(name.replace("-", " ").split()))
                index.append(_Name(name, kind, words, self.phon.key(" ".join(words))))
        self._index = tuple(index)
        self._keys = [n.key for n in index]
        self._by_plain: dict[str, list[_Name]] = {}
        for n in index:
            self._by_plain.setdefault(_squash(" ".join(n.words)), []).append(n)
        self._max_words = max((len(n.words) for n in index), default=1) + 1
        self._named = {n.name: n for n in index}

    def named(self, name: str) -> _Name:
        """The indexed entry of a known ``name``."""
        return self._named[name]

    # -- one spoken turn -------------------------------------------------------------------------------------
    def transcribe(self, recognise: Recognise, recent: tuple[str, ...] = (),
                   score: Score | None = None) -> Any:
        """A biased transcript: ``recognise(hotwords=…, initial_prompt=…)`` (an :class:`audio.asr.Transcript`
        with word probabilities) once with the dialogue's ``recent`` turns as the prompt, again with the names
        the first pass came close to as hotwords when there are any (kept only if it :meth:`took`), then
        :meth:`snap` and :func:`parley.audio.times.fix_times`; with ``score`` (the turn's
        audio scoring texts) names and times are also confirmed by ear (:mod:`parley.audio.confirm`).
        ``Transcript.bias`` records each step."""
        prompt = self.prompt(recent)
        first = recognise(hotwords=None, initial_prompt=prompt)
        first = drop_tail(first) if prompt else first
        chosen, second_text = first, None
        scores = self.candidate_scores(first.text, word_probs(first.text, first.words))
        cands = list(scores)
        if cands:  # the names said once more, the same length: a decoding loop stops early
            budget = len(first.text) // 3 + 3 * max(len(c.split()) for c in cands) + 8
            second = recognise(hotwords=self.hotwords(cands), initial_prompt=prompt, max_new_tokens=budget)
            second = drop_tail(replace(second, text=tidy(trim_to(second.text, first.text))))
            second_text = second.text
            kept = second if self.took(first.text, second.text, cands, scores) else first
            chosen = replace(kept, latency_ms=round(first.latency_ms + second.latency_ms, 1))
        text, snaps = self.snap(chosen.text, word_probs(chosen.text, chosen.words))
        tried: list[dict[str, object]] = []
        by_ear: tuple[tuple[str, str], ...] = ()
        if score is not None:
            from parley.audio.confirm import confirm

            text, heard = confirm(self, text, word_probs(text, chosen.words), score, tried)
            snaps += heard
        text, times = fix_times(text)
        if score is not None:
            from parley.audio.confirm import confirm_times

            text, by_ear = confirm_times(text, score)
        kept_second = second_text is not None and chosen.text == second_text
        info = {"heard": first.text, "prompt": prompt is not None, "hotwords": cands,
                "second_pass": second_text, "kept_second": kept_second,
                "snaps": [sn.to_json() for sn in snaps], "times_fixed": times,
                "times_by_ear": [list(c) for c in by_ear], "tried_by_ear": tried}
        return replace(chosen, text=text, bias=info)

    # -- Whisper's prompt ------------------------------------------------------------------------------------
    @staticmethod
    def prompt(recent: tuple[str, ...] | list[str]) -> str | None:
        """The dialogue's last turns as Whisper's ``initial_prompt`` (the end of them, at most
        ``MAX_PROMPT_CHARS``, from a word boundary), or None."""
        text = " ".join(t.strip() for t in recent if t and t.strip())
        if not text:
            return None
        return text[-MAX_PROMPT_CHARS:].split(" ", 1)[-1] if len(text) > MAX_PROMPT_CHARS else text

    @staticmethod
    def hotwords(names: list[str]) -> str | None:
        """Names as Whisper's ``hotwords``: as written, comma-separated."""
        return ", ".join(display(n) for n in names) or None

    # -- matching --------------------------------------------------------------------------------------------
    def _windows(self, text: str, probs: list[float | None] | None = None) -> list[_Window]:
        """Every run of up to ``_max_words`` words (never starting with "the": the same run without it is
        tried), with its key and whether the recogniser was unsure of one of its words."""
        spans = [(m.start(), m.end(), m.group(0)) for m in WORD.finditer(text)]
        self.phon.keys(w for _, _, w in spans)
        out = []
        for i in range(len(spans)):
            for j in range(i + 1, min(len(spans), i + self._max_words) + 1):
                words = [w for _, _, w in spans[i:j]]
                if words[0].lower() == "the" and j - i > 1:
                    continue
                phrase = " ".join(w.replace("-", " ") for w in words)
                unsure = probs is not None and any(p is not None and p < UNSURE for p in probs[i:j])
                out.append(_Window(spans[i][0], spans[j - 1][1], phrase, self.phon.key(phrase), unsure))
        return out

    def _scored(self, key: str, limit: int, cutoff: float | None = None) -> list[tuple[float, _Name]]:
        from rapidfuzz import fuzz, process

        least = min(self.candidate_score, self.snap_score) if cutoff is None else cutoff
        hits = process.extract(key, self._keys, scorer=fuzz.ratio, limit=limit, score_cutoff=least)
        return [(float(score), self._index[i]) for _, score, i in hits]

    def _exact(self, windows: list[_Window]) -> list[tuple[int, int, str]]:
        """Where the text already says a name as it is, and the name (letters only) when it is one word
        (a town such as "Cambridge" begins many longer names), else ""."""
        return [(w.start, w.end, _squash(w.phrase) if " " not in w.phrase else "") for w in windows
                if _squash(w.phrase) in self._by_plain]

    @staticmethod
    def _blocked(w: _Window, exact: list[tuple[int, int, str]], n: _Name) -> bool:
        """Whether a name said as it is keeps ``w`` from becoming ``n``: it overlaps ``w`` — unless it is one
        word, lies inside ``w`` and is part of ``n`` ("Cambridge Belt Free" may become "Cambridge Belfry";
        "book Worth House" stays "Worth House", not "Warkworth House")."""
        whole = _squash(" ".join(n.words))
        return any(w.start < e and s < w.end
                   and not (said and w.start <= s and e <= w.end and said in whole and said != whole)
                   for s, e, said in exact)

    def candidates(self, text: str, probs: list[float | None] | None = None,
                   limit: int = MAX_HOTWORDS) -> list[str]:
        """The names of :meth:`candidate_scores`, best first."""
        return list(self.candidate_scores(text, probs, limit))

    def candidate_scores(self, text: str, probs: list[float | None] | None = None,
                         limit: int = MAX_HOTWORDS) -> dict[str, float]:
        """Names that some words of ``text`` sound like, best first — only words the recogniser was unsure
        of when ``probs`` (per word of ``text``, :func:`word_probs`) are given, never words that already say
        a name, never names that are plain English: the second pass's hotwords."""
        windows = self._windows(text, probs)
        exact = self._exact(windows)
        best: dict[str, float] = {}
        for w in windows:
            if len(w.key) < 4 or (probs is not None and not w.unsure):
                continue
            for score, n in self._scored(w.key, 3):
                least = max(self.candidate_score, 80.0 if len(n.key) < 5 else 0.0)
                if score >= least and score > best.get(n.name, 0.0) and not self._blocked(w, exact, n) \
                        and not _is_plain_english(" ".join(n.words)):
                    best[n.name] = score
        return {n: best[n] for n in sorted(best, key=lambda n: -best[n])[:limit]}

    def took(self, first: str, second: str, candidates: list[str],
             scores: dict[str, float] | None = None) -> bool:
        """Whether the second pass (with ``candidates`` as hotwords) is to be kept over ``first``: it says one
        of them that ``first`` did not — one of the closest (within ``TOOK_MARGIN`` of the best ``scores``) —
        is about as long, and does not repeat itself (hotwords can make a small Whisper loop or fall
        silent)."""
        a, b = plain(first).split(), plain(second).split()
        if not b or not 0.7 * len(a) <= len(b) <= 1.3 * len(a) + 1 or _repeats(b):
            return False
        said_before, said_now = "".join(a), "".join(b)
        top = max(scores.values()) if scores else 0.0
        for name in candidates:
            words = "".join(_core(plain(name).split()))
            close = scores is None or scores.get(name, 0.0) >= top - TOOK_MARGIN
            if close and words in said_now and words not in said_before:
                return True
        return False

    def _distinct_score(self, phrase: str, n: _Name) -> float:
        """How alike the words that set the name apart sound: the words both end with ("house", "guest
        house", "hotel") taken off first, so "this house" is not "Rice House" just because both are houses,
        nor "a garden" "Curry Garden" (what is left must be about as long as the name's own words)."""
        from rapidfuzz import fuzz

        heard, name = plain(phrase).split(), list(n.words)
        while len(heard) > 1 and len(name) > 1 and heard[-1] == plain(name[-1]):
            heard, name = heard[:-1], name[:-1]
        if len(name) == len(n.words):
            return 100.0  # nothing shared: the whole-name score decides
        a, b = self.phon.key(" ".join(heard)), self.phon.key(" ".join(name))
        return float(fuzz.ratio(a, b)) if len(a) >= 0.6 * len(b) else 0.0

    def snap(self, text: str, probs: list[float | None] | None = None) -> tuple[str, tuple[Snap, ...]]:
        """``text`` with near-misses of known names replaced by the names, and the snaps made. A run of words
        is snapped when it sounds like a name (``snap_score``), clearly more than like any other name
        (``snap_margin``), does not overlap a name said as it is, and — when all its words are common
        English — the recogniser was unsure of one of them (``probs``; without them, only when it sounds
        almost exactly like the name)."""
        said = f" {plain(text)} "
        windows = self._windows(text, probs)
        exact = self._exact(windows)
        found: list[tuple[float, _Window, _Name]] = []
        for w in windows:  # a name said with other spaces ("Guest House") is written as the system spells it
            named = self._by_plain.get(_squash(w.phrase), [])
            if len(named) == 1 and plain(w.phrase) != plain(" ".join(named[0].words)) and " " in w.phrase:
                found.append((100.0, w, named[0]))
        for w in windows:
            if len(w.key) < 4:
                continue
            scored = self._scored(w.key, 4)
            if not scored or scored[0][0] < self.snap_score or self._blocked(w, exact, scored[0][1]):
                continue
            score, n = scored[0]
            rival = next((s for s, other in scored[1:] if other.name != n.name), 0.0)
            if score - rival < self.snap_margin or f" {plain(' '.join(n.words))} " in said:
                continue
            unsure = probs is None or w.unsure
            if _is_plain_english(w.phrase) and (score < PLAIN_SNAP_SCORE or not unsure):
                continue
            if self._distinct_score(w.phrase, n) < DISTINCT_SCORE:
                continue
            found.append((score, w, n))
        chosen: list[tuple[float, _Window, _Name]] = []
        for cand in sorted(found, key=lambda c: (-c[0], c[1].end - c[1].start)):
            if all(cand[1].end <= c[1].start or cand[1].start >= c[1].end for c in chosen) and \
                    all(cand[2].name != c[2].name for c in chosen):
                chosen.append(cand)
        snaps = []
        for score, w, n in sorted(chosen, key=lambda c: -c[1].start):
            text = text[:w.start] + display(" ".join(n.words)) + text[w.end:]
            snaps.append(Snap(w.phrase, n.name, n.kind, round(score, 1)))
        return text, tuple(reversed(snaps))


_last: tuple[Any, Biaser | None] | None = None
_last_lock = threading.Lock()


def biaser_for(system: Any) -> Biaser | None:
    """A :class:`Biaser` for the names ``system`` knows (:func:`parley.engine.vocabulary.vocabulary_of`), or
    None when it has no vocabulary; built once per system (its names are indexed by sound on first use)."""
    global _last
    if system is None:
        return None
    with _last_lock:
        if _last is not None and _last[0] is system:
            return _last[1]
        names = vocabulary_of(system)
        biaser = Biaser(names) if names is not None else None
        _last = (system, biaser)
        return biaser


def recent_turns(history: Any, n: int = 2) -> tuple[str, ...]:
    """The texts of the dialogue's last ``n`` turns (``Message``-like items with ``text``), oldest first."""
    return tuple(str(getattr(m, "text", "")) for m in list(history)[-n:] if getattr(m, "text", ""))


@dataclass(frozen=True)
class _Window:
    start: int
    end: int
    phrase: str
    key: str
    unsure: bool


def word_probs(text: str, words: tuple[tuple[str, float], ...] | list[tuple[str, float]]
               ) -> list[float | None] | None:
    """The recogniser's probability of each word of ``text`` (as :class:`Biaser` splits it), from its
    ``(word, probability)`` pairs; None for a word it cannot place, and None without pairs."""
    if not words:
        return None
    flat = [(t, p) for w, p in words for t in plain(w).split()]
    out: list[float | None] = []
    k = 0
    for m in WORD.finditer(text):
        parts = plain(m.group(0)).split()
        probs = []
        for part in parts:
            j = next((i for i in range(k, min(len(flat), k + 4)) if flat[i][0] == part), None)
            if j is not None:
                probs.append(flat[j][1])
                k = j + 1
        out.append(min(probs) if probs else None)
    return out



def _squash(text: str) -> str:
    """Letters and digits only: "Guest House" and "guesthouse" are the same name."""
    return plain(text).replace(" ", "")


def _repeats(words: list[str], n: int = 3) -> bool:
    """Some run of ``n`` words comes twice (a decoding loop)."""
    grams = [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]
    return len(grams) != len(set(grams))


def _is_plain_english(phrase: str) -> bool:
    """Every word is common English (the tester may well have said just that)."""
    from wordfreq import zipf_frequency

    return all(zipf_frequency(w, "en") >= COMMON_ZIPF for w in plain(phrase).split())
