"""Benchmark of ``impolite:backend=openai`` against a local OpenAI-compatible server.

Start the server first (``parley serve-bundled --port 8000 --threads 2``: ``transformers serve`` with the
bundled SmolLM2-135M-Instruct), then

    .venv/bin/python bench/rw_openai.py --url http://127.0.0.1:8000 [--model smollm2] [--n 30] [--intensity 2]

Requests: the first ``--n`` polite requests written for parley (``tests/polite_requests.generate`` with
``random.Random(i)``), scenario ``1 + i % 6``, seed ``i``. One warm-up request is not counted. Figures: wall
time per rewrite as the caller sees it (the request, the check and, when the reply is refused, the rules;
p50/p90), the server's time per request, the share of rewrites the model wrote (accepted) and why the others
fell back, per scenario; every rewrite is checked to keep its slot values and requested attributes with no
courtesy marker left. Raw figures to ``bench/results/rw_openai.json``; ``bench/rw_report.py`` renders them
into rw.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parley.engine.rewrite import build_rewriter  # noqa: E402
from parley.engine.rewrite.base import RewriteContext  # noqa: E402
from parley.engine.rewrite.courtesy import markers  # noqa: E402
from parley.engine.spans import find_spans  # noqa: E402
from tests.polite_requests import generate  # noqa: E402


def pct(xs: list[float], q: float) -> float | None:
    return round(statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1], 1) if len(xs) > 1 else None


def reason(info: dict[str, Any]) -> str:
    """The fallback's kind in a few words ("dropped slot value", "kept courtesy", "timeout"…)."""
    if info.get("fallback_kind") != "check":
        return f"server: {info.get('fallback_kind')}"
    text = str(info["fallback"]).replace("the model ", "").replace("the LLM ", "")
    if " lines" in text:
        return "reply of several lines"
    if " sentences" in text:
        return "too many sentences"
    for cut in (":", "("):
        text = text.split(cut)[0]
    return text.strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--intensity", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "rw_openai.json"))
    a = ap.parse_args()
    spec = (f"impolite:backend=openai,url={a.url},model={a.model},intensity={a.intensity},"
            f"timeout={a.timeout},retries=0")
    rws = {s: build_rewriter(f"{spec},scenario={s}") for s in range(1, 7)}
    load_start = os.getloadavg()
    t0 = time.time()
    warm = generate(random.Random(10_000)).text
    rws[2].rewrite(warm, RewriteContext(random.Random(0), 0, (), find_spans(warm)))
    rows: list[dict[str, Any]] = []
    for i in range(a.n):
        req = generate(random.Random(i))
        sc = 1 + i % 6
        start = time.perf_counter()
        out = rws[sc].rewrite(req.text, RewriteContext(random.Random(i), i, (), find_spans(req.text)))
        wall = (time.perf_counter() - start) * 1000
        info = dict(out.info)
        kept = all(v in out.after for v in req.values) and all(x in out.after.lower() for x in req.attrs)
        rows.append({"i": i, "scenario": sc, "before": req.text, "after": out.after, "engine": info["engine"],
                     "fallback": info.get("fallback"),
                     "reason": None if info["engine"] == "openai" else reason(info),
                     "wall_ms": round(wall, 1), "server_ms": info["openai"].get("elapsed_ms"),
                     "reply": info["openai"].get("reply"), "kept": kept,
                     "courtesy_free": not markers(out.after)})
        print(f"{i:>3} sc{sc} {wall / 1000:6.1f}s {info['engine']:<6} {rows[-1]['reason'] or ''}", flush=True)
        result = summary(a, spec, rows, t0, load_start)
        Path(a.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")  # after every row
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))


def summary(a: argparse.Namespace, spec: str, rows: list[dict[str, Any]], t0: float,
            load_start: tuple[float, ...]) -> dict[str, Any]:
    walls = [r["wall_ms"] for r in rows]
    server = [r["server_ms"] for r in rows if r["server_ms"] is not None]
    accepted = [r for r in rows if r["engine"] == "openai"]
    return {
        "command": "bench/rw_openai.py " + " ".join(sys.argv[1:]),
        "spec": spec, "n": len(rows), "machine": f"{platform.machine()}, {os.cpu_count()} cores, no GPU",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
        "load_start": round(load_start[0], 1), "load_end": round(os.getloadavg()[0], 1),
        "total_s": round(time.time() - t0, 1),
        "wall_ms": {"p50": pct(walls, 50), "p90": pct(walls, 90), "max": max(walls)},
        "server_ms": {"p50": pct(server, 50), "p90": pct(server, 90)},
        "accepted_pct": round(100 * len(accepted) / len(rows), 1),
        "fallback_reasons": dict(Counter(r["reason"] for r in rows if r["reason"]).most_common()),
        "by_scenario": {sc: f"{sum(r['engine'] == 'openai' for r in rows if r['scenario'] == sc)}/"
                           f"{sum(r['scenario'] == sc for r in rows)}" for sc in range(1, 7)},
        "kept_pct": round(100 * sum(r["kept"] for r in rows) / len(rows), 1),
        "courtesy_free_pct": round(100 * sum(r["courtesy_free"] for r in rows) / len(rows), 1),
        "rows": rows,
    }


if __name__ == "__main__":
    main()
