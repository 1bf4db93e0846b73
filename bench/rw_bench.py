"""Benchmark of the user-side rewriters.

1. LAUG change rates (characters, words, slot values) of disfluency, wp and asr-sim on the MultiWOZ test user
   turns, next to LAUG Table 7; throughput of every rule rewriter and of the span detector;
2. disfluency boundaries: utterances where a filler, repeat or restart broke a number, a name, a slot value or
   a requested attribute (goal 0);
3. impoliteness per scenario and intensity on polite requests written for parley
   (``tests/polite_requests.py``): courtesy-free share, slot + request preservation, whole sentences, ACC
   (parley's politeness scorer, not the paper's classifier), BLEU to the original, median perplexity ratio
   rewrite/original under SmolLM2-135M-Instruct (goal ≤ 1.5), throughput (goal ≥ 2,000 utt/s); the same
   figures but PPL on the MultiWOZ test user turns.

    PARLEY_SHARED_DATA=../shared/data .venv/bin/python bench/rw_bench.py \\
        [--n-polite 300] [--n-ppl 100] [--ppl-intensities 2] [--no-ppl]
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from rw_common import TEST_ZIP, user_turns  # noqa: E402

from parley.engine.rewrite import build_rewriter  # noqa: E402
from parley.engine.rewrite.base import RewriteContext, step_seed  # noqa: E402
from parley.engine.rewrite.courtesy import is_fragment, markers, sentences  # noqa: E402
from parley.engine.rewrite.metrics import accuracy_impolite, bleu, change_rates, ppl_ratios  # noqa: E402
from parley.engine.spans import find_requests, find_spans  # noqa: E402
from parley.engine.types import Message  # noqa: E402
from tests.polite_requests import generate, speech_units  # noqa: E402

LAUG = {"wp": (17.9, 16.0, 36.3), "asr-sim": (7.9, 14.5, 40.8), "disfluency": (22.7, 30.4, 0.4)}


def contexts(texts: list[str], name: str, hists: list[list[str]] | None = None) -> list[tuple[Any, ...]]:
    out = []
    for i, text in enumerate(texts):
        s = step_seed(0, i, name)
        h = tuple(Message("user" if k % 2 == 0 else "system", x)
                  for k, x in enumerate(hists[i] if hists else ()))
        out.append((text, s, find_spans(text), h))
    return out


CPU: dict[str, float] = {}  # spec → CPU seconds of its last run (throughput that other jobs on the machine
# do not distort: the wall-clock figure is only a floor on a shared, loaded machine)


def run(spec: str, ctxs: list[tuple[Any, ...]]) -> tuple[list[str], float]:
    rw = build_rewriter(spec)
    rw.rewrite(*_ctx(ctxs[0]))  # warm-up: lexicons, CMU dictionary, VADER
    t0, c0 = time.perf_counter(), time.process_time()
    outs = [rw.rewrite(*_ctx(c)).after for c in ctxs]
    CPU[spec] = time.process_time() - c0
    return outs, time.perf_counter() - t0


def _ctx(c: tuple[Any, ...]) -> tuple[str, RewriteContext]:
    t, s, sp, h = c
    return t, RewriteContext(rng=random.Random(s), seed=s, spans=sp, history=h)


def _kept(before: str, after: str, values: tuple[str, ...] = (), attrs: tuple[str, ...] = ()) -> bool:
    vals = values or tuple(s.value for s in find_spans(before))
    ats = attrs or tuple(s.value for s in find_requests(before))
    low = after.lower()
    return all(v.lower() in low for v in (*vals, *ats))


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def impolite_figures(befores: list[str], afters: list[str], kept: list[bool]) -> dict[str, Any]:
    n = len(afters)
    return {"courtesy_free": round(100 * sum(not markers(a) for a in afters) / n, 1),
            "preserved": round(100 * sum(kept) / n, 1),
            "whole": round(100 * sum(not any(is_fragment(s) for s in sentences(a)) for a in afters) / n, 1),
            "acc": round(accuracy_impolite(afters), 1), "bleu": round(bleu(afters, befores), 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-polite", type=int, default=300, help="generated polite requests")
    ap.add_argument("--n-ppl", type=int, default=50, help="of these, how many get a perplexity ratio")
    ap.add_argument("--ppl-intensities", default="2", help="intensities whose rewrites get a PPL ratio (e.g. "
                                                           "1,2,3)")
    ap.add_argument("--no-ppl", action="store_true")
    ap.add_argument("--multiwoz-intensities", default="2", help="intensities also run on the MultiWOZ turns")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "rw.json"))
    ap.add_argument("--parts", default="rates,boundaries,impolite",
                    help="what to measure; parts not measured keep their figures from an existing --out file")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    if not TEST_ZIP.is_file():
        sys.exit(f"missing {TEST_ZIP} (set PARLEY_SHARED_DATA)")
    turns = user_turns()
    originals = [t for t, _, _ in turns]
    values = [v for _, v, _ in turns]
    out_path = Path(args.out)
    every = {"rates", "boundaries", "impolite"}
    result: dict[str, Any] = json.loads(out_path.read_text()) if out_path.is_file() and parts != every else {}
    if "date" in result and "runs" not in result:  # written by a run before runs were recorded
        result["runs"] = [{"parts": sorted(every), "date": result["date"], "load_start": result["load_start"],
                           "load_end": result.get("load_end", 0)}]
    result.update({"n_turns": len(turns), "machine": f"{platform.machine()}, {os.cpu_count()} cores"})
    result.setdefault("runs", []).append({"parts": sorted(parts), "load_start": round(os.getloadavg()[0], 1),
                                          "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
    result["date"], result["load_start"] = result["runs"][0]["date"], result["runs"][0]["load_start"]

    from parley.engine.spans import _default_db, _find, _spoken_time, _vocab  # noqa: PLC0415

    vocab = _vocab(_default_db())
    t0, c0 = time.perf_counter(), time.process_time()
    for t in originals:
        _find(t, vocab, True)
    result["spans_utt_per_s"] = round(len(originals) / (time.perf_counter() - t0))
    result["spans_utt_per_cpu_s"] = round(len(originals) / (time.process_time() - c0))

    # 1. change rates and throughput on MultiWOZ
    for key in ("change_rates", "throughput", "throughput_cpu"):
        result.setdefault(key, {})
    for spec in ("disfluency", "wp", "asr-sim", "impolite") if "rates" in parts else ():
        outs, dt = run(spec, contexts(originals, spec, [h for _, _, h in turns]))
        rates = change_rates(zip(originals, outs, strict=True), values)
        result["change_rates"][spec] = {k: round(100 * v, 1) for k, v in rates.to_json().items()}
        result["throughput"][spec] = round(len(outs) / dt)
        result["throughput_cpu"][spec] = round(len(outs) / CPU[spec])
        print(spec, result["change_rates"][spec], result["throughput"][spec], "utt/s",
              result["throughput_cpu"][spec], "utt/CPU-s", flush=True)

    # 2. disfluency boundaries, on generated requests and MultiWOZ
    rng = random.Random(0)
    polite = [generate(rng) for _ in range(args.n_polite)]
    ptexts = [r.text for r in polite]
    spoken = _spoken_time()[0]
    result["spoken_time_turns"] = {  # texts holding a spoken-time span ("half past six")
        name: sum(any(spoken.fullmatch(s.value) for s in find_spans(t)) for t in texts)
        for name, texts in (("generated", ptexts), ("multiwoz", originals))}
    broken = result.get("disfluency_broken_units", {})
    for name, texts in (("generated", ptexts), ("multiwoz", originals)) if "boundaries" in parts else ():
        heavy = "disfluency:rate=0.5,repeat_share=0.5,restart=0.5,repair=0"
        outs, _ = run(heavy, contexts(texts, "disfluency"))
        broken[name] = sum(any(_norm(u) not in _norm(o) for u in speech_units(t))
                           for t, o in zip(texts, outs, strict=True))
    result["disfluency_broken_units"] = broken
    print("disfluency broken units", broken, flush=True)

    # 3. impoliteness
    model = tok = None
    if not args.no_ppl and "impolite" in parts:
        from parley.engine.smollm import load_default_llm

        model, tok = load_default_llm()
    result["courtesy_in_originals"] = {
        "generated": round(100 * sum(bool(markers(t)) for t in ptexts) / len(ptexts), 1),
        "multiwoz": round(100 * sum(bool(markers(t)) for t in originals) / len(originals), 1)}
    result.setdefault("impolite", {})
    for intensity in (1, 2, 3) if "impolite" in parts else ():
        for scenario in range(1, 7):
            spec = f"impolite:scenario={scenario},intensity={intensity}"
            outs, dt = run(spec, contexts(ptexts, "impolite"))
            kept = [_kept(r.text, o, r.values, r.attrs) for r, o in zip(polite, outs, strict=True)]
            row: dict[str, Any] = {"generated": impolite_figures(ptexts, outs, kept)}
            row["generated"]["utt_per_s"] = round(len(outs) / dt)
            row["generated"]["utt_per_cpu_s"] = round(len(outs) / CPU[spec])
            if model is not None and str(intensity) in args.ppl_intensities.split(","):
                ratios = ppl_ratios(ptexts[:args.n_ppl], outs[:args.n_ppl], model, tok)
                row["generated"]["ppl_ratio_median"] = round(statistics.median(ratios), 3)
                row["generated"]["ppl_ratio_p90"] = round(statistics.quantiles(ratios, n=10)[-1], 3)
            if str(intensity) in args.multiwoz_intensities.split(","):
                mouts, mdt = run(spec, contexts(originals, "impolite", [h for _, _, h in turns]))
                mkept = [_kept(b, a) for b, a in zip(originals, mouts, strict=True)]
                row["multiwoz"] = impolite_figures(originals, mouts, mkept)
                row["multiwoz"]["utt_per_s"] = round(len(mouts) / mdt)
                row["multiwoz"]["utt_per_cpu_s"] = round(len(mouts) / CPU[spec])
            result["impolite"][spec] = row
            print(spec, json.dumps(row), flush=True)
            out_path.write_text(json.dumps(result, indent=1))  # a long run keeps what it measured
    result["acc_originals"] = {"generated": round(accuracy_impolite(ptexts), 1),
                               "multiwoz": round(accuracy_impolite(originals), 1)}
    result["runs"][-1]["load_end"] = round(os.getloadavg()[0], 1)
    result["load_end"] = max(r.get("load_end", 0) for r in result["runs"])
    out_path.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
