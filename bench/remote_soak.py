"""Remote-bot soak: 1,000 turns against a local bot that fails 10 % of requests, cycling through
the failure modes (1-byte trickle every 1.5 s, endless chunked body, 50 MB body, 307 and 302 to another host,
NaN reply, HTTP 500, dropped connection).

Checks: no turn lost (every user turn and every system answer is in SQLite), every failed turn stored with its
error, the failure count equal to the bot's; reports peak RSS (goal <= 400 MB) and wall time.
Run: .venv/bin/python bench/remote_soak.py [--turns 1000] [--timeout 2] [--out FILE]
The bots are threaded http.servers on 127.0.0.1 and 127.0.0.2 (tests/bots.py).
"""

from __future__ import annotations

import argparse
import collections
import os
import platform
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parley.engine.session import Session  # noqa: E402
from parley.engine.systems import build_system  # noqa: E402
from parley.store import open_store  # noqa: E402
from tests.bots import bot_pair  # noqa: E402

TURNS_PER_SESSION = 10


def classify(error: str) -> str:
    for key, words in (("trickle/timeout", ("within",)), ("too large", ("max_bytes",)),
                       ("redirect refused", ("another host",)), ("NaN/inf", ("NaN", "not a number", "range")),
                       ("HTTP 500", ("HTTP 500",)), ("dropped connection", ("cannot reach",))):
        if any(w in error for w in words):
            return key
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=2.0, help="remote timeout per attempt (s)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "remote.md"))
    args = ap.parse_args()
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d, bot_pair(fail_share=0.1) as (bot, other):
        store = open_store(Path(d) / "soak.db")
        system = build_system(f"remote:url={bot.url}/mixed,timeout={args.timeout:g},retries=0")
        sessions = []
        typed = 0
        while typed < args.turns:
            s = Session(store, system, tester="soak", seed=len(sessions) + 1)
            sessions.append(s.id)
            for _ in range(min(TURNS_PER_SESSION, args.turns - typed)):
                s.turn(f"turn {typed}: a cheap hotel in the north please")
                typed += 1
            s.end()
        wall = time.perf_counter() - t0
        users = failed = ok = 0
        kinds: collections.Counter[str] = collections.Counter()
        missing_error = 0
        for sid in sessions:
            for t in store.turns(sid):
                if t.role == "user":
                    users += 1
                elif t.status == "ok":
                    ok += 1
                else:
                    failed += 1
                    kinds[classify(t.error or "")] += 1
                    missing_error += not t.error
        expected_failures = sum(1 for k in range(1, bot.count + 1) if k % 10 == 0)
        other_hits = len(other.hits)
        system.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load1 = os.getloadavg()
    lost = args.turns - users + (users - ok - failed)
    lines = [
        "## Remote bots under failure",
        "",
        f"Command: `.venv/bin/python bench/remote_soak.py --turns {args.turns} --timeout {args.timeout:g}`. "
        f"Machine: {os.cpu_count()}-core {platform.machine()}, no GPU, Python {platform.python_version()}; "
        f"{datetime.now(UTC):%Y-%m-%d}. Load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end "
        "(shared machine).",
        "",
        f"{args.turns:,} user turns in sessions of {TURNS_PER_SESSION} through `engine.session.Session` (the "
        "TUI's and `parley chat`'s code path) against "
        f"`remote:url=…/mixed,timeout={args.timeout:g},retries=0`; "
        "the bot (tests/bots.py, 127.0.0.1) fails every 10th request, cycling through: 1-byte trickle every "
        "1.5 s, endless chunked body, 50 MB body, 307 and 302 to another host (a second bot on 127.0.0.2), "
        "NaN reply, HTTP 500, dropped connection.",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| user turns stored | {users:,} of {args.turns:,} | all |",
        f"| system answers stored (ok + failed) | {ok + failed:,} ({ok:,} + {failed:,}) "
        "| one per user turn |",
        f"| turns lost | {lost} | 0 |",
        f"| failed turns / failures the bot served | {failed} / {expected_failures} | equal |",
        f"| failed turns without their error | {missing_error} | 0 |",
        f"| requests that reached the other host | {other_hits} | 0 |",
        f"| peak RSS (whole process: bots, client, SQLite) | {peak:.0f} MB | ≤ 400 MB |",
        f"| wall time | {wall:.0f} s | — |",
        "",
        "Failed turns by stored error:",
        "",
        "| error | turns |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in sorted(kinds.items())]
    out = Path(args.out)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
