"""DSTC11 track 5 scores with the official definitions, plus the KTD / ET / KS breakdowns of the SK-TOD paper.

Official (``scripts/scores.py`` of the track, re-implemented):

- detection: P/R/F over ``target``;
- selection: micro P/R/F over knowledge references after removing duplicate *predictions* (references are taken
  as they are), FAQ references match without ``sent_id``; every instance where the reference or the prediction
  has knowledge counts; ``em_acc`` = exact set match over those instances;
- generation: BLEU (sacreBLEU corpus score), METEOR and ROUGE-1/2/L F (rouge-score, stemmer on) over the turns
  both mark as target; each sum is re-weighted as P = sum/(TP+FP), R = sum/(TP+FN) and reported as their F.

METEOR: the official script runs the Java Meteor 1.5; here nltk's METEOR (sentence mean) is used when a WordNet
can be read offline (see :func:`find_wordnet`), otherwise ``meteor`` is ``None`` and ``meteor_note`` says why.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from parley.engine.sktod.knowledge import ref_key

Label = Mapping[str, Any]


def _prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp > 0 else 0.0
    r = tp / (tp + fn) if tp + fn > 0 else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f


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


def match_counts(gold: Sequence[Mapping[str, Any]], pred: Sequence[Mapping[str, Any]]) -> tuple[int, int, int, int]:
    """(tp, fp, fn, exact) as the official scorer counts them: every gold × pred pair that matches is a hit."""
    gk = [ref_key(g) for g in gold]
    pk = [ref_key(p) for p in pred]
    tp = sum(1 for g in gk for p in pk if g == p)
    fp = len(pk) - tp
    fn = len(gk) - tp
    exact = int(len(gk) == len(pk) == tp)
    return tp, fp, fn, exact


def _is_target(obj: Label) -> bool:
    return obj.get("target") is True


def official_scores(labels: Sequence[Label], preds: Sequence[Label], meteor: bool = True) -> dict[str, Any]:
    """The official score dict ``{"detection", "selection", "generation"}`` (see module docstring)."""
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
    sp, sr, sf = _prf(s_tp, s_fp, s_fn)
    bleu = corpus_bleu(hyps, refs) * d_tp if d_tp else 0.0
    gen: dict[str, Any] = {"bleu": reweight(bleu), "meteor": None}
    note = None
    if not meteor:
        note = "METEOR not computed (disabled)"
    elif not d_tp:
        gen["meteor"] = 0.0
    else:
        m, note = meteor_mean(hyps, refs)
        gen["meteor"] = None if m is None else reweight(m * d_tp)
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


# ---------------------------------------------------------------------------------------------------- METEOR

#: the 45 lexicographer file names of WordNet 3.0 (lexnames(5WN)); Debian's wordnet-base lacks this file
_LEXNAMES_TEXT = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive "
    "noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity "
    "noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change verb.cognition "
    "verb.communication verb.competition verb.consumption verb.contact verb.creation verb.emotion "
    "verb.motion verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
)
_LEXNAMES = _LEXNAMES_TEXT.split()
_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}

_WORDNET_FILES = ("data.adj", "data.adv", "data.noun", "data.verb", "index.adj", "index.adv", "index.noun",
                  "index.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc", "index.sense")
_WORDNET_OPTIONAL = ("cntlist", "cntlist.rev", "frames.vrb", "sents.vrb", "sentidx.vrb", "verb.Framestext")


def find_wordnet() -> tuple[Path | None, str]:
    """A WordNet 3.0 folder nltk can read offline, and a note.

    Looked for in ``$PARLEY_WORDNET``, nltk's data path (``corpora/wordnet``) and the Debian/Ubuntu package
    ``wordnet-base`` + ``wordnet-sense-index`` (``/usr/share/wordnet``). The Debian copy lacks ``lexnames``: it is
    mirrored once into the cache dir with that file added.
    """
    candidates: list[Path] = []
    if os.environ.get("PARLEY_WORDNET"):
        candidates.append(Path(os.environ["PARLEY_WORDNET"]))
    try:
        import nltk

        candidates += [Path(p) / "corpora" / "wordnet" for p in nltk.data.path]
    except ImportError:  # pragma: no cover
        pass
    candidates.append(Path("/usr/share/wordnet"))
    for c in candidates:
        if not all((c / f).is_file() for f in _WORDNET_FILES):
            continue
        if (c / "lexnames").is_file():
            return c, f"nltk METEOR with WordNet from {c}"
        from parley.engine.locations import cache_dir

        dest = cache_dir() / "nltk_data" / "corpora" / "wordnet"
        try:
            if not all((dest / f).is_file() for f in (*_WORDNET_FILES, "lexnames")):
                dest.mkdir(parents=True, exist_ok=True)
                for f in _WORDNET_FILES + _WORDNET_OPTIONAL:
                    if (c / f).is_file() and not (dest / f).exists():
                        shutil.copyfile(c / f, dest / f)
                lex = "".join(f"{i:02d}\t{n}\t{_POS[n.split('.')[0]]}\n" for i, n in enumerate(_LEXNAMES))
                (dest / "lexnames").write_text(lex, encoding="utf-8")
        except OSError as e:
            return None, f"cannot prepare WordNet from {c}: {e}"
        return dest, f"nltk METEOR with WordNet from {c}"
    return None, ("METEOR needs WordNet and none is available offline (install the Debian packages "
                  "wordnet-base and wordnet-sense-index, or set PARLEY_WORDNET to a WordNet 3.0 dict folder)")


_wordnet: Any = None


def meteor_mean(hyps: Sequence[str], refs: Sequence[str]) -> tuple[float | None, str]:
    """Mean nltk METEOR of each hypothesis against its reference, or (None, reason)."""
    global _wordnet
    path, note = find_wordnet()
    if path is None:
        return None, note
    try:
        import warnings

        import nltk
        from nltk.corpus.reader.wordnet import WordNetCorpusReader
        from nltk.translate.meteor_score import meteor_score

        root = str(path.parent.parent)  # <root>/corpora/wordnet: nltk's own lazy loader must find it too
        if path.parent.name == "corpora" and root not in nltk.data.path:
            nltk.data.path.append(root)
        if _wordnet is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _wordnet = WordNetCorpusReader(str(path), None)
        total = 0.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for h, r in zip(hyps, refs, strict=True):
                total += meteor_score([_tok(r)], _tok(h), wordnet=_wordnet)
        return total / max(len(hyps), 1), note
    except Exception as e:  # nltk/WordNet failures must not lose the other scores
        return None, f"METEOR failed: {type(e).__name__}: {e}"


def _tok(text: str) -> list[str]:
    import re

    return re.findall(r"\w+|[^\w\s]", text.lower())


# ---------------------------------------------------------------------------------------------------- report


def average_precision(ranked: Sequence[Any], gold: set[Any]) -> float:
    """AP of one ranked list of keys against a gold key set (gold items never ranked count as misses)."""
    if not gold:
        return 0.0
    hits = 0
    total = 0.0
    for i, k in enumerate(ranked, start=1):
        if k in gold:
            hits += 1
            total += hits / i
    return total / len(gold)


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


def entity_accuracy(gold_sets: Sequence[set[tuple[str, int]]], pred_sets: Sequence[set[tuple[str, int]]]) -> dict:
    """ET instance accuracy (exact entity set) with the paper's two error kinds (missing / spurious)."""
    n = len(gold_sets)
    exact = sum(1 for g, p in zip(gold_sets, pred_sets, strict=True) if g == p)
    missing = sum(1 for g, p in zip(gold_sets, pred_sets, strict=True) if g - p)
    spurious = sum(1 for g, p in zip(gold_sets, pred_sets, strict=True) if p - g)
    d = max(n, 1)
    return {"instances": n, "accuracy": exact / d, "missing_rate": missing / d, "spurious_rate": spurious / d}


def report(labels: Sequence[Label], preds: Sequence[Label]) -> dict[str, Any]:
    """Breakdowns on the knowledge-seeking turns of ``labels``: KTD confusion, ET (from the ``entities`` field of a
    prediction when present, else from the entities of its selected knowledge) and KS (instance/snippet/mAP)."""
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
