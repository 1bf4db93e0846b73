"""Simulated speech recognition noise in text (LAUG "SR"-like, without audio).

What a TTS → ASR round trip does to a typed turn, approximated on the text:

1. the transcript is lower case without punctuation; numbers, times and prices are spoken
   ("13:45" → "thirteen forty five", "3 people" → "three people");
2. words are misheard as similar-sounding words, the way the real piper → Whisper channel mishears them
   (bench/rw_asr.py): rare words, names and places most ("acorn" → "corn", "leicester" → "lester": CMU
   pronunciations within one phoneme, homophones first; unknown words by spelling), common words seldom and
   only as another common word that sounds the same or nearly ("on" → "one", "and" → "in", "room" → "rooms") —
   a recogniser's language model does not turn "people" into "purple";
3. liaisons run two words together ("for three" → "free", "want to" → "wanna");
4. now and then a short function word is dropped.

``wer`` sets the base probability of a word error. Slot values are not protected (that is the point); each
changed value is reported in ``Rewrite.changes`` and the output spans carry the new values. The real channel
(piper/espeak → faster-whisper) is the audio package's ``asr-real``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from parley.engine.params import Field, Params
from parley.engine.rewrite.base import RewriteContext, WithParams
from parley.engine.rewrite.metrics import normalise
from parley.engine.rewrite.numbers import speak_numbers
from parley.engine.rewrite.util import sort_spans, tokenize, words
from parley.engine.types import Change, Rewrite, Span

_CLITICS = frozenset(words("'s 's 'm 're 've 'll 'd n't"))
_DROPPABLE = frozenset(words("a the to of and i it is in for that"))
#: words ranked above this in frequency are common: a recogniser's language model gets them right unless
#: another common word sounds the same or nearly ("on" -> "one", "for" -> "four", "room" -> "rooms")
_COMMON = 2000
_SCALE_COMMON = 0.5


@lru_cache(maxsize=65536)
def _spoken(token: str, numbers: bool) -> tuple[str, ...]:
    """A token as normalised recogniser words (numbers spoken)."""
    return tuple(normalise(speak_numbers(token) if numbers else token).split())


class SimulatedASRParams(Params):
    wer: float = Field(0.23, ge=0.0, le=1.0, description="base probability that a word is misrecognised")
    liaison: float = Field(0.5, ge=0.0, le=1.0,
                           description="probability that a known liaison pair is run together")
    numbers: bool = Field(True, description="speak numbers and times ('13:45' -> 'thirteen forty five')")


class SimulatedASR(WithParams[SimulatedASRParams]):
    """Text-level speech-recognition noise with a word-error-rate knob."""

    name = "asr-sim"
    PARAMS: ClassVar[type[Params]] = SimulatedASRParams

    def __init__(self, **given: object) -> None:
        self.p = SimulatedASRParams.from_spec(self.name, given)

    def _words(self, text: str, spans: list[Span]) -> list[tuple[str, int | None]]:
        out: list[tuple[str, int | None]] = []
        for t in tokenize(text, spans):
            low = t.text.lower()
            if low in _CLITICS and out:
                w, s = out[-1]
                out[-1] = (w + low.replace("'", "'"), s)
                continue
            for w in _spoken(t.text, self.p.numbers):
                out.append((w, t.span))
        return out

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite:
        from parley.engine.rewrite.phonetic import confusions, liaison, rank, sound_alikes

        p = self.p
        rng = ctx.rng
        spans = sort_spans(ctx.spans)
        ws = self._words(text, spans)
        out: list[tuple[str, int | None]] = []
        counts = {"substitute": 0, "liaison": 0, "delete": 0}
        wer = p.wer
        i = 0
        while i < len(ws):
            w, s = ws[i]
            if i + 1 < len(ws) and p.liaison > 0 and wer > 0:
                merged = liaison(w, ws[i + 1][0])
                if merged and rng.random() < p.liaison * min(1.0, wer * 4):
                    out.append((merged, s if s is not None else ws[i + 1][1]))
                    counts["liaison"] += 1
                    i += 2
                    continue
            r = rank(w) if w.isalpha() else 10**6
            common = r < _COMMON or "'" in w  # "that's", "don't": heard as the contraction or its parts
            scale = _SCALE_COMMON if common else 1.2 if r < 20000 else 2.6
            if s is not None:
                scale *= 1.4  # names and places: what a recogniser's language model knows least
            x = rng.random()
            if x < wer * scale:
                alikes = confusions(w) if common else sound_alikes(w)
                if alikes:
                    k = min(len(alikes), 3)
                    out.append((rng.choices(alikes[:k], weights=(0.55, 0.3, 0.15)[:k])[0], s))
                    counts["substitute"] += 1
                    i += 1
                    continue
            elif x < wer * scale + wer * 0.3 and w in _DROPPABLE and len(ws) > 2:
                counts["delete"] += 1
                i += 1
                continue
            out.append((w, s))
            i += 1

        after = " ".join(w for w, _ in out)
        new_spans: list[Span] = []
        changes: list[Change] = []
        pos = 0
        j = 0
        while j < len(out):
            s = out[j][1]
            if s is None:
                pos += len(out[j][0]) + 1
                j += 1
                continue
            k = j
            while k < len(out) and out[k][1] == s:
                k += 1
            value = " ".join(w for w, _ in out[j:k])
            sp = spans[s]
            new_spans.append(Span(pos, pos + len(value), sp.slot, value, sp.domain))
            if value != normalise(sp.value):
                changes.append({"slot": sp.slot, "before": sp.value, "after": value, "kind": "asr"})
            pos += len(value) + 1
            j = k
        seen = {c["before"] for c in changes} | {sp.value for sp in spans if normalise(sp.value) in
                                                {ns.value for ns in new_spans}}
        for sp in spans:
            if sp.value not in seen and not any(ns.slot == sp.slot for ns in new_spans):
                changes.append({"slot": sp.slot, "before": sp.value, "after": "", "kind": "asr"})
        return Rewrite(self.name, self.params, ctx.seed, text, after, tuple(new_spans), tuple(changes),
                       {"counts": counts})
