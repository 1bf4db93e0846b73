"""Clean-up of what Whisper said: for a prompted or hotword-biased pass (:mod:`parley.audio.bias`) a second
pass cut to the first's length, made-up words after the last sentence dropped, a run of punctuation from a
decoding loop tidied (spoken times are put right by :func:`parley.audio.times.fix_times`); for every
spoken turn (:func:`parley.audio.voice.transcriber`) a stock phrase appended where nothing was said dropped
(:func:`drop_unsaid`) and a sentence repeated by a decoding loop kept once (:func:`drop_loops`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from parley.audio.asr import Transcript

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&\-]*")
#: words after the last sentence this unlikely were made up from the prompt or hotwords ("please. this.")
TAIL_PROB = 0.3


def plain(text: str) -> str:
    """Lower case, letters, digits and single spaces only."""
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("'", "")).split())


def trim_to(text: str, like: str) -> str:
    """``text`` cut after the word that best ends it like ``like`` ends, when it runs on longer (a second
    pass that said the sentence and then looped): the prefix within two words of ``like``'s length that is
    most similar to it."""
    from rapidfuzz import fuzz

    spans = list(WORD.finditer(text))
    n = len(WORD.findall(like))
    if len(spans) <= n or n == 0:
        return text
    target = plain(like)
    best = max(range(max(1, n - 2), min(len(spans), n + 2) + 1),
               key=lambda k: fuzz.ratio(plain(text[:spans[k - 1].end()]), target))
    end = spans[best - 1].end()
    return text[:end] + (text[end] if end < len(text) and text[end] in ".?!" else "")


def drop_tail(tr: Any) -> Any:
    """``tr`` (a Transcript with word probabilities) without up to three words the recogniser made up after
    the last sentence: each below ``TAIL_PROB`` (a prompt or hotwords can make Whisper go on past the
    speech: "Italian food, please. this.")."""
    words, toks = list(tr.words), tr.text.split()
    if len(words) != len(toks):
        return tr
    n = 0
    while n < min(3, len(toks) - 1) and words[-1 - n][1] < TAIL_PROB:
        n += 1
    if n and toks[-1 - n].endswith((".", "?", "!")):
        return replace(tr, text=" ".join(toks[:-n]), words=tuple(words[:-n]))
    return tr


_TRAILING = re.compile(r"(?:\s*[.,!?;:-]){2,}\s*$")


def tidy(text: str) -> str:
    """A run of punctuation at the end (". . . ." from a decoding loop) down to its first mark."""
    m = _TRAILING.search(text)
    return text[:m.start()] + text[m.start():].strip()[:1] if m else text


#: what Whisper writes over silence or noise (its training data's subtitles), normalised by :func:`plain`
STOCK = frozenset((
    "thank you", "thank you very much", "thanks", "thanks for watching", "thank you for watching",
    "thanks for listening", "thank you for listening", "please subscribe", "subscribe", "bye", "bye bye",
    "goodbye", "you", "see you next time", "ill see you next time", "thats all", "the end",
))
#: seconds of speech (Silero windows at or above ``SPOKEN``) the VAD must hear after the words before a stock
#: phrase for the phrase to be kept; the first ``TAIL_S`` after those words is Silero's tail of them
HEARD_S = 0.25
TAIL_S = 0.1
SPOKEN = 0.5


def stock_tail(text: str) -> int:
    """How many words at the end of ``text`` are a stock phrase appended as a sentence of its own after
    other words ("Can I have the phone number? Thank you." → 2); 0 when there is none."""
    toks = text.split()
    for k in range(min(5, len(toks) - 1), 0, -1):
        if toks[-k - 1].endswith((".", "?", "!")) and plain(" ".join(toks[-k:])) in STOCK:
            return k
    return 0


def heard_tail(tr: Transcript, audio: np.ndarray) -> bool | None:
    """Whether the VAD heard speech for the stock phrase at the end of ``tr`` (:func:`stock_tail`) in
    ``audio`` (16 kHz, what ``tr`` was decoded from): ``HEARD_S`` or more of it after the words before the
    phrase. None when ``tr`` lacks the word times to tell (decode with ``word_probs``)."""
    from parley.audio.vad import SAMPLE_RATE, WINDOW, speech_probabilities

    k = stock_tail(tr.text)
    if len(tr.word_spans) != len(tr.text.split()) or not 0 < k < len(tr.word_spans):
        return None
    voiced = speech_probabilities(audio)[window_after(tr.word_spans[-k - 1][1]):] >= SPOKEN
    return float(np.count_nonzero(voiced)) * WINDOW / SAMPLE_RATE >= HEARD_S


def without_tail(tr: Transcript, k: int) -> Transcript:
    """``tr`` without its last ``k`` words (and their probabilities and times, when it has them)."""
    toks = tr.text.split()
    if not 0 < k < len(toks):
        return tr
    text = " ".join(toks[:-k])
    if len(tr.words) != len(toks):
        return replace(tr, text=text)
    spans = tr.word_spans[:-k] if len(tr.word_spans) == len(toks) else tr.word_spans
    segments = tuple(s for s in tr.segments if not spans or s["start"] <= spans[-1][0]) or tr.segments[:1]
    return replace(tr, text=text, words=tr.words[:-k], word_spans=spans, segments=segments)


def drop_unsaid(tr: Transcript, audio: np.ndarray, decode: Callable[..., Transcript],
                options: dict[str, object]) -> Transcript:
    """``tr`` (``decode(**options)`` of ``audio``) without a stock phrase at its end that was not said: the
    VAD heard no speech for it (:func:`heard_tail`; decoded again with word times when ``tr`` lacks them),
    or, for a pass prompted with the dialogue or given hotwords, Whisper does not say it without them."""
    k = stock_tail(tr.text)
    if not k:
        return tr
    heard = heard_tail(tr, audio)
    if heard is None:
        heard = heard_tail(decode(**{**options, "word_probs": True}), audio)
    if heard is False:
        return without_tail(tr, k)
    prompted = bool(options.get("initial_prompt") or options.get("hotwords"))
    if prompted and not stock_tail(decode(**{**options, "initial_prompt": None, "hotwords": None}).text):
        return without_tail(tr, k)
    return tr


#: speech the VAD heard after the last word Whisper wrote (s) that is decoded on its own and appended
UNSAID_S = 0.3


def window_after(end_s: float) -> int:
    """The first Silero window past Silero's tail (``TAIL_S``) of words ending at ``end_s`` seconds."""
    from parley.audio.vad import SAMPLE_RATE, WINDOW

    return max(0, int((end_s + TAIL_S) * SAMPLE_RATE / WINDOW))


def untranscribed(tr: Transcript, probs: np.ndarray) -> float | None:
    """Where speech the VAD heard after the last word of ``tr`` starts (s), when there is ``UNSAID_S`` or more
    of it (Whisper ended its transcript early); None when the speech is covered or ``tr`` has no word times.
    ``probs``: the speech probabilities of the audio ``tr`` was decoded from
    (:func:`parley.audio.vad.speech_probabilities`)."""
    from parley.audio.vad import SAMPLE_RATE, WINDOW

    if not tr.word_spans:
        return None
    start = window_after(tr.word_spans[-1][1])
    voiced = np.flatnonzero(probs[start:] >= SPOKEN)
    if voiced.size * WINDOW / SAMPLE_RATE < UNSAID_S:
        return None
    return float((start + voiced[0]) * WINDOW / SAMPLE_RATE)


def joined(tr: Transcript, rest: Transcript, offset: float) -> Transcript:
    """``tr`` followed by ``rest``, the transcript of the audio from ``offset`` seconds on."""
    def shifted(span: tuple[float, float]) -> tuple[float, float]:
        return round(span[0] + offset, 3), round(span[1] + offset, 3)

    segments = tuple({**sg, "start": round(sg["start"] + offset, 3), "end": round(sg["end"] + offset, 3)}
                     for sg in rest.segments)
    spans = tr.word_spans + tuple(map(shifted, rest.word_spans))
    return replace(tr, text=f"{tr.text} {rest.text}".strip(), segments=tr.segments + segments,
                   words=tr.words + rest.words, word_spans=spans,
                   latency_ms=round(tr.latency_ms + rest.latency_ms, 1))


_SENTENCE = re.compile(r"[^.?!]+[.?!]*\s*")
#: a sentence said this many times in a row is a decoding loop ("Please. Please. Please. …"), not speech
LOOP = 3


def drop_loops(text: str) -> str:
    """``text`` with a sentence repeated ``LOOP`` or more times in a row kept once, and a cut-off repeat of it
    at the end dropped (what is left of a decoding loop the recogniser's own retry did not stop).

    >>> drop_loops("Can you find me a train? Leaving at 9. Leaving at 9. Leaving at 9. Leaving a")
    'Can you find me a train? Leaving at 9.'
    """
    parts = [m.group(0) for m in _SENTENCE.finditer(text)]
    out: list[str] = []
    i = 0
    while i < len(parts):
        j = i
        while j + 1 < len(parts) and plain(parts[j + 1]) == plain(parts[i]):
            j += 1
        if j - i + 1 >= LOOP:
            out.append(parts[i])
            tail = plain("".join(parts[j + 1:]))
            if tail and plain(parts[i]).startswith(tail):  # the loop's last repeat, cut off by the budget
                break
        else:
            out.extend(parts[i:j + 1])
        i = j + 1
    return "".join(out).strip()
