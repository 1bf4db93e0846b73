"""Fixtures of the integration tests: the loopback rig (one per test module that asks for it), with room noise
or in a quiet room."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from parley.audio import devices
from parley.audio.rig import Rig


@contextmanager
def started(noise_dbfs: float) -> Iterator[Rig]:
    """A rig with room noise at ``noise_dbfs`` whose PulseAudio server is PortAudio's default device."""
    mp = pytest.MonkeyPatch()
    with Rig(noise_dbfs=noise_dbfs) as r:
        for key, value in r.env.items():
            mp.setenv(key, value)
        devices.rescan()  # PortAudio may have started before the rig existed
        try:
            yield r
        finally:
            mp.undo()
            devices.rescan()


@pytest.fixture(scope="module")
def rig() -> Iterator[Rig]:
    """A started rig in a room with some noise (-45 dBFS)."""
    with started(-45.0) as r:
        yield r


@pytest.fixture(scope="module")
def quiet_rig() -> Iterator[Rig]:
    """A started rig in a quiet room (-70 dBFS): the pauses in what is said are nearly silent."""
    with started(-70.0) as r:
        yield r
