"""Start-up work that runs in the boot worker (no widgets touched): settings, database, initial chain, goal.

Its imports (pydantic, sqlite-utils, the rewriters) are slow, which is why the chat screen shows first and
this runs behind it. The result crosses to the UI thread as a frozen :class:`BootResult`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parley.engine.rewrite.chain import Chain
    from parley.engine.settings import Settings
    from parley.store import Store

Goal = Mapping[str, object]  # a MultiWOZ-style goal (JSON data: id, message sentences, domains)


@dataclass(frozen=True)
class BootResult:
    """What the chat screen needs to start; ``notes`` are warnings to show the tester."""

    settings: Settings
    store: Store
    chain: Chain
    goal: Goal | None
    seed: int | None
    notes: tuple[str, ...] = ()


def boot(db_file: Path, rewriters: Sequence[str], goal: str | Goal | None, seed: int | None,
         settings: Settings | None = None) -> BootResult:
    """Settings (``settings``, as the command line read them, or read here), the database, the chain
    (``rewriters`` or the settings') and the goal card. Raises ``SettingsError`` for settings that cannot be
    read (the app stops, as the command line does: never defaults in place of what the tester set, nor a
    settings file overwritten), ``store.StoreError`` / ``OSError`` when the database cannot be used."""
    from parley.engine.settings import load_settings
    from parley.store import open_store

    notes: list[str] = []
    settings = settings if settings is not None else load_settings()
    db_file.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(db_file)
    _check_writable(store)
    seed = seed if seed is not None else settings.seed
    chain = _initial_chain(tuple(rewriters) or tuple(settings.rewriters), notes)
    return BootResult(settings, store, chain, _resolve_goal(goal, seed, notes), seed, tuple(notes))


def _check_writable(store: Store) -> None:
    """Refuse, at start, a database the chat could read but never write (a read-only file: opening it works,
    the first turn would fail): ``StoreError`` "cannot write …"."""
    from parley.store import StoreError

    try:
        with store.write() as conn:
            conn.execute("DELETE FROM raters WHERE 0")  # a write that changes nothing
    except StoreError:
        store.close()
        raise


def _initial_chain(specs: Sequence[str], notes: list[str]) -> Chain:
    from parley.engine.rewrite.chain import Chain

    try:
        return Chain(specs)
    except Exception as e:  # a bad spec or a rewriter that cannot be built: start without rewriters
        notes.append(f"Rewriters off: {e}")
        return Chain()


def _resolve_goal(goal: str | Goal | None, seed: int | None, notes: list[str]) -> Goal | None:
    if goal is None or isinstance(goal, Mapping):
        return goal
    try:
        from parley.engine.scoring.goals import make_goal
    except ImportError:
        notes.append("Goal cards need engine.scoring.goals, which is not available yet.")
        return None
    try:
        made = make_goal(str(goal), seed)
    except Exception as e:
        notes.append(f"No goal card: {e}")
        return None
    return dict(made) if made else None
