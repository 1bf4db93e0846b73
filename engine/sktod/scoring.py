"""DSTC11 track 5 scores with the official definitions, plus the KTD / ET / KS breakdowns of the SK-TOD paper.

Official (``scripts/scores.py`` of the track, re-implemented):

- detection: P/R/F over ``target``;
- selection: micro P/R/F over knowledge references after removing duplicate *predictions* (references are
  taken as they are), FAQ references match without ``sent_id``; every instance where the reference or the
  prediction has knowledge counts; ``em_acc`` = exact set match over those instances;
- generation: BLEU (sacreBLEU corpus score), METEOR and ROUGE-1/2/L F (rouge-score, stemmer on) over the turns
  both mark as target; each sum is re-weighted as P = sum/(TP+FP), R = sum/(TP+FN) and reported as their F.

METEOR: the official script runs the Java Meteor 1.5 (corpus level); so does parley where Java and the jar are
available, else nltk with Meteor 1.5's parameters and corpus aggregation (``engine.scoring.meteor``).
``generation.meteor_backend`` names the backend that produced the figure; when none can run, ``meteor`` is
``None`` and ``meteor_note`` says why. P/R/F and AP come from scikit-learn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parley.engine.sktod.knowledge import ref_key

Label = Mapping[str, Any]


def _ratio_prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """P/R/F as the official scorer divides its selection sums; they can hold a negative false-positive count
    (duplicated gold references each match a prediction), which no label-array P/R/F can express."""
    p = tp / (tp + fp) if tp + fp > 0 else 0.0
    r = tp / (tp + fn) if tp + fn > 0 else 0.0
    return p, r, 2 * p * r / (p + r) if p + r > 0 else 0.0


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Binary P/R/F (scikit-learn, zero division → 0) of ``tp`` hits, ``fp`` false alarms and ``fn``
    misses."""
    from sklearn.metrics import precision_recall_fscore_support

    y_true = [1] * tp + [0] * fp + [1] * fn
    y_pred = [1] * (tp + fp) + [0] * fn
    if not y_true:
        return 0.0, 0.0, 0.0
    p, r, f, _ = precision_recall_fscore_support(y_true, y_pred, average="binary", labels=[0, 1],
                                                 zero_division=0.0)
    return float(p), float(r), float(f)


def dedupe(refs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Drop repeated references (same domain, entity, doc type, doc and — for reviews — sentence)."""
    seen: set[Any] = set()
    out = []
    for r in refs:
        k = ref_key(r)
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


def match_counts(gold: Sequence[Mapping[str, Any]],
                 pred: Sequence[Mapping[str, Any]]) -> tuple[int, int, int, int]:
    """(tp, fp, fn, exact) as the official scorer counts them: every gold × pred pair that matches is a
    hit."""
    gk = [ref_key(g) for g in gold]
    pk = [ref_key(p) for p in pred]
    tp = sum(1 for g in gk for p in pk if g == p)
    fp = len(pk) - tp
    fn = len(gk) - tp
    exact = int(len(gk) == len(pk) == tp)
    return tp, fp, fn, exact


def _is_target(obj: Label) -> bool:
    return obj.get("target") is True


def official_scores(labels: Sequence[Label], preds: Sequence[Label],
                    meteor: bool | str = True) -> dict[str, Any]:
    """The official score dict ``{"detection", "selection", "generation"}`` (see module docstring).

    ``meteor``: False skips it; True picks the best backend; a backend name (``engine.scoring.meteor``) forces
    it.
    """
    if len(labels) != len(preds):
        raise ValueError(f"labels has {len(labels)} entries but predictions has {len(preds)}")
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    d_tp = d_fp = d_fn = 0
    s_tp = s_fp = s_fn = 0
    s_exact = s_total = 0
    r1 = r2 = rl = 0.0
    refs: list[str] = []
    hyps: list[str] = []
    for ref, hyp in zip(labels, preds, strict=True):
        if _is_target(ref):
            if _is_target(hyp):
                d_tp += 1
                refs.append(str(ref.get("response", "")))
                hyps.append(str(hyp.get("response", "")))
                sc = scorer.score(refs[-1], hyps[-1])
                r1 += sc["rouge1"].fmeasure
                r2 += sc["rouge2"].fmeasure
                rl += sc["rougeL"].fmeasure
            else:
                d_fn += 1
        elif _is_target(hyp):
            d_fp += 1
        gold = list(ref.get("knowledge") or [])
        pred = dedupe(list(hyp.get("knowledge") or []))
        if gold or pred:
            s_total += 1
            tp, fp, fn, ex = match_counts(gold, pred)
            s_tp += tp
            s_fp += fp
            s_fn += fn
            s_exact += ex

    def reweight(total: float) -> float:
        """F of P = total/(TP+FP) and R = total/(TP+FN), as the official script re-weights generation sums."""
        p = total / (d_tp + d_fp) if d_tp + d_fp else 0.0
        r = total / (d_tp + d_fn) if d_tp + d_fn else 0.0
        return 2 * p * r / (p + r) if p + r > 0 else 0.0

    dp, dr, df = _prf(d_tp, d_fp, d_fn)
    sp, sr, sf = _ratio_prf(s_tp, s_fp, s_fn)
    bleu = corpus_bleu(hyps, refs) * d_tp if d_tp else 0.0
    gen: dict[str, Any] = {"bleu": reweight(bleu), "meteor": None}
    note = None
    if not meteor:
        note = "METEOR not computed (disabled)"
    elif not d_tp:
        gen["meteor"] = 0.0
    else:
        from parley.engine.scoring.meteor import MeteorUnavailable
        from parley.engine.scoring.meteor import meteor as corpus_meteor

        try:
            m = corpus_meteor(hyps, refs, backend=meteor if isinstance(meteor, str) else "auto")
            gen["meteor"], gen["meteor_backend"] = reweight(m.score * d_tp), m.backend
        except MeteorUnavailable as e:
            note = str(e)
    gen["rouge_1"] = reweight(r1)
    gen["rouge_2"] = reweight(r2)
    gen["rouge_l"] = reweight(rl)
    out: dict[str, Any] = {
        "detection": {"prec": dp, "rec": dr, "f1": df},
        "selection": {"prec": sp, "rec": sr, "f1": sf, "em_acc": s_exact / s_total if s_total else 0.0},
        "generation": gen,
    }
    if gen["meteor"] is None and note:
        out["generation"]["meteor_note"] = note
    return out


def corpus_bleu(hyps: Sequence[str], refs: Sequence[str]) -> float:
    """sacreBLEU corpus BLEU on a 0–1 scale (default 13a tokenisation, as the official script's wrapper)."""
    import sacrebleu

    if not hyps:
        return 0.0
    return float(sacrebleu.corpus_bleu(list(hyps), [list(refs)]).score) / 100.0


# ---------------------------------------------------------------------------------------------------- report


def average_precision(ranked: Sequence[Any], gold: set[Any]) -> float:
    """AP of one ranked list of keys against a gold key set (gold items never ranked count as misses).

    scikit-learn's AP over the ranked list (ranks as scores) covers the gold items it holds; scaling by the
    share of gold items ranked counts the others as misses.
    """
    hits = [k in gold for k in ranked]
    if not gold or not any(hits):
        return 0.0
    from sklearn.metrics import average_precision_score

    ap = average_precision_score(hits, [-i for i in range(len(ranked))])
    return float(ap) * sum(hits) / len(gold)


def selection_breakdown(golds: Sequence[Sequence[Mapping[str, Any]]],
                        preds: Sequence[Sequence[Mapping[str, Any]]]) -> dict[str, float]:
    """KS measures of the paper over paired instances: instance-level P/R/F (mean of per-instance scores),
    snippet-level P/R/F (micro over all pairs) and mAP of the predicted order."""
    ip = ir = if_ = 0.0
    tp_all = fp_all = fn_all = 0
    ap = 0.0
    n = 0
    for gold, pred in zip(golds, preds, strict=True):
        gk = {ref_key(g) for g in gold}
        pk_list = [ref_key(p) for p in dedupe(list(pred))]
        pk = set(pk_list)
        tp = len(gk & pk)
        p, r, f = _prf(tp, len(pk) - tp, len(gk) - tp)
        ip += p
        ir += r
        if_ += f
        tp_all += tp
        fp_all += len(pk) - tp
        fn_all += len(gk) - tp
        ap += average_precision(pk_list, gk)
        n += 1
    sp, sr, sf = _prf(tp_all, fp_all, fn_all)
    d = max(n, 1)
    return {"instances": n, "inst_prec": ip / d, "inst_rec": ir / d, "inst_f1": if_ / d,
            "snip_prec": sp, "snip_rec": sr, "snip_f1": sf, "map": ap / d}


def entity_accuracy(gold_sets: Sequence[set[tuple[str, int]]],
                    pred_sets: Sequence[set[tuple[str, int]]]) -> dict:
    """ET instance accuracy (exact entity set) with the paper's two error kinds (missing / spurious)."""
    n = len(gold_sets)
    exact = sum(1 for g, p in zip(gold_sets, pred_sets, strict=True) if g == p)
    missing = sum(1 for g, p in zip(gold_sets, pred_sets, strict=True) if g - p)
    spurious = sum(1 for g, p in zip(gold_sets, pred_sets, strict=True) if p - g)
    d = max(n, 1)
    return {"instances": n, "accuracy": exact / d, "missing_rate": missing / d, "spurious_rate": spurious / d}


def report(labels: Sequence[Label], preds: Sequence[Label]) -> dict[str, Any]:
    """Breakdowns on the knowledge-seeking turns of ``labels``: KTD confusion, ET (from the ``entities`` field
    of a
    prediction when present, else from the entities of its selected knowledge) and KS
    (instance/snippet/mAP)."""
    tp = sum(1 for r, h in zip(labels, preds, strict=True) if _is_target(r) and _is_target(h))
    fp = sum(1 for r, h in zip(labels, preds, strict=True) if not _is_target(r) and _is_target(h))
    fn = sum(1 for r, h in zip(labels, preds, strict=True) if _is_target(r) and not _is_target(h))
    tn = len(labels) - tp - fp - fn
    p, r, f = _prf(tp, fp, fn)
    golds, preds_k, g_ent, p_ent = [], [], [], []
    for ref, hyp in zip(labels, preds, strict=True):
        if not _is_target(ref):
            continue
        gold = list(ref.get("knowledge") or [])
        pred = list(hyp.get("knowledge") or []) if _is_target(hyp) else []
        golds.append(gold)
        preds_k.append(pred)
        g_ent.append({(str(k["domain"]), int(k["entity_id"])) for k in gold})
        if isinstance(hyp.get("entities"), list):
            p_ent.append({(str(e["domain"]), int(e["entity_id"])) for e in hyp["entities"]})
        else:
            p_ent.append({(str(k["domain"]), int(k["entity_id"])) for k in pred})
    return {
        "ktd": {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "prec": p, "rec": r, "f1": f},
        "et": entity_accuracy(g_ent, p_ent),
        "ks": selection_breakdown(golds, preds_k),
    }
