"""Command palette entries for the chat actions (the same actions the keys run)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from parley.tui.app import ParleyApp

#: (title, help, chat screen action)
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("New session", "end this session and start a new one on the same system", "new_session"),
    ("End & rate dialogue", "rate the whole dialogue on the five aspects; locks the session", "end_dialogue"),
    ("Rate turns", "rate the latest (or a selected) system turn: relevance, interestingness", "rate_mode"),
    ("Toggle internals", "show/hide belief state, DB count, acts and knowledge under system turns (this run)",
     "toggle_internals"),
    ("Rewriters", "toggle impoliteness, disfluency, word perturbation, ASR noise; set their parameters",
     "rewriters"),
    ("Load model", "pick a registered system, a recent one, or a model folder / hub id", "load_model"),
    ("Voice mode", "hands-free spoken turns with spoken replies and barge-in (start/stop)", "voice"),
    ("Toggle speak replies", "speak every system reply aloud (this run)", "toggle_speak"),
    ("Save toggles as defaults", "keep this run's internals and spoken-replies toggles for later runs "
     "(config.toml)", "app.save_toggles"),
    ("Scores", "satisfaction statistics and MultiWOZ metrics of the open database, with charts",
     "app.scores"),
    ("Change tester", "set the tester / rater name kept in settings", "app.change_tester"),
    ("Keys", "list every key and its binding id", "app.help"),
)


class ParleyCommands(Provider):
    """Palette provider: every chat action by name."""

    def _run(self, action: str) -> None:
        cast("ParleyApp", self.app).run_chat_action(action)

    async def discover(self) -> Hits:
        for title, help_text, action in COMMANDS:
            yield DiscoveryHit(title, partial(self._run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(self._run, action), help=help_text)
