"""The model picker: registered systems, recent specs and a free spec/path/hub-id field → a system spec.

The screen only chooses; the app loads the system in a worker and starts a new session on it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


def spec_from_text(text: str, known: Sequence[str]) -> str:
    """Turn what the tester typed into a system spec.

    ``multiwoz`` / ``hf-causal:model=...`` (a registered name) are used as they are; a folder holding a Hugging
    Face ``config.json`` becomes ``hf-seq2seq:model=PATH`` or ``hf-causal:model=PATH`` by its architecture; a
    hub id or any other path must say which system to use (ValueError with the hint).
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


class ModelPickerScreen(ModalScreen[str | None]):
    """Pick a system; dismisses with a spec string (or None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker_cancel")]

    def __init__(self, systems: Sequence[tuple[str, str]], recent: Sequence[str] = (), current: str = "") -> None:
        super().__init__(classes="modal")
        self.systems = list(systems)
        self.recent = [r for r in recent if r]
        self.current = current

    def compose(self) -> ComposeResult:
        width = max((len(n) for n, _ in self.systems), default=8) + 2
        options: list[Option | None] = []
        for name, summary in self.systems:
            line = Text("● " if name == self.current else "○ ", style="bold" if name == self.current else "dim")
            line.append(f"{name:<{width}}", style="bold")
            line.append(summary)
            options.append(Option(line, id=f"sys:{name}"))
        if self.recent:
            options.append(None)
            for i, spec in enumerate(self.recent):
                line = Text("● " if spec == self.current else "○ ", style="dim")
                line.append("recent  ", style="italic")
                line.append(spec)
                options.append(Option(line, id=f"recent:{i}"))
        with Vertical(id="dialog", classes="dialog picker-dialog"):
            yield Label("Load a dialogue system", classes="dialog-title")
            yield Static("enter loads the highlighted system · or type a spec, a model folder or "
                         "hf-causal:model=HUB_ID below · switching starts a new session", classes="hint")
            yield OptionList(*options, id="systems")
            yield Input(placeholder="spec / path / hub id, e.g. llm:model=/models/smol or remote:url=http://…",
                        id="spec")
            yield Static("", id="picker-error", classes="error")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = [n for n, _ in self.systems]
        if self.current in names:
            options.highlighted = names.index(self.current)
        options.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        oid = event.option.id or ""
        kind, _, rest = oid.partition(":")
        self.dismiss(rest if kind == "sys" else self.recent[int(rest)])

    @on(Input.Submitted, "#spec")
    def _typed(self, event: Input.Submitted) -> None:
        try:
            spec = spec_from_text(event.value, [n for n, _ in self.systems])
        except ValueError as e:
            self.query_one("#picker-error", Static).update(str(e))
            return
        self.dismiss(spec)

    def action_cancel(self) -> None:
        self.dismiss(None)
