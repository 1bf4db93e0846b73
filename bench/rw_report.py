"""Render bench/results/rw.md from bench/results/rw.json (written by bench/rw_bench.py).

    .venv/bin/python bench/rw_bench.py && .venv/bin/python bench/rw_report.py
"""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
NAMES = {1: "sarcastic", 2: "impatient", 3: "bad mood", 4: "tired/hungry", 5: "spoilt brat", 6: "third time"}


def render(r: dict) -> str:
    cr, imp, t = r["change_rates"], r["impolite"], r["throughput"]

    def row(s: int) -> str:
        x = imp[f"impolite:scenario={s},intensity=2"]
        return f"| scenario {s} {NAMES[s]}, intensity 2 | {x['acc']} | {x['bleu']} | {x.get('ppl', '—')} | " \
               f"{x.get('gmean', '—')} |"

    def span(i: int, k: str) -> str:
        v = [imp[f"impolite:scenario={s},intensity={i}"][k] for s in range(1, 7)]
        return f"{min(v)}–{max(v)}"

    def lau(name: str, ref: tuple[float, float, float]) -> str:
        c = cr[name]
        ok = all(abs(c[k] - v) <= 5 for k, v in zip(("char", "word", "slot"), ref, strict=True))
        return f"**{c['char']}** ({ref[0]}) | **{c['word']}** ({ref[1]}) | **{c['slot']}** ({ref[2]}) | " \
               f"{'yes' if ok else 'no'} |"

    rows = "\n".join(row(s) for s in range(1, 7))
    return f"""# User-side rewriters (issue 4) — benchmark results

- **Command:** `.venv/bin/python bench/rw_bench.py && .venv/bin/python bench/rw_report.py` (defaults:
  `--n-ppl 100 --ppl-intensities 2`); raw figures in `bench/results/rw.json`. About 3 minutes on an idle machine.
- **Machine:** 2-core x86_64 CPU, no GPU, shared with other engineers' jobs while it ran.
- **Date:** {r['date']}.
- **Data:** the {r['n_turns']:,} user turns of the 1,000 MultiWOZ test dialogues
  (`../shared/data/multiwoz/convlab3/test.json.zip`), slot values from their `span_info`; seed per turn =
  `step_seed(0, turn, rewriter)`.

## 1. LAUG change rates (default parameters) vs LAUG Table 7

Change rate = edit distance / length of the original, on texts normalised to lower case without punctuation
(`engine/rewrite/metrics.py`; LAUG does not publish the formula), averaged over utterances; slot = share of
annotated slot values no longer present in the rewrite.

| rewriter | char % (LAUG) | word % (LAUG) | slot % (LAUG) | all within ±5 points? |
|---|---|---|---|---|
| `disfluency` (SD) | {lau('disfluency', (22.7, 30.4, 0.4))}
| `wp` (SC-EDA) | {lau('wp', (17.9, 16.0, 36.3))}
| `asr-sim` (SR) | {lau('asr-sim', (7.9, 14.5, 40.8))}
| `impolite` (scenario 2, intensity 2) | {cr['impolite']['char']} | {cr['impolite']['word']} | {cr['impolite']['slot']} | no LAUG anchor; slot values must survive: the {cr['impolite']['slot']} % are annotated values the span detector misses |

## 2. Impoliteness transfer vs Table V of the impolite-users paper

ACC = % of rewrites our politeness scorer (`engine/rewrite/politeness.py`, Danescu-Niculescu-Mizil strategies +
impoliteness cues) labels impolite, over all {r['n_turns']:,} turns (originals: **{r['acc_original']} %**).
BLEU = sacreBLEU of the rewrites against the originals, all turns. PPL = SmolLM2-135M-Instruct perplexity on a
fixed sample of 100 turns (the same 100 originals, MultiWOZ-tokenised: **{r.get('ppl_original', '—')}**).
G-Mean = (ACC × BLEU / PPL)^⅓ as in the paper.

| setting | ACC % | BLEU | PPL | G-Mean |
|---|---|---|---|---|
| paper: T5-large fine-tune | 85.3 | 43.4 | 6.3 | 8.38 |
| paper: BART-large fine-tune | 96.4 | 37.6 | 6.2 | 8.36 |
{rows}
| scenarios 1–6, intensity 1 | {span(1, 'acc')} | {span(1, 'bleu')} | — | — |
| scenarios 1–6, intensity 3 | {span(3, 'acc')} | {span(3, 'bleu')} | — | — |

Reading: at the default intensity 2 the rules reach the paper's ACC/BLEU band (ACC {span(2, 'acc')} vs 85–96,
BLEU {span(2, 'bleu')} vs 38–43: more content kept). **G-Mean is not comparable**: it is dominated by PPL, and our
PPL comes from SmolLM2-135M on short utterances (the originals themselves score {r.get('ppl_original', '—')}),
while the paper used GPT-2 with an unstated setup giving about 6; on the paper's PPL scale (6.3) our ACC/BLEU would
give a G-Mean of about 8.5. ACC is also optimistic: the scorer is hand-weighted, not the paper's BERT classifier
trained on the corpus, and it shares cue words with the rules. Intensity 1 only strips courtesy and turns requests
and questions into commands, so turns with neither (about half of the MultiWOZ user turns) stay neutral — by design.

## 3. Throughput (rule rewriters, spans precomputed, after a 200-turn warm-up)

Goal ≥ 2,000 utterances/s per rule rewriter.

| rewriter | utt/s |
|---|---|
| `disfluency` | {t['disfluency']:,} |
| `wp` | {t['wp']:,} |
| `asr-sim` | {t['asr-sim']:,} (includes first-time phoneme look-ups of new words) |
| `impolite` (rules) | {t['impolite']:,} |
| span detector `find_spans`, uncached (exact + fuzzy) | {r['spans_utt_per_s']:,} |

All four meet the goal; an earlier run while the machine was at load 7–15 still gave 2,691–7,244 utt/s. First use
costs once per process: CMU dictionary + wordfreq index ≈ 1–2 s (asr-sim), synonym lexicon < 10 ms, VADER ≈ 0.1 s
(scorer). `impolite:llm=true` (SmolLM2 on CPU) took 30–60 s per turn on the loaded machine and usually falls back to
the rules plus one LLM-written remark.
"""


def main() -> None:
    r = json.loads((RESULTS / "rw.json").read_text())
    (RESULTS / "rw.md").write_text(render(r))


if __name__ == "__main__":
    main()
