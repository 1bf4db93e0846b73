"""The Scores screen: MultiWOZ scores by system and condition and the satisfaction analysis of the open
database, as tables and terminal charts (textual-plotext). The numbers come from ``engine.scoring`` — the same
code as ``parley score`` — computed in a thread worker, which reports what it is computing and how far (a line
and a progress bar; steps the screen has not shown yet merge into the latest); ``r`` recomputes, escape
closes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar, Static
from textual.worker import Worker, WorkerState
from textual_plotext import PlotextPlot

from parley.display import literal
from parley.engine.scoring.summary import ScoreData, compute
from parley.jsontypes import json_object
from parley.tui.notify import tell

if TYPE_CHECKING:
    from parley.store import Store


class ScoresScreen(Screen[None]):
    """Scores of the open database. ``store`` is a ``store.Store``."""

    DEFAULT_CSS = """
    ScoresScreen #scores-body { padding: 0 1; }
    ScoresScreen .scores-title { text-style: bold; margin-top: 1; }
    ScoresScreen .scores-hint { color: $text-muted; }
    ScoresScreen #scores-progress { margin: 0 0 1 0; }
    ScoresScreen Horizontal.charts { height: 16; }
    ScoresScreen PlotextPlot { height: 16; min-width: 30; }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="scores_close"),
        Binding("r", "refresh_scores", "Recompute", id="scores_refresh"),
    ]

    class Step(Message):
        """Posted by the worker: what it is computing and how far (``total`` None: not counted)."""

        def __init__(self, what: str, done: int, total: int | None) -> None:
            super().__init__()
            self.what, self.done, self.total = what, done, total

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, ScoresScreen.Step)

    class Ready(Message):
        """Posted by the worker with the computed scores."""

        def __init__(self, data: ScoreData) -> None:
            super().__init__()
            self.data = data

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.data: ScoreData | None = None

    def compose(self) -> ComposeResult:
        name = self.store.path.name
        with VerticalScroll(id="scores-body"):
            yield Static(literal(f"Scores — {name}", one_line=True), classes="scores-title", id="scores-head")
            yield Static("computing…", id="scores-status", classes="scores-hint")
            yield ProgressBar(id="scores-progress", show_eta=False)
            yield Static("", id="mwz-table")
            with Horizontal(classes="charts"):
                yield PlotextPlot(id="mwz-chart")
                yield PlotextPlot(id="sat-chart")
            yield Static("", id="sat-table")
        yield Footer()

    def on_mount(self) -> None:
        self.action_refresh_scores()

    def action_refresh_scores(self) -> None:
        self.query_one("#scores-status", Static).update("computing…")
        self.query_one(ProgressBar).display = True
        self._compute()

    @work(
        thread=True, exclusive=True, exit_on_error=False, group="scores", description="scoring the database"
    )
    def _compute(self) -> None:
        def step(what: str, done: int, total: int | None) -> None:
            self.post_message(self.Step(what, done, total))  # steps not yet shown are merged (can_replace)

        self.post_message(self.Ready(compute(self.store, step)))

    @on(Step)
    def _step(self, event: Step) -> None:
        counted = f": {event.done:,} of {event.total:,}" if event.total else "…"
        self.query_one("#scores-status", Static).update(f"computing — {event.what}{counted}")
        self.query_one(ProgressBar).update(total=event.total, progress=event.done)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "scores":
            self.query_one(ProgressBar).display = False
            err = event.worker.error
            status = self.query_one("#scores-status", Static)
            status.update(literal(f"scoring failed: {type(err).__name__}: {err}"))
            tell(self, f"Scoring failed: {err}", severity="error")

    @on(Ready)
    def _show(self, event: Ready) -> None:
        from parley.engine.scoring.report import (
            PAPER_CORRELATIONS,
            conditions_table,
            plotted,
            satisfaction_tables,
        )
        from parley.engine.scoring.satisfaction import ABBREV

        self.data = d = event.data
        self.query_one(ProgressBar).display = False
        c = d.counts
        self.query_one("#scores-status", Static).update(
            f"{c.get('sessions', 0)} sessions · {c.get('turns', 0)} turns · {c.get('dialogue_ratings', 0)} "
            f"dialogue ratings · {c.get('turn_ratings', 0)} turn ratings · r recomputes · escape closes")
        conds = json_object(d.multiwoz.get("conditions"))
        self.query_one("#mwz-table", Static).update(
            conditions_table(d.multiwoz) if conds else "No sessions with a MultiWOZ goal yet (parley run, or "
                                                       "--goal for live sessions).")
        mplot = self.query_one("#mwz-chart", PlotextPlot)
        plt = mplot.plt
        plt.clear_figure()
        if conds:
            names = [n.split(" / ", 1)[-1] for n in conds]
            # plotext's runtime keyword is `labels`; its type stub says `label`
            plt.multiple_bar(
                names,
                [[plotted(json_object(conds[n]).get(m)) for n in conds]
                 for m in ("inform", "success", "bleu")],
                labels=["Inform", "Success", "BLEU"],
            )  # type: ignore[call-arg]
            plt.title("MultiWOZ by condition (%)")
        else:
            plt.title("no MultiWOZ scores")
        mplot.refresh()
        splot = self.query_one("#sat-chart", PlotextPlot)
        plt = splot.plt
        plt.clear_figure()
        if d.satisfaction:
            corr = json_object(d.satisfaction["correlations"])
            names = list(corr)
            short = {a: k for k, a in ABBREV.items()}  # short labels fit, so plotext never drops some
            plt.multiple_bar(
                [short.get(n, n) for n in names],
                [[plotted(json_object(corr[n])["spearman"]) for n in names],
                 [PAPER_CORRELATIONS[n][0] for n in names]],
                labels=["these ratings", "paper"],
            )  # type: ignore[call-arg]
            plt.title("Spearman ρ with overall (R I U TC IA E)")
            from rich.console import Group

            self.query_one("#sat-table", Static).update(Group(*satisfaction_tables(d.satisfaction)[:3]))
        else:
            plt.title("no ratings")
            self.query_one("#sat-table", Static).update("No dialogue ratings yet.")
        splot.refresh()

    def action_close(self) -> None:
        self.dismiss(None)
