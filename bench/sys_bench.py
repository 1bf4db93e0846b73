"""Benchmark of the model-backed systems: ``llm`` per model offered (start-up, turn latency, reworded share,
fallback share, replies the rule check finds ungrammatical), and the start-up time of every embedded system.

    .venv/bin/python bench/sys_bench.py                         # start-up times + the README tour
    .venv/bin/python bench/sys_bench.py --dialogues 50          # plus `parley run` on 50 test dialogues
    .venv/bin/python bench/sys_bench.py --models smollm2 --fresh  # one model; first start in a temp cache

For each model: start-up (``build_system(spec).load()`` in a fresh process, warm cache), then the README tour
(12 user turns, in this process) and, with ``--dialogues N``, ``parley run --system llm:model=M --limit N`` on
the ConvLab-3 MultiWOZ test dialogues (read back from the run's database). Per set: turns, **reworded** (the
text shown differs from the template), **fallback** (the template's words kept for at least one sentence the
model spoiled), sentences reworded / to reword, p50/p90 turn latency, new tokens per turn, threads, the
reasons, and **ungrammatical** shown replies as :mod:`engine.systems.llm_reword` judges them (model-worded and
template-worded counted apart), and **wrong facts** per 1,000 replies by the fact audit
(:mod:`engine.scoring.facts`, which reads the shown text against the MultiWOZ databases and the dialogue so
far: a second check that uses neither the generating model nor the rule check). ``--show`` prints every
reworded reply beside its template (for reading).
Every figure is printed with the machine's load average: other jobs share these 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parley.engine.scoring.facts import AuditTurn

REPO = Path(__file__).resolve().parents[1]
SHARED = next((p / "shared" / "data" for p in REPO.parents if (p / "shared" / "data").is_dir()),
              REPO.parent / "shared" / "data")
TEST_ZIP = SHARED / "multiwoz" / "convlab3" / "test.json.zip"
sys.path.insert(0, str(REPO))

#: the user turns of README.md's 60-second tour, then follow-ups (written for parley)
TOUR = [
    "I need a cheap restaurant in the north", "italian please", "what's the phone number?",
    "book a table for 3 at 17:30 on friday", "what kind of food do they serve and is it expensive?",
    "I also need a guesthouse in the north with free parking",
    "book it for 3 nights from monday for 2 people", "I need a cheap hotel in the north for 2 people",
    "does it have parking?", "I want a train to cambridge on friday", "arriving by 10:00 please",
    "thanks, that's all. bye",
]
MODELS = ("qwen2.5-coder-0.5b", "smollm2")


def rel(arg: str | Path) -> str:
    """An argument as the raw figures keep it: a path relative to the repository (the data sets sit beside
    it, ``../shared/data/...``), anything else as it is; no machine's own paths in the results."""
    return os.path.relpath(arg, REPO) if os.path.isabs(arg) else str(arg)


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


def judge(internals: dict, text: str) -> dict:
    """One shown reply as the benchmark counts it."""
    from parley.engine.systems.llm_reword import for_grammar, grammar_problems, role_problems

    delex, values = internals.get("delex_reply") or text, internals.get("values") or {}
    problems = grammar_problems(for_grammar(delex, values)) + role_problems(delex, values)
    done, total = (int(x) for x in str(internals.get("rewritten", "0/0")).split("/"))
    return {"reworded": bool(internals.get("reworded")), "fallback": bool(internals.get("fallback")),
            "done": done, "total": total, "reason": internals.get("reason"), "problems": problems,
            "new": internals.get("new_tokens", 0), "threads": internals.get("threads"), "text": text,
            "template": internals.get("template")}


def tour(spec: str) -> list[dict]:
    """The README tour; each row keeps its exchange for the fact audit (``audit``)."""
    from parley.engine.scoring.facts import AuditTurn
    from parley.engine.systems import build_system
    from parley.engine.types import Message

    system = build_system(spec)
    system.load()
    history: tuple[Message, ...] = ()
    rows = []
    for text in TOUR:
        history = (*history, Message("user", text))
        turn = system.respond(history)
        history = (*history, Message("system", turn.text))
        rows.append({"latency_s": turn.latency_ms / 1000, **judge(turn.internals, turn.text),
                     "audit": AuditTurn(text, turn.text, turn.state, turn.acts, turn.internals)})
    return rows


def facts(dialogues: list[list[AuditTurn]]) -> dict:
    """The fact audit of the shown replies: wrong facts per 1,000 replies, and the findings."""
    from parley.engine.scoring.facts import Auditor, Report

    audit, total = Auditor(), Report()
    for i, turns in enumerate(dialogues):
        total.add(audit.dialogue(turns, name=str(i)))
    out = total.to_json()
    out["findings"] = out["findings"][:10]
    return out


def corpus_run(spec: str, n: int, timeout: float) -> tuple[list[dict], dict, str, dict]:
    """``parley run`` on the first ``n`` test dialogues; the system turns read back from its database, and the
    fact audit of its replies."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "run.db"
        cmd = [str(Path(sys.executable).with_name("parley")), "--db", str(db), "run", "--system", spec,
               "--dialogues", rel(TEST_ZIP), "--limit", str(n), "--bootstrap", "0", "--json",
               "--tester", "bench"]
        out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
        if out.returncode:
            raise SystemExit(f"parley run failed: {out.stderr.strip()[-500:]}")
        scores = json.loads(out.stdout)
        audit = audit_store(db)
        with sqlite3.connect(db) as conn:
            turns = conn.execute("SELECT text, internals, latency_ms FROM turns WHERE role = 'system' "
                                 "AND status = 'ok' ORDER BY session_id, \"index\"").fetchall()
    # a stored system turn's internals column holds the whole reply (state, acts, internals)
    rows = [{"latency_s": (lat or 0) / 1000, **judge(json.loads(i).get("internals") or {}, t)}
            for t, i, lat in turns]
    return rows, scores, " ".join(["parley", *cmd[1:2], "<tmp.db>", *cmd[3:]]), audit


def audit_store(db: Path) -> dict:
    from parley.engine.scoring.facts import turns_from_store
    from parley.store.db import open_store

    store = open_store(db, readonly=True)
    return facts([turns_from_store(store.turns(s.id)) for s in store.sessions()])


def summarise(name: str, rows: list[dict]) -> dict:
    lat = sorted(r["latency_s"] for r in rows)
    reasons: dict[str, int] = {}
    for r in rows:
        for why in (r["reason"] or "").split("; "):
            if why:
                key = why.split(":")[0] if not why.startswith("the whole reply") else why.split(":")[0:2][-1]
                reasons[key.strip()] = reasons.get(key.strip(), 0) + 1
    worded = [r for r in rows if r["reworded"]]
    return {"set": name, "turns": len(rows), "reworded_rate": len(worded) / len(rows),
            "fallback_rate": sum(r["fallback"] for r in rows) / len(rows),
            "sentences": f"{sum(r['done'] for r in rows)}/{sum(r['total'] for r in rows)}",
            "ungrammatical_reworded": sum(bool(r["problems"]) for r in worded),
            "ungrammatical_template": sum(bool(r["problems"]) for r in rows if not r["reworded"]),
            "problems": sorted({p for r in rows for p in r["problems"]})[:10],
            "p50_s": round(statistics.median(lat), 2), "p90_s": round(lat[int(0.9 * (len(lat) - 1))], 2),
            "max_s": round(lat[-1], 2),
            "new_tokens_per_turn": round(sum(r["new"] for r in rows) / len(rows), 1),
            "threads": sorted({r["threads"] for r in rows if r["threads"]}), "reasons": reasons,
            "load_avg": load_avg()}


def show(rows: list[dict]) -> None:
    for r in rows:
        if r["reworded"]:
            print(f"  {'!' if r['problems'] else ' '} T: {r['template']}\n    S: {r['text']}")
            if r["problems"]:
                print(f"    ? {r['problems']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated llm models to measure")
    ap.add_argument("--fresh", action="store_true", help="also time a first start (join) in a temp cache")
    ap.add_argument("--dialogues", type=int, default=0, help="`parley run` on N MultiWOZ test dialogues")
    ap.add_argument("--extra", default="", help="more llm parameters, e.g. threads=2")
    ap.add_argument("--timeout", type=float, default=7200, help="seconds allowed for each `parley run`")
    ap.add_argument("--show", action="store_true", help="print every reworded reply beside its template")
    ap.add_argument("--no-others", action="store_true", help="skip the start-up of the other systems")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "llm.json"))
    args = ap.parse_args()
    result: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpus": os.cpu_count(),
                    "load_start": load_avg(), "command": "python " + " ".join(map(rel, sys.argv)), "llm": {}}
    if not args.no_others:
        result["startup_warm"] = {spec: startup(spec) for spec in ("multiwoz", "sktod", "echo")}
        print(json.dumps(result["startup_warm"]), flush=True)
    for model in args.models.split(","):
        spec = f"llm:model={model}" + (f",{args.extra}" if args.extra else "")
        entry: dict = {"spec": spec}
        if args.fresh:
            with tempfile.TemporaryDirectory() as tmp:
                entry["first_start"] = startup(spec, cache=tmp)
        startup(spec)  # the joined file checked once, the page cache warm
        entry["startup_warm"] = [startup(spec) for _ in range(3)]
        print(model, json.dumps(entry), flush=True)
        rows = tour(f"{spec},seed=1,clock=2026-11-26")
        entry["tour"] = {**summarise("README tour", rows), "facts": facts([[r.pop("audit") for r in rows]])}
        print(json.dumps(entry["tour"]), flush=True)
        if args.show:
            show(rows)
        result["llm"][model] = entry
        Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")  # kept if a later run stops
        if args.dialogues and TEST_ZIP.is_file():
            try:
                rows, scores, command, audit = corpus_run(spec, args.dialogues, args.timeout)
            except subprocess.TimeoutExpired:
                entry["corpus"] = f"not measured: `parley run` took over {args.timeout:.0f} s"
                print(entry["corpus"], flush=True)
                continue
            entry["corpus"] = {**summarise(f"MultiWOZ test, first {args.dialogues}", rows), "facts": audit,
                               "command": command, "scores": scores.get("conditions", scores)}
            print(json.dumps(entry["corpus"]), flush=True)
            if args.show:
                show(rows)
    result["load_end"] = load_avg()
    Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
