"""Shared loading for the rewriter benchmarks: MultiWOZ test user turns with their annotated slot values."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SHARED = Path(os.environ.get("PARLEY_SHARED_DATA")
              or Path(__file__).resolve().parents[1].parent / "shared" / "data")
TEST_ZIP = SHARED / "multiwoz" / "convlab3" / "test.json.zip"


def user_turns(limit: int | None = None) -> list[tuple[str, list[str], list[str]]]:
    """(text, slot values from span_info, previous turns) for every user turn of the MultiWOZ test set."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from parley.formats.multiwoz import read_dialogues

    data = read_dialogues(TEST_ZIP)
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
