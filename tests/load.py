"""A busy machine for the burst tests and the input benchmark: one process spinning on every core beside the
code under test, so keys are read, routed and stored while the CPU is taken."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

SPIN = "while True: pass"


@contextmanager
def cpu_load(kind: str) -> Iterator[str]:
    """``"busy"``: one spinning Python process per core for the length of the block; ``"idle"``: none."""
    if kind not in ("idle", "busy"):
        raise ValueError(f"cpu load is idle or busy, not {kind!r}")
    n = (os.cpu_count() or 1) if kind == "busy" else 0
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL) for _ in range(n)]
    try:
        yield kind
    finally:
        for proc in spinners:
            proc.kill()
        for proc in spinners:
            proc.wait(30)


@pytest.fixture(params=["idle", "busy"])
def load(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs a test twice: on the machine as it is, and with every core busy (:func:`cpu_load`). A test module
    imports it and marks the tests with ``@pytest.mark.usefixtures("load")``."""
    with cpu_load(request.param) as kind:
        yield kind
