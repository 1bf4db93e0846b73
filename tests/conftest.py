"""Shared fixtures. Every test runs with PARLEY_CONFIG/PARLEY_DB/PARLEY_DATA/PARLEY_CACHE in a temp dir, so
the suite never touches the user's files. Tests that read ../shared data use ``shared_data`` and skip without
it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_paths(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path_factory.mktemp("parley-home")
    monkeypatch.setenv("PARLEY_CONFIG", str(base / "config.toml"))
    monkeypatch.setenv("PARLEY_DB", str(base / "parley.db"))
    monkeypatch.setenv("PARLEY_DATA", str(base / "data"))
    # the model cache is shared by the whole run so converted/joined models are made once
    cache = os.environ.get("PARLEY_TEST_CACHE") or str(tmp_path_factory.getbasetemp().parent / "parley-cache")
    monkeypatch.setenv("PARLEY_CACHE", cache)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    return SHARED_DATA
