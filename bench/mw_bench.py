"""Benchmark of the embedded ``multiwoz`` system on the 1,000 MultiWOZ test dialogues.

Measures turn latency (p50/p95 of ``respond``) and DST quality (joint goal accuracy, slot P/R/F1) against the
gold belief states, in two settings:

- ``own``: the tracker ignores the corpus's system turns and relies on its own decisions (what a live session
  does); it cannot know which venue the corpus's wizard offered, so accepted offers ("yes, book it") miss the
  name.
- ``read``: the tracker also reads the corpus's system turns (offered names, asked slots) — the usual DST
  setting.

JGA is reported twice on the same predictions: under parley's own normalisation (``dst_eval``: names matched
to their DB spelling, times ``HH:MM``) and under TRADE's (``dst_trade``: the five domains TRADE evaluated,
TRADE's label fixes, values compared as strings), which published trackers report and which reads lower. JGA
is a tracked figure, not a goal.

Beside JGA over all turns it reports JGA over the turns whose gold state names no venue the user has not
said (fuzzy match against the user's turns so far): the other turns hold the venue the corpus's wizard picked,
which a live tracker cannot know, so in the ``own`` setting they are right only by chance. It also counts the
turns where the system raised inside and answered with its apology (there should be none).

``--noise R`` feeds sloppy user text instead (lower-case, no punctuation, a typo in a share R of the words),
as the rewriters and ASR would.

``--chain SPEC`` passes every user turn through parley's user-side rewriters first (impolite, disfluency, wp,
asr-sim) to measure how much each costs the tracker.

Usage: .venv/bin/python bench/mw_bench.py [--limit N] [--errors N] [--mode own|read|both] [--noise R]
       [--chain SPEC ...] [--data FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
#: ../shared/data beside the checkout (or beside a folder further up, e.g. beside the folder of git worktrees)
SHARED = next((p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
              ROOT.parent / "shared" / "data")
DATA = SHARED / "multiwoz" / "convlab3" / "test.json.zip"


def sloppy(text: str, rate: float, rng: random.Random) -> str:
    """Lower-case, no punctuation, and a typo (drop/swap/double a letter) in ``rate`` of the longer words."""
    words = re.sub(r"[^\w\s:']", " ", text.lower()).split()
    out = []
    for w in words:
        if len(w) > 3 and not any(c.isdigit() for c in w) and rng.random() < rate:
            i = rng.randrange(1, len(w) - 1)
            op = rng.choice(("drop", "swap", "double"))
            w = (w[:i] + w[i + 1:] if op == "drop" else w[:i] + w[i + 1] + w[i] + w[i + 2:] if op == "swap"
                 else w[:i] + w[i] + w[i:])
        out.append(w)
    return " ".join(out)


def run(mode: str, dialogues: dict, show_errors: int, slot_filter: str = "", noise: float = -1.0,
        chain_specs: tuple[str, ...] = ()) -> dict:
    from rapidfuzz import fuzz

    from parley.engine.mwdb import load_db
    from parley.engine.systems.multiwoz import MultiwozSystem
    from parley.engine.systems.mw.dst_eval import (
        DstScores,
        gold_state,
        iter_turns,
        name_mapper,
        normalise_state,
    )
    from parley.engine.systems.mw.dst_trade import TradeScores
    from parley.engine.types import Message
    from parley.text import fold

    db = load_db()
    names = name_mapper(db)
    scores = DstScores()
    trade = TradeScores()  # the same predictions under TRADE's normalisation
    said_scores = DstScores()  # turns whose gold names only venues the user has said themselves
    latencies: list[float] = []
    crashed: list[str] = []
    bot = MultiwozSystem(seed=0, read_system=(mode == "read"), clock=None)  # the corpus has no dates
    bot.load()
    shown = 0
    rng = random.Random(0)
    chain = None
    if chain_specs:
        from parley.engine.rewrite.chain import Chain

        chain = Chain(chain_specs)
    for did, dia in dialogues.items():
        history: list[Message] = []
        said = ""
        replaced: dict[tuple[str, str], str] = {}
        for _, user, prev, meta in iter_turns(dia):
            if prev is not None:
                history.append(Message("system", prev))
            text = sloppy(user, noise, rng) if noise >= 0 else user
            if chain is not None:
                res = chain.apply(text, seed=0, turn_index=len(history) // 2, history=tuple(history))
                text = res.after
                for step in res.steps:  # values a rewriter replaced on purpose are the user's values now
                    for ch in step.changes:
                        if ch.get("kind") == "replace" and ch.get("slot"):
                            replaced[(ch["slot"], str(ch["before"]).lower())] = str(ch["after"]).lower()
            history.append(Message("user", text))
            t0 = time.perf_counter()
            turn = bot.respond(tuple(history))
            latencies.append((time.perf_counter() - t0) * 1000)
            if "error" in turn.internals:  # the system caught its own exception and said sorry
                crashed.append(f"{did} turn {len(history) // 2}: {turn.internals['error']}")
            pred = normalise_state(turn.state, names)
            gold = gold_state(meta, names)
            if replaced:
                gold = normalise_state({d: {k: replaced.get((k, v), v) for k, v in slots.items()}
                                        for d, slots in gold.items()}, names)
            ok = scores.add(pred, gold)
            trade.add(turn.state, meta)
            said += " " + fold(user)
            if all(fuzz.partial_ratio(v.removeprefix("the "), said) >= 85
                   for d, slots in gold.items() for k, v in slots.items() if k == "name"):
                said_scores.add(pred, gold)
            if not ok and shown < show_errors:
                p = {(d, s, v) for d, x in pred.items() for s, v in x.items()}
                g = {(d, s, v) for d, x in gold.items() for s, v in x.items()}
                if slot_filter and not any(f"{d}-{s}" == slot_filter for d, s, _ in p ^ g):
                    continue
                shown += 1
                print(f"--- {did} turn {len(history) // 2}")
                if prev:
                    print(f"  SYS: {prev}")
                print(f"  USR: {user}")
                if history[-1].text != user:
                    print(f"  SAW: {history[-1].text}")
                print(f"  missing: {sorted(g - p)}")
                print(f"  extra:   {sorted(p - g)}")
    lat = sorted(latencies)
    return {
        "mode": mode + (f"+noise{noise:g}" if noise >= 0 else "") + "".join(f"+{c}" for c in chain_specs),
        **scores.to_json(),
        "jga_trade": trade.jga,
        "said_names": {"turns": said_scores.turns, "jga": said_scores.jga},
        "latency_ms": {"p50": statistics.median(lat), "p95": lat[int(0.95 * (len(lat) - 1))], "max": lat[-1],
                       "mean": statistics.fmean(lat)},
        "worst_slots": sorted(scores.errors.items(), key=lambda kv: -kv[1])[:15],
        "crashed_turns": crashed,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=0, help="only the first N dialogues")
    ap.add_argument("--errors", type=int, default=0, help="print the first N wrong turns")
    ap.add_argument("--mode", choices=("own", "read", "both"), default="both")
    ap.add_argument("--slot", default="", help="with --errors: only turns where this domain-slot is wrong")
    ap.add_argument("--noise", type=float, default=-1.0,
                    help="lower-case, strip punctuation and misspell this share of words (0 = only the first "
                         "two)")
    ap.add_argument("--chain", action="append", default=[], metavar="SPEC",
                    help="apply this user-side rewriter first (repeatable, e.g. --chain disfluency --chain "
                         "asr-sim)")
    ap.add_argument("--data", type=Path, default=DATA,
                    help="MultiWOZ dialogues (default: ConvLab-3 test; develop on val.json.zip, never on "
                         "test)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.data.exists():
        sys.exit(f"missing {args.data}")
    from parley.engine.systems.mw.dst_eval import load_multiwoz

    dialogues = load_multiwoz(args.data)
    if args.limit:
        dialogues = dict(list(dialogues.items())[: args.limit])
    modes = ("own", "read") if args.mode == "both" else (args.mode,)
    results = [run(m, dialogues, args.errors, args.slot, args.noise, tuple(args.chain)) for m in modes]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    n = sum(1 for d in dialogues.values() for _ in range(0, len(d["log"]) - 1, 2))
    print(f"{len(dialogues)} dialogues, {n} user turns")
    for r in results:
        lat = r["latency_ms"]
        print(f"[{r['mode']}] JGA {r['jga']:.4f} (TRADE's normalisation: {r['jga_trade']:.4f})  "
              f"slot P {r['slot_precision']:.4f} R {r['slot_recall']:.4f} "
              f"F1 {r['slot_f1']:.4f}  latency p50 {lat['p50']:.2f} ms p95 {lat['p95']:.2f} ms "
              f"max {lat['max']:.1f} ms")
        sn = r["said_names"]
        print(f"   JGA on the {sn['turns']} turns whose gold names no venue the user did not say "
              f"(the others hold the corpus wizard's pick): {sn['jga']:.4f}")
        print("   most errors:", ", ".join(f"{k} {v}" for k, v in r["worst_slots"]))
        print(f"   turns where the system raised (and apologised): {len(r['crashed_turns'])}")
        for line in r["crashed_turns"][:10]:
            print("     ", line)


if __name__ == "__main__":
    main()
