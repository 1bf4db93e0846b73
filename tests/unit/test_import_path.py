"""One import path and one stated layering.

The top-level folders are the package ``parley.*`` (symlinks in parley/); a bare ``import engine`` from the
repository root would load a second copy of every module (``engine.types.Message is not
parley.engine.types.Message``). ruff's TID251 refuses such imports in the source; these tests check the same
in pytest, and hold the registries' string imports (which import-linter cannot see) to the layers contract."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"engine", "audio", "store", "tui", "assets"}


def _sources() -> list[Path]:
    try:
        names = subprocess.run(["git", "-C", str(REPO), "ls-files", "*.py"], capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / n for n in names if (REPO / n).is_file()]


def _bare(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                 else [])
        found += [(node.lineno, n) for n in names if n.split(".")[0] in FOLDERS]
    return found


def test_the_checker_finds_bare_imports() -> None:
    tree = ast.parse("import engine.types\nfrom store import db\nfrom parley.tui import app\nfrom . import x")
    assert _bare(tree) == [(1, "engine.types"), (2, "store")]


def test_no_bare_import_of_the_top_level_folders() -> None:
    hits = [f"{p.relative_to(REPO)}:{line}: {name}" for p in _sources()
            for line, name in _bare(ast.parse(p.read_text(encoding="utf-8"), str(p)))]
    assert hits == [], "import these through parley.*: " + ", ".join(hits)


def test_no_second_copy_is_loaded() -> None:
    import parley.cli  # noqa: F401
    import parley.engine.rewrite  # noqa: F401
    import parley.engine.systems  # noqa: F401
    import parley.store.imports  # noqa: F401

    assert sorted(m for m in sys.modules if m.split(".")[0] in FOLDERS) == []


def _layers() -> list[list[str]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [[m.strip() for m in layer.replace("|", ":").split(":")] for layer in contract["layers"]]


def _layer(module: str) -> int:
    for i, layer in enumerate(_layers()):
        if any(module == m or module.startswith(m + ".") for m in layer):
            return i
    raise AssertionError(f"{module} is in no layer of the layers contract")


def _string_imports() -> list[tuple[str, str]]:
    """(the module holding the registry, the module an entry names) for every string registry."""
    from parley.cli import COMMANDS
    from parley.engine.rewrite import REWRITERS
    from parley.engine.systems import SYSTEMS
    from parley.store.imports import IMPORTERS

    pairs = [("parley.engine.systems", e.target.partition(":")[0]) for e in SYSTEMS]
    pairs += [("parley.engine.rewrite", e.target.partition(":")[0]) for e in REWRITERS]
    pairs += [("parley.store.imports", i.module) for i in IMPORTERS.values()]
    pairs += [("parley.cli", t.partition(":")[0]) for t in COMMANDS.values()]
    return pairs


def test_registry_string_imports_follow_the_layers() -> None:
    # other tests in the same process register fakes of their own (tests.tui.fakes): not parley's registry
    pairs = [(holder, target) for holder, target in _string_imports() if not target.startswith("tests.")]
    assert len(pairs) > 20
    wrong = [f"{holder} names {target}" for holder, target in pairs
             if not target.startswith("parley.") or _layer(target) < _layer(holder)]
    assert wrong == [], "a registry entry reaches a higher layer (or a bare path): " + ", ".join(wrong)


def test_the_layers_cover_every_module_of_parley() -> None:
    covered = {m for layer in _layers() for m in layer}
    tops = {p.stem for p in (REPO / "parley").iterdir()
            if p.name not in {"__init__.py", "__main__.py", "__pycache__", "assets"}
            and (p.suffix == ".py" or p.is_dir())}
    assert {f"parley.{t}" for t in tops} <= covered
