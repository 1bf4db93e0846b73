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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import platformdirs

APP = "parley"


def _dirs() -> platformdirs.PlatformDirs:
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


def turn_audio_path(session_id: object, turn_index: int, kind: str = "user") -> Path:
    """Where a turn's audio goes: ``<data dir>/audio/<session>/<turn:04d>-<kind>.wav`` (folder created)."""
    return ensure_dir(audio_dir() / str(session_id)) / f"{int(turn_index):04d}-{kind}.wav"


def adopt_audio(path: str | os.PathLike[str], session_id: object, turn_index: int, kind: str = "user") -> str:
    """Give a turn's audio file its place under the session's folder and return the new path.

    A file parley wrote itself (anywhere under the audio dir) is moved; any other file (a user's WAV, e.g.
    from ``parley chat --audio-script``) is copied and left alone. An existing file is never overwritten, and
    when the file cannot be placed the original path is returned.
    """
    import shutil

    src = Path(path)
    dest = turn_audio_path(session_id, turn_index, kind)
    if src.resolve() == dest.resolve():
        return str(dest)
    if dest.exists() or not src.is_file():
        return str(src)
    try:
        if src.resolve().is_relative_to(audio_dir().resolve()):
            src.replace(dest)
        else:
            shutil.copyfile(src, dest)
    except OSError:
        return str(src)
    return str(dest)
