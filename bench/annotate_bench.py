"""Import, merge and annotation benchmarks on the real data in ../shared/data.

Run: .venv/bin/python bench/annotate_bench.py

Times every importer on its full public file (first import and a repeated import, which must add nothing),
counts the AB-ReDial ratings outside the study's scales, merges two raters' databases of the full AB-ReDial
import, and times the annotation screen from a key press to the rating committed (Pilot, headless).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parley.store import open_store  # noqa: E402
from parley.store.annotation import Annotation  # noqa: E402
from parley.store.imports import import_file  # noqa: E402
from parley.store.merge import merge  # noqa: E402
from parley.store.records import DialogueRating  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def timed(fn):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def bench_imports(tmp: Path) -> dict:
    jobs = {
        "multiwoz (ConvLab-3 test, 1,000 dialogues)": (DATA / "multiwoz/convlab3/test.json.zip", "multiwoz", {}),
        "dstc11 (val logs + labels, 4,173 instances)": (
            DATA / "dstc11-track5/val/logs.json", "dstc11", {"labels": DATA / "dstc11-track5/val/labels.json"}),
        "abredial (dialogues + turns CSV)": (
            DATA / "ab-redial/annotated_dialogues.csv", "abredial",
            {"turn_file": DATA / "ab-redial/annotated_turns.csv"}),
    }
    out = {}
    for name, (path, fmt, opts) in jobs.items():
        store = open_store(tmp / f"{fmt}.db")
        first, t1 = timed(lambda: import_file(store, path, fmt, **opts))  # noqa: B023
        again, t2 = timed(lambda: import_file(store, path, fmt, **opts))  # noqa: B023
        out[name] = {"dialogues": first.dialogues, "sessions": first.added["sessions"],
                     "turns": first.added["turns"], "turn_ratings": first.added["turn_ratings"],
                     "dialogue_ratings": first.added["dialogue_ratings"], "first_s": round(t1, 2),
                     "again_s": round(t2, 2), "again_added": sum(again.added.values()),
                     "skipped": dict(first.skipped)}
        store.close()
    # parley's own JSONL: export the multiwoz import, import it into a fresh database
    from parley.store.export import export_jsonl

    src = open_store(tmp / "multiwoz.db")
    export_jsonl(src, tmp / "mw.jsonl")
    dst = open_store(tmp / "jsonl.db")
    r, t = timed(lambda: import_file(dst, tmp / "mw.jsonl", "jsonl"))
    out["jsonl (export of the multiwoz import)"] = {"dialogues": r.dialogues, "sessions": r.added["sessions"],
                                                    "turns": r.added["turns"], "first_s": round(t, 2)}
    return out


def bench_merge(tmp: Path) -> dict:
    base = tmp / "abredial.db"
    a, b = tmp / "rater_a.db", tmp / "rater_b.db"
    for p, rater in ((a, "ann"), (b, "bob")):
        shutil.copy(base, p)
        store = open_store(p)
        ann = Annotation(store, rater, turns=3)
        for sid in ann.queue[:50]:
            for t in ann.dialogue(sid).rated:
                ann.rate_turn(t, 2, 2)
            ann.rate_dialogue(DialogueRating(sid, rater, 2, 2, 2, 1, 3, "bench"))
        store.close()
    report, t = timed(lambda: merge(a, b, tmp / "merged.db"))
    m = open_store(tmp / "merged.db")
    return {"seconds": round(t, 2), "counts": m.counts(), "added": report.added}


async def _ui_latency(tmp: Path, n: int = 60) -> dict:
    from parley.tui.screens.annotate import AnnotateApp

    store = open_store(tmp / "ui.db")
    import_file(store, DATA / "multiwoz/convlab3/test.json.zip", "multiwoz", limit=20)
    ann = Annotation(store, "bench")
    ann.mark_instructions_seen()
    app = AnnotateApp(ann, blind=True)
    times: list[float] = []
    cpu: list[float] = []
    noop: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for _ in range(n):
            if app.screen.cursor is None:  # every turn of this dialogue rated: the dialogue rating
                await pilot.press("d")
                await pilot.pause()
                await pilot.press("2", "tab", "2", "tab", "2", "tab", "1", "tab", "3", "tab", "o", "k", "enter")
                await pilot.pause()
            before = len(store.turn_ratings(rater="bench"))
            t, c = time.perf_counter(), time.process_time()
            await pilot.press("2", "3")
            await pilot.pause()
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            assert len(store.turn_ratings(rater="bench")) == before + 1
        for _ in range(20):  # Pilot's own cost of two key presses: a key that only redraws the panel
            t = time.perf_counter()
            await pilot.press("r", "r")
            await pilot.pause()
            noop.append((time.perf_counter() - t) * 1000)
    return {"ratings": n, "wall_median_ms": round(statistics.median(times), 1),
            "wall_p95_ms": round(sorted(times)[int(0.95 * len(times)) - 1], 1),
            "cpu_median_ms": round(statistics.median(cpu), 1),
            "pilot_two_noop_keys_median_ms": round(statistics.median(noop), 1)}


def main() -> None:
    if not DATA.is_dir():
        sys.exit("../shared/data is absent")
    tmp = Path(tempfile.mkdtemp(prefix="parley-annotate-bench-"))
    try:
        result = {"imports": bench_imports(tmp), "merge": bench_merge(tmp),
                  "ui": asyncio.run(_ui_latency(tmp))}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
