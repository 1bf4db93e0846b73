"""Benchmark of the model-backed systems: SmolLM2 conversion and load, ``llm`` turn latency and fallback rate,
and the start-up time of every embedded system.

    .venv/bin/python bench/sys_bench.py                      # start-up times + the README tour
    .venv/bin/python bench/sys_bench.py --dialogues 50       # plus the first 50 MultiWOZ test dialogues
    .venv/bin/python bench/sys_bench.py --fresh              # also time a first GGUF conversion (temp cache)

For ``llm`` it reports per dialogue set: turns, fallback rate (a turn falls back when no sentence of the
model's rewrite passes the check), the share of turns whose wording differs from the template, p50/p90 turn
latency and the fallback reasons. Every figure is printed with the machine's load average: other jobs share
these 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()),
              REPO.parent / "shared" / "data")
sys.path.insert(0, str(REPO))

#: the user turns of README.md's 60-second tour, then the issue's follow-ups (written for parley)
TOUR = [
    "I need a cheap restaurant in the north", "italian please", "what's the phone number?",
    "book a table for 3 at 17:30 on friday", "what kind of food do they serve and is it expensive?",
    "I also need a guesthouse in the north with free parking",
    "book it for 3 nights from monday for 2 people", "I need a cheap hotel in the north for 2 people",
    "does it have parking?", "I want a train to cambridge on friday", "arriving by 10:00 please",
    "thanks, that's all. bye",
]


def load_avg() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def startup(spec: str, cache: str | None = None) -> dict:
    """``build_system(spec).load()`` in a fresh process: seconds inside load, and for the whole process."""
    code = ("import time; t0 = time.perf_counter(); from parley.engine.systems import build_system;"
            f"s = build_system({spec!r}); s.load(); print(time.perf_counter() - t0)")
    env = {**os.environ, **({"PARLEY_CACHE": cache} if cache else {})}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True,
                         env=env)
    return {"load_s": round(float(out.stdout.split()[-1]), 2),
            "process_s": round(time.perf_counter() - t0, 2), "load_avg": load_avg()}


def corpus_dialogues(n: int) -> list[list[str]]:
    path = SHARED / "multiwoz" / "convlab3" / "test.json.zip"
    if n <= 0 or not path.is_file():
        return []
    with zipfile.ZipFile(path) as z:
        data = json.loads(z.read(z.namelist()[0]))
    return [[t["text"] for i, t in enumerate(d["log"]) if i % 2 == 0] for _, d in sorted(data.items())[:n]]


def run_dialogue(system, turns: list[str]) -> list[dict]:  # type: ignore[no-untyped-def]
    from parley.engine.types import Message

    system.reset(1)
    history: tuple[Message, ...] = ()
    rows = []
    for text in turns:
        history = (*history, Message("user", text))
        turn = system.respond(history)
        history = (*history, Message("system", turn.text))
        i = turn.internals
        rows.append({"latency_s": turn.latency_ms / 1000, "new": i.get("new_tokens", 0),
                     "fallback": bool(i.get("fallback")), "reworded": bool(i.get("reworded")),
                     "reason": i.get("reason"), "text": turn.text, "template": i.get("template")})
    return rows


def summarise(name: str, rows: list[dict]) -> dict:
    lat = sorted(r["latency_s"] for r in rows)
    reasons: dict[str, int] = {}
    for r in rows:
        for why in (r["reason"] or "").split("; "):
            if why:
                key = why.split(":")[0]
                reasons[key] = reasons.get(key, 0) + 1
    return {"set": name, "turns": len(rows), "fallback_rate": sum(r["fallback"] for r in rows) / len(rows),
            "reworded_rate": sum(r["reworded"] and not r["fallback"] for r in rows) / len(rows),
            "p50_s": statistics.median(lat), "p90_s": lat[int(0.9 * (len(lat) - 1))], "max_s": lat[-1],
            "new_tokens_per_turn": sum(r["new"] for r in rows) / len(rows), "reasons": reasons,
            "load_avg": load_avg()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fresh", action="store_true", help="time a first GGUF conversion in a temp cache")
    ap.add_argument("--dialogues", type=int, default=0, help="MultiWOZ test dialogues to replay (../shared)")
    ap.add_argument("--show", action="store_true", help="print every reply")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "sys.json"))
    args = ap.parse_args()
    result: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(),
                    "load_start": load_avg(), "command": "python " + " ".join(sys.argv)}
    if args.fresh:
        with tempfile.TemporaryDirectory() as tmp:
            result["first_conversion"] = startup("llm", cache=tmp)
    result["startup_warm"] = {spec: startup(spec) for spec in ("multiwoz", "sktod", "llm", "echo")}
    print(json.dumps(result["startup_warm"], indent=1), flush=True)

    from parley.engine.systems import build_system

    system = build_system("llm:seed=1")
    system.load()
    sets = [("README tour", [TOUR])]
    if args.dialogues:
        sets.append((f"MultiWOZ test, first {args.dialogues} dialogues", corpus_dialogues(args.dialogues)))
    result["llm"] = []
    for name, dialogues in sets:
        rows: list[dict] = []
        for turns in dialogues:
            rows += run_dialogue(system, turns)
            print(f"· {name}: {len(rows)} turns, load {load_avg()}", flush=True)
        summary = summarise(name, rows)
        result["llm"].append(summary)
        print(json.dumps(summary), flush=True)
        if args.show:
            for r in rows:
                print(f"  [{'T' if r['fallback'] else 'L'} {r['latency_s']:.1f}s] {r['text']}")
    result["load_end"] = load_avg()
    Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
