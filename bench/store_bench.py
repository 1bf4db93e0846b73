"""Store benchmark: commit 10,000 turns one transaction each; export 100,000 turns to JSONL and CSV.

Goals on the 2-core machine: commits <= 2 s, each export <= 3 s.
Run: .venv/bin/python bench/store_bench.py [--turns 10000] [--export-turns 100000]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from parley.store import open_store  # noqa: E402
from parley.store.export import export_csv, export_jsonl  # noqa: E402
from parley.store.records import SessionRecord, TurnRecord  # noqa: E402


def bench_commits(path: Path, n: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds (CPU: what an idle machine would take; the wall clock waits on the load)."""
    store = open_store(path)
    s = store.add_session(SessionRecord(tester="bench", mode="batch", system_name="echo"))
    recs = [
        TurnRecord(
            session_id=s.id,
            index=i,
            role="user" if i % 2 == 0 else "system",
            text=f"I need a cheap restaurant in the north for {i % 8 + 1} people",
            text_final="i need a cheap restaurant in the north",
            internals={"db_count": {"restaurant": i}},
            rewrite_steps=[{"name": "asr-sim", "after": "i need a cheap restaurant"}],
            latency_ms=3.1,
        )
        for i in range(n)
    ]
    t0, c0 = time.perf_counter(), time.process_time()
    for r in recs:
        store.add_turn(r)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    store.close()
    return dt, cpu


def fill(path: Path, n_turns: int, per_session: int = 20) -> None:
    store = open_store(path)
    with store.write() as conn:
        for k in range(n_turns // per_session):
            s = SessionRecord(tester="bench", mode="batch", system_name="multiwoz",
                              condition={"name": "original", "rewriters": []}, seed=k)
            store.add_session(s)
            for i in range(per_session):
                store.add_turn(TurnRecord(
                    session_id=s.id, index=i, role="user" if i % 2 == 0 else "system",
                    text=f"turn {i} of session {k}: is there a moderately priced hotel with free parking?",
                    internals={"state": {"hotel": {"pricerange": "moderate", "parking": "yes"}},
                               "db_count": {"hotel": 3}, "acts": [{"act": "inform", "domain": "hotel"}]},
                    latency_ms=2.5))
    del conn
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=10_000)
    ap.add_argument("--export-turns", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        commit_s, commit_cpu = bench_commits(tmp / "commits.db", args.turns)
        fill(tmp / "export.db", args.export_turns)
        store = open_store(tmp / "export.db")
        t0, c0 = time.perf_counter(), time.process_time()
        n_sessions = export_jsonl(store, tmp / "out.jsonl")
        jsonl_s, jsonl_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        counts = export_csv(store, tmp / "csv")
        csv_s, csv_cpu = time.perf_counter() - t0, time.process_time() - c0
        size = (tmp / "out.jsonl").stat().st_size
    print(f"machine: {platform.machine()} {platform.processor() or ''}, python {platform.python_version()}, "
          f"date {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.1f}")
    print(f"commit {args.turns} turns, one transaction each: {commit_s:.2f} s, CPU {commit_cpu:.2f} s "
          f"({args.turns / commit_s:,.0f} turns/s)  goal <= 2 s")
    print(f"export {counts['turns']} turns / {n_sessions} sessions to JSONL: {jsonl_s:.2f} s, "
          f"CPU {jsonl_cpu:.2f} s ({size / 1e6:.1f} MB)  goal <= 3 s")
    print(f"export {counts['turns']} turns to CSV (5 tables): {csv_s:.2f} s, CPU {csv_cpu:.2f} s  "
          "goal <= 3 s")


if __name__ == "__main__":
    main()
