"""Every command and every option is documented in the README's Commands table (like sqlite-utils' test_docs):
the row of ``parley <command>`` names each of its options."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from parley.cli import main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(main)
    out: list[tuple[str, click.Command]] = [("", main)]

    def walk(group: click.Group, prefix: str) -> None:
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            assert cmd is not None
            path = f"{prefix} {name}".strip()
            if isinstance(cmd, click.Group):
                walk(cmd, path)
            else:
                out.append((path, cmd))

    walk(main, "")
    return out


def _row(path: str) -> str:
    """The Commands table row of ``parley <path>`` (the root's row starts with ``parley [``)."""
    start = "| `parley [" if not path else f"| `parley {path} "
    rows = [line for line in README.splitlines() if line.startswith(start)]
    assert len(rows) == 1, f"README.md: no single Commands row for `parley {path}`"
    return rows[0]


@pytest.mark.parametrize(("path", "cmd"), _commands(), ids=lambda x: x if isinstance(x, str) else "")
def test_command_and_options_documented(path: str, cmd: click.Command) -> None:
    row = _row(path)
    ctx = click.Context(cmd)
    missing = []
    for param in cmd.get_params(ctx):
        if not isinstance(param, click.Option) or "--help" in param.opts:
            continue
        names = [o for o in param.opts + param.secondary_opts if o.startswith("--")]
        missing += [o for o in names if not re.search(re.escape(o) + r"(?![\w-])", row)]
    assert not missing, f"`parley {path}`: options missing from README.md: {', '.join(missing)}"


def test_no_undocumented_command_rows() -> None:
    """Every `parley X` row of the table is a real command (no stale documentation)."""
    known = {p for p, _ in _commands()}
    table = README[README.index("## Commands"):README.index("### The chat")]
    for line in table.splitlines():
        m = re.match(r"\| `parley ([a-z][\w-]*(?: [a-z][\w-]*)?)", line)
        if m:
            words = m.group(1).split()
            assert " ".join(words) in known or words[0] in known, line
