"""The names a system under test understands, as an optional capability.

A system that knows its own vocabulary (venue names, stations, foods, areas from its databases; entity names
from its knowledge base) implements :class:`Vocabulary`: ``vocabulary()`` returns them as :class:`KnownNames`.
The voice path hands them to the recogniser (Whisper's hotwords and prompt) and snaps near-misses to them
(:mod:`parley.audio.bias`), so a spoken "Cityroomz" reaches the system as the name it knows. Systems without
the method are used as before.

>>> names = KnownNames.of({"venue": ["acorn guest house", "Acorn Guest House", ""], "area": ["north"]})
>>> names.names()
('acorn guest house', 'north')
>>> names.kind_of("north")
'area'
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)

#: the longest name kept, in characters (a knowledge base may hold odd entries)
MAX_NAME = 80


@dataclass(frozen=True)
class KnownNames:
    """Names by kind (``venue``, ``station``, ``food``, ``area``, …), lower case, each kept once."""

    kinds: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def of(cls, by_kind: Mapping[str, Iterable[str]]) -> KnownNames:
        """From ``{kind: names}``: stripped, lower-cased, empty and overlong names dropped, each name under
        the first kind that lists it, sorted."""
        seen: set[str] = set()
        kinds = []
        for kind, names in by_kind.items():
            kept = []
            for n in names:
                name = " ".join(str(n).split()).lower()
                if name and len(name) <= MAX_NAME and name not in seen:
                    seen.add(name)
                    kept.append(name)
            if kept:
                kinds.append((str(kind), tuple(sorted(kept))))
        return cls(tuple(kinds))

    def names(self, kind: str | None = None) -> tuple[str, ...]:
        """Every name (of ``kind`` when given)."""
        return tuple(n for k, names in self.kinds if kind is None or k == kind for n in names)

    def kind_of(self, name: str) -> str | None:
        name = name.lower()
        return next((k for k, names in self.kinds if name in names), None)

    def merged(self, other: KnownNames) -> KnownNames:
        """These names and ``other``'s (a name keeps its first kind)."""
        by_kind: dict[str, list[str]] = {}
        for k, names in (*self.kinds, *other.kinds):
            by_kind.setdefault(k, []).extend(names)
        return KnownNames.of(by_kind)

    def __len__(self) -> int:
        return sum(len(names) for _, names in self.kinds)


@runtime_checkable
class Vocabulary(Protocol):
    """A system that can say which names it understands (see the module doc)."""

    def vocabulary(self) -> KnownNames:
        """The names of this system's databases or knowledge base (may load them)."""
        ...


def vocabulary_of(system: object) -> KnownNames | None:
    """``system``'s names, or None when it has no vocabulary (or failed to give one: logged, not raised —
    biasing is a help, never a reason for a turn to fail)."""
    if not isinstance(system, Vocabulary):
        return None
    try:
        names = system.vocabulary()
    except Exception as e:  # noqa: BLE001 - a broken vocabulary must not stop a spoken turn
        log.warning("the system's vocabulary could not be read: %s", e)
        return None
    return names if isinstance(names, KnownNames) and len(names) else None
