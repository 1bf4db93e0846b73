"""Readers of the data formats parley consumes, one per format, shared by engine, store and the benchmarks.

A leaf package: it imports nothing of parley but :mod:`parley.errors` (an import contract keeps it so), so
store may use it without reaching engine. Every failure is a :class:`FormatError` naming the file and the
place.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from parley.errors import ParleyError


class FormatError(ParleyError, ValueError):
    """A file that does not hold the expected format; the message names the file and the line, column or
    key."""


def read_json(
    path: str | Path, error: type[ParleyError] = FormatError, *, single_in_zip: bool = False
) -> Any:
    """The JSON value in a file, or in the ``.json`` file inside a zip (the first one; exactly one when
    ``single_in_zip``), parsed by :mod:`parley.jsonfile` (the one JSON reader); failures raise ``error``."""
    from parley import jsonfile

    p = Path(path)
    if not zipfile.is_zipfile(p):
        return jsonfile.read_json(p, error)
    try:
        with zipfile.ZipFile(p) as z:
            names = [n for n in z.namelist() if n.endswith(".json")]
            if not names or (single_in_zip and len(names) != 1):
                raise error(f"{p}: the zip must hold exactly one .json file (found {len(names)})")
            raw = z.read(names[0])
    except (zipfile.BadZipFile, OSError) as e:
        raise error(f"cannot read {p}: {getattr(e, 'strerror', None) or e}") from None
    return jsonfile.loads(raw, str(p), error)
