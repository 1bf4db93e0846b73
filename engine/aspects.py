"""The rating aspects, re-exported from the leaf module :mod:`parley.scales` (the one table of scales)."""

from __future__ import annotations

from parley.scales import (
    ASPECTS,
    DIALOGUE_ASPECTS,
    EFFICIENCY,
    INTEREST_AROUSAL,
    INTERESTINGNESS,
    JUSTIFICATION_PROMPT,
    OVERALL,
    RELEVANCE,
    TASK_COMPLETION,
    TURN_ASPECTS,
    UNDERSTANDING,
    Aspect,
    Level,
    missing_dialogue_aspects,
)

__all__ = ["ASPECTS", "DIALOGUE_ASPECTS", "EFFICIENCY", "INTERESTINGNESS", "INTEREST_AROUSAL",
           "JUSTIFICATION_PROMPT", "OVERALL", "RELEVANCE", "TASK_COMPLETION", "TURN_ASPECTS", "UNDERSTANDING",
           "Aspect", "Level", "missing_dialogue_aspects"]
