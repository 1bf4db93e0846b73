"""How close is ``asr-sim`` to the real piper → Whisper channel (``asr-real``) on the same sentences?

Both rewriters run on the same polite requests written for parley (``tests/polite_requests.py``; optionally
also MultiWOZ test user turns, read at run time and never stored). Every text is normalised with Whisper's
English normaliser (``audio.wer``: lower case, no punctuation, numbers as digits) and aligned to the original
with jiwer. Reported: WER of each against the original; the words each one changed and how many both changed
(overlap of confused words); the substitution pairs (original word → heard word) of each and the pairs both
produced; error rates by word class (slot values, numbers, function words, other words); examples.

    .venv/bin/python bench/rw_asr.py [--n 120] [--multiwoz 0] [--out bench/results/rw_asr.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from parley.audio.wer import normalise  # noqa: E402
from parley.engine.rewrite import build_rewriter  # noqa: E402
from parley.engine.rewrite.base import RewriteContext, step_seed  # noqa: E402
from parley.engine.rewrite.courtesy import FUNCTION_WORDS  # noqa: E402
from parley.engine.spans import find_spans  # noqa: E402
from tests.polite_requests import generate  # noqa: E402


def _run(rw: Any, texts: list[str], name: str) -> tuple[list[str], float]:
    outs = []
    t0 = time.perf_counter()
    for i, t in enumerate(texts):
        s = step_seed(0, i, name)
        outs.append(rw.rewrite(t, RewriteContext(rng=random.Random(s), seed=s, spans=find_spans(t))).after)
    return outs, time.perf_counter() - t0


def _errors(ref: str, hyp: str) -> tuple[set[int], list[tuple[str, str]], int]:
    """(indices of reference words changed, substitution pairs, reference length) on normalised texts."""
    import jiwer

    r, h = normalise(ref), normalise(hyp)
    if not r.strip():
        return set(), [], 0
    out = jiwer.process_words(r, h or "<empty>")
    rw, hw = out.references[0], out.hypotheses[0]
    changed: set[int] = set()
    subs: list[tuple[str, str]] = []
    for chunk in out.alignments[0]:
        if chunk.type == "equal":
            continue
        if chunk.type in ("substitute", "delete"):
            changed.update(range(chunk.ref_start_idx, chunk.ref_end_idx))
        if chunk.type == "substitute":
            subs += list(zip(rw[chunk.ref_start_idx:chunk.ref_end_idx],
                             hw[chunk.hyp_start_idx:chunk.hyp_end_idx],
                             strict=False))
    return changed, subs, len(rw)


def _classes(text: str) -> list[str]:
    """Class of each normalised word: slot (inside a slot value), number, function, other."""
    words = normalise(text).split()
    slot_words = {w for s in find_spans(text) for w in normalise(s.value).split()}
    return ["number" if any(c.isdigit() for c in w) else "slot" if w in slot_words else
            "function" if w in FUNCTION_WORDS else "other" for w in words]


def compare(texts: list[str], sim: list[str], real: list[str]) -> dict[str, Any]:
    import jiwer

    both = only_sim = only_real = n_words = 0
    pairs_sim: Counter[tuple[str, str]] = Counter()
    pairs_real: Counter[tuple[str, str]] = Counter()
    by_class: dict[str, list[int]] = {}
    for t, s, r in zip(texts, sim, real, strict=True):
        cs, ps, n = _errors(t, s)
        cr, pr, _ = _errors(t, r)
        n_words += n
        both += len(cs & cr)
        only_sim += len(cs - cr)
        only_real += len(cr - cs)
        pairs_sim.update(ps)
        pairs_real.update(pr)
        for i, c in enumerate(_classes(t)[:n]):
            row = by_class.setdefault(c, [0, 0, 0])
            row[0] += 1
            row[1] += i in cs
            row[2] += i in cr
    refs = [normalise(t) for t in texts]
    keep = [i for i, x in enumerate(refs) if x.strip()]

    def wer(hyps: list[str]) -> float:
        hyp = [normalise(hyps[i]) or "<empty>" for i in keep]
        return round(100 * jiwer.wer([refs[i] for i in keep], hyp), 1)

    shared = set(pairs_sim) & set(pairs_real)
    union = both + only_sim + only_real
    return {
        "n": len(texts), "words": n_words, "wer_sim": wer(sim), "wer_real": wer(real),
        "wer_sim_vs_real": round(100 * jiwer.wer([normalise(x) or "<empty>" for x in real],
                                                 [normalise(x) or "<empty>" for x in sim]), 1),
        "changed_both": both, "changed_only_sim": only_sim, "changed_only_real": only_real,
        "changed_jaccard": round(both / union, 3) if union else None,
        "sim_changes_real_also_made": round(both / (both + only_sim), 3) if both + only_sim else None,
        "real_changes_sim_also_made": round(both / (both + only_real), 3) if both + only_real else None,
        "pairs_sim": sum(pairs_sim.values()), "pairs_real": sum(pairs_real.values()),
        "pairs_shared_types": len(shared),
        "pairs_sim_tokens_in_real": sum(c for p, c in pairs_sim.items() if p in pairs_real),
        "top_sim": [f"{a} → {b} ×{c}" for (a, b), c in pairs_sim.most_common(12)],
        "top_real": [f"{a} → {b} ×{c}" for (a, b), c in pairs_real.most_common(12)],
        "shared": [f"{a} → {b}" for a, b in sorted(shared)][:20],
        "error_rate_by_class": {c: {"words": v[0], "sim": round(100 * v[1] / v[0], 1),
                                    "real": round(100 * v[2] / v[0], 1)}
                                for c, v in sorted(by_class.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=120, help="generated polite requests")
    ap.add_argument("--multiwoz", type=int, default=0, help="also this many MultiWOZ test user turns "
                                                            "(figures only)")
    ap.add_argument("--sim", default="asr-sim", help="the simulated channel's spec")
    ap.add_argument("--real", default="asr-real", help="the real channel's spec")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "rw_asr.json"))
    args = ap.parse_args()
    rng = random.Random(7)
    texts = list(dict.fromkeys(generate(rng).text for _ in range(args.n)))
    sim_rw, real_rw = build_rewriter(args.sim), build_rewriter(args.real)
    real_rw.load()
    result: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "sim": args.sim,
                              "real": args.real}
    sets = [("generated", texts)]
    if args.multiwoz:
        from rw_common import user_turns

        turns = [t for t, _, _ in user_turns()]
        sets.append(("multiwoz", random.Random(3).sample(turns, args.multiwoz)))
    for name, xs in sets:
        sim, _ = _run(sim_rw, xs, "asr-sim")
        real, dt = _run(real_rw, xs, "asr-real")
        row = compare(xs, sim, real)
        row["real_s_per_utt"] = round(dt / len(xs), 2)
        if name == "generated":  # our own sentences: examples may be shown
            row["examples"] = [{"text": t, "sim": s, "real": r}
                               for t, s, r in list(zip(xs, sim, real, strict=True))[:12]]
        result[name] = row
        print(name, json.dumps({k: v for k, v in row.items() if k != "examples"}, indent=1), flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
