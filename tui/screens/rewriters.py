"""The rewriter panel: toggle each rewriter and set its parameters → a new ``Chain``, or None (cancelled).

Controls are built from each rewriter class's ``PARAMS`` model (``engine.params``): a choice becomes a
Select, a bool a Checkbox, a number an Input checked against ``lo``/``hi``. A rewriter whose module cannot be
imported is shown disabled with the reason. A combination that cannot be built is reported in the panel, which
stays open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from parley.display import literal
from parley.engine.params import Param, params_of
from parley.engine.rewrite.chain import Chain
from parley.engine.spec import Spec, spec_value
from parley.tui.notify import tell

#: parameter controls per line of the panel (impolite's backend=openai ones wrap onto a second line)
PARAMS_PER_ROW = 5


@dataclass(frozen=True)
class RewriterInfo:
    """One registry entry as the panel shows it: its PARAMS, or why it cannot be used."""

    name: str
    summary: str
    params: tuple[Param, ...] = ()
    error: str | None = None


def rewriter_infos() -> list[RewriterInfo]:
    """Every registered rewriter in chain order; import failures become ``error`` (never raises)."""
    from parley.engine.rewrite import ORDER, REWRITERS

    names = [n for n in ORDER if n in REWRITERS] + [n for n in REWRITERS.names() if n not in ORDER]
    out = []
    for name in names:
        entry = REWRITERS.get(name)
        try:
            cls = entry.load()
            out.append(RewriterInfo(name, entry.summary, params_of(cls).listing()))
        except Exception as e:  # ModuleNotFoundError while another engineer writes it, broken deps, ...
            reason = f"module {e.name} is not available" if isinstance(e, ModuleNotFoundError) else (
                f"{type(e).__name__}: {e}")
            out.append(RewriterInfo(name, entry.summary, (), reason))
    return out


def _control_id(name: str, param: str) -> str:
    return f"p-{name}-{param}".replace("_", "-")


class RewriterScreen(ModalScreen[Chain | None]):
    """Edit the chain. ``current`` are the specs in force; returns the new chain (ctrl+s / Apply)."""

    HELP_GROUP: ClassVar[str] = "rewriter panel"
    BINDINGS = [
        Binding("ctrl+s", "apply", "Apply", id="rewriters_apply"),
        Binding("escape", "cancel", "Cancel", id="rewriters_cancel"),
    ]

    def __init__(self, current: Sequence[Spec] = (), infos: list[RewriterInfo] | None = None) -> None:
        super().__init__(classes="modal")
        self.current = {s.name: s for s in current}
        self.infos = infos if infos is not None else rewriter_infos()

    def on_mount(self) -> None:
        # keyboard first: the first usable rewriter toggle has focus, so space toggles it straight away
        for box in self.query(Checkbox):
            if box.id and box.id.startswith("rw-") and not box.disabled:
                box.focus()
                break

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="dialog rewriter-dialog"):
            yield Label("User-side rewriters", classes="dialog-title")
            yield Static("Applied in this order to every user turn from the next turn on · space toggles · "
                         "ctrl+s applies · escape cancels", classes="hint")
            for info in self.infos:
                yield from self._row(info)
            yield Static("", id="rewriter-error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Cancel", id="cancel")

    def _row(self, info: RewriterInfo) -> ComposeResult:
        spec = self.current.get(info.name)
        with Vertical(classes="rewriter", id=f"rw-box-{info.name}"):
            yield Checkbox(f"{info.name} — {info.summary}", value=spec is not None and info.error is None,
                           id=f"rw-{info.name}", disabled=info.error is not None)
            if info.error is not None:
                yield Static(literal(f"unavailable: {info.error}"), classes="error")
                return
            given = spec.params if spec else {}
            for row in range(0, len(info.params), PARAMS_PER_ROW):  # a long list wraps instead of running off
                yield from self._params(info, info.params[row:row + PARAMS_PER_ROW], given)

    def _params(self, info: RewriterInfo, params: Sequence[Param], given: Mapping[str, Any]) -> ComposeResult:
        with Horizontal(classes="params"):
            for p in params:
                value = given.get(p.name, p.default)
                cid = _control_id(info.name, p.name)
                with Vertical(classes="param"):
                    yield Label(p.name, classes="param-name")
                    if p.kind == "bool":
                        yield Checkbox("on", value=bool(value), id=cid, tooltip=p.help)
                    elif p.kind == "choice" or p.choices:
                        options = [(spec_value(c), c) for c in p.choices]
                        yield Select(options, value=value if value in p.choices else p.default,
                                     allow_blank=False, id=cid, tooltip=p.help)
                    else:
                        shown = "" if value is None else spec_value(value)
                        if p.kind == "int":
                            yield Input(shown, type="integer", id=cid, tooltip=p.help, classes="num",
                                        placeholder="none")
                        elif p.kind == "float":
                            yield Input(shown, type="number", id=cid, tooltip=p.help, classes="num",
                                        placeholder="none")
                        else:  # free text (a model folder, a hub id, ...)
                            yield Input(shown, id=cid, tooltip=p.help, classes="text", placeholder="none")

    def _read(self, info: RewriterInfo) -> Spec:
        params: dict[str, Any] = {}
        for p in info.params:
            cid = _control_id(info.name, p.name)
            if p.kind == "bool":
                value: Any = self.query_one(f"#{cid}", Checkbox).value
            elif p.kind == "choice" or p.choices:
                value = self.query_one(f"#{cid}", Select).value
            else:
                raw = self.query_one(f"#{cid}", Input).value.strip()
                if not raw:
                    if p.default is not None:
                        shown_default = spec_value(p.default)
                        raise ValueError(f"{info.name}: {p.name} needs a value (default {shown_default})")
                    value = None
                elif p.kind not in ("int", "float"):
                    value = raw
                else:
                    try:
                        value = int(raw) if p.kind == "int" else float(raw)
                    except ValueError:
                        raise ValueError(f"{info.name}: {p.name} must be a number, not {raw!r}") from None
                    if (p.lo is not None and value < p.lo) or (p.hi is not None and value > p.hi):
                        raise ValueError(f"{info.name}: {p.name} must lie in [{p.lo}, {p.hi}], not {raw}")
            if value != p.default:
                params[p.name] = value
        return Spec(info.name, params)

    def specs(self) -> list[str]:
        """The specs the panel shows as enabled (raises ValueError naming a bad value)."""
        out = []
        for info in self.infos:
            if info.error is None and self.query_one(f"#rw-{info.name}", Checkbox).value:
                out.append(str(self._read(info)))
        return out

    @on(Button.Pressed, "#apply")
    def action_apply(self) -> None:
        try:
            chain = Chain(self.specs())
        except Exception as e:  # a bad value (ValueError, SpecError) or a rewriter that fails to build
            self.query_one("#rewriter-error", Static).update(literal(str(e)))
            tell(self, str(e), severity="error")
            return
        self.dismiss(chain)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
