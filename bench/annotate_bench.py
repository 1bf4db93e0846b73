"""Import, merge and annotation benchmarks.

Run: .venv/bin/python bench/annotate_bench.py [--only imports,merge,ui,long] [--ratings N]

Times every importer on its full public file in ../shared/data (first import and a repeated import, which must
add nothing), counts the AB-ReDial ratings outside the study's scales, merges two raters' databases of the
full AB-ReDial import, and times the annotation screen from a key press to the rating committed (Pilot,
headless).

``long`` (no shared data needed) measures ``parley rate`` on one 2,500-turn dialogue written for parley: turn
ratings per second from rated turn 10 and from rated turn 1,000 on (each in its own process, the turns before
rated beforehand through the API), and the process's resident memory after opening the dialogue, after the
ratings, and at its peak. A rating must cost the same at both places.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
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

#: ../shared/data beside the checkout, or PARLEY_SHARED_DATA (a worktree elsewhere)
DATA = Path(
    os.environ.get("PARLEY_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data"
)


def timed(fn):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def bench_imports(tmp: Path) -> dict:
    jobs = {
        "multiwoz (ConvLab-3 test, 1,000 dialogues)": (
            DATA / "multiwoz/convlab3/test.json.zip", "multiwoz", {}),
        "dstc11 (val logs + labels, 4,173 instances)": (
            DATA / "dstc11-track5/val/logs.json", "dstc11",
            {"labels": DATA / "dstc11-track5/val/labels.json"}),
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


def _rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process (Linux /proc), in MB: now (VmRSS) or at its peak (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _annotate_app():  # type: ignore[no-untyped-def]
    try:
        from parley.tui.annotate_app import AnnotateApp
    except ModuleNotFoundError:  # an older tree with the modules elsewhere (to measure it with this script)
        from parley.tui.screens.annotate import AnnotateApp  # type: ignore[no-redef]
    return AnnotateApp


async def _long_at(tmp: Path, start: int, ratings: int, turns: int) -> dict:
    """Ratings per second from rated turn ``start`` on, in a ``turns``-turn dialogue, and resident memory."""
    from tests.tui.annotate_fixtures import long_dialogue

    store = open_store(tmp / "long.db")
    import_file(store, long_dialogue(tmp / "long.json", turns), "multiwoz")
    ann = Annotation(store, "bench")
    ann.mark_instructions_seen()
    for tid in ann.dialogue(ann.queue[0]).rated[:start]:
        ann.rate_turn(tid, 2, 2)
    app = _annotate_app()(ann)
    async with app.run_test(size=(120, 40)) as pilot:
        t = time.perf_counter()
        await pilot.pause()
        opened_s, rss_open = time.perf_counter() - t, _rss_mb()
        t, c = time.perf_counter(), time.process_time()
        for _ in range(ratings):
            await pilot.press("2", "3")
            await pilot.pause()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        rss_after = _rss_mb()
    assert len(store.turn_ratings(rater="bench")) == start + ratings
    return {"from_rated_turn": start, "dialogue_turns": turns, "ratings": ratings,
            "ratings_per_s": round(ratings / wall, 2), "wall_ms_per_rating": round(1000 * wall / ratings, 1),
            "cpu_ms_per_rating": round(1000 * cpu / ratings, 1), "open_s": round(opened_s, 2),
            "rss_mb_open": rss_open, "rss_mb_after": rss_after,
            "rss_mb_peak": _rss_mb("VmHWM")}


def bench_long(ratings: int, turns: int = 2500, at: tuple[int, ...] = (10, 1000)) -> list[dict]:
    """Each position in a fresh process, so memory figures do not mix."""
    out = []
    for start in at:
        r = subprocess.run([sys.executable, __file__, "--long-at", str(start), "--ratings", str(ratings),
                            "--turns", str(turns)], capture_output=True, text=True, check=True)
        out.append(json.loads(r.stdout.strip().splitlines()[-1]))
    return out


async def _ui_latency(tmp: Path, n: int = 60) -> dict:
    AnnotateApp = _annotate_app()  # noqa: N806

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
                await pilot.press("2", "2", "2", "1", "3", "o", "k", "enter")
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="imports,merge,ui,long", help="parts to run, comma-separated")
    ap.add_argument("--ratings", type=int, default=20, help="ratings per position of the long dialogue")
    ap.add_argument("--turns", type=int, default=2500, help="turns of the long dialogue")
    ap.add_argument("--long-at", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="parley-annotate-bench-"))
    try:
        if args.long_at is not None:
            print(json.dumps(asyncio.run(_long_at(tmp, args.long_at, args.ratings, args.turns))))
            return
        parts = set(args.only.split(","))
        if parts & {"imports", "merge", "ui"} and not DATA.is_dir():
            sys.exit("../shared/data is absent (run --only long without it)")
        result: dict = {"load": list(os.getloadavg())}
        if parts & {"imports", "merge"}:
            result["imports"] = bench_imports(tmp)
        if "merge" in parts:
            result["merge"] = bench_merge(tmp)
        if "ui" in parts:
            result["ui"] = asyncio.run(_ui_latency(tmp))
        if "long" in parts:
            result["long"] = bench_long(args.ratings, args.turns)
        result["load_after"] = list(os.getloadavg())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
