"""Streaming a MultiWOZ-format dialogue file (``.json`` or a ``.zip`` holding one) one dialogue at a time.

:func:`stream_corpus` reads the file with :func:`parley.formats.multiwoz.iter_dialogues` (ijson), so memory
does not grow with the number of dialogues; the file is budgeted like every input (:mod:`parley.limits`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from parley.engine.scoring.corpus import CorpusDialogue, CorpusError, parse_dialogue
from parley.formats.multiwoz import iter_dialogues


def stream_corpus(path: str | Path, *, limit: int | None = None) -> Iterator[CorpusDialogue]:
    """The dialogues of ``path`` in file order, parsed one at a time."""
    p = Path(path)
    if not p.is_file():
        raise CorpusError(f"{p}: no such file")
    for n, (did, dia) in enumerate(iter_dialogues(p, CorpusError)):
        if limit is not None and n >= limit:
            return
        try:
            dialogue = parse_dialogue(str(did), dia, source=p)
        except (AttributeError, TypeError, ValueError) as e:
            if isinstance(e, CorpusError):
                raise
            raise CorpusError(f"{p}: dialogue {did!r} is malformed ({type(e).__name__}: {e})") from None
        yield dialogue


def count_dialogues(path: str | Path, *, limit: int | None = None) -> int:
    """How many dialogues :func:`stream_corpus` yields (the file is checked whole, dialogue by dialogue)."""
    return sum(1 for _ in stream_corpus(path, limit=limit))


def file_digest(path: str | Path) -> str:
    """SHA-256 of the file's bytes (a run's key names the corpus by content, not by name)."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()
