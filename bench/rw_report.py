"""Render bench/results/rw.md from bench/results/rw.json (bench/rw_bench.py) and rw_asr.json
(bench/rw_asr.py).

    .venv/bin/python bench/rw_bench.py && .venv/bin/python bench/rw_asr.py
    .venv/bin/python bench/rw_report.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
NAMES = {1: "sarcastic", 2: "impatient", 3: "bad mood", 4: "tired/hungry", 5: "spoilt brat", 6: "third time"}
LAUG = {"disfluency": (22.7, 30.4, 0.4), "wp": (17.9, 16.0, 36.3), "asr-sim": (7.9, 14.5, 40.8)}


def _lau(cr: dict[str, Any], name: str) -> str:
    c, ref = cr[name], LAUG[name]
    diff = max(abs(c[k] - v) for k, v in zip(("char", "word", "slot"), ref, strict=True))
    return (f"| `{name}` | **{c['char']}** ({ref[0]}) | **{c['word']}** ({ref[1]}) | **{c['slot']}** "
            f"({ref[2]}) | "
            f"{diff:.1f} |")


def _imp_rows(imp: dict[str, Any], intensity: int, part: str) -> str:
    rows = []
    for s in range(1, 7):
        x = imp.get(f"impolite:scenario={s},intensity={intensity}", {}).get(part)
        if x is None:
            rows.append(f"| {s} {NAMES[s]} | not measured | | | | | | |")
            continue
        ppl = f"{x['ppl_ratio_median']} ({x['ppl_ratio_p90']})" if "ppl_ratio_median" in x else "—"
        rows.append(f"| {s} {NAMES[s]} | {x['courtesy_free']} | {x['preserved']} | {x['whole']} | {x['acc']} "
                    f"| "
                    f"{x['bleu']} | {ppl} | {x['utt_per_s']:,} / {x.get('utt_per_cpu_s', 0):,} |")
    return "\n".join(rows)


def _asr(a: dict[str, Any]) -> str:
    if not a:
        return "Not measured yet: run `bench/rw_asr.py`.\n"
    out = [f"Date {a['date']}; `{a['sim']}` against `{a['real']}` (piper voice → Whisper tiny.en, clean "
           f"speech).\n"]
    for name, label in (("generated", "polite requests written for parley"),
                        ("multiwoz", "MultiWOZ test user turns (sample)")):
        g = a.get(name)
        if not g:
            continue
        cls = g["error_rate_by_class"]
        out.append(f"""**{label}** ({g['n']} utterances, {g['words']:,} words; real channel
{g['real_s_per_utt']} s per utterance):

| figure | asr-sim | asr-real |
|---|---|---|
| WER against the original (Whisper-normalised) | {g['wer_sim']} % | {g['wer_real']} % |
| words changed | {g['changed_both'] + g['changed_only_sim']} | {g['changed_both'] + g['changed_only_real']} |
| … of them changed by the other channel too | {_pct(g['sim_changes_real_also_made'])} | \
{_pct(g['real_changes_sim_also_made'])} |
| substitution pairs (tokens) | {g['pairs_sim']} | {g['pairs_real']} |
""" + "\n".join(f"| error rate on {c} words ({v['words']}) | {v['sim']} % | {v['real']} % |"
                for c, v in cls.items()) + f"""

Overlap of confused words (Jaccard over word positions): **{g['changed_jaccard']}**; WER of asr-sim's output
against asr-real's: {g['wer_sim_vs_real']} %; substitution pairs produced by both: {g['pairs_shared_types']}
types ({', '.join(g['shared'][:10]) or 'none'}).
Most frequent substitutions — asr-sim: {'; '.join(g['top_sim'][:8])}.
asr-real: {'; '.join(g['top_real'][:8])}.
""")
    ex = a.get("generated", {}).get("examples", [])[:6]
    if ex:
        out.append("| original | asr-sim | asr-real |\n|---|---|---|")
        out += [f"| {e['text']} | {e['sim']} | {e['real']} |" for e in ex]
    return "\n".join(out) + "\n"


def _runs(r: dict[str, Any]) -> str:
    runs = r.get("runs", [])[1:]
    return "".join(f"; {', '.join(x['parts'])} measured again {x['date']} (load {x['load_start']})"
                   for x in runs)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f} %"


def render(r: dict[str, Any], a: dict[str, Any]) -> str:
    cr, t, imp = r["change_rates"], r["throughput"], r["impolite"]
    tc = r.get("throughput_cpu", {})
    return f"""# User-side rewriters — benchmark results

- **Commands:** `PARLEY_SHARED_DATA=../shared/data .venv/bin/python bench/rw_bench.py`
  (defaults `--n-polite 300 --n-ppl 50 --ppl-intensities 2 \
--multiwoz-intensities 2`: the PPL ratio on the first
  50 requests), `.venv/bin/python bench/rw_asr.py --n 100 --multiwoz 60`, then \
`.venv/bin/python bench/rw_report.py`; raw figures in `bench/results/rw.json` and `rw_asr.json`.
- **Machine:** {r['machine']}, no GPU, shared with other jobs: load average
  {r['load_start']} at the start and up to {r.get('load_end', '—')} at the end of a run, so every \
throughput below
  is a floor, not what an idle machine gives.
- **Date:** {r['date']}{_runs(r)}.
- **Data:** the {r['n_turns']:,} user turns of the 1,000 MultiWOZ test dialogues (read at run time from
  `../shared/data`, never stored), slot values from their `span_info`; and 300 polite requests written for
  parley (`tests/polite_requests.py`: greeting + request + thanks variants over MultiWOZ database values).
  Seed per turn = `step_seed(0, turn, rewriter)`.

## 1. LAUG change rates (default parameters) vs LAUG Table 7, MultiWOZ test user turns

Change rate = edit distance / length of the original, on texts normalised to lower case without punctuation
(`engine/rewrite/metrics.py`; LAUG does not publish the formula), averaged over utterances; slot = share of
annotated slot values no longer present in the rewrite.

| rewriter | char % (LAUG) | word % (LAUG) | slot % (LAUG) | largest gap (points) |
|---|---|---|---|---|
{_lau(cr, 'disfluency')}
{_lau(cr, 'wp')}
{_lau(cr, 'asr-sim')}

Disfluency insertions at implausible boundaries (a filler, repeat or restart breaking a slot value, a
requested attribute, a number with its unit or a name), at raised rates
(`rate=0.5,repeat_share=0.5,restart=0.5`): **{r['disfluency_broken_units']['generated']}** of 300 generated
requests, **{r['disfluency_broken_units']['multiwoz']}** of {r['n_turns']:,} MultiWOZ turns (goal 0).

## 2. Impoliteness per scenario

Courtesy-free = % of rewrites holding no courtesy marker (`engine/rewrite/courtesy.py`; originals holding one:
{r['courtesy_in_originals']['generated']} % of the generated requests,
{r['courtesy_in_originals']['multiwoz']} % of the MultiWOZ turns). Preserved = % keeping every slot value and
every requested attribute (goal 100). Whole = % with no lone fragment sentence. ACC = % judged impolite by
**parley's own hand-weighted politeness scorer** (`engine/rewrite/politeness.py`) — not the impolite-users
paper's ACC, which a BERT classifier trained on its corpus gave; the originals score
{r['acc_originals']['generated']} % (generated) and {r['acc_originals']['multiwoz']} % (MultiWOZ). BLEU =
sacreBLEU against the originals. PPL ratio = median over utterances of perplexity(rewrite) /
perplexity(original) under **SmolLM2-135M-Instruct** (bundled), 90th percentile in brackets; goal ≤ 1.5.
Throughput in utterances/s, wall clock / per CPU-second (goal ≥ 2,000), rule path, spans precomputed as the
chain provides them.

**Generated polite requests, intensity 2 (the default)**

| scenario | courtesy-free % | preserved % | whole % | ACC % | BLEU | PPL ratio | utt/s (wall / CPU) |
|---|---|---|---|---|---|---|---|
{_imp_rows(imp, 2, 'generated')}

**Generated polite requests, intensity 1 and 3**

| scenario | courtesy-free % | preserved % | whole % | ACC % | BLEU | PPL ratio | utt/s (wall / CPU) |
|---|---|---|---|---|---|---|---|
{_imp_rows(imp, 1, 'generated')}
{_imp_rows(imp, 3, 'generated')}

**MultiWOZ test user turns, intensity 2**

| scenario | courtesy-free % | preserved % | whole % | ACC % | BLEU | PPL ratio | utt/s (wall / CPU) |
|---|---|---|---|---|---|---|---|
{_imp_rows(imp, 2, 'multiwoz')}

## 3. Throughput (rule rewriters on the MultiWOZ turns, after a warm-up)

Wall-clock utterances/s (what this loaded machine gave) and utterances per CPU-second (what one core gives
when no other job competes for it).

| rewriter | utt/s (wall) | utt/CPU-s |
|---|---|---|
| `disfluency` | {t['disfluency']:,} | {tc.get('disfluency', 0):,} |
| `wp` | {t['wp']:,} | {tc.get('wp', 0):,} |
| `asr-sim` | {t['asr-sim']:,} | {tc.get('asr-sim', 0):,} |
| `impolite` (rules, scenario 2, intensity 2) | {t['impolite']:,} | {tc.get('impolite', 0):,} |
| span detector `find_spans`, uncached | {r['spans_utt_per_s']:,} | {r.get('spans_utt_per_cpu_s', '—'):,} |

## 4. Simulated against real speech recognition

{_asr(a)}"""


def _before(b: dict[str, Any]) -> str:
    """The same comparison run on asr-sim as it was before its rework (kept in rw_asr_before.json)."""
    g = b.get("generated")
    if not g:
        return ""
    cls = g["error_rate_by_class"]
    return f"""
**Before** (asr-sim as it was before this round, `wer=0.13`, run {b['date']} on the first {g['n']} of the same
generated requests): WER {g['wer_sim']} % (real {g['wer_real']} %), Jaccard of confused words
**{g['changed_jaccard']}**, real-channel errors also made by asr-sim {_pct(g['real_changes_sim_also_made'])},
shared substitution pair types {g['pairs_shared_types']}; error rate on function words \
{cls['function']['sim']} %,
other words {cls['other']['sim']} %, slot words {cls['slot']['sim']} % (real: {cls['function']['real']} /
{cls['other']['real']} / {cls['slot']['real']} %). Its top substitutions: {'; '.join(g['top_sim'][:6])}.
"""


def _spans_before(b: dict[str, Any], r: dict[str, Any]) -> str:
    """rw_bench's figures with find_spans before it protected spoken times (kept in rw_spans_before.json)
    against the current ones: what moved."""
    if not b:
        return ""
    figs = [(f"change rate `{k}` {part}", ("change_rates", k, part))
            for k in r["change_rates"] for part in ("char", "word", "slot")]
    figs += [(f"disfluency broken units ({k})", ("disfluency_broken_units", k))
             for k in r["disfluency_broken_units"]]
    figs += [(f"`{spec}` {where} {part}", ("impolite", spec, where, part))
             for spec, row in r["impolite"].items() for where, x in row.items()
             for part in ("courtesy_free", "preserved", "whole", "acc", "bleu", "ppl_ratio_median")
             if part in x]

    def get(d: Any, path: tuple[str, ...]) -> Any:
        for k in path:
            d = d.get(k) if isinstance(d, dict) else None
        return d

    moved = [f"{name}: {get(b, p)} → {get(r, p)}" for name, p in figs
             if get(b, p) is not None and get(b, p) != get(r, p)]
    n = r.get("spoken_time_turns", {})
    return f"""
## Spoken-time spans: before and after

`find_spans` protects spoken times ("eleven o'clock", "half past six", "quarter to 7", "six thirty",
"seven p.m.", "ten in the morning", "noon") since branch `spans`. They are held by
{n.get('multiwoz', '—')} of the {r['n_turns']:,} MultiWOZ test user turns (ConvLab-3's MultiWOZ writes times
in digits) and {n.get('generated', '—')} of the 300 generated requests (digit times only), so few figures can
move. Before = the same `rw_bench.py` run with `find_spans` as it was ({b.get('code', '')}), {b['date']},
load {b['load_start']} (`bench/results/rw_spans_before.json`); after = the run above. Figures that moved
(throughput aside): {'; '.join(moved) if moved else '**none** at the published precision'}. Span detector
uncached: {b['spans_utt_per_s']:,} utt/s before (wall clock, load {b['load_start']}), \
{r.get('spans_utt_per_cpu_s', '—'):,} utt/CPU-s after.
"""


def _openai(o: dict[str, Any]) -> str:
    """impolite backend=openai against a local server (bench/rw_openai.py, kept in rw_openai.json)."""
    if not o:
        return ""
    reasons = "; ".join(f"{k} {v}" for k, v in o["fallback_reasons"].items()) or "none"
    scen = ", ".join(f"{k}: {v}" for k, v in o["by_scenario"].items())
    acc = [r for r in o["rows"] if r["engine"] == "openai"][:3]
    shown = "".join(f"\n- {r['before']!r} → {r['after']!r} (scenario {r['scenario']})" for r in acc)
    found = re.search(r"url=https?://[^:/,]+:(\d+)", o["spec"])
    port = found.group(1) if found else 8000
    return f"""
## 5. Impoliteness through an OpenAI-compatible endpoint (`backend=openai`)

- **Command:** `parley serve-bundled --port {port} --threads 1` (`transformers serve`, the bundled
  SmolLM2-135M-Instruct on the CPU; with `--threads 2` at load ~8 a probe's requests took 25-240 s each), then
  `.venv/bin/python {o['command']}`; raw figures in `bench/results/rw_openai.json`.
- **Machine:** {o['machine']}, shared: load average {o['load_start']} at the start, {o['load_end']} at the end
  (the server competes with every other job for 2 cores, so latencies are a ceiling, not an idle machine's).
- **Date:** {o['date']}; {o['n']} generated polite requests, scenario 1 + i % 6, intensity from the spec
  `{o['spec']}`, temperature 0, seed i; one warm-up request not counted; {o['total_s']} s in all.

| latency per rewrite | p50 | p90 | max |
|---|---|---|---|
| as the caller sees it (request, check, rules when refused), ms | {o['wall_ms']['p50']} | \
{o['wall_ms']['p90']} | {o['wall_ms']['max']} |
| the server's answer, ms | {o['server_ms']['p50']} | {o['server_ms']['p90']} | — |

Accepted (the model's rewrite passed the check): **{o['accepted_pct']} %**; by scenario (accepted/asked):
{scen}. Fallbacks to the rules, by reason: {reasons}. Every rewrite, accepted or not, kept its slot values and
requested attributes in {o['kept_pct']} % of requests and was courtesy-free in \
{o['courtesy_free_pct']} %.{shown}
"""


def main() -> None:
    r = json.loads((RESULTS / "rw.json").read_text())
    asr = RESULTS / "rw_asr.json"
    a = json.loads(asr.read_text()) if asr.is_file() else {}
    before = RESULTS / "rw_asr_before.json"
    b = json.loads(before.read_text()) if before.is_file() else {}
    op = RESULTS / "rw_openai.json"
    o = json.loads(op.read_text()) if op.is_file() else {}
    sb = RESULTS / "rw_spans_before.json"
    s = json.loads(sb.read_text()) if sb.is_file() else {}
    (RESULTS / "rw.md").write_text(render(r, a) + _before(b) + _openai(o) + _spans_before(s, r))


if __name__ == "__main__":
    main()
