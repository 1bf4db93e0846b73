"""What ``bench/sktod_bench.py`` measures of the answers' text, beside BLEU/METEOR/ROUGE: polarity agreement
with the gold response (judged by TextBlob, which parley's generator does not use), opening diversity, the
official DSTC11 scorer run on the same predictions, and the fit of the answer style
(``engine.sktod.wording``).

The polarity judge is TextBlob's PatternAnalyzer (the pattern library's adjective lexicon with its own
negation and intensifier rules): a lexicon and rules independent of the generator's sentiment (VADER plus
parley's own adjective lists). An instance is clearly polar when the judge scores the gold response at
|polarity| ≥ 0.2; the answer agrees when the judge gives it a polarity of the same sign. Both texts are judged
whole, as a user reads them. ``pip install textblob`` (bench-only; its lexicon ships in the package).

TextBlob alone calls many factual gold responses polar ("serves alcoholic beverages" reads −0.25), so
``two_judges`` also reports the agreement over the instances a second independent lexicon confirms: AFINN
(Nielsen's word list, ``pip install afinn``; parley's generator uses neither) gives the gold response a score
of the same sign. The answer is still judged by TextBlob alone.
"""

from __future__ import annotations

import collections
import copy
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

CLEAR = 0.2


def polarity_agreement(golds: Sequence[str], answers: Sequence[str], clear: float = CLEAR) -> dict[str, Any]:
    try:
        from importlib.metadata import version

        from textblob import TextBlob
    except ImportError:
        return {"error": "textblob is not installed (pip install textblob)"}
    try:
        from afinn import Afinn

        afinn: Callable[[str], float] | None = Afinn().score
    except ImportError:
        afinn = None
    polar = agree = polar2 = agree2 = 0
    confusion: collections.Counter[str] = collections.Counter()
    for g, a in zip(golds, answers, strict=True):
        pg = TextBlob(g).sentiment.polarity
        if abs(pg) < clear:
            continue
        polar += 1
        pa = TextBlob(a).sentiment.polarity
        ok = pa != 0 and (pa > 0) == (pg > 0)
        agree += ok
        confusion[f"gold {'+' if pg > 0 else '-'} / answer {'+' if pa > 0 else '-' if pa < 0 else '0'}"] += 1
        if afinn is not None and afinn(g) * pg > 0:
            polar2 += 1
            agree2 += ok
    out: dict[str, object] = {"judge": f"textblob {version('textblob')} PatternAnalyzer",
                              "clear_threshold": clear, "instances": len(golds), "clearly_polar": polar,
                              "agree": agree, "rate": agree / polar if polar else None,
                              "confusion": dict(confusion)}
    if afinn is not None:
        out["two_judges"] = {"confirmed_by": f"afinn {version('afinn')}", "clearly_polar": polar2,
                             "agree": agree2, "rate": agree2 / polar2 if polar2 else None}
    return out


def answer_records(logs: Sequence[Any], labels: Sequence[Any], preds: Sequence[Any],
                   idx: Sequence[int]) -> list[dict[str, Any]]:
    """One row per instance that is knowledge-seeking in the gold labels and answered by parley: the
    question, the gold and parley's response with the judges' polarities (TextBlob; AFINN when installed),
    the gold and selected knowledge and what parley counted of each venue's reviews."""
    from textblob import TextBlob

    try:
        from afinn import Afinn

        afinn: Callable[[str], float] | None = Afinn().score
    except ImportError:
        afinn = None
    rows = []
    for i, log, lab, p in zip(idx, logs, labels, preds, strict=True):
        if lab.get("target") is not True or not p.target:
            continue
        gold, answer = lab["response"], p.response
        pg, pa = TextBlob(gold).sentiment.polarity, TextBlob(answer).sentiment.polarity
        rows.append({"instance": i, "question": log[-1]["text"], "gold": gold, "answer": answer,
                     "gold_polarity": pg, "answer_polarity": pa, "gold_afinn": afinn(gold) if afinn else None,
                     "clearly_polar": abs(pg) >= CLEAR,
                     "agree": pa != 0 and (pa > 0) == (pg > 0) if abs(pg) >= CLEAR else None,
                     "gold_knowledge": lab["knowledge"], "aspects": list(p.aspects),
                     "selected": [{**s.snippet.ref(), "text": s.snippet.text} for s in p.selected],
                     "evidence": [s.to_json() for s in p.stances]})
    return rows


def opening(text: str, n: int = 4) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower())[:n])


def openings(answers: Sequence[str]) -> dict[str, Any]:
    c = collections.Counter(opening(a) for a in answers)
    n = max(len(answers), 1)
    return {"answers": len(answers), "distinct": len(c),
            "top": [{"opening": o, "share": k / n} for o, k in c.most_common(5)],
            "max_share": c.most_common(1)[0][1] / n if c else 0.0}


def official_scorer(repo: Path, python: str, logs: Sequence[Any], labels: Sequence[Any],
                    preds: Sequence[Any]) -> dict[str, Any]:
    """alexa/dstc11-track5 ``scripts/scores.py`` run as published (its own Python with summ_eval) on these
    instances, laid out as a ``val`` split in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "val").mkdir()
        (root / "val" / "logs.json").write_text(json.dumps(list(logs)), encoding="utf-8")
        (root / "val" / "labels.json").write_text(json.dumps(list(labels)), encoding="utf-8")
        (root / "pred.json").write_text(json.dumps(list(preds)), encoding="utf-8")
        cmd = [python, "scripts/scores.py", "--dataset", "val", "--dataroot", str(root), "--outfile",
               str(root / "pred.json"), "--scorefile", str(root / "scores.json")]
        env = {**os.environ, "PYTHONPATH": str(repo)}  # scores.py imports scripts.dataset_walker
        run = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, timeout=1800, env=env)
        if run.returncode != 0:
            return {"error": run.stderr.strip().splitlines()[-1:] or ["failed"], "command": " ".join(cmd)}
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
        return {"scores": json.loads((root / "scores.json").read_text()), "repo": "alexa/dstc11-track5",
                "commit": head.stdout.strip() or "unknown"}  # not the checkout's path: it names a machine


SLOTS: dict[str, tuple[Any, ...]] = {
    "frame": ("plain", "say", "according", "described", "has", "reviews_say", "past", "stayed", "possessive",
              "describe", "offers", "majority", "reviews_of"),
    "who": ("guests", "previous guests", "past guests", "customers", "reviewers", "people"),
    "say": ("say", "said", "have said"), "that": ("", "that "), "tense": ("present", "past"),
    "minor": ("though", "but", "however", "person", "only"),
    "follow": ("more", "else", "book", "reserve", "book_it", "them"),
    "follow_up": (0.0, 0.5, 1.0), "adjectives": (1, 2, 3),
}


def fit_style(score: Callable[[dict[str, Any]], tuple[float, float, float]], kinds: Sequence[str],
              start: dict[str, Any], max_opening: float = 0.22, log: Callable[[str], None] = print
              ) -> dict[str, Any]:
    """Coordinate ascent over the style choices of each kind of answer (``wording.kind``; ``kinds`` most
    frequent first) on BLEU + ROUGE-L / 2 of the fitting half, ``score(style)`` giving (BLEU, ROUGE-L, the
    largest share of one four-word opening). A choice that lets one opening pass ``max_opening`` is refused;
    each kind keeps its two best frames (the wording varies)."""
    style = copy.deepcopy(start)
    style.setdefault("kinds", {})

    def objective(st: dict[str, Any]) -> float:
        b, r, top = score(st)
        return b + 0.5 * r if top <= max_opening else 0.0

    cur = objective(style)
    for k in kinds:
        for slot, options in SLOTS.items():
            tried = []
            for o in options:
                st = copy.deepcopy(style)
                st["kinds"].setdefault(k, {})[slot] = o if isinstance(o, (int, float)) else {o: 1.0}
                tried.append((objective(st), o))
            tried.sort(key=lambda x: -x[0])
            value, best = tried[0]
            if value <= cur + 1e-5:
                continue
            mine = style["kinds"].setdefault(k, {})
            if slot == "frame" and len(tried) > 1 and tried[1][0] > 0:
                mine[slot] = {best: 0.6, tried[1][1]: 0.4}
                value = objective(style)
            else:
                mine[slot] = best if isinstance(best, (int, float)) else {best: 1.0}
            cur = value
            log(f"{k} {slot} {mine[slot]} {value:.4f}")
    return style
