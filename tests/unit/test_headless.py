"""engine/, audio/, store/ and the command line never import textual or tui: checked in a fresh interpreter
and by import-linter."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_extra

pytestmark = pytest.mark.subprocess

REPO = Path(__file__).resolve().parents[2]
HEADLESS = ("engine", "audio", "store", "cli")


def _modules() -> list[str]:
    names = []
    for pkg in HEADLESS:
        names.append(f"parley.{pkg}")
        for info in pkgutil.walk_packages([str(REPO / "parley" / pkg)], prefix=f"parley.{pkg}."):
            names.append(info.name)
    return names


def test_headless_modules_do_not_pull_in_textual():
    code = (
        "import importlib, sys\n"
        f"mods = {_modules()!r}\n"
        "for m in mods:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k == 'textual' or k.startswith(('textual.', 'parley.tui')))\n"
        "print(','.join(bad))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "", f"headless packages imported: {p.stdout.strip()}"


def test_import_linter_contracts():
    require_extra("importlinter", "import-linter", "test")
    lint = Path(sys.executable).parent / "lint-imports"
    p = subprocess.run([str(lint)], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]


def test_cli_import_is_light():
    """`parley --help` must not import the heavy stack."""
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom parley.cli import main\n"
        "r = CliRunner().invoke(main, ['--help'])\nassert r.exit_code == 0, r.output\n"
        "heavy = [m for m in ('torch', 'transformers', 'textual', 'faster_whisper', 'sentence_transformers', "
        "'scipy', 'sounddevice', 'piper') if m in sys.modules]\nprint(','.join(heavy))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "", f"--help imported: {p.stdout.strip()}"


@pytest.mark.parametrize("argv", [["sessions"], ["systems"], ["export", "--format", "jsonl", "--out", "-"]])
def test_headless_commands_leave_textual_out(argv: list[str], tmp_path: Path) -> None:
    """A headless command run as the user runs it never loads textual (only `parley` and `parley rate` do)."""
    from parley.store import open_store

    open_store(tmp_path / "p.db").close()
    code = (
        "import sys\nfrom parley.cli import main\n"
        "try:\n    main(sys.argv[1:], standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print('LOADED:' + ','.join(k for k in sys.modules "
        "if k == 'textual' or k.startswith('parley.tui')))\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, "--db", str(tmp_path / "p.db"), *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip().splitlines()[-1] == "LOADED:", p.stdout[-2000:]
