"""Every command and every option is documented in the Commands table of docs/commands.md (like sqlite-utils'
test_docs): the row of ``parley <command>`` names each of its options. The README's short table names only
real commands, and every relative link of the README and docs/ points at a file that exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import click
import pytest

from parley.cli import main

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
COMMANDS = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(main, **main.context_settings)
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
    rows = [line for line in COMMANDS.splitlines() if line.startswith(start)]
    assert len(rows) == 1, f"docs/commands.md: no single Commands row for `parley {path}`"
    return rows[0]


@pytest.mark.parametrize(("path", "cmd"), _commands(), ids=lambda x: x if isinstance(x, str) else "")
def test_command_and_options_documented(path: str, cmd: click.Command) -> None:
    row = _row(path)
    ctx = click.Context(cmd, **main.context_settings)  # as the command line makes it (click caches -h)
    missing = []
    for param in cmd.get_params(ctx):
        if not isinstance(param, click.Option) or "--help" in param.opts:
            continue
        names = [o for o in param.opts + param.secondary_opts if o.startswith("--")]
        missing += [o for o in names if not re.search(re.escape(o) + r"(?![\w-])", row)]
    assert not missing, f"`parley {path}`: options missing from docs/commands.md: {', '.join(missing)}"


@pytest.mark.parametrize("table", [COMMANDS[:COMMANDS.index("Spec parameters")],
                                   README[README.index("## Commands"):README.index("## Documentation")]],
                         ids=["docs/commands.md", "README.md"])
def test_no_undocumented_command_rows(table: str) -> None:
    """Every `parley X` row of a table is a real command (no stale documentation)."""
    known = {p for p, _ in _commands()}
    for line in table.splitlines():
        m = re.match(r"\| `parley ([a-z][\w-]*(?: [a-z][\w-]*)?)", line)
        if m:
            words = m.group(1).split()
            assert " ".join(words) in known or words[0] in known, line


def test_readme_names_every_command() -> None:
    """The README's short table has a row for every top-level command."""
    table = README[README.index("## Commands"):README.index("## Documentation")]
    rows = " ".join(line for line in table.splitlines() if line.startswith("| `parley"))
    tops = {p.split()[0] for p, _ in _commands() if p}
    missing = [c for c in sorted(tops)
               if not re.search(rf"`parley {re.escape(c)}\b|/ `{re.escape(c)}`", rows)]
    assert not missing, f"README.md Commands table lacks: {missing}"


def test_relative_links_resolve() -> None:
    pages = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "bench" / "RESULTS.md",
             *sorted((REPO / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)} → {target}")
    assert not broken, broken


def test_readme_is_short() -> None:
    assert README.count("\n") <= 250


def test_cli_md_is_what_every_help_prints() -> None:
    spec = importlib.util.spec_from_file_location("gen_cli", REPO / "tools" / "gen_cli.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = gen.render()
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == text, (
        "docs/cli.md is stale: run .venv/bin/python tools/gen_cli.py")
    for path, _ in _commands():
        assert f"## `{' '.join(['parley', *path.split()])}`" in text
