"""The wheel installs one top-level package, ``parley``: no generic ``engine``/``store``/``assets`` in
site-packages (issue: one namespace). Built from this checkout, installed without dependencies into a clean
venv."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_installs_only_parley(tmp_path: Path) -> None:
    # built from a copy: setuptools writes build/ in the tree
    wheels, src = tmp_path / "wheels", tmp_path / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "bench", "tests"))
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(wheels), str(src)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = wheels.glob("parley_tod-*.whl")
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    py = env / "bin" / "python"
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q",
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stderr[-3000:]
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    top = {p.name for p in Path(site).iterdir() if p.name != "__pycache__"}
    assert {t for t in top if not t.startswith("parley_tod-")} == {"parley"}, top
    probe = ("import importlib.util as u, parley.engine, parley.assets\n"
             "print([n for n in ('engine', 'store', 'audio', 'tui', 'assets', 'cli') if u.find_spec(n)])\n"
             "print(parley.engine.__file__)\n"
             "from importlib.resources import files\n"
             "print(files('parley.assets').joinpath('multiwoz/db/restaurant_db.json').is_file())\n")
    out = subprocess.run(
        [str(py), "-I", "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    found, where, asset = out.stdout.strip().splitlines()
    assert found == "[]"
    assert where.startswith(site)
    assert asset == "True"
