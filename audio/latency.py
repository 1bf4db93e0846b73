"""The latency table of stored spoken turns (``parley score --latency``): per stage, how many turns, median,
90th percentile, mean and worst, in milliseconds, from the ``internals["voice"]`` of the system turns
(:mod:`parley.audio.voice`). Reads the store only."""

from __future__ import annotations

from typing import Any

import numpy as np

from parley.audio.voice import STAGES

#: parts of the stages, shown under them
PARTS = (("endpoint_ms", "  silence waited for the end of turn"), ("asr_ms", "  speech recognition"),
         ("tts_first_ms", "  first sentence synthesised"))


def latency_table(store: Any) -> dict[str, Any]:
    """``{"turns": N, "by_source": {source: n}, "stages": [{stage, label, n, median, p90, mean, max}]}``."""
    voices: list[dict[str, Any]] = []
    for session in store.sessions():
        voices += [t.internals["voice"] for t in store.turns(session.id)
                   if t.role == "system" and isinstance(t.internals.get("voice"), dict)]
    by_source: dict[str, int] = {}
    for v in voices:
        src = str(v.get("source", "typed"))
        by_source[src] = by_source.get(src, 0) + 1
    rows = []
    for key, label in (*STAGES, *PARTS):
        values = np.array([v[key] for v in voices if isinstance(v.get(key), int | float)], dtype=np.float64)
        row: dict[str, Any] = {"stage": key, "label": label.strip(), "part": label.startswith(" "),
                               "n": int(values.size)}
        if values.size:
            row.update(median=round(float(np.median(values)), 1),
                       p90=round(float(np.percentile(values, 90)), 1),
                       mean=round(float(values.mean()), 1), max=round(float(values.max()), 1))
        rows.append(row)
    return {"turns": len(voices), "by_source": by_source, "stages": rows}
