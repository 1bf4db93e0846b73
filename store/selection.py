"""Which stored dialogues an annotation queue or a study assignment covers: ``parley rate`` and
``parley assign`` select by source file, mode, system, condition and session id.

Every option is a list of patterns: one of them must match (shell-style wildcards ``*``, ``?``, ``[...]``),
and every option given must match. A dialogue is *rateable* when it has a system turn with a non-blank reply
that did not fail; only those are ever selected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import PurePath

from parley.store.db import Store, StoreError

#: the system turns a rater rates (SQL over ``turns t``): a reply that was produced and is not blank
RATEABLE_TURN = "t.role = 'system' AND t.status = 'ok' AND trim(t.text, char(32, 9, 10, 13)) != ''"


class SelectionError(StoreError):
    """A selection that names something the database does not hold (a session id prefix, ...)."""


@dataclass(frozen=True)
class Candidate:
    """What a selection looks at: one rateable dialogue."""

    id: str
    source: str | None
    mode: str
    system: str
    condition: str
    started_at: str

    @property
    def stratum(self) -> str:
        """System and condition: what an assignment balances over."""
        return f"{self.system} / {self.condition}"


@dataclass(frozen=True)
class Selection:
    """Patterns per field (empty: anything). ``sources`` match a session's source file (the part before
    ``#``: its path or only its name) or the whole ``FILE#DIALOGUE`` when the pattern holds a ``#``;
    ``sessions`` are ids or unique prefixes of ids."""

    sources: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any((self.sources, self.modes, self.systems, self.conditions, self.sessions))

    def matches(self, c: Candidate) -> bool:
        return (_any(self.modes, c.mode) and _any(self.systems, c.system)
                and _any(self.conditions, c.condition) and _source_matches(self.sources, c.source))


#: the selection of every rateable dialogue
EVERYTHING = Selection()


def _any(patterns: tuple[str, ...], value: str) -> bool:
    return not patterns or any(fnmatchcase(value, p) for p in patterns)


def _source_matches(patterns: tuple[str, ...], source: str | None) -> bool:
    if not patterns:
        return True
    if not source:
        return False
    file = source.rpartition("#")[0] or source
    names = (file, PurePath(file).name)
    return any(fnmatchcase(source, p) if "#" in p else any(fnmatchcase(n, p) for n in names)
               for p in patterns)


def condition_name(raw: str | None) -> str:
    """The condition name of a session's stored ``condition`` JSON (``original`` when none)."""
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        value = {}
    name = value.get("name") if isinstance(value, dict) else None
    return str(name) if name else "original"


def candidates(store: Store) -> list[Candidate]:
    """Every rateable dialogue of the store, in the order they were stored."""
    rows = store.db.execute(
        "SELECT s.id, s.source, s.mode, s.system_name, s.condition, s.started_at FROM sessions s "
        f"WHERE EXISTS (SELECT 1 FROM turns t WHERE t.session_id = s.id AND {RATEABLE_TURN}) "
        "ORDER BY s.started_at, s.id").fetchall()
    return [Candidate(r[0], r[1], r[2], r[3] or "", condition_name(r[4]), r[5]) for r in rows]


def resolve_ids(store: Store, prefixes: tuple[str, ...]) -> set[str]:
    """Full session ids of ``prefixes``; a prefix that matches no session, or several, is an error."""
    out: set[str] = set()
    for p in prefixes:
        p = p.strip()
        found = [r[0] for r in store.db.execute(
            "SELECT id FROM sessions WHERE substr(id, 1, length(?)) = ? LIMIT 2", [p, p])] if p else []
        if not found:
            raise SelectionError(f"--session {p!r}: no session with this id in {store.path}")
        if len(found) > 1:
            raise SelectionError(f"--session {p!r}: several sessions start with it; give more of the id")
        out.add(found[0])
    return out


def select(store: Store, selection: Selection) -> list[Candidate]:
    """The rateable dialogues ``selection`` covers, in the order they were stored."""
    ids = resolve_ids(store, selection.sessions) if selection.sessions else None
    return [c for c in candidates(store) if (ids is None or c.id in ids) and selection.matches(c)]


def turn_conditions(store: Store) -> dict[str, list[str]]:
    """Per session, the conditions its user turns ran under (each turn stores the chain in force as
    ``internals.condition``), in the order they were first used; sessions whose turns record none are
    absent."""
    rows = store.db.execute(
        "SELECT session_id, json_extract(CASE WHEN json_valid(internals) THEN internals END, "
        "'$.condition.name') AS c, min(\"index\") AS first FROM turns WHERE role = 'user' "
        "GROUP BY session_id, c HAVING c IS NOT NULL ORDER BY session_id, first").fetchall()
    used: dict[str, list[str]] = {}
    for session_id, name, _ in rows:
        used.setdefault(session_id, []).append(str(name))
    return used


def shown_condition(stored: str, used: list[str] | None) -> str:
    """What ``parley sessions`` shows: the one condition the turns used, or ``mixed (a, b)`` when the
    rewriters changed mid-session; the session's stored condition when its turns record none."""
    if not used:
        return stored
    return used[0] if len(used) == 1 else f"mixed ({', '.join(used)})"
