"""Names confirmed by ear: words the recogniser was unsure of are replaced by a known name only when Whisper
itself, made to read the sentence both ways, finds the name fits the sound about as well as what it wrote
and clearly better than any other name (:func:`confirm`).

Sound-alike keys (:mod:`parley.audio.phonetics`) miss names tiny.en turns into other words ("Meghna" →
"Magnif", "Avalon" → "Evelyn"): their spellings are too far apart to snap on their own. Whisper's decoder,
though, tells such names apart well when it is handed the audio and each candidate sentence
(:meth:`parley.audio.asr.ASR.score`): the rare name always costs more than the plain word Whisper chose (its
language prior), but the right name costs far less than the wrong ones. So a name is taken when

- its sentence scores within ``DELTA`` of the sentence as heard (the name is about as likely as what Whisper
  wrote, its prior aside), and
- at least ``MARGIN`` above the same words replaced by any other name, and
- the words replaced include one the recogniser was unsure of, overlap no name said as it is, sound at least
  a little like the name (``TRY_SCORE``; clearly, ``PLAIN_SOUND``, when they are all common English), are
  about as long, hold no word heard very surely (``VERY_SURE``) other than the name's own, keep any of the
  name's own words where the name
  has them, and the name is neither plain English nor a food or area (ordinary words Whisper spells well).

A sentence whose words the recogniser was all sure of is never changed. On the spoken set's sentences that
name nothing (bench/spoken_set.py) no name came within ``DELTA``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parley.audio.bias import Biaser, Snap

#: summed token log-probabilities (nats): how much less likely than the heard sentence a named one may be
DELTA = 6.0
#: how much more likely than the same words as any other name
MARGIN = 4.0
#: how much likelier than as written a time read the other way ("4:50" as "4:15") must be
TIME_GAIN = 0.0
#: the least sound-alike score (0-100) for a name to be tried, the names tried per window, sentences scored
TRY_SCORE = 50.0
PER_WINDOW = 3
MAX_TRIED = 16
#: the least sound-alike score when every word replaced is common English the tester may have said ("far to"
#: is not "Cotto"; "our way house" may be "Archway House")
PLAIN_SOUND = 75.0
#: a word heard this surely is kept unless it is one of the name's own words ("a taxi" is not "Curry King")
VERY_SURE = 0.9
#: kinds of names that are ordinary words (Whisper spells foods and areas well; they are never tried by ear)
PLAIN_KINDS = frozenset({"food", "area"})
#: the most the heard words' sounds may be longer (or shorter) than the name's
MAX_STRETCH = 1.7
_SMALL = frozenset({"a", "an", "and", "of", "the", "at", "in", "on", "de", "la"})
Score = Callable[[list[str]], list[float]]


@dataclass(frozen=True)
class _Try:
    sound: float
    start: int
    end: int
    name: str
    kind: str | None
    heard: str


def _aligned(words: list[str], name: tuple[str, ...]) -> bool:
    """Words of the name heard as they are begin or end both the heard words and the name, as in "KIPE
    Noodle Bar" for "Yippee Noodle Bar" or "Cambridge Belt Free" for "Cambridge Belfry"; anywhere else they
    say the heard words are something else ("or Hotel Hall" is not "Ashley Hotel")."""
    from parley.audio.cleanup import plain

    heard, own = [plain(w) for w in words], [plain(w) for w in name]
    while len(heard) > 1 and len(own) > 1 and heard[-1] == own[-1]:
        heard, own = heard[:-1], own[:-1]
    while len(heard) > 1 and len(own) > 1 and heard[0] == own[0]:
        heard, own = heard[1:], own[1:]
    return not (set(heard) & set(own)) - _SMALL


def _tries(biaser: Biaser, text: str, probs: list[float | None]) -> list[_Try]:
    from parley.audio.bias import _is_plain_english
    from parley.audio.cleanup import WORD, plain

    starts = {m.start(): i for i, m in enumerate(WORD.finditer(text))}
    windows = biaser._windows(text, probs)
    exact = biaser._exact(windows)
    out = []
    for w in windows:
        if not w.unsure or len(w.key) < 3:
            continue
        span = WORD.findall(text[w.start:w.end])
        sure = [plain(word) for word, p in zip(span, probs[starts[w.start]:], strict=False)
                if p is not None and p >= VERY_SURE and plain(word) not in _SMALL]
        least = PLAIN_SOUND if _is_plain_english(w.phrase) else TRY_SCORE
        for sound, n in biaser._scored(w.key, PER_WINDOW, least):
            if n.kind in PLAIN_KINDS or len(span) > len(n.words) + 1 or biaser._blocked(w, exact, n) \
                    or any(word not in [plain(x) for x in n.words] for word in sure) \
                    or not 1 / MAX_STRETCH <= len(w.key) / len(n.key) <= MAX_STRETCH \
                    or _is_plain_english(" ".join(n.words)) or not _aligned(span, n.words):
                continue
            out.append(_Try(sound, w.start, w.end, n.name, n.kind, w.phrase))
    return sorted(out, key=lambda t: -t.sound)[:MAX_TRIED]


def confirm(biaser: Biaser, text: str, probs: list[float | None] | None, score: Score,
            trace: list[dict[str, object]] | None = None) -> tuple[str, tuple[Snap, ...]]:
    """``text`` with unsure words replaced by a name the audio confirms (see the module doc), and the snaps
    made. ``score(texts)`` gives each text's summed log-probability for the turn's audio. Every sentence
    scored is added to ``trace`` (words, name, sound-alike score, log-probability against the heard
    sentence) when given."""
    from parley.audio.bias import Snap, display

    if probs is None:
        return text, ()
    tried = _tries(biaser, text, probs)
    if not tried:
        return text, ()
    got = score([text] + [text[:t.start] + display(" ".join(biaser.named(t.name).words)) + text[t.end:]
                          for t in tried])
    heard, named = got[0], got[1:]
    if trace is not None:
        trace.extend({"heard": t.heard, "name": t.name, "sound": round(t.sound, 1),
                      "vs_heard": round(v - heard, 2)} for t, v in zip(tried, named, strict=True))
    chosen: list[tuple[float, _Try]] = []
    for v, t in sorted(zip(named, tried, strict=True), key=lambda p: -p[0]):
        rival = max((v2 for v2, t2 in zip(named, tried, strict=True)
                     if t2.name != t.name and t2.start < t.end and t.start < t2.end), default=-math.inf)
        if v < heard - DELTA or v - rival < MARGIN:
            continue
        apart = all(t.end <= c.start or t.start >= c.end for _, c in chosen)
        if apart and all(t.name != c.name for _, c in chosen):
            chosen.append((v, t))
    snaps = []
    for v, t in sorted(chosen, key=lambda c: -c[1].start):
        text = text[:t.start] + display(" ".join(biaser.named(t.name).words)) + text[t.end:]
        snaps.append(Snap(t.heard, t.name, t.kind, round(v - heard, 2), "ear"))
    return text, tuple(reversed(snaps))


def confirm_times(text: str, score: Score) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with a time's minutes read as the other of a "-teen"/"-ty" pair ("4:50" → "4:15") where
    Whisper finds that reading at least as likely as the one it wrote (greedy decoding picks each token in
    turn; the whole sentence's likelihood is the better judge); and the changes made."""
    from parley.audio.times import teen_or_ty

    alts = teen_or_ty(text)
    if not alts:
        return text, ()
    got = score([text] + [text[:s] + other + text[e:] for s, e, other in alts])
    changes = []
    for (s, e, other), v in sorted(zip(alts, got[1:], strict=True), key=lambda p: -p[0][0]):
        if v >= got[0] + TIME_GAIN:
            changes.append((text[s:e], other))
            text = text[:s] + other + text[e:]
    return text, tuple(reversed(changes))
