"""Benchmark of the user-side rewriters on the MultiWOZ test user turns.

1. LAUG change rates (characters, words, slot values) of disfluency, wp and asr-sim next to LAUG Table 7;
2. impoliteness transfer per scenario and intensity: ACC (politeness scorer), BLEU (sacreBLEU vs the original),
   PPL (SmolLM2-135M), G-Mean, next to Table V of the impolite-users paper;
3. throughput of each rule rewriter (utterances/s, spans precomputed as the chain provides them) and of the span
   detector.

    .venv/bin/python bench/rw_bench.py [--n-ppl 300] [--no-ppl] [--out bench/results/rw.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from rw_common import TEST_ZIP, user_turns  # noqa: E402

from parley.engine.rewrite import build_rewriter  # noqa: E402
from parley.engine.rewrite.base import RewriteContext, step_seed  # noqa: E402
from parley.engine.rewrite.metrics import accuracy_impolite, bleu, change_rates, gmean, perplexity  # noqa: E402
from parley.engine.spans import find_spans  # noqa: E402
from parley.engine.types import Message  # noqa: E402

LAUG = {"wp": (17.9, 16.0, 36.3), "asr-sim": (7.9, 14.5, 40.8), "disfluency": (22.7, 30.4, 0.4)}
TABLE_V = {"T5-large fine-tune": (85.3, 43.4, 6.3, 8.38), "BART-large fine-tune": (96.4, 37.6, 6.2, 8.36),
           "DAST": (73.6, 25.4, 28.5, 4.03)}


def _contexts(turns, name: str):  # type: ignore[no-untyped-def]
    out = []
    for i, (text, _values, hist) in enumerate(turns):
        s = step_seed(0, i, name)
        h = tuple(Message("user" if k % 2 == 0 else "system", x) for k, x in enumerate(hist))
        out.append((text, s, find_spans(text), h))
    return out


def run(spec: str, ctxs) -> list[str]:  # type: ignore[no-untyped-def]
    rw = build_rewriter(spec)
    return [rw.rewrite(t, RewriteContext(rng=random.Random(s), seed=s, spans=sp, history=h)).after
            for t, s, sp, h in ctxs]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-ppl", type=int, default=100, help="utterances per impoliteness setting for PPL")
    ap.add_argument("--ppl-intensities", default="2", help="intensities whose outputs get a PPL (e.g. 1,2,3)")
    ap.add_argument("--no-ppl", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-impolite", action="store_true", help="skip the impoliteness transfer part")
    args = ap.parse_args()
    if not TEST_ZIP.is_file():
        sys.exit(f"missing {TEST_ZIP}")
    turns = user_turns()
    values = [v for _, v, _ in turns]
    originals = [t for t, _, _ in turns]
    result: dict = {"n_turns": len(turns), "machine": f"{platform.machine()} {platform.processor()}",
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}

    # spans: throughput on a cold cache (exact + fuzzy)
    t0 = time.perf_counter()
    from parley.engine.spans import _default_db, _find, _vocab  # noqa: PLC0415

    vocab = _vocab(_default_db())
    for t in originals:
        _find(t, vocab, True)
    result["spans_utt_per_s"] = round(len(originals) / (time.perf_counter() - t0))

    # 1. change rates + throughput
    result["change_rates"] = {}
    result["throughput"] = {}
    for spec in ("disfluency", "wp", "asr-sim", "impolite"):
        ctxs = _contexts(turns, spec.split(":")[0])
        run(spec, ctxs[:200])  # warm-up: lexicons, CMU dictionary
        t0 = time.perf_counter()
        outs = run(spec, ctxs)
        dt = time.perf_counter() - t0
        rates = change_rates(zip(originals, outs, strict=True), values)
        result["change_rates"][spec] = {k: round(100 * v, 1) for k, v in rates.to_json().items()}
        result["throughput"][spec] = round(len(outs) / dt)
        print(spec, result["change_rates"][spec], result["throughput"][spec], "utt/s", flush=True)

    # 2. impoliteness per scenario / intensity
    rng = random.Random(0)
    sample_idx = sorted(rng.sample(range(len(turns)), min(args.n_ppl, len(turns))))
    model = tok = None
    if not args.no_ppl and not args.no_impolite:
        from parley.engine.smollm import load_default_llm

        model, tok = load_default_llm()
        sample_orig = [originals[i] for i in sample_idx]
        result["ppl_original"] = round(perplexity(sample_orig, model, tok), 2)
    result["impolite"] = {}
    for intensity in (() if args.no_impolite else (1, 2, 3)):
        for scenario in range(1, 7):
            spec = f"impolite:scenario={scenario},intensity={intensity}"
            ctxs = _contexts(turns, "impolite")
            outs = run(spec, ctxs)
            acc = accuracy_impolite(outs)
            b = bleu(outs, originals)
            row = {"acc": round(acc, 1), "bleu": round(b, 1)}
            if model is not None and str(intensity) in args.ppl_intensities.split(","):
                ppl = perplexity([outs[i] for i in sample_idx], model, tok)
                row["ppl"] = round(ppl, 2)
                row["gmean"] = round(gmean(acc, b, ppl), 2)
            result["impolite"][spec] = row
            print(spec, row, flush=True)
    result["acc_original"] = round(accuracy_impolite(originals), 1)

    out = Path(args.out) if args.out else Path(__file__).resolve().parent / "results" / "rw.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
