"""When a spoken turn ends: after a fixed silence, or sooner when the words so far make a complete turn.

The ``silence`` policy ends every turn ``end_silence_ms`` after the last voiced window (Silero VAD,
:mod:`parley.audio.vad`). The ``semantic`` policy reads the transcript Whisper makes during the pause
(:mod:`parley.audio.listen` transcribes speculatively once the speaker stops) and ends the turn after
``complete_silence_ms`` when the words are a complete turn ("Italian food, please."), waits
``incomplete_silence_ms`` when they plainly are not ("I'd like a table for…"), and ``end_silence_ms`` while
the transcript is not there yet or says nothing either way. A turn that ends early and was not over is not
lost: the speaker's next words start a new turn and stop the reply being spoken (barge-in).

Completeness is decided by rules over the transcript (:func:`completeness`): a turn is unfinished when it
trails off ("…", a dash) or its last word cannot end an English sentence (an article, a preposition, a
conjunction, a possessive, a contracted subject or a filled pause: "for", "the", "and", "my", "I'd", "um"); it
is complete when Whisper closed it with a full stop, question or exclamation mark after a word that can end
one. The prosody Silero gives is the other half: the early end needs the silence itself to be quiet, every
window of it below ``quiet_probability`` (a breath or a filled pause keeps the probability up)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from parley.audio.vad import SAMPLE_RATE, WINDOW

POLICIES = ("semantic", "silence")
#: why a turn ended, as stored with it
REASONS = ("silence", "complete", "incomplete", "max", "input-end", "file")


class Completeness(Enum):
    COMPLETE = "complete"
    INCOMPLETE = "incomplete"
    UNKNOWN = "unknown"


#: words after which an English turn does not stop (articles, prepositions, conjunctions, possessives,
#: contracted subjects with nothing after them, filled pauses); words that may end one ("you", "that", "is",
#: "no", "some") are not here
_OPEN = frozenset((
    "a", "an", "the", "for", "to", "at", "in", "on", "of", "with", "from", "by", "into", "onto",
    "between", "than", "as", "like", "and", "or", "but", "because", "if", "while", "whether", "whose",
    "my", "your", "our", "their", "its", "every", "i'd", "i'm", "i'll", "i've", "we'd", "we're",
    "we'll", "you'd", "they'd", "they're", "it's", "there's", "um", "uh", "er", "erm", "hmm", "via",
    "per",
))
_TRAILING = re.compile(r"(\.\.\.|…|[-–—,;:])\s*$")
_CLOSED = re.compile(r"[.?!]['\")\]]*\s*$")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9']*")


def completeness(text: str) -> Completeness:
    """Whether ``text`` (a transcript so far) is a complete turn, plainly unfinished, or neither."""
    words = _WORD.findall(text)
    if not words:
        return Completeness.UNKNOWN
    if _TRAILING.search(text) or words[-1].lower() in _OPEN:
        return Completeness.INCOMPLETE
    if _CLOSED.search(text):
        return Completeness.COMPLETE
    return Completeness.UNKNOWN


@dataclass(frozen=True)
class TurnEndPolicy:
    """The end-of-turn policy and its thresholds (``[audio]`` settings ``end_of_turn``, ``end_silence_ms``,
    ``complete_silence_ms``, ``incomplete_silence_ms``, ``quiet_probability``)."""

    policy: str = "semantic"
    end_silence_ms: int = 500
    complete_silence_ms: int = 400
    incomplete_silence_ms: int = 1000
    quiet_probability: float = 0.4

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"end-of-turn policy {self.policy!r}: use one of {', '.join(POLICIES)}")
        if not 0 < self.complete_silence_ms <= self.end_silence_ms <= self.incomplete_silence_ms:
            raise ValueError("end-of-turn silences must be complete_silence_ms ≤ end_silence_ms ≤ "
                             f"incomplete_silence_ms (got {self.complete_silence_ms}, {self.end_silence_ms}, "
                             f"{self.incomplete_silence_ms})")

    @classmethod
    def of(cls, policy: str, end_silence_ms: int, complete_silence_ms: int, incomplete_silence_ms: int,
           quiet_probability: float) -> TurnEndPolicy:
        """A policy from settings: the early silence is at most, the late one at least ``end_silence_ms``."""
        return cls(policy, end_silence_ms, min(complete_silence_ms, end_silence_ms),
                   max(incomplete_silence_ms, end_silence_ms), quiet_probability)

    @property
    def semantic(self) -> bool:
        return self.policy == "semantic"

    @staticmethod
    def windows(ms: int) -> int:
        """A silence in VAD windows (32 ms), at least one."""
        return max(1, round(ms / 1000 * SAMPLE_RATE / WINDOW))

    def wait_windows(self, kind: Completeness) -> int:
        """How many silent windows end a turn whose transcript so far is ``kind``."""
        if not self.semantic or kind is Completeness.UNKNOWN:
            return self.windows(self.end_silence_ms)
        if kind is Completeness.COMPLETE:
            return self.windows(self.complete_silence_ms)
        return self.windows(self.incomplete_silence_ms)
