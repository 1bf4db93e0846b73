"""The bundled `neural` model: training figures, and seed 000's impolite-users experiment (Table VII).

For each system (`neural`, `multiwoz`) one `parley run` command replays the MultiWOZ test dialogues under
`original` and the six impolite scenarios; its --json output gives Inform/Success/BLEU/Combined with the drop
and paired-bootstrap CIs. JGA (joint goal accuracy against the corpus belief states, both sides normalised as
in engine/systems/mw/dst_eval.py) is computed from the sessions the run stored. Results go to
bench/results/neural.json and bench/results/neural.md, beside the paper's Table VII.

Run: .venv/bin/python bench/neural_bench.py --systems multiwoz [--limit N] [--db-dir DIR] [--workers N]
     .venv/bin/python bench/neural_bench.py --systems neural --batch 16 [--db F.db]   # 16 in lockstep
     .venv/bin/python bench/neural_bench.py --report-only --notes notes.md   # rebuild the markdown
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "multiwoz" / "convlab3" / "test.json.zip"
OUT = ROOT / "bench" / "results" / "neural.json"
CONDITIONS = ["original", *(f"impolite:scenario={n}" for n in range(1, 7))]
#: seed 000, Table VII: (Inform, Success, BLEU, Combined) original / impolite; Combined drop %
PAPER = {
    "DAMD": ((78.2, 57.6, 17.9, 85.8), (72.8, 52.5, 16.0, 78.7), 8.3),
    "LABES": ((75.4, 59.1, 18.1, 85.4), (70.1, 53.0, 16.8, 78.4), 8.2),
    "MinTL": ((75.9, 62.2, 20.1, 89.2), (70.5, 54.9, 17.4, 80.1), 10.2),
    "UBAR": ((85.5, 68.3, 15.1, 92.0), (81.1, 61.7, 12.4, 83.7), 9.0),
    "AuGPT": ((75.6, 56.6, 17.9, 84.0), (72.2, 51.3, 15.9, 77.7), 7.5),
    "PPTOD": ((82.3, 66.1, 18.9, 93.1), (71.1, 52.3, 16.7, 78.4), 15.8),
}
ROW = "| {} | {} | {} | {} | {} | {} | {} | {} | {} |"


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def rewriter_commit() -> str:
    """The last commit that touched the rewriters (the impolite rewriter the run used)."""
    out = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h %cs", "--", "engine/rewrite"],
                         capture_output=True, text=True)
    return out.stdout.strip()


def run_system(system: str, data: Path, db: Path, limit: int | None, workers: int | None,
               batch: int | None = None) -> dict[str, Any]:
    cmd = [str(ROOT / ".venv" / "bin" / "parley"), "run", "--system", system, "--dialogues", str(data),
           *(a for c in CONDITIONS for a in ("--condition", c)), "--json", "--db", str(db), "--seed", "0"]
    cmd += ["--limit", str(limit)] if limit else []
    cmd += ["--workers", str(workers)] if workers else []
    cmd += ["--batch", str(batch)] if batch else []
    shown = " ".join(["parley", *cmd[1:]]).replace(str(data), data.name).replace(str(db), db.name)
    print(f"$ {shown}", file=sys.stderr)
    before, t0, c0 = load(), time.perf_counter(), os.times()
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if proc.returncode != 0:
        raise SystemExit(f"{system}: parley run failed:\n{proc.stderr[-2000:]}")
    c1 = os.times()
    cpu = (c1.children_user + c1.children_system) - (c0.children_user + c0.children_system)
    return {"command": shown, "seconds": time.perf_counter() - t0, "cpu_seconds": cpu, "load_before": before,
            "load_after": load(), "limit": limit, "rewriter": rewriter_commit(),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "result": json.loads(proc.stdout)}


def complete_conditions(db: Path) -> tuple[dict[str, list[str]], dict[str, int], dict[str, Any]]:
    """The unfinished (or finished) `parley run` in ``db``: the session ids, in corpus order, of each
    condition whose dialogues are all stored; how many each condition has stored; the run's parameters."""
    from parley.engine.batch.play import build_chains
    from parley.engine.batch.run import RunParams
    from parley.store import open_store
    from parley.store.runs import done_items, get_run

    store = open_store(db)
    (run_id,) = store.db.execute("SELECT id FROM runs").fetchone()
    run = get_run(store, run_id)
    assert run is not None
    params = RunParams.from_json(run.params)
    names = list(build_chains(params.conditions))
    n = run.total // len(names)
    done = dict(done_items(store, run_id))
    complete, stored = {}, {}
    for ci, name in enumerate(names):
        stored[name] = sum(ci * n + di in done for di in range(n))
        if stored[name] == n:
            complete[name] = [done[ci * n + di] for di in range(n)]
    return complete, stored, {"run": run_id, "params": params}


def partial_run(dbs: list[Path]) -> dict[str, Any]:
    """The result `parley run --json` prints, for the conditions whose dialogues are all stored in one of
    ``dbs`` (the runs of one command whose conditions were split over processes, or an unfinished run);
    ``stored`` counts each run's stored dialogues per condition. Same summary and paired bootstrap."""
    from parley.engine.batch.corpus import stream_corpus
    from parley.engine.batch.tally import ConditionTally, failed_turns
    from parley.engine.scoring.replay import summary
    from parley.engine.scoring.stored import session_turns
    from parley.store import open_store

    found: dict[str, tuple[Path, list[str]]] = {}
    stored: dict[str, dict[str, int]] = {}
    runs, params = [], None
    for db in dbs:
        complete, counts, info = complete_conditions(db)
        stored[db.name] = counts
        runs.append(info["run"])
        params = params or info["params"]
        for name, ids in complete.items():
            found.setdefault(name, (db, ids))
    assert params is not None
    refs = list(stream_corpus(params.dialogues, limit=params.limit))
    rows = []
    for name in [c for c in CONDITIONS if c in found]:
        db, ids = found[name]
        store = open_store(db)
        tally = ConditionTally(name)
        for ref, sid in zip(refs, ids, strict=True):
            turns = store.turns(sid)
            tally.add(ref, session_turns(turns), failed_turns(turns))
        rows.append((name, tally.metrics(), tally.stats(), tally.failed_turns))
    result = {**summary(rows, n_boot=1000, seed=params.seed), "run": ", ".join(runs),
              "stored": stored if len(dbs) > 1 else stored[dbs[0].name],
              "sessions_from": {name: db.name for name, (db, _) in found.items()}}
    return result


def jga_by_condition(db: Path, system: str, data: Path) -> dict[str, dict[str, float]]:
    """JGA and slot F1 per condition of the sessions `parley run` stored for ``system`` on ``data``."""
    from parley.engine.mwdb import load_db
    from parley.engine.scoring.corpus import load_corpus
    from parley.engine.scoring.stored import reference_id, session_turns
    from parley.engine.systems.mw.dst_eval import DstScores, name_mapper, normalise_state
    from parley.store import open_store

    gold = {d.id: d.gold_states for d in load_corpus(data)}
    names = name_mapper(load_db())
    store = open_store(db)
    scores: dict[str, DstScores] = {}
    for rec in store.sessions(mode="batch"):
        path, did = reference_id(rec.source)
        if rec.system_name != system.split(":")[0] or path != str(data.resolve()) or did not in gold:
            continue
        s = scores.setdefault(str((rec.condition or {}).get("name") or "original"), DstScores())
        for turn, g in zip(session_turns(store.turns(rec.id)), gold[did], strict=False):
            s.add(normalise_state(turn.state, names), normalise_state(g, names))
    return {c: {"jga": 100 * s.jga, "slot_f1": 100 * s.f1, "turns": s.turns} for c, s in scores.items()}


def fmt(x: float | None, nd: int = 1) -> str:
    return "–" if x is None else f"{x:.{nd}f}"


def system_md(name: str, run: dict[str, Any], jga: dict[str, dict[str, float]]) -> list[str]:
    head = ["condition", "n", "JGA", "Inform", "Success", "BLEU", "Combined", "Combined drop",
            "Δ Combined 95 % CI"]
    cpu = f", {run['cpu_seconds'] / 60:.0f} min CPU" if run.get("cpu_seconds") is not None else ""
    lines = [f"### {name}", "", f"`{run['command']}`", "",
             f"{run['date']}: {run['seconds'] / 60:.0f} min wall{cpu}; "
             f"load {run['load_before']} → {run['load_after']}; impolite rewriter at {run['rewriter']}.", ""]
    stored = run["result"].get("stored") or {}
    split = run["result"].get("sessions_from") or {}
    if stored and len(run["result"]["conditions"]) < len(CONDITIONS):
        per_db = stored if all(isinstance(v, dict) for v in stored.values()) else {"": stored}
        lines += ["**Unfinished run** (its dialogues stored so far, per condition: "
                  + "; ".join((f"{db}: " if db else "") + ", ".join(f"{c} {k}" for c, k in counts.items())
                              for db, counts in per_db.items())
                  + "); the table holds the conditions whose dialogues are all stored.", ""]
    if len(set(split.values())) > 1:
        lines += ["Conditions split over processes, each condition from one database: "
                  + ", ".join(f"{c} ({db})" for c, db in split.items()) + ".", ""]
    lines += [ROW.format(*head), "|---|" + "---:|" * (len(head) - 1)]
    for cond, r in run["result"]["conditions"].items():
        delta = (r["ci"].get("delta") or {}).get("combined")
        drop = "" if cond == "original" else fmt(r["drop"].get("combined")) + " %"
        lines.append(ROW.format(cond, r["n"], fmt((jga.get(cond) or {}).get("jga")), fmt(r["inform"]),
                                fmt(r["success"]), fmt(r["bleu"]), fmt(r["combined"]), drop,
                                f"{delta[0]:+.1f} to {delta[1]:+.1f}" if delta else ""))
    return [*lines, ""]


def paper_md() -> list[str]:
    lines = ["| model (paper, MultiWOZ 2.2) | Inform | Success | BLEU | Combined | impolite Combined "
             "| drop |", "|---|---:|---:|---:|---:|---:|---:|"]
    for m, (orig, imp, drop) in PAPER.items():
        lines.append(f"| {m} | {orig[0]} | {orig[1]} | {orig[2]} | {orig[3]} | {imp[3]} | {drop} % |")
    return [*lines, ""]


def training_md() -> list[str]:
    path = ROOT / "assets" / "neural" / "manifest.json"
    if not path.exists():
        return ["(no bundled model yet)", ""]
    m = json.loads(path.read_text())
    f, c = m["figures"], m["config"]
    threads = f"{c['threads']} thread{'s' if (c['threads'] or 0) > 1 else ''}{', bf16' if c['bf16'] else ''}"
    return [
        f"Model: GPT-2, {c['layers']} layers × {c['dim']}, {c['heads']} heads, {f['parameters']:,} "
        f"parameters, BPE vocabulary of {c['vocab']} trained here; format `{m['format']}`, context = the "
        "last "
        f"{c['context_turns']} exchanges. Data: `{m['data']['file']}` (SHA-256 {m['data']['sha256'][:12]}…), "
        f"{m['data']['sequences']:,} sequences; {c['dev_dialogues']} dialogues held out for the dev loss. "
        f"Seed {m['seed']}; {m['created']}.", "",
        "| steps | epochs | tokens | train time | tokens/s | train loss | dev loss | device "
        "| load at the end |",
        "|---:|---:|---:|---:|---:|---:|---:|---|---|",
        f"| {m['steps']} | {m['epochs']} | {f['tokens']:,} | {f['train_seconds'] / 60:.0f} min | "
        f"{f['tokens_per_s']:,.0f} | {f['train_loss']} | {f['dev_loss']} | {m['machine']['device']}, "
        f"{threads} | {' / '.join(str(x) for x in m['machine']['load_avg'] or [])} |", "",
        "`parley train tod --data val.json.zip --out assets/neural --layers 4 --dim 256 --heads 4 "
        f"--vocab 4000 --context-turns 3 --epochs {c['epochs']:g} --bf16 "
        f"--dev-dialogues {c['dev_dialogues']} "
        f"--threads {c['threads']} --max-minutes {c['max_minutes']:g}` (every option is in the manifest)", ""]


def write_md(figures: dict[str, Any], notes: str) -> None:
    lines = ["# The bundled neural model and the impolite-users experiment", "",
             "Machine: 2-core x86_64 CPU, no GPU, shared with other jobs (loads below).", "",
             "## Training", "", *training_md(), "## Seed 000, Table VII, run here", "",
             f"Dialogues: the MultiWOZ test split, `{figures.get('data', DATA.name)}`, in file order.", ""]
    for name, run in figures["systems"].items():
        lines += system_md(name, run, figures["jga"].get(name, {}))
    lines += ["### The paper (seed 000, Table VII)", "", *paper_md(), notes, ""]
    (ROOT / "bench" / "results" / "neural.md").write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=None, help="replay only the first N test dialogues")
    ap.add_argument("--systems", default="neural,multiwoz")
    ap.add_argument("--name", default=None, help="key of the result (default: the system spec)")
    ap.add_argument("--db-dir", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")),
                    help="folder for the run databases (a new one per run)")
    ap.add_argument("--workers", type=int, default=None, help="passed to parley run when it supports it")
    ap.add_argument("--batch", type=int, default=None, help="passed to parley run (hf-causal systems)")
    ap.add_argument("--db", type=Path, action="append", default=None,
                    help="the run database (default: a new one in --db-dir); an unfinished run of the same "
                    "command in it continues. --partial: repeatable, for one command's conditions split "
                    "over several processes (each condition is taken from the database that has it whole)")
    ap.add_argument("--command", default=None, help="--partial: the command(s) as run, for the report")
    ap.add_argument("--partial", action="store_true",
                    help="score the unfinished run in --db instead of running (with --seconds, --command)")
    ap.add_argument("--seconds", type=float, default=None, help="--partial: the wall time the run took")
    ap.add_argument("--load", default="", help="--partial: 'LOAD BEFORE -> LOAD AFTER' as measured")
    ap.add_argument("--rewriter", default=None, help="--partial: the rewriters' commit the run used")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--notes", type=Path, default=None, help="markdown appended after the tables")
    args = ap.parse_args()
    notes = args.notes.read_text(encoding="utf-8") if args.notes else ""
    figures: dict[str, Any] = json.loads(OUT.read_text()) if OUT.exists() else {"systems": {}, "jga": {}}
    if not args.report_only:
        figures["data"] = args.data.name
        for system in args.systems.split(","):
            key = args.name or system
            dbs = args.db or []
            if args.partial:
                before, _, after = args.load.partition("->")
                cmd = ["parley", "run", "--system", system, "--dialogues", args.data.name,
                       *(a for c in CONDITIONS for a in ("--condition", c)), "--json", "--db", dbs[0].name,
                       "--seed", "0", *(["--batch", str(args.batch)] if args.batch else [])]
                figures["systems"][key] = {
                    "command": args.command or " ".join(cmd), "seconds": args.seconds, "cpu_seconds": None,
                    "load_before": before.strip(), "load_after": after.strip(), "limit": None,
                    "rewriter": args.rewriter or rewriter_commit(),
                    "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                    "result": partial_run(dbs)}
                jga: dict[str, dict[str, float]] = {}
                for db in dbs:
                    for cond, fig in jga_by_condition(db, system, args.data).items():
                        if figures["systems"][key]["result"]["sessions_from"].get(cond) == db.name:
                            jga[cond] = fig
                figures["jga"][key] = jga
                OUT.write_text(json.dumps(figures, indent=1), encoding="utf-8")
                continue
            fresh = args.db_dir / f"neural-bench-{key.replace(':', '_')}-{int(time.time())}.db"
            db = dbs[0] if dbs else fresh
            figures["systems"][key] = run_system(system, args.data, db, args.limit, args.workers, args.batch)
            figures["jga"][key] = jga_by_condition(db, system, args.data)
            OUT.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    write_md(figures, notes)


if __name__ == "__main__":
    main()
