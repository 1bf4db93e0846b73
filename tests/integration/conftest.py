"""Fixtures of the integration tests: the loopback rig (one per test module that asks for it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from parley.audio import devices
from parley.audio.rig import Rig


@pytest.fixture(scope="module")
def rig() -> Iterator[Rig]:
    """A started rig whose PulseAudio server is the default device for PortAudio while the module runs."""
    mp = pytest.MonkeyPatch()
    with Rig(noise_dbfs=-45.0) as r:
        for key, value in r.env.items():
            mp.setenv(key, value)
        devices.rescan()  # PortAudio may have started before the rig existed
        try:
            yield r
        finally:
            mp.undo()
            devices.rescan()
