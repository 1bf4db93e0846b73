"""Keeping the evaluation split out of the training data: overlapping dialogues are dropped, with a reason.

Training data without dialogue ids (plain dialogue text) can hold a copy of a test dialogue, and data with ids
can hold a test id. A training dialogue is dropped when

- its id is a dialogue id of the held-out split (``PMUL0001`` and ``pmul0001.json`` are the same id), or
- it shares :data:`MIN_SHARED` or more distinct utterances of :data:`MIN_WORDS` words or more with one
  held-out dialogue (a copy, perhaps re-punctuated or re-cased), or
- at least half of its utterances occur somewhere in the held-out split (a short dialogue made of them).

Utterances are compared lower-cased, with everything but letters and digits dropped, so ``I'd like a taxi.``
and ``i 'd like a taxi`` are the same. Stock phrases shared with many dialogues ("thank you, goodbye") do not
make a dialogue a copy by themselves: a copy shares several utterances with the *same* held-out dialogue.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

#: distinct utterances shared with one held-out dialogue that make a training dialogue a copy of it
MIN_SHARED = 3
#: utterances shorter than this (in words) are not counted towards :data:`MIN_SHARED`
MIN_WORDS = 4
_WORD = re.compile(r"[a-z0-9]+")


def utterance_key(text: str) -> str:
    """An utterance as the overlap check compares it: lower case, letters and digits only, one space apart."""
    return " ".join(_WORD.findall(text.lower()))


def dialogue_key(did: str) -> str:
    """A dialogue id as the overlap check compares it (``PMUL0001.json`` → ``pmul0001``)."""
    return did.strip().lower().removesuffix(".json")


@dataclass(frozen=True)
class Dropped:
    """One training dialogue left out, and why."""

    source: str
    dialogue: str
    reason: str


class HeldOut:
    """The dialogues training must not see (ids and utterances), e.g. the MultiWOZ test split."""

    def __init__(self, dialogues: Mapping[str, Sequence[str]], name: str = "held-out split") -> None:
        self.name = name
        self.ids = frozenset(dialogue_key(d) for d in dialogues)
        index: dict[str, set[str]] = defaultdict(set)
        for did, utterances in dialogues.items():
            for u in utterances:
                key = utterance_key(u)
                if key:
                    index[key].add(dialogue_key(did))
        self._index = {k: frozenset(v) for k, v in index.items()}

    @classmethod
    def from_file(cls, path: str | Path) -> HeldOut:
        """The dialogues of a MultiWOZ-format file (``.json`` or a ``.zip`` holding one)."""
        from parley.engine.train.data import read_dialogues

        raw = read_dialogues(path)
        return cls({did: [str(t.get("text", "")) for t in d["log"] if isinstance(t, Mapping)]
                    for did, d in raw.items()}, name=Path(path).name)

    def reason(self, did: str | None, utterances: Iterable[str]) -> str | None:
        """Why a training dialogue overlaps the held-out split, or None when it does not."""
        if did is not None and dialogue_key(did) in self.ids:
            return f"its id is a dialogue of {self.name}"
        keys = [k for k in (utterance_key(u) for u in utterances) if k]
        if not keys:
            return None
        shared = Counter(h for k in set(keys) if len(k.split()) >= MIN_WORDS for h in self._index.get(k, ()))
        if shared:
            held, n = shared.most_common(1)[0]
            if n >= MIN_SHARED:
                return f"{n} of its utterances are in {held} of {self.name}"
        inside = sum(k in self._index for k in keys)
        if 2 * inside >= len(keys):
            return f"{inside} of its {len(keys)} utterances occur in {self.name}"
        return None


D = TypeVar("D")


def drop_overlaps(dialogues: Mapping[str, D], held: Sequence[HeldOut], source: str,
                  utterances: Callable[[D], Iterable[str]]) -> tuple[dict[str, D], list[Dropped]]:
    """``(kept, dropped)``: the dialogues of ``source`` that overlap none of ``held``, in their order.

    ``utterances(dialogue)`` gives a dialogue's utterances; an id starting with ``#`` (text without ids) is
    checked by its utterances only."""
    kept: dict[str, D] = {}
    dropped: list[Dropped] = []
    for did, dia in dialogues.items():
        texts = list(utterances(dia))
        why = next((r for h in held if (r := h.reason(None if did.startswith("#") else did, texts))), None)
        if why is None:
            kept[did] = dia
        else:
            dropped.append(Dropped(source, did, why))
    return kept, dropped
