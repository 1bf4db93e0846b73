"""Every path parley uses, in one module (platformdirs).

- config: ``$PARLEY_CONFIG`` or ``<user config dir>/parley/config.toml``
- database: ``$PARLEY_DB`` or ``<user data dir>/parley/parley.db``
- audio recordings: ``<data dir>/audio/``
- model cache (joined Whisper parts, converted GGUF, fitted SK-TOD models): ``$PARLEY_CACHE`` or
  ``<user cache dir>/parley/``
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "parley"


def _dirs():  # type: ignore[no-untyped-def]
    import platformdirs

    return platformdirs.PlatformDirs(APP, appauthor=False)


def config_path() -> Path:
    env = os.environ.get("PARLEY_CONFIG")
    return Path(env).expanduser() if env else Path(_dirs().user_config_dir) / "config.toml"


def data_dir() -> Path:
    env = os.environ.get("PARLEY_DATA")
    return Path(env).expanduser() if env else Path(_dirs().user_data_dir)


def database_path() -> Path:
    env = os.environ.get("PARLEY_DB")
    return Path(env).expanduser() if env else data_dir() / "parley.db"


def audio_dir() -> Path:
    return data_dir() / "audio"


def cache_dir() -> Path:
    env = os.environ.get("PARLEY_CACHE")
    return Path(env).expanduser() if env else Path(_dirs().user_cache_dir)


def ensure_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
