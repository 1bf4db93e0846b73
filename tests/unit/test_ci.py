"""CI runs exactly the README's test command, and that command runs the marked tests too."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme[readme.index("## Set up"):readme.index("## A 60-second tour")]
    (command,) = [ln for ln in setup.splitlines() if ln.startswith("./setup.sh test")]
    command = re.sub(r"\s+#.*$", "", command).strip()
    ci = [ln for ln in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if ln and not ln.startswith(("#", "set ", "cd "))]
    assert ci == [command]
    marked = re.findall(r'-m "([^"]+)"', command)
    assert marked == ["slow or subprocess or rig or ray"]
    default = re.search(r'addopts = \["-m", "not \(([^)]+)\)"\]', (REPO / "pyproject.toml").read_text())
    assert default is not None and default.group(1) == marked[0]  # the default run leaves out what -m picks
