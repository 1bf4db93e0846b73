"""SK-TOD benchmark on DSTC11 track 5 val (../shared/data/dstc11-track5/val).

Run: ``.venv/bin/python bench/sktod_bench.py [--folds 2] [--cache DIR] [--cold]``

Reports KTD P/R/F1, ET instance accuracy, KS instance/snippet P/R/F and mAP (gold entities and tracked
entities), generation BLEU/METEOR/ROUGE (official definitions) and wall times, for

- the default pipeline (no training: MiniLM prototypes for KTD, MiniLM cosine for KS, VADER templates), and
- the trained pipeline (``parley sktod train`` code) in k-fold cross-validation over val split by dialogue:
  fit on k−1 folds, report on the held-out fold (the train split is not available offline).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "dstc11-track5"


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
        ranked = pipe.selector.score(logs[i][-1]["text"], pipe.kb.candidates(ents), len(ents))
        chosen = pipe.selector.select(ranked)
        golds.append(lab["knowledge"])
        preds.append([s.snippet.ref() for s in chosen])
        aps.append(average_precision([s.snippet.key for s in ranked], {ref_key(k) for k in lab["knowledge"]}))
    out = selection_breakdown(golds, preds)
    out["map"] = sum(aps) / max(len(aps), 1)  # over the full ranking of all candidates
    return out


def evaluate(pipe, logs, labels, idx) -> dict:
    """End-to-end predictions on ``idx`` + official scores + breakdowns + KS with gold/tracked entities."""
    from parley.engine.sktod.scoring import official_scores, report

    t0 = time.perf_counter()
    sub_logs = [logs[i] for i in idx]
    sub_labels = [labels[i] for i in idx]
    preds = pipe.run(sub_logs)
    t_run = time.perf_counter() - t0
    out_labels = [p.to_label(with_entities=True) for p in preds]
    t1 = time.perf_counter()
    official = official_scores(sub_labels, out_labels, meteor=True)
    t_score = time.perf_counter() - t1
    rep = report(sub_labels, out_labels)
    return {"instances": len(idx), "official": official, "report": rep,
            "ks_gold_entities": ks_eval(pipe, logs, labels, idx, tracked=False),
            "ks_tracked_entities": ks_eval(pipe, logs, labels, idx, tracked=True),
            "run_seconds": t_run, "score_seconds": t_score}


def mean_dicts(ds: list[dict]) -> dict:
    out: dict = {}
    for k, v in ds[0].items():
        if isinstance(v, dict):
            out[k] = mean_dicts([d[k] for d in ds])
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out[k] = sum(d[k] for d in ds) / len(ds)
        else:
            out[k] = v
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--cache", default=None, help="PARLEY_CACHE for embeddings (default: a temp dir = cold)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "sktod.json"))
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"no data at {DATA}")
    os.environ["PARLEY_CACHE"] = args.cache or tempfile.mkdtemp(prefix="sktod-cache-")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from parley.engine.sktod.embed import shared_encoder
    from parley.engine.sktod.knowledge import KnowledgeBase
    from parley.engine.sktod.pipeline import Pipeline
    from parley.engine.sktod.train import dialogue_of, train

    logs = json.loads((DATA / "val" / "logs.json").read_text())
    labels = json.loads((DATA / "val" / "labels.json").read_text())
    kb = KnowledgeBase.load(DATA / "knowledge.json")
    result: dict = {"machine": "2-core x86_64 CPU, no GPU", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                    "command": "python " + " ".join(sys.argv), "instances": len(logs)}

    # 1) the default pipeline over the whole val set (includes embedding everything when the cache is cold)
    t0 = time.perf_counter()
    enc = shared_encoder(None)
    enc.load()
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    enc.encode([s.text for s in kb], progress=lambda m: print("·", m, flush=True))
    enc.encode([log[-1]["text"] for log in logs])
    enc.save_cache()
    result["embed_seconds"] = time.perf_counter() - t0
    result["encoder_load_seconds"] = t_load
    default = Pipeline(knowledge=DATA / "knowledge.json")
    default.load()
    everything = list(range(len(logs)))
    print("default pipeline on all of val …", flush=True)
    result["default_all"] = evaluate(default, logs, labels, everything)

    # 2) k-fold by dialogue: train on k-1 folds, evaluate on the held-out fold
    folds = [[i for i in everything if dialogue_of(logs[i]) % args.folds == f] for f in range(args.folds)]
    per_fold, per_fold_default = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for f, test_idx in enumerate(folds):
            train_idx = [i for g, idx in enumerate(folds) if g != f for i in idx]
            t0 = time.perf_counter()
            cfg = train(logs, labels, kb, Path(tmp) / f"fold{f}", encoder=enc, train_indices=train_idx,
                        progress=lambda m: print("·", m, flush=True))
            t_train = time.perf_counter() - t0
            pipe = Pipeline(model_dir=Path(tmp) / f"fold{f}", knowledge=DATA / "knowledge.json")
            pipe.load()
            print(f"fold {f}: trained in {t_train:.0f}s, evaluating {len(test_idx)} instances …", flush=True)
            r = evaluate(pipe, logs, labels, test_idx)
            r["train_seconds"] = t_train
            r["threshold"] = cfg["selection"]["threshold"]
            r["relative"] = cfg["selection"]["relative"]
            per_fold.append(r)
            per_fold_default.append(evaluate(default, logs, labels, test_idx))
    result["trained_folds"] = per_fold
    result["trained_mean"] = mean_dicts(per_fold)
    result["default_folds_mean"] = mean_dicts(per_fold_default)

    # 3) wall time of the trained pipeline on the whole val set (warm embedding cache)
    with tempfile.TemporaryDirectory() as tmp:
        train(logs, labels, kb, Path(tmp) / "all", encoder=enc, train_indices=folds[0])
        pipe = Pipeline(model_dir=Path(tmp) / "all", knowledge=DATA / "knowledge.json")
        t0 = time.perf_counter()
        pipe.load()
        pipe.run(logs)
        result["trained_run_all_seconds_warm"] = time.perf_counter() - t0
    Path(args.out).write_text(json.dumps(result, indent=1))
    print_summary(result)


def print_summary(r: dict) -> None:
    def row(name: str, e: dict) -> str:
        o, rep, kg, kt = e["official"], e["report"], e["ks_gold_entities"], e["ks_tracked_entities"]
        return (f"| {name} | {rep['ktd']['prec']:.3f} / {rep['ktd']['rec']:.3f} / {rep['ktd']['f1']:.4f} "
                f"| {rep['et']['accuracy']:.3f} "
                f"| {kg['inst_prec']:.3f} / {kg['inst_rec']:.3f} / {kg['inst_f1']:.3f} "
                f"| {kg['snip_prec']:.3f} / {kg['snip_rec']:.3f} / {kg['snip_f1']:.3f} | {kg['map']:.3f} "
                f"| {kt['inst_f1']:.3f} | {o['selection']['f1']:.3f} / {o['selection']['em_acc']:.3f} "
                f"| {o['generation']['bleu']:.3f} | {o['generation']['meteor'] or float('nan'):.3f} "
                f"| {o['generation']['rouge_l']:.3f} |")

    print("| pipeline | KTD P / R / F1 | ET acc | KS inst P / R / F (gold ent.) | KS snip P / R / F | KS mAP "
          "| KS inst F (tracked ent.) | official sel F1 / EM | BLEU | METEOR | ROUGE-L |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(row("default, all val", r["default_all"]))
    print(row("default, mean of folds", r["default_folds_mean"]))
    print(row("trained (k-fold, held-out)", r["trained_mean"]))
    print(f"embedding (cold cache: {r['embed_seconds']:.0f}s), default run all val "
          f"{r['default_all']['run_seconds']:.0f}s, trained run all val (warm) "
          f"{r['trained_run_all_seconds_warm']:.0f}s, train per fold "
          f"{r['trained_mean']['train_seconds']:.0f}s")


if __name__ == "__main__":
    main()
