"""Golden files: checked-in expected outputs. A missing golden file is a failure, never written by the test.

Regenerate on purpose with ``PARLEY_UPDATE_GOLDEN=1`` (and review the diff before committing it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest


def check_golden(path: Path, got: Any) -> None:
    """``got`` must equal the JSON in ``path``; the file must exist unless an update is asked for."""
    if os.environ.get("PARLEY_UPDATE_GOLDEN"):
        path.write_text(json.dumps(got, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if not path.exists():
        pytest.fail(f"golden file {path} is missing: it is checked in, never written by the test "
                    "(PARLEY_UPDATE_GOLDEN=1 regenerates it on purpose)")
    assert got == json.loads(path.read_text(encoding="utf-8"))
