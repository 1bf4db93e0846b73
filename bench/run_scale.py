"""Batch-run scaling: `parley run` against a local bot with a fixed 200 ms latency.

- dialogues/s with 1, 2, 4, 8, 16 thread workers (goal: >= 0.8 x N x serial);
- the Ray backend's throughput on a local instance (ray.init(num_cpus=2)) beside the thread backend's;
- peak RSS of `parley run` (a subprocess, sampled every 0.1 s) for 1,000 and 10,000 dialogues.

Run: .venv/bin/python bench/run_scale.py [--workers 1,2,4,8,16] [--rss 1000,10000] [--no-ray] [--out FILE]
The bot is a threaded http.server on 127.0.0.1 (tests/bots.py); corpora are synthetic (tests/corpora.py).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parley.engine.batch.backends import make_backend  # noqa: E402
from parley.engine.batch.corpus import stream_corpus  # noqa: E402
from parley.engine.batch.play import WorkerSpec, WorkItem  # noqa: E402
from parley.engine.batch.run import RunParams, execute, open_run  # noqa: E402
from parley.store import open_store  # noqa: E402
from parley.store.records import now  # noqa: E402
from tests.bots import serving  # noqa: E402
from tests.corpora import write_corpus  # noqa: E402

TURNS = 3


def throughput(url: str, tmp: Path, backend: str, workers: int, n: int) -> float:
    corpus = write_corpus(tmp / f"c{n}.json", n, TURNS)
    store = open_store(tmp / f"{backend}-{workers}-{time.time_ns()}.db")
    spec = f"remote:url={url}/ok"
    params = RunParams.make(spec, corpus, ["original"])
    run, _ = open_run(store, params, new=True)
    pool = make_backend(backend, WorkerSpec(spec, ("original",)), workers)
    warm = next(iter(stream_corpus(corpus)))  # every worker up and connected before the clock starts
    for k in range(workers):
        pool.submit(WorkItem(k, "original", warm, 1, now(), "warm-up"))
    for _ in range(workers):
        pool.next_result()
    t0 = time.perf_counter()
    outcome = execute(store, run, pool)
    dt = time.perf_counter() - t0
    assert outcome.played == n
    store.close()
    return n / dt


def peak_rss(url: str, tmp: Path, n: int, workers: int) -> tuple[float, float]:
    import psutil

    corpus = write_corpus(tmp / f"rss{n}.json", n, TURNS)
    cmd = [
        str(Path(sys.executable).with_name("parley")),
        "run",
        "--system",
        f"remote:url={url}/ok",
        "--dialogues",
        str(corpus),
        "--workers",
        str(workers),
        "--db",
        str(tmp / f"rss{n}.db"),
        "--json",
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ps = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, ps.memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.1)
    if proc.returncode != 0:
        raise SystemExit(f"parley run failed ({proc.returncode}): {' '.join(cmd)}")
    return peak / 2**20, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", default="1,2,4,8,16")
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--per-worker", type=int, default=6, help="dialogues per worker in the throughput runs")
    ap.add_argument("--rss", default="1000,10000", help="corpus sizes for the peak-RSS runs ('' for none)")
    ap.add_argument("--rss-workers", type=int, default=16)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "run.md"))
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    load0 = os.getloadavg()
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as d, serving(latency=args.latency) as bot:
        tmp = Path(d)
        rows = []
        for w in counts:
            n = max(12, args.per_worker * w)
            rate = throughput(bot.url, tmp, "thread", w, n)
            rows.append((w, n, rate))
            print(f"thread workers={w}: {rate:.2f} dialogues/s ({n} dialogues)", flush=True)
        serial = next((r for w, _, r in rows if w == 1), rows[0][2])
        ray_rows = []
        if not args.no_ray:
            import ray

            # the machine is shared: Ray's own memory monitor would kill our 0.1 GB actors for others' usage
            os.environ.setdefault("RAY_memory_monitor_refresh_ms", "0")
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
            for w in counts:
                if w == 1:
                    continue
                n = max(12, args.per_worker * w)
                rate = throughput(bot.url, tmp, "ray", w, n)
                ray_rows.append((w, n, rate))
                print(f"ray workers={w}: {rate:.2f} dialogues/s ({n} dialogues)", flush=True)
            ray.shutdown()
        rss_rows = []
        for n in [int(x) for x in args.rss.split(",") if x]:
            mb, secs = peak_rss(bot.url, tmp, n, args.rss_workers)
            rss_rows.append((n, mb, secs))
            print(f"peak RSS {n} dialogues: {mb:.0f} MB ({secs:.0f} s)", flush=True)
    load1 = os.getloadavg()
    lines += [
        "## Batch runs: workers, Ray, memory",
        "",
        f"Command: `.venv/bin/python bench/run_scale.py --workers {args.workers} --rss {args.rss}"
        f"{' --no-ray' if args.no_ray else ''}`. Machine: {os.cpu_count()}-core {platform.machine()}, "
        f"no GPU, Python {platform.python_version()}; {datetime.now(UTC):%Y-%m-%d}. Load average "
        f"{load0[0]:.1f} at the "
        f"start, {load1[0]:.1f} at the end (the machine is shared with other work).",
        "",
        "Bot: tests/bots.py on 127.0.0.1 answering every request after a fixed "
        f"{args.latency * 1000:.0f} ms; "
        f"synthetic dialogues of {TURNS} user turns (so a dialogue takes ≥ {TURNS * args.latency:.1f} s); "
        "condition original; driver, scoring and SQLite writes included; workers started and connected "
        "before "
        "the clock starts.",
        "",
        "| backend | workers | dialogues | dialogues/s | × serial | goal ≥ 0.8 × N |",
        "|---|---|---|---|---|---|",
    ]
    for w, n, r in rows:
        lines.append(
            f"| thread | {w} | {n} | {r:.2f} | {r / serial:.2f} | "
            f"{'met' if r >= 0.8 * w * serial else 'missed'} |"
        )
    for w, n, r in ray_rows:
        lines.append(
            f"| ray (local, num_cpus=2) | {w} | {n} | {r:.2f} | {r / serial:.2f} | "
            f"{'met' if r >= 0.8 * w * serial else 'missed'} |"
        )
    if ray_rows:
        lines += [
            "",
            "Ray rows: the same runs on `--backend ray` against a local instance (`ray.init(num_cpus=2)`), "
            "one actor (a separate process) per worker; the goal is the thread backend's, shown for "
            "comparison. On this 2-core machine, shared and loaded, the actors' processes compete with the "
            "driver for the two cores.",
        ]
    if rss_rows:
        lines += [
            "",
            f"Peak RSS of the `parley run` process ({args.rss_workers} thread workers, bootstrap 1,000, "
            "sampled every 0.1 s):",
            "",
            "| dialogues | peak RSS | wall time |",
            "|---|---|---|",
        ]
        lines += [f"| {n:,} | {mb:.0f} MB | {secs:.0f} s |" for n, mb, secs in rss_rows]
    out = Path(args.out)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
