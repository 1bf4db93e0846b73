"""SK-TOD benchmark on DSTC11 track 5 val (../shared/data/dstc11-track5/val), held-out half.

Run: ``.venv/bin/python bench/sktod_bench.py [--cache DIR] [--ship] [--swap]``

Val's dialogues are split in two halves by dialogue (``engine.sktod.train.val_half``: instances sharing a
first turn stay together). Everything learned is fitted on half 0 — the selection/KTD model shipped in
``assets/sktod/model`` (``--ship`` rewrites it) and the answer style of ``engine.sktod.wording`` — and every
figure is measured on half 1:

- ``untrained``: no fitted model (MiniLM prototypes for KTD, MiniLM cosine + aspect boost for selection);
- ``default``: what ``--system sktod`` uses, the model shipped in assets;
- ``--swap``: also fit on half 1 and score half 0 (a two-fold mean).

Reports KTD P/R/F1, ET accuracy, KS instance/snippet P/R/F and mAP (gold and tracked entities), the official
detection/selection/generation scores (BLEU, METEOR, ROUGE), wall times, and the warm start-up time of
``--system sktod`` in a fresh process. Raw figures go to bench/results/sktod.json.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
SHARED = next((p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
              ROOT.parent / "shared" / "data")
DATA = SHARED / "dstc11-track5"


def load_avg() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def ks_eval(pipe, logs, labels, idx, tracked: bool) -> dict:
    """KS measures with the pipeline's scorer: candidates from gold (or tracked) entities of target turns."""
    from parley.engine.sktod.knowledge import ref_key
    from parley.engine.sktod.scoring import average_precision, selection_breakdown

    golds, preds, aps = [], [], []
    for i in idx:
        lab = labels[i]
        if lab.get("target") is not True:
            continue
        if tracked:
            ents = pipe.tracker.track([t["text"] for t in logs[i]])
        else:
            ents = []
            for k in lab["knowledge"]:
                e = pipe.kb.entity(k["domain"], k["entity_id"])
                if e not in ents:
                    ents.append(e)
        question = logs[i][-1]["text"]
        ranked = pipe.selector.score(question, pipe.kb.candidates(ents), len(ents))
        chosen = pipe.selector.select(ranked, question)
        golds.append(lab["knowledge"])
        preds.append([s.snippet.ref() for s in chosen])
        aps.append(average_precision([s.snippet.key for s in ranked], {ref_key(k) for k in lab["knowledge"]}))
    out = selection_breakdown(golds, preds)
    out["map"] = sum(aps) / max(len(aps), 1)  # over the full ranking of all candidates
    return out


def evaluate(pipe, logs, labels, idx, official: tuple[str, str] | None = None, answers: str = "") -> dict:
    """End-to-end predictions on ``idx`` + official scores (parley's, and the track's own scorer when
    ``official`` = (repo, python)) + breakdowns + KS with gold/tracked entities + what the answers' text does
    (polarity agreement, openings)."""
    from sktod_answers import answer_records, official_scorer, openings, polarity_agreement

    from parley.engine.sktod.scoring import official_scores, report

    t0 = time.perf_counter()
    preds = pipe.run([logs[i] for i in idx])
    t_run = time.perf_counter() - t0
    sub_labels = [labels[i] for i in idx]
    out_labels = [p.to_label(with_entities=True) for p in preds]
    t1 = time.perf_counter()
    official_ = official_scores(sub_labels, out_labels, meteor=True)
    both = [(lab["response"], out["response"]) for lab, out in zip(sub_labels, out_labels, strict=True)
            if lab.get("target") is True and out.get("target") is True]
    out = {"instances": len(idx), "official": official_, "report": report(sub_labels, out_labels),
           "ks_gold_entities": ks_eval(pipe, logs, labels, idx, tracked=False),
           "ks_tracked_entities": ks_eval(pipe, logs, labels, idx, tracked=True),
           "polarity": polarity_agreement([g for g, _ in both], [a for _, a in both]),
           "openings": openings([a for _, a in both]),
           "run_seconds": t_run, "score_seconds": time.perf_counter() - t1, "load": load_avg()}
    if official:
        plain = [{k: v for k, v in o.items() if k != "entities"} for o in out_labels]
        out["official_scorer"] = official_scorer(Path(official[0]), official[1], [logs[i] for i in idx],
                                                 sub_labels, plain)
    if answers:
        rows = answer_records([logs[i] for i in idx], sub_labels, preds, idx)
        Path(answers).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return out


def startup_seconds(cache: str) -> dict:
    """``build_system('sktod').load()`` in a fresh process, twice, over an empty cache folder (a fresh
    install: the first start) and then the cache that start left (the warm start)."""
    code = ("import time; t0 = time.perf_counter(); from parley.engine.systems import build_system;"
            "s = build_system('sktod'); s.load(); print(time.perf_counter() - t0)")
    runs = []
    for _ in range(2):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                             check=True, env={**os.environ, "PARLEY_CACHE": cache})
        runs.append({"load_s": float(out.stdout.split()[-1]), "process_s": time.perf_counter() - t0,
                     "load_avg": load_avg()})
    return {"cold": runs[0], "warm": runs[1]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=None, help="PARLEY_CACHE for embeddings (default: a temp dir = cold)")
    ap.add_argument("--ship", action="store_true", help="fit on half 0 and write assets/sktod/model")
    ap.add_argument("--swap", action="store_true", help="also fit on half 1 and score half 0")
    ap.add_argument("--fit-style", action="store_true",
                    help="fit the answer style on half 0 and write assets/sktod/style.json")
    ap.add_argument("--official-repo", help="a checkout of alexa/dstc11-track5 (run its scripts/scores.py)")
    ap.add_argument("--official-python", default="python3", help="the Python (with summ_eval) for it")
    ap.add_argument("--skip-untrained", action="store_true", help="only the default pipeline")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "sktod.json"))
    ap.add_argument("--answers", default="", help="write each answered knowledge-seeking instance of the "
                    "default pipeline (question, gold and parley's answer, both polarities, the evidence) to "
                    "this JSON-lines file")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data at {DATA}")
    os.environ["PARLEY_CACHE"] = args.cache or tempfile.mkdtemp(prefix="sktod-cache-")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from parley.engine.sktod.embed import shared_encoder
    from parley.engine.sktod.knowledge import KnowledgeBase
    from parley.engine.sktod.pipeline import Pipeline, default_model_dir
    from parley.engine.sktod.train import train, val_half

    logs = json.loads((DATA / "val" / "logs.json").read_text())
    labels = json.loads((DATA / "val" / "labels.json").read_text())
    kb = KnowledgeBase.load(DATA / "knowledge.json")
    result: dict = {"machine": "2-core x86_64 CPU, no GPU",
                    "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                    "command": "python " + " ".join(sys.argv), "instances": len(logs),
                    "load_start": load_avg()}
    halves = [[i for i in range(len(logs)) if val_half(logs[i]) == h] for h in (0, 1)]
    result["half_sizes"] = [len(h) for h in halves]
    enc = shared_encoder(None)
    t0 = time.perf_counter()
    enc.load()
    enc.attach(kb.sha256, [s.text for s in kb])
    enc.encode([s.text for s in kb], progress=lambda m: print("·", m, flush=True))
    enc.encode([log[-1]["text"] for log in logs])
    enc.save_cache()
    result["embed_seconds"] = time.perf_counter() - t0
    if args.ship:
        out = ROOT / "assets" / "sktod" / "model"
        t0 = time.perf_counter()
        cfg = train(logs, labels, kb, out, encoder=enc, train_indices=halves[0],
                    progress=lambda m: print("·", m, flush=True))
        cfg.pop("encoder", None)
        cfg["trained_on"]["data"] = ("DSTC11 track 5 val, half 0 of the dialogues "
                                     "(engine.sktod.train.val_half)")
        (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
        result["ship_train_seconds"] = time.perf_counter() - t0
    if args.fit_style:
        t0 = time.perf_counter()
        pipe = Pipeline(knowledge=DATA / "knowledge.json")
        result["style"] = fit_answer_style(pipe, logs, labels, halves[0])
        result["fit_style_seconds"] = time.perf_counter() - t0
    if not args.skip_untrained:
        print("untrained pipeline on half 1 …", flush=True)
        result["untrained"] = evaluate(Pipeline(model_dir="untrained", knowledge=DATA / "knowledge.json"),
                                       logs, labels, halves[1])
    official = (args.official_repo, args.official_python) if args.official_repo else None
    if default_model_dir() is not None:
        print("default (shipped) pipeline on half 1 …", flush=True)
        result["default"] = evaluate(Pipeline(knowledge=DATA / "knowledge.json"), logs, labels, halves[1],
                                     official, args.answers)
    if args.swap:
        with tempfile.TemporaryDirectory() as tmp:
            train(logs, labels, kb, Path(tmp) / "h1", encoder=enc, train_indices=halves[1])
            pipe = Pipeline(model_dir=Path(tmp) / "h1", knowledge=DATA / "knowledge.json")
            result["swapped"] = evaluate(pipe, logs, labels, halves[0])
    t0 = time.perf_counter()
    Pipeline(knowledge=DATA / "knowledge.json").run(logs)
    result["default_run_all_seconds_warm"] = time.perf_counter() - t0
    result["startup"] = startup_seconds(tempfile.mkdtemp(prefix="sktod-fresh-cache-"))
    result["load_end"] = load_avg()
    Path(args.out).write_text(json.dumps(result, indent=1))
    print_summary(result)


def fit_answer_style(pipe, logs, labels, idx) -> dict:
    """Fit ``engine.sktod.wording``'s choices on the instances ``idx`` (half 0) with the default pipeline's
    knowledge and write assets/sktod/style.json."""
    import random
    import zlib

    from sktod_answers import fit_style, openings

    from parley.engine.sktod.closing import booked
    from parley.engine.sktod.generation import TemplateGenerator
    from parley.engine.sktod.scoring import official_scores
    from parley.engine.sktod.style import STYLE
    from parley.engine.sktod.wording import kind

    pipe.load()
    plans = {}
    for i in idx:
        turns = [t["text"] for t in logs[i]]
        p = pipe.predict(turns)
        if p.target and p.entities and labels[i].get("target") is True:
            plans[i] = pipe.generator.plan(turns[-1], p.selected, pipe.kb.candidates(p.entities))
    order = sorted(plans)

    def score(style: dict) -> tuple[float, float, float]:
        gen = TemplateGenerator(0, style={**STYLE, **style})
        def rng(i: int) -> random.Random:
            return random.Random(zlib.crc32(f"0:{logs[i][-1]['text']}".encode()))

        outs = [gen.render(plans[i][0], plans[i][1], rng(i), booked([t["text"] for t in logs[i]]))
                for i in order]
        sc = official_scores([labels[i] for i in order], [{"target": True, "response": o} for o in outs],
                             meteor=False)["generation"]
        return sc["bleu"], sc["rouge_l"], openings(outs)["max_share"]

    # each kind of answer, then each kind about one aspect ("yn-all|view"), with 25 instances or more
    by_aspect = [f"{kind(*plans[i][:2])}|{'+'.join(sorted(plans[i][0].aspects))}" for i in order]
    kinds = [k for k, n in collections.Counter(kind(*plans[i][:2]) for i in order).most_common() if n >= 25]
    kinds += [k for k, n in collections.Counter(by_aspect).most_common() if n >= 25]
    start = {"who": {"guests": 1.0}, "say": {"said": 1.0}, "that": {"that ": 1.0}, "tense": {"present": 1.0},
             "adjectives": 2, "follow_up": 1.0, "follow": {"reserve": 1.0},
             "frame": {"plain": 0.6, "described": 0.4}}
    style = fit_style(score, kinds, start, log=lambda m: print("·", m, flush=True))
    out = ROOT / "assets" / "sktod" / "style.json"
    out.write_text(json.dumps(style, indent=1) + "\n", encoding="utf-8")
    return style


def print_summary(r: dict) -> None:
    def row(name: str, e: dict) -> str:
        o, rep, kg, kt = e["official"], e["report"], e["ks_gold_entities"], e["ks_tracked_entities"]
        return (f"| {name} | {rep['ktd']['prec']:.3f} / {rep['ktd']['rec']:.3f} / {rep['ktd']['f1']:.4f} "
                f"| {rep['et']['accuracy']:.3f} "
                f"| {kg['inst_prec']:.3f} / {kg['inst_rec']:.3f} / {kg['inst_f1']:.3f} "
                f"| {kg['snip_prec']:.3f} / {kg['snip_rec']:.3f} / {kg['snip_f1']:.3f} | {kg['map']:.3f} "
                f"| {kt['inst_f1']:.3f} | {o['selection']['f1']:.3f} / {o['selection']['em_acc']:.3f} "
                f"| {o['generation']['bleu']:.3f} | {o['generation']['meteor'] or float('nan'):.3f} "
                f"| {o['generation']['rouge_1']:.3f} / {o['generation']['rouge_2']:.3f} "
                f"| {o['generation']['rouge_l']:.3f} |")

    print("| pipeline | KTD P / R / F1 | ET acc | KS inst P / R / F (gold ent.) | KS snip P / R / F | KS mAP "
          "| KS inst F (tracked ent.) | official sel F1 / EM | BLEU | METEOR | ROUGE-1 / 2 | ROUGE-L |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key, name in (("untrained", "untrained, half 1"), ("default", "default (shipped), half 1"),
                      ("swapped", "fitted on half 1, half 0")):
        if key in r:
            print(row(name, r[key]))
    d = r.get("default", {})
    if d:
        pol, op = d["polarity"], d["openings"]
        print(f"default: polarity agreement {pol.get('rate')} ({pol.get('agree')}/{pol.get('clearly_polar')} "
              f"clearly polar, {pol.get('judge')}); largest four-word opening {op['max_share']:.3f} "
              f"({op['top'][:2]})")
        if "two_judges" in pol:
            print("polarity on instances AFINN confirms polar:", json.dumps(pol["two_judges"]))
        if "official_scorer" in d:
            print("official scorer:", json.dumps(d["official_scorer"].get("scores", d["official_scorer"])))
    s = r["startup"]
    print(f"start-up (fresh process, fresh cache): first {s['cold']['load_s']:.1f} s, "
          f"warm {s['warm']['load_s']:.1f} s "
          f"(process {s['warm']['process_s']:.1f} s, load {s['warm']['load_avg']}); embedding "
          f"{r['embed_seconds']:.0f} s; default run on all val (warm) "
          f"{r['default_run_all_seconds_warm']:.0f} s")


if __name__ == "__main__":
    main()
