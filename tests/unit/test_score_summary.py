"""The Scores screen's numbers are computed headlessly (engine.scoring.summary), without textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from parley.engine.scoring.summary import compute
from parley.store import open_store
from tests.unit.storehelpers import fill_fixed

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.subprocess
def test_compute_is_headless(tmp_path: Path) -> None:
    store = open_store(tmp_path / "p.db")
    fill_fixed(store)
    data = compute(store)
    assert data.counts["sessions"] == 2 and data.satisfaction is not None
    code = ("import sys\nfrom parley.engine.scoring import summary\n"
            "print(any(m == 'textual' or m.startswith('textual.') for m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert p.stdout.strip() == "False", p.stderr
