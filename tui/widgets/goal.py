"""The goal card: the sentences of a user goal (engine.scoring.goals.make_goal) for goal-driven sessions."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import Static

from parley.display import visible


def goal_text(goal: Mapping[str, object]) -> Text:
    """The goal's ``message`` sentences as a numbered list (HTML tags some goal sets carry are stripped)."""
    import re

    given = goal.get("message") or []
    msg = [given] if isinstance(given, str) else list(given) if isinstance(given, list | tuple) else []
    out = Text("Your goal", style="bold")
    gid = goal.get("id") or goal.get("dialogue_id")
    if gid:
        out.append(f"  ({visible(str(gid), one_line=True)})", style="dim")
    for i, sentence in enumerate(msg, 1):
        out.append(f"\n{i}. " + visible(re.sub(r"<[^>]+>", "", str(sentence)), one_line=True))
    if not msg:
        out.append("\n(this goal has no message text)", style="dim")
    return out


class GoalCard(Static):
    """Docked panel showing the goal of a goal-driven session."""

    def __init__(self, goal: Mapping[str, object], *, id: str | None = None) -> None:
        super().__init__(goal_text(goal), id=id)
        self.goal = goal
