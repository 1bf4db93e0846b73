"""Install sizes: the core (``pip install parley-tod``, no extra) against the full set-up (``./setup.sh``:
every extra and model package).

The core figure comes from the fresh-venv test (tests/integration/test_wheel.py builds the wheel, installs it
with its dependencies alone into a new venv and runs chat, rewrite, export and rate there); the full figure is
the size of a venv made by ``./setup.sh`` (``--venv``, default ``.venv``).

    .venv/bin/python bench/install_bench.py [--venv PATH]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, default=REPO / ".venv", help="a venv made by ./setup.sh")
    args = ap.parse_args()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-m", "slow",
                          "tests/integration/test_wheel.py::test_core_wheel_in_a_fresh_venv"],
                         cwd=REPO, capture_output=True, text=True, timeout=1800)
    found = re.search(r"core install: (\d+) MB in the venv, (\d+) distributions", run.stdout)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"the fresh-venv test failed:\n{run.stdout[-3000:]}{run.stderr[-2000:]}")
    full = size_mb(args.venv)
    listed = subprocess.run([str(args.venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze",
                             "--disable-pip-version-check"], capture_output=True, text=True, check=True)
    print(f"core: {found.group(1)} MB, {found.group(2)} distributions")
    print(f"full: {full:.0f} MB, {len(listed.stdout.splitlines())} distributions ({args.venv})")


if __name__ == "__main__":
    main()
