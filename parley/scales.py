"""The six rating aspects of the user-satisfaction study (Siro et al., ../shared/seeds/004): the one table of
their scales, labels and one-liners. A leaf module: store (records, annotation, importers, the schema's CHECK
constraints), engine (scoring) and the TUI all read the scales from here.

Turn level: relevance and interestingness (1-3). Dialogue level: understanding, task completion, interest
arousal (1-3), efficiency (0/1) and overall impression (1-5). The definitions are parley's own short
paraphrases of the study's instructions to raters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["turn", "dialogue"]
#: the stored value of a relevance the rater judged "not applicable" (the study's fourth option, for a reply
#: with too little evidence to judge, e.g. no suggestion made): a value of its own, never a number on the
#: scale, never NULL (NULL is "not rated")
NOT_APPLICABLE: Literal["n/a"] = "n/a"
NotApplicable = Literal["n/a"]


@dataclass(frozen=True)
class Aspect:
    """One rating scale: ``key`` is the record field (store.records.TurnRating / DialogueRating)."""

    key: str
    label: str
    level: Level
    lo: int
    hi: int
    definition: str
    options: tuple[str, ...]  # one label per value lo..hi
    not_applicable: bool = False  # the scale also offers "not applicable" (stored as NOT_APPLICABLE)

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(range(self.lo, self.hi + 1))

    def option(self, value: int) -> str:
        """The label of a value, e.g. ``relevance.option(2) == "somewhat"``."""
        if not self.valid(value):
            raise ValueError(f"{self.label} takes {self.lo}-{self.hi}, not {value}")
        return self.options[value - self.lo]

    def valid(self, value: object) -> bool:
        """A value on the scale (a number; "not applicable" is not one: see :meth:`allowed`)."""
        return isinstance(value, int) and not isinstance(value, bool) and self.lo <= value <= self.hi

    def allowed(self, value: object) -> bool:
        """A value a rating may hold: on the scale, or "not applicable" where the scale offers it."""
        return self.valid(value) or (self.not_applicable and value == NOT_APPLICABLE)

    def label_of(self, value: int | str) -> str:
        """The label of an allowed value, "not applicable" included."""
        if value == NOT_APPLICABLE and self.not_applicable:
            return "not applicable"
        return self.option(int(value))


_NSY = ("no", "somewhat", "yes")

RELEVANCE = Aspect("relevance", "Relevance", "turn", 1, 3,
                   "The reply fits the previous user turn and serves what the user was after.", _NSY,
                   not_applicable=True)
INTERESTINGNESS = Aspect("interestingness", "Interestingness", "turn", 1, 3,
                         "The system adds some friendly conversation around the facts it presents.", _NSY)
UNDERSTANDING = Aspect("understanding", "Understanding", "dialogue", 1, 3,
                       "The system grasps what the user asks for and acts on it.", _NSY)
TASK_COMPLETION = Aspect("task_completion", "Task completion", "dialogue", 1, 3,
                         "The system offers something the user accepts in the end.", _NSY)
INTEREST_AROUSAL = Aspect(
    "interest_arousal",
    "Interest arousal",
    "dialogue",
    1,
    3,
    "The system tries to make the user curious about an option they did not know.",
    _NSY,
)
EFFICIENCY = Aspect(
    "efficiency",
    "Efficiency",
    "dialogue",
    0,
    1,
    "A suggestion that matches the user's wishes comes within the first three exchanges.",
    ("no", "yes"),
)
OVERALL = Aspect(
    "overall",
    "Overall impression",
    "dialogue",
    1,
    5,
    "How satisfied you are with the system over the whole dialogue (1 very dissatisfied, 5 very satisfied).",
    ("very dissatisfied", "dissatisfied", "neutral", "satisfied", "very satisfied"),
)

TURN_ASPECTS: tuple[Aspect, ...] = (RELEVANCE, INTERESTINGNESS)
DIALOGUE_ASPECTS: tuple[Aspect, ...] = (UNDERSTANDING, TASK_COMPLETION, INTEREST_AROUSAL, EFFICIENCY, OVERALL)
ASPECTS: dict[str, Aspect] = {a.key: a for a in TURN_ASPECTS + DIALOGUE_ASPECTS}

JUSTIFICATION_PROMPT = "Why this overall impression? Point to what happened in the dialogue."


def missing_dialogue_aspects(values: dict[str, int | None]) -> list[str]:
    """Labels of the dialogue aspects without a valid value (empty list: the rating is complete)."""
    return [a.label for a in DIALOGUE_ASPECTS if not a.valid(values.get(a.key))]


def scale(key: str) -> tuple[int, int]:
    """``(lo, hi)`` of one aspect's scale."""
    a = ASPECTS[key]
    return a.lo, a.hi


def check_sql(key: str) -> str:
    """The SQL CHECK condition of one aspect's column, as the first schema wrote it (``relevance BETWEEN 1
    AND 3``, a two-value scale as ``efficiency IN (0, 1)``); :func:`check_sql_allowed` adds "not
    applicable"."""
    a = ASPECTS[key]
    if a.hi - a.lo == 1:
        return f"{key} IN ({a.lo}, {a.hi})"
    return f"{key} BETWEEN {a.lo} AND {a.hi}"


def check_sql_allowed(key: str) -> str:
    """The CHECK condition of an aspect's column that also lets "not applicable" in, where the scale offers it
    (``relevance BETWEEN 1 AND 3 OR relevance = 'n/a'``)."""
    a = ASPECTS[key]
    base = check_sql(key)
    return f"{base} OR {key} = '{NOT_APPLICABLE}'" if a.not_applicable else base
