"""Fact audit of the embedded ``multiwoz`` system: wrong facts per 1,000 replies (engine/scoring/facts.py).

Two sets of dialogues, each reply audited with its turn's internals:

- the MultiWOZ test dialogues replayed by ``parley run`` (a run database given with ``--db``, or a new run
  into a temporary one: ``parley run --system multiwoz --dialogues DATA --workers N --json --new``, whose
  Inform / Success / BLEU are printed too);
- parley's own scripts (``tests/unit/scripts/*.txt``, the cross-domain ``facts_*.txt`` among them) through
  ``parley chat --script --json`` with ``multiwoz:clock=2026-11-26`` and seed 1.

Usage: .venv/bin/python bench/mw_facts.py [--db RUN.db] [--data FILE] [--workers N] [--limit N]
       [--scripts-only] [--show N] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = next((p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
              ROOT.parent / "shared" / "data")
DATA = SHARED / "multiwoz" / "convlab3" / "test.json.zip"
SCRIPTS = ROOT / "tests" / "unit" / "scripts"
#: the checkout's own parley (run from its folder), whichever virtualenv runs this script
PARLEY = [sys.executable, "-m", "parley"]
SYSTEM = "multiwoz:clock=2026-11-26"


def replay(data: Path, workers: int, limit: int, db: Path) -> dict:
    """``parley run`` into ``db``; its scores."""
    cmd = [*PARLEY, "run", "--system", "multiwoz", "--dialogues", str(data), "--workers", str(workers),
           "--db", str(db), "--json", "--new", *(["--limit", str(limit)] if limit else [])]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return json.loads(out)["conditions"]["original"]


def audit_run(db: Path) -> dict:
    from parley.engine.scoring.facts import Auditor, Report, turns_from_store
    from parley.store.db import open_store

    store = open_store(db, readonly=True)
    audit, total = Auditor(), Report()
    for s in store.sessions():
        name = (s.source or s.id).rpartition("#")[2]
        total.add(audit.dialogue(turns_from_store(store.turns(s.id)), name=name))
    return total.to_json()


def audit_scripts(db: Path) -> dict:
    from parley.engine.scoring.facts import Auditor, Report, turns_from_json

    audit, total = Auditor(), Report()
    for path in sorted(SCRIPTS.glob("*.txt")):
        if path.name.startswith("sktod"):
            continue
        cmd = [*PARLEY, "chat", "--system", SYSTEM, "--script", str(path), "--json", "--db", str(db),
               "--seed", "1"]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
        lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
        total.add(audit.dialogue(turns_from_json(lines), name=path.name))
    return total.to_json()


def show(name: str, r: dict, n: int) -> None:
    print(f"[{name}] {r['replies']} replies, {r['facts']} facts checked, {r['wrong']} wrong: "
          f"{r['wrong_per_1000_replies']:.2f} per 1,000 replies {r['by_kind'] or ''}")
    for f in r["findings"][:n]:
        print(f"   {f['dialogue']} turn {f['turn']}: {f['kind']}: said {f['said'][:90]!r}, "
              f"true: {f['truth'][:90]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", type=Path, help="audit the sessions of this run database instead of a new run")
    ap.add_argument("--data", type=Path, default=DATA, help="MultiWOZ dialogues to replay (default: test)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="replay only the first N dialogues")
    ap.add_argument("--scripts-only", action="store_true", help="audit parley's scripts only")
    ap.add_argument("--show", type=int, default=10, help="print the first N wrong facts of each set")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.scripts_only:
            db = args.db
            if db is None:
                if not args.data.exists():
                    sys.exit(f"missing {args.data}")
                db = Path(tmp) / "run.db"
                t0 = time.perf_counter()
                results["scores"] = replay(args.data, args.workers, args.limit, db)
                results["replay_seconds"] = round(time.perf_counter() - t0, 1)
            results["replay"] = audit_run(db)
        results["scripts"] = audit_scripts(Path(tmp) / "scripts.db")
    if args.json:
        print(json.dumps(results, indent=2))
        return
    if "scores" in results:
        s = results["scores"]
        print(f"replay: Inform {s['inform']} / Success {s['success']} / BLEU {s['bleu']} "
              f"({results['replay_seconds']} s)")
    for name in ("replay", "scripts"):
        if name in results:
            show(name, results[name], args.show)


if __name__ == "__main__":
    main()
