"""MultiWOZ part of bench/fidelity.py: mwzeval (Tomiinek/MultiWOZ_Evaluation @7f19ee0) beside parley, per
dialogue.

Inputs scored by both tools: (1) the gold test corpus — its own system turns, delexicalised by parley, with
the ConvLab-3 gold states; (2) a ``multiwoz`` system run over the same dialogues. Each input is scored twice
by mwzeval: with the active domains parley writes (``parley run --mwzeval-out``) and without them (mwzeval
estimates them itself, as parley does). mwzeval runs in the reference venv (``--ref-python``) from its
checkout; its goals.json, when absent from the checkout, is rebuilt from the ConvLab-3 goals with mwzeval's
own normaliser.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = next(
    (p / "shared" for p in REPO.parents if (p / "shared" / "data").is_dir()), REPO.parent / "shared"
)
TEST = SHARED / "data" / "multiwoz" / "convlab3" / "test.json.zip"

#: runs inside the reference venv, with the mwzeval checkout on sys.path; argv: input.json output.json
DRIVER = r'''
import json, sys
from mwzeval.database import MultiWOZVenueDatabase
from mwzeval.metrics import get_dialog_success
from mwzeval.normalization import normalize_data, normalize_state_slot_value
from mwzeval.utils import get_domain_estimates_from_state, has_domain_predictions, load_booked_domains
job = json.load(open(sys.argv[1]))
REQ = {"phone": "PHONE", "address": "ADDRESS", "postcode": "POST", "trainid": "TRAINID"}
SLOT = {"leaveat": "leave", "arriveby": "arrive"}
def goal(g):
    out = {}
    for d, v in g.items():
        if d in ("message", "topic") or not v:
            continue
        info = {}
        for k, x in (v.get("info") or {}).items():
            k = SLOT.get(k.lower(), k.lower())
            info[k] = normalize_state_slot_value(k, x)
        asked = (r.lower().replace(" ", "") for r in v.get("reqt", []))
        req = [REQ[r] for r in asked if r in REQ]
        book = {k: x for k, x in (v.get("book") or {}).items() if k not in ("invalid", "pre_invalid")}
        if v.get("book"):
            req.append("REFERENCE")
        out[d] = {"informable": info, "requestable": req, "booking": book or []}
    return out
goals = {k: goal(g) for k, g in job["goals"].items()}
booked = load_booked_domains()
db = MultiWOZVenueDatabase()
result = {}
for variant, data in job["inputs"].items():
    normalize_data(data)
    if not has_domain_predictions(data):
        get_domain_estimates_from_state(data)
    per = {}
    for did, dialog in data.items():
        match, success = get_dialog_success(
            goals[did], booked[did], [t["response"] for t in dialog], [t["state"] for t in dialog],
            [t["active_domains"] for t in dialog], db)
        per[did] = {"inform": bool(match["total"]), "success": bool(success.get("total", False))}
    result[variant] = per
json.dump({"verdicts": result, "goals": goals}, open(sys.argv[2], "w"))
'''


WITH = "active domains as `parley run --mwzeval-out` writes them"
WITHOUT = "no active domains (each tool estimates them)"


def mwzeval_verdicts(ref_python: str, mwzeval: Path, goals: dict[str, Any],
                     inputs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="fidelity-mwz-") as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps({"goals": goals, "inputs": inputs}), encoding="utf-8")
        subprocess.run([ref_python, "-c", DRIVER, str(src), str(dst)], cwd=mwzeval, check=True,
                       env={"PYTHONPATH": str(mwzeval), "PATH": "/usr/bin:/bin"})
        return json.loads(dst.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _without_domains(data: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    return {
        d: [{k: v for k, v in t.items() if k != "active_domains"} for t in turns] for d, turns in data.items()
    }


def compare(ours: dict[str, dict[str, Any]], theirs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per input variant: both tools' totals and the dialogues whose verdicts differ."""
    out: dict[str, Any] = {}
    for variant, verdicts in theirs.items():
        mine = ours[variant]
        diff = sorted(d for d in verdicts if (verdicts[d]["inform"], verdicts[d]["success"]) !=
                      (mine[d]["inform"], mine[d]["success"]))
        out[variant] = {"parley": _totals(mine), "mwzeval": _totals(verdicts), "differ": diff,
                        "detail": {d: {"parley": mine[d], "mwzeval": verdicts[d]} for d in diff}}
    return out


def _totals(verdicts: dict[str, Any]) -> dict[str, Any]:
    n = len(verdicts)
    return {"n": n, "inform": 100.0 * sum(v["inform"] for v in verdicts.values()) / n,
            "success": 100.0 * sum(v["success"] for v in verdicts.values()) / n}


def run(args: Any, figures: dict[str, Any], save: Any) -> None:
    from parley.engine.scoring.corpus import load_corpus, mwzeval_dialogue_id, to_mwzeval
    from parley.engine.scoring.multiwoz import EvalTurn, score_dialogue

    corpus = load_corpus(TEST)
    raw_goals = {mwzeval_dialogue_id(c.id): dict(c.goal) for c in corpus}
    mwz = figures.setdefault("mwz", {})
    # 1. the gold corpus scored as a system
    t0 = time.perf_counter()
    gold_turns = {c.id: [EvalTurn(r, s) for r, s in zip(c.system_turns, c.gold_states, strict=True)]
                  for c in corpus}
    ours = {mwzeval_dialogue_id(c.id): score_dialogue(c.goal, gold_turns[c.id], booked=c.booked).to_json()
            for c in corpus}
    seconds = time.perf_counter() - t0
    data = to_mwzeval(gold_turns)
    res = mwzeval_verdicts(
        args.ref_python, args.mwzeval, raw_goals, {WITH: data, WITHOUT: _without_domains(data)}
    )
    mwz["gold"] = {
        "variants": compare({WITH: ours, WITHOUT: ours}, res["verdicts"]),
        "seconds_parley": seconds,
    }
    save()
    # 2. a multiwoz system run
    from parley.engine.scoring.replay import replay
    from parley.engine.systems import build_system
    from parley.store import open_store

    subset = corpus[:args.system_limit] if args.system_limit else corpus
    with tempfile.TemporaryDirectory(prefix="fidelity-run-") as tmp:
        store = open_store(Path(tmp) / "run.db")
        t0 = time.perf_counter()
        (run_,) = replay(
            subset,
            build_system("multiwoz"),
            store,
            conditions=["original"],
            system_spec="multiwoz",
            seed=0,
            source=str(TEST),
        )
        store.close()
    seconds = time.perf_counter() - t0
    ours = {mwzeval_dialogue_id(d.dialogue_id): s.to_json() for d, s in zip(run_.dialogues, run_.scores,
                                                                             strict=True)}
    by_id = {c.id: c for c in subset}
    bare = {mwzeval_dialogue_id(d.dialogue_id): score_dialogue(
        by_id[d.dialogue_id].goal, [EvalTurn(t.response, t.state, None) for t in d.turns],
        booked=by_id[d.dialogue_id].booked).to_json() for d in run_.dialogues}
    data = to_mwzeval({d.dialogue_id: d.turns for d in run_.dialogues})
    res = mwzeval_verdicts(
        args.ref_python,
        args.mwzeval,
        {k: raw_goals[k] for k in ours},
        {WITH: data, WITHOUT: _without_domains(data)},
    )
    mwz["system"] = {
        "variants": compare({WITH: ours, WITHOUT: bare}, res["verdicts"]),
        "seconds_replay": seconds,
    }
    save()


def markdown(mwz: dict[str, Any]) -> list[str]:
    lines = [
        "## 2. MultiWOZ Inform / Success: mwzeval @7f19ee0 beside parley",
        "",
        "Each input is given to both tools as the same mwzeval-format file (responses delexicalised by "
        "parley; mwzeval's goals rebuilt from the ConvLab-3 goals with its own normaliser). Measured "
        "measured before this work: gold corpus parley 90.4 / 88.1 vs mwzeval 91.2 / 88.9 (12 dialogues "
        "differ); `multiwoz` on 100 dialogues 87.0 / 63.0 on both.",
        "",
    ]
    titles = {
        "gold": "the gold test corpus (corpus system turns, ConvLab-3 gold states)",
        "system": "the `multiwoz` system replaying the test dialogues (condition original)",
    }
    for key, title in titles.items():
        part = mwz.get(key)
        if not part:
            continue
        lines += [
            f"### {title}",
            "",
            "| input | n | Inform parley | mwzeval | Δ | Success parley | mwzeval | Δ | "
            "dialogues with another verdict |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for variant, v in part["variants"].items():
            p, m = v["parley"], v["mwzeval"]
            lines.append(
                f"| {variant} | {p['n']} | {p['inform']:.1f} | {m['inform']:.1f} | "
                f"{p['inform'] - m['inform']:+.1f} | {p['success']:.1f} | {m['success']:.1f} | "
                f"{p['success'] - m['success']:+.1f} | {len(v['differ'])}: {', '.join(v['differ'][:20])}"
                f"{' …' if len(v['differ']) > 20 else ''} |"
            )
        lines.append("")
    return lines
