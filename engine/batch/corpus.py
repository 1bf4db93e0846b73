"""Streaming a MultiWOZ-format dialogue file (``.json`` or a ``.zip`` holding one) one dialogue at a time.

:func:`engine.scoring.corpus.load_corpus` reads a whole file into memory; a batch run over a large corpus uses
:func:`stream_corpus` instead (ijson), so memory does not grow with the number of dialogues.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from parley.engine.scoring.corpus import CorpusDialogue, CorpusError, parse_dialogue


@contextmanager
def _open(path: Path) -> Iterator[IO[bytes]]:
    if not path.is_file():
        raise CorpusError(f"{path}: no such file")
    try:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as zf:
                names = [n for n in zf.namelist() if n.endswith(".json")]
                if not names:
                    raise CorpusError(f"{path}: the zip holds no .json file")
                with zf.open(names[0]) as fh:
                    yield fh
        else:
            with path.open("rb") as fh:
                yield fh
    except (zipfile.BadZipFile, OSError) as e:
        raise CorpusError(f"{path}: cannot read it ({e})") from None


#: deepest nesting accepted inside a dialogue (MultiWOZ needs about 6)
MAX_DEPTH = 64
_SCALARS = ("string", "number", "boolean", "null")


def _refuse_top_level(fh: IO[bytes], path: Path) -> None:
    """The file is not an object of dialogues: say whether it is too deep to read or simply not an object."""
    import ijson

    depth = 0
    try:
        for event, _ in ijson.basic_parse(fh):
            depth += event in ("start_map", "start_array")
            depth -= event in ("end_map", "end_array")
            if depth > MAX_DEPTH:
                raise CorpusError(f"{path}: JSON nested too deeply (more than {MAX_DEPTH} levels)")
    except ijson.JSONError:
        pass
    raise CorpusError(f"{path}: expected an object of dialogues keyed by id")


def _items(fh: IO[bytes], path: Path) -> Iterator[tuple[str, object]]:
    """``(dialogue id, dialogue)`` pairs of the top-level object, built from ijson's basic events (no
    per-event prefix strings, whose cost grows with depth) with a nesting limit."""
    import ijson

    head = fh.read(1024).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    fh.seek(0)
    if head != b"{":
        _refuse_top_level(fh, path)
    stack: list[Any] = []
    keys: list[str | None] = []
    top_key = ""
    try:
        for event, value in ijson.basic_parse(fh, use_float=True):
            if not stack and event == "start_map" and not keys:
                keys.append(None)  # the top-level object itself
                continue
            if event == "map_key":
                if len(stack) == 0:
                    top_key = value
                else:
                    keys[-1] = value
                continue
            if event in ("start_map", "start_array"):
                if len(stack) >= MAX_DEPTH:
                    raise CorpusError(f"{path}: JSON nested too deeply (dialogue {top_key!r}: more than "
                                      f"{MAX_DEPTH} levels)")
                stack.append({} if event == "start_map" else [])
                keys.append(None)
                continue
            if event in ("end_map", "end_array"):
                keys.pop()
                if not stack:  # the end of the top-level object
                    continue
                value = stack.pop()
            elif event not in _SCALARS:
                continue
            if not stack:
                yield top_key, value
            elif isinstance(stack[-1], list):
                stack[-1].append(value)
            else:
                stack[-1][keys[-1]] = value
    except ijson.JSONError as e:
        raise CorpusError(f"{path}: not a MultiWOZ dialogue file ({e})") from None
    except UnicodeDecodeError as e:
        raise CorpusError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def stream_corpus(path: str | Path, *, limit: int | None = None) -> Iterator[CorpusDialogue]:
    """The dialogues of ``path`` in file order, parsed one at a time."""
    p = Path(path)
    n = 0
    with _open(p) as fh:
        for did, dia in _items(fh, p):
            if limit is not None and n >= limit:
                return
            try:
                dialogue = parse_dialogue(str(did), dia, source=p)
            except (AttributeError, TypeError, ValueError) as e:
                if isinstance(e, CorpusError):
                    raise
                raise CorpusError(f"{p}: dialogue {did!r} is malformed ({type(e).__name__}: {e})") from None
            yield dialogue
            n += 1


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
