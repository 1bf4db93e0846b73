"""The wheel built from this checkout: one top-level package, ``parley`` (no generic ``engine``/``store``/
``assets`` in site-packages), and the core install (no extra) in a fresh venv runs the rule system, a rule
rewriter, an export and ``parley rate --help`` without torch or numpy; a feature of an extra says which extra.

The core's dependencies are fetched once (at the versions of constraints.txt, through pip's configured
indexes) into a wheelhouse in the suite's cache; the fresh venv installs from that wheelhouse alone
(``--no-index``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.conftest import suite_cache

REPO = Path(__file__).resolve().parents[2]
#: what the core must not pull in
HEAVY = {"torch", "numpy", "scipy", "transformers", "faster-whisper", "scikit-learn", "sentence-transformers"}
#: the core install's size budget (the venv with pip's own files; the full install is about 3 GB)
CORE_BUDGET_MB = 400

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]


def _run(cmd: list[str], timeout: float = 900, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)  # type: ignore[call-overload,no-any-return]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # built from a copy: setuptools writes build/ in the tree
    tmp = tmp_path_factory.mktemp("wheel")
    wheels, src = tmp / "wheels", tmp / "src"
    shutil.copytree(REPO, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "bench", "tests"))
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                  "-w", str(wheels), str(src)], timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    (found,) = wheels.glob("parley_tod-*.whl")
    return found


def _site(py: Path) -> Path:
    out = _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], timeout=120)
    assert out.returncode == 0, out.stderr
    return Path(out.stdout.strip())


def test_wheel_installs_only_parley(wheel: Path, tmp_path: Path) -> None:
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    py = env / "bin" / "python"
    inst = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                timeout=600)
    assert inst.returncode == 0, inst.stderr[-3000:]
    site = _site(py)
    top = {p.name for p in site.iterdir() if p.name != "__pycache__"}
    assert {t for t in top if not t.startswith("parley_tod-")} == {"parley"}, top
    probe = ("import importlib.util as u, parley.engine, parley.assets\n"
             "print([n for n in ('engine', 'store', 'audio', 'tui', 'assets', 'cli') if u.find_spec(n)])\n"
             "print(parley.engine.__file__)\n"
             "from importlib.resources import files\n"
             "print(files('parley.assets').joinpath('multiwoz/db/restaurant_db.json').is_file())\n")
    out = _run([str(py), "-I", "-c", probe], timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    found, where, asset = out.stdout.strip().splitlines()
    assert found == "[]"
    assert where.startswith(str(site))
    assert asset == "True"


def _wheelhouse(wheel: Path) -> Path:
    """Wheels of the core's dependencies at the locked versions (built once for an sdist-only package)."""
    house = suite_cache() / "wheelhouse"
    house.mkdir(parents=True, exist_ok=True)
    got = _run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "-c",
                str(REPO / "constraints.txt"), "-w", str(house), str(wheel)])
    assert got.returncode == 0, got.stderr[-3000:]
    for own in house.glob("parley_tod-*.whl"):
        own.unlink()
    return house


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def test_core_wheel_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    house = _wheelhouse(wheel)
    env = tmp_path / "core"
    venv.create(env, with_pip=False)
    py, parley = env / "bin" / "python", env / "bin" / "parley"
    inst = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-index",
                 "--disable-pip-version-check", "--find-links", str(house), str(wheel)])
    assert inst.returncode == 0, inst.stderr[-3000:]
    listed = _run([sys.executable, "-m", "pip", "--python", str(py), "list", "--format=json",
                   "--disable-pip-version-check"], timeout=120)
    names = {d["name"].lower().replace("_", "-") for d in json.loads(listed.stdout)}
    assert not HEAVY & names, HEAVY & names
    size = _size_mb(env)
    print(f"core install: {size:.0f} MB in the venv, {len(names)} distributions")
    assert size < CORE_BUDGET_MB, f"the core install takes {size:.0f} MB"

    home = tmp_path / "home"
    home.mkdir()  # a PARLEY_DB in a folder that does not exist is refused (a mistyped path creates nothing)
    run_env = {k: v for k, v in os.environ.items() if not k.startswith(("PARLEY_", "PYTHON"))}
    run_env.update(PARLEY_CONFIG=str(home / "config.toml"), PARLEY_DB=str(home / "p.db"),
                   PARLEY_DATA=str(home / "data"), PARLEY_CACHE=str(home / "cache"), HOME=str(home))

    def parley_run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return _run([str(parley), *args], timeout=300, input=stdin, env=run_env, cwd=tmp_path)

    chat = parley_run("chat", "--script", "-", "--system", "multiwoz", "--tester", "ana",
                      stdin="I need a cheap restaurant in the north\nwhat is the phone number?\n")
    assert chat.returncode == 0, chat.stderr[-3000:]
    assert chat.stdout.count("SYSTEM ") == 2 and "2 user turn(s), 0 failed" in chat.stderr, chat.stdout
    rewrite = parley_run("rewrite", "-r", "impolite:scenario=2", stdin="could you book me a table please\n")
    assert rewrite.returncode == 0, rewrite.stderr[-3000:]
    row = json.loads(rewrite.stdout)
    assert row["after"] != row["before"] and row["steps"][0]["name"] == "impolite"
    export = parley_run("export", "--format", "jsonl", "--out", "-")
    assert export.returncode == 0, export.stderr[-3000:]
    (session,) = [json.loads(line) for line in export.stdout.splitlines()]
    assert session["session"]["system_name"] == "multiwoz" and len(session["turns"]) == 4
    rate = parley_run("rate", "--help")
    assert rate.returncode == 0 and "Rate dialogues" in rate.stdout, rate.stderr
    # a feature of an extra says which extra, in one line, exit code 2
    llm = parley_run("chat", "--script", "-", "--system", "llm", stdin="hello\n")
    assert llm.returncode == 2
    assert llm.stderr.strip() == ("parley: error: the `llm` system needs the `models` extra: "
                                  "pip install 'parley-tod[models]'")
