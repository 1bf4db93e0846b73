"""Shared loading for the rewriter benchmarks: MultiWOZ test user turns with their annotated slot values."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

SHARED = Path(os.environ.get("PARLEY_SHARED_DATA")
              or Path(__file__).resolve().parents[1].parent / "shared" / "data")
TEST_ZIP = SHARED / "multiwoz" / "convlab3" / "test.json.zip"


def user_turns(limit: int | None = None) -> list[tuple[str, list[str], list[str]]]:
    """(text, slot values from span_info, previous turns) for every user turn of the MultiWOZ test set."""
    with zipfile.ZipFile(TEST_ZIP) as z:
        data = json.loads(z.read("test.json"))
    out: list[tuple[str, list[str], list[str]]] = []
    for dial in data.values():
        log = dial["log"]
        for i in range(0, len(log), 2):
            text = log[i]["text"]
            toks = text.split()
            values = [" ".join(toks[a[3]:a[4] + 1]) for a in log[i].get("span_info", [])]
            out.append((text, values, [t["text"] for t in log[:i]]))
            if limit and len(out) >= limit:
                return out
    return out
