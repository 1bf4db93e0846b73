"""The model picker: registered systems, recent specs and a free spec/path/hub-id field → a :class:`Pick`.

The screen only chooses; the chat loads the system in a worker and starts a new session on it (or, when typed
turns wait for a system that failed to load, lets it answer them; the picker then also offers to cancel
them). A typed spec
that asks for ``trust_remote_code=true`` is never passed on as it is: the parameter is taken out and the
tester must confirm, in a dialog naming the checkpoint, that its code may run (``Pick.trust``); it is asked
every time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from parley.display import literal, visible

TRUST = "trust_remote_code"


@dataclass(frozen=True)
class Pick:
    """The chosen system spec (never holding ``trust_remote_code``); whether its checkpoint code may run; or
    (``cancel_waiting``) no system: cancel the turns waiting for one."""

    spec: str
    trust: bool = False
    cancel_waiting: bool = False


def split_trust(spec: str) -> tuple[str, str | None]:
    """``(spec without trust_remote_code, the checkpoint it names)``; the checkpoint is None when the spec
    does not ask for trust. Raises ValueError for a spec that cannot be parsed."""
    from parley.engine.spec import Spec, SpecError, parse_spec

    try:
        s = parse_spec(spec)
    except SpecError as e:
        raise ValueError(str(e)) from None
    if not s.params.get(TRUST):
        return spec, None
    params = {k: v for k, v in s.params.items() if k != TRUST}
    return str(Spec(s.name, params)), str(params.get("model") or s.name)


def spec_from_text(text: str, known: Sequence[str]) -> str:
    """Turn what the tester typed into a system spec.

    ``multiwoz`` / ``hf-causal:model=...`` (a registered name) are used as they are; a folder holding a
    Hugging Face ``config.json`` becomes ``hf-seq2seq:model=PATH`` or ``hf-causal:model=PATH`` by its
    architecture; a hub id or any other path must say which system to use (ValueError with the hint).
    """
    text = text.strip()
    if not text:
        raise ValueError("type a system name, a spec like hf-causal:model=PATH, or a model folder")
    head = text.partition(":")[0].strip()
    if head in known:
        return text
    path = Path(text).expanduser()
    config = path / "config.json"
    if config.is_file():
        try:
            cfg = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ValueError(f"cannot read {config}: {e}") from None
        kind = "hf-seq2seq" if cfg.get("is_encoder_decoder") else "hf-causal"
        return f"{kind}:model={path}"
    if path.exists():
        raise ValueError(f"{path} has no config.json; write the spec, e.g. hf-causal:model={path}")
    raise ValueError(f"{text!r} is not a registered system or a local model folder; for a hub id write "
                     f"hf-seq2seq:model={text} or hf-causal:model={text}")


class ModelPickerScreen(ModalScreen[Pick | None]):
    """Pick a system; dismisses with a :class:`Pick` (or None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker_cancel")]

    def __init__(
        self, systems: Sequence[tuple[str, str]], recent: Sequence[str] = (), current: str = "", *,
        waiting: int = 0,
    ) -> None:
        super().__init__(classes="modal")
        self.systems = list(systems)
        self.recent = [r for r in recent if r]
        self.current = current
        self.waiting = waiting  # typed turns stored and waiting for a system (none loaded: it failed)

    def compose(self) -> ComposeResult:
        width = max((len(n) for n, _ in self.systems), default=8) + 2
        options: list[Option | None] = []
        turns = f"{self.waiting} typed turn{'s' if self.waiting > 1 else ''}"
        them = "them" if self.waiting > 1 else "it"
        if self.waiting:  # first, where it is seen; the current system stays highlighted
            cancel = Text(f"✗ cancel the {turns} waiting (stored as cancelled)")
            options += [Option(cancel, id="cancel"), None]
        for name, summary in self.systems:
            line = Text(
                "● " if name == self.current else "○ ", style="bold" if name == self.current else "dim"
            )
            line.append(f"{name:<{width}}", style="bold")
            line.append(summary)
            options.append(Option(line, id=f"sys:{name}"))
        if self.recent:
            options.append(None)
            for i, spec in enumerate(self.recent):  # from config.toml: shown literally
                line = Text("● " if spec == self.current else "○ ", style="dim")
                line.append("recent  ", style="italic")
                line.append(visible(spec, one_line=True))
                options.append(Option(line, id=f"recent:{i}"))
        with Vertical(id="dialog", classes="dialog picker-dialog"):
            yield Label("Load a dialogue system", classes="dialog-title")
            yield Static("enter loads the highlighted system · or type a spec, a model folder or "
                         "hf-causal:model=HUB_ID below (add trust_remote_code=true to let a checkpoint run "
                         "its own code: you will be asked) · " + (
                             f"{turns} wait{'' if self.waiting > 1 else 's'} for a system, stored: the one "
                             f"you pick answers {them}, or cancel {them} (first line)" if self.waiting else
                             "switching starts a new session"), classes="hint")
            yield OptionList(*options, id="systems")
            yield Input(
                placeholder="spec / path / hub id, e.g. llm:model=/models/smol or remote:url=http://…",
                id="spec",
            )
            yield Static("", id="picker-error", classes="error")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = [n for n, _ in self.systems]
        if self.current in names:
            options.highlighted = names.index(self.current) + (1 if self.waiting else 0)
        options.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        oid = event.option.id or ""
        if oid == "cancel":
            self.dismiss(Pick("", cancel_waiting=True))
            return
        kind, _, rest = oid.partition(":")
        self._choose(rest if kind == "sys" else self.recent[int(rest)])

    @on(Input.Submitted, "#spec")
    def _typed(self, event: Input.Submitted) -> None:
        try:
            spec = spec_from_text(event.value, [n for n, _ in self.systems])
        except ValueError as e:
            self._error(str(e))
            return
        self._choose(spec)

    def _error(self, text: str) -> None:
        self.query_one("#picker-error", Static).update(literal(text))

    def _choose(self, spec: str) -> None:
        """Dismiss with the spec; one asking for trust_remote_code is confirmed first (TrustScreen)."""
        from parley.tui.screens.confirm import TrustScreen

        try:
            plain, checkpoint = split_trust(spec)
        except ValueError as e:
            self._error(str(e))
            return
        if checkpoint is None:
            self.dismiss(Pick(plain))
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(Pick(plain, trust=True))
            else:
                self._error(f"Not loaded: {checkpoint} may not run its own code. Remove {TRUST} to load it "
                            "without.")

        self.app.push_screen(TrustScreen(plain.partition(":")[0], checkpoint), answered)

    def action_cancel(self) -> None:
        self.dismiss(None)
