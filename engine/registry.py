"""Lazy name → implementation registries (systems, rewriters).

Entries point at ``"package.module:attr"`` so listing the registry imports nothing heavy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    name: str
    target: str  # "module:attr"
    summary: str

    def load(self) -> Callable[..., object]:
        """The implementation's class (a factory: ``cls(**params)``); the caller checks what it built."""
        module, _, attr = self.target.partition(":")
        factory = getattr(importlib.import_module(module), attr)
        if not callable(factory):
            raise TypeError(f"{self.target} is not a class")
        return factory


class Registry:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def register(self, name: str, target: str, summary: str) -> None:
        self._entries[name] = Entry(name, target, summary)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries.values())

    def names(self) -> list[str]:
        return list(self._entries)

    def get(self, name: str) -> Entry:
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self._entries) or "none"
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})") from None
