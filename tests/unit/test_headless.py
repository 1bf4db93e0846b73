"""engine/, audio/, store/ never import textual or tui: checked in a fresh interpreter and by import-linter."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEADLESS = ("engine", "audio", "store")


def _modules() -> list[str]:
    names = []
    for pkg in HEADLESS:
        names.append(pkg)
        for info in pkgutil.walk_packages([str(REPO / pkg)], prefix=f"{pkg}."):
            names.append(info.name)
    return names


def test_headless_modules_do_not_pull_in_textual():
    code = (
        "import importlib, sys\n"
        f"mods = {_modules()!r}\n"
        "for m in mods:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k == 'textual' or k.startswith(('textual.', 'tui')))\n"
        "print(','.join(bad))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "", f"headless packages imported: {p.stdout.strip()}"


def test_import_linter_contracts():
    lint = Path(sys.executable).parent / "lint-imports"
    if not lint.exists():
        pytest.skip("import-linter not installed")
    p = subprocess.run([str(lint)], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]


def test_cli_import_is_light():
    """`parley --help` must not import the heavy stack."""
    code = ("import sys\nfrom click.testing import CliRunner\nfrom tui.cli import main\n"
            "r = CliRunner().invoke(main, ['--help'])\nassert r.exit_code == 0, r.output\n"
            "heavy = [m for m in ('torch', 'transformers', 'textual', 'faster_whisper', 'sentence_transformers', "
            "'scipy', 'sounddevice', 'piper') if m in sys.modules]\nprint(','.join(heavy))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "", f"--help imported: {p.stdout.strip()}"
