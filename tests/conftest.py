"""Shared fixtures. Every test runs with PARLEY_CONFIG/PARLEY_DB/PARLEY_DATA in a temp dir, so the suite never
touches the user's files; the model cache (PARLEY_CACHE) is one folder shared by every test, worker and run
(:func:`suite_cache`). Tests that read ../shared data use ``shared_data`` and skip without it; tests of an
optional extra use :func:`require_extra`, which skips only where the extra is not installed."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def suite_cache() -> Path:
    """The model cache of the test suite: ``$PARLEY_TEST_CACHE`` or ``<user cache dir>/parley-tests``. It is
    kept between runs and shared by the xdist workers and the processes tests start, so the bundled GGUF is
    converted (under a file lock) and Whisper base joined once per machine, not once per run or worker."""
    env = os.environ.get("PARLEY_TEST_CACHE")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("parley-tests", appauthor=False))


def require_extra(module: str, dist: str, extra: str) -> ModuleType:
    """Import ``module`` for a test of the ``extra`` extra: skip (the whole test module) where its
    distribution ``dist`` is not installed (the extra was left out on purpose), fail where it is installed but
    does not import (a broken install must not pass as a skip)."""
    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{dist} is not installed (pip install 'parley-tod[{extra}]')", allow_module_level=True)
    return importlib.import_module(module)


@pytest.fixture(autouse=True)
def _isolated_paths(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("parley-home")
    monkeypatch.setenv("PARLEY_CONFIG", str(base / "config.toml"))
    monkeypatch.setenv("PARLEY_DB", str(base / "parley.db"))
    monkeypatch.setenv("PARLEY_DATA", str(base / "data"))
    monkeypatch.setenv("PARLEY_CACHE", str(suite_cache()))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    return SHARED_DATA


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that load real models, start processes or drive the audio rig get 1,800 s before pytest-timeout
    fails them (the served model's test took 564 s at a load of 15 on 2 cores, a batched kill-and-resume over
    300 s at 25; the rest: the 300 s of pyproject.toml), unless they say otherwise."""
    for item in items:
        if item.get_closest_marker("timeout") is None and any(
                item.get_closest_marker(m) for m in ("slow", "subprocess", "rig")):
            item.add_marker(pytest.mark.timeout(1800))
