"""The repository's own text (code, tests, docs, benchmark notes) holds no path of one machine and no tracker
issue number: both mean nothing to someone who clones it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUFFIXES = {".py", ".md", ".txt", ".toml", ".cfg", ".sh", ".json", ".yml", ".yaml", ".ini"}
#: built from parts so that this file does not match itself
MACHINE_PATH = re.compile("/" + "(?:work|home|Users)/[A-Za-z0-9_.-]|/tmp/" + "wt-")
ISSUE_NUMBER = re.compile(r"\b[Ii]ssues? #?\d+(?:/\d+)?\b|\(#\d+\)")


def _tracked_text() -> list[Path]:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    names = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True,
                           check=True).stdout.split()
    return [REPO / n for n in names
            if Path(n).suffix in SUFFIXES and "golden" not in n and (REPO / n).is_file()]


def _hits(rx: re.Pattern[str]) -> list[str]:
    hits = []
    for path in _tracked_text():
        text = path.read_text(encoding="utf-8", errors="replace")
        for no, line in enumerate(text.splitlines(), 1):
            if rx.search(line):
                hits.append(f"{path.relative_to(REPO)}:{no}: {line.strip()[:100]}")
    return hits


def test_no_machine_specific_paths() -> None:
    assert _hits(MACHINE_PATH) == []


def test_no_tracker_issue_numbers() -> None:
    assert _hits(ISSUE_NUMBER) == []
