"""Every CLI command exists, has help text and answers --help."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from parley.cli import COMMANDS, LazyGroup, main


def _all_commands() -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(main)
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        assert cmd is not None
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            for sub in cmd.list_commands(ctx):
                out.append((f"{name} {sub}", cmd.get_command(ctx, sub)))
    return out


def test_every_planned_command_is_registered():
    missing = [n for n in COMMANDS if LazyGroup._load(n) is None]
    assert missing == [], f"commands without an implementation: {missing}"


@pytest.mark.parametrize("name,cmd", _all_commands(), ids=lambda x: x if isinstance(x, str) else "")
def test_command_has_help(name, cmd):
    assert (cmd.help or "").strip(), f"`parley {name}` has no help text"
    r = CliRunner().invoke(main, [*name.split(), "--help"])
    assert r.exit_code == 0, r.output
    assert "Usage:" in r.output


def test_version():
    r = CliRunner().invoke(main, ["--version"])
    assert r.exit_code == 0 and "parley" in r.output


def test_trust_remote_code_only_for_checkpoint_systems(tmp_path):
    r = CliRunner().invoke(main, ["chat", "--system", "echo", "--script", "-", "--trust-remote-code",
                                  "--db", str(tmp_path / "x.db")], input="hi\n")
    assert r.exit_code == 2 and "--trust-remote-code applies to checkpoint systems" in r.output
    r = CliRunner().invoke(main, ["--system", "echo", "--trust-remote-code"])
    assert r.exit_code == 2 and "--trust-remote-code applies to checkpoint systems" in r.output
