"""Readers of the data formats parley consumes, one per format, shared by engine, store and the benchmarks.

A leaf package: it imports nothing of parley but :mod:`parley.errors`, :mod:`parley.jsonfile` and
:mod:`parley.limits` (an import contract keeps it so), so store may use it without reaching engine. Every
failure is a :class:`FormatError` naming the file and the place.

A JSON file may be a ``.json`` file or a zip holding one. Either is budgeted (:mod:`parley.limits`): a zip
member's declared uncompressed size is checked before it is opened and its actual size while it is read, so a
zip bomb is refused at once, in one line. :func:`read_json` reads a file whole (within the record budget);
:func:`stream_json` reads a corpus item by item (within the input budget, each item within the record budget).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from parley.errors import ParleyError
from parley.limits import INPUT, RECORD, Bounded, Budget, check_size, open_member


class FormatError(ParleyError, ValueError):
    """A file that does not hold the expected format; the message names the file and the line, column or
    key."""


@contextmanager
def open_json(path: str | Path, error: type[ParleyError] = FormatError, *, single_in_zip: bool = False,
              budget: Budget = INPUT) -> Iterator[Bounded]:
    """The bytes of a JSON file, or of the ``.json`` file inside a zip (the first one; exactly one when
    ``single_in_zip``), as a :class:`~parley.limits.Bounded` stream of at most ``budget`` bytes."""
    p = Path(path)
    if not p.exists():
        raise error(f"{p}: no such file")
    if p.is_dir():
        raise error(f"{p}: is a folder, not a file")
    try:
        if not zipfile.is_zipfile(p):
            check_size(p, str(p), error, budget)
            with p.open("rb") as fh:
                yield Bounded(fh, str(p), error, budget=budget)
            return
        with zipfile.ZipFile(p) as z:
            names = [n for n in z.namelist() if n.endswith(".json")]
            if not names or (single_in_zip and len(names) != 1):
                raise error(f"{p}: the zip must hold exactly one .json file (found {len(names)})")
            info = z.getinfo(names[0])
            source = f"{p} ({info.filename})"
            with open_member(z, info, source, error, budget) as fh:
                yield fh
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as e:
        raise error(f"cannot read {p}: {e}") from None
    except OSError as e:
        raise error(f"cannot read {p}: {e.strerror or e}") from None


def read_json(
    path: str | Path, error: type[ParleyError] = FormatError, *, single_in_zip: bool = False
) -> Any:
    """The JSON value in a file, or in the ``.json`` file inside a zip (see :func:`open_json`), read whole
    within the record budget and parsed by :mod:`parley.jsonfile` (the one JSON reader); failures raise
    ``error``."""
    from parley import jsonfile

    with open_json(path, error, single_in_zip=single_in_zip, budget=RECORD) as fh:
        raw = fh.read()
        source = fh.source
    return jsonfile.loads(raw, source, error)


def stream_json(path: str | Path, error: type[ParleyError] = FormatError, *, top: str = "object",
                what: str = "item", shape: str = "", single_in_zip: bool = False
                ) -> Iterator[tuple[Any, Any]]:
    """The items of the top-level object or list of a JSON file (or the one in a zip), one at a time
    (:func:`parley.jsonfile.items`): memory holds one item, whatever the file's size."""
    from parley import jsonfile

    try:
        with open_json(path, error, single_in_zip=single_in_zip) as fh:
            yield from jsonfile.items(fh, fh.source, error, top=top, what=what, shape=shape)
    except jsonfile.SyntaxFault as e:  # where is it? a file small enough to read whole says line and column
        try:
            read_json(path, error, single_in_zip=single_in_zip)
        except ParleyError as whole:
            if "invalid JSON" in str(whole):
                raise whole from None
        raise e.error from None
