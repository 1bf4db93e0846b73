"""Checkpoint code runs only with --trust-remote-code on the command line: `trust_remote_code=true` in a
--system spec or in config.toml is refused with a clear message, in the CLI and in the chat TUI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from parley.engine.settings import load_settings
from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.errors import ParleyError
from tests.unit.clihelpers import cli, one_line_error

SPEC = "hf-causal:model=./some-checkpoint,trust_remote_code=true"


@pytest.mark.parametrize("argv", [
    ["chat", "--system", SPEC, "--script", "-"],
    ["--system", SPEC, "chat", "--script", "-"],
    ["run", "--system", SPEC, "--dialogues", "DIALOGUES"],
])
def test_trust_in_a_spec_is_refused(argv: list[str], tmp_path: Path) -> None:
    dialogues = tmp_path / "d.json"
    dialogues.write_text('{"d1.json": {"log": [{"text": "hi", "metadata": {}}]}}', encoding="utf-8")
    argv = [str(dialogues) if a == "DIALOGUES" else a for a in argv]
    line = one_line_error(cli([*argv, "--db", str(tmp_path / "p.db")] if argv[0] != "--system" else
                              ["--db", str(tmp_path / "p.db"), *argv], input="hi\n"))
    assert "trust_remote_code cannot be set in a system spec" in line and "--trust-remote-code" in line


def test_trust_in_config_toml_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'system = "{SPEC}"\n', encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(cfg))
    with pytest.raises(SpecError, match="trust_remote_code cannot be set"):
        build_system(load_settings().system)


async def test_trust_in_config_toml_is_refused_by_the_tui(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from parley.tui.app import ParleyApp
    from tests.tui.pilot import notes, settle

    cfg = tmp_path / "config.toml"
    cfg.write_text(f'system = "{SPEC}"\ntester = "ana"\n', encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(cfg))
    app = ParleyApp(db_path=str(tmp_path / "t.db"))
    async with app.run_test() as pilot:
        await settle(pilot)
        assert any("trust_remote_code cannot be set" in n for n in notes(app)), notes(app)
        assert getattr(app.screen, "system", None) is None


def test_the_flag_reaches_the_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parley.engine.systems import hf_base

    seen: list[bool] = []

    def load(self: Any, progress: Any = None) -> None:
        seen.append(self.trust_remote_code)
        raise ParleyError("stop here")

    monkeypatch.setattr(hf_base.HFTODSystem, "load", load)
    spec = "hf-causal:model=./some-checkpoint"
    db = str(tmp_path / "p.db")
    one_line_error(cli(["chat", "--system", spec, "--script", "-", "--db", db], input="hi\n"))
    one_line_error(cli(["--trust-remote-code", "chat", "--system", spec, "--script", "-",
                        "--db", str(tmp_path / "p.db")], input="hi\n"))
    assert seen == [False, True]
    assert build_system(spec, trust_remote_code=True).trust_remote_code is True
    with pytest.raises(SpecError, match="applies to checkpoint systems"):
        build_system("echo", trust_remote_code=True)
