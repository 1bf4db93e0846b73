"""``parley rewrite``: run the user-side rewriter chain over lines of stdin (JSONL out, or one report)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import statistics
from collections.abc import Iterator

import click

from parley.cli.common import iter_lines, param_lines
from parley.cli.options import SEED, NumberOption
from parley.display import json_text
from parley.errors import ParleyError
from parley.jsontypes import JSONObject


def _list_rewriters() -> None:
    from parley.engine.rewrite import ORDER, REWRITERS

    for name in ORDER:
        entry = REWRITERS.get(name)
        click.echo(f"{name:<11} {entry.summary}")
        for line in param_lines(entry, indent=14):
            click.echo(line)


@click.command()
@click.option("--rewriter", "-r", "specs", multiple=True, metavar="SPEC",
              help="A rewriter spec, repeatable, e.g. impolite:scenario=2 or asr-sim:wer=0.2 "
                   "(applied in the fixed order impolite, disfluency, wp, asr-sim).")
@click.option("--seed", type=SEED, cls=NumberOption, default=0, show_default=True,
              help="Session seed (line i is turn i).")
@click.option("--report", is_flag=True,
              help="Print one JSON report (n, bleu, ppl, ppl_ratio_median, preserved, change_rate; with "
                   "impolite "
                   "also acc, gmean, courtesy_free) instead of JSONL.")
@click.option("--no-ppl", is_flag=True, help="With --report: skip perplexity (does not load the LLM).")
@click.option("--list", "list_", is_flag=True, help="List the rewriters and their parameters, then exit.")
def rewrite(specs: tuple[str, ...], seed: int, report: bool, no_ppl: bool, list_: bool) -> None:
    """Rewrite each line of stdin with the user-side rewriter chain.

    Writes one JSON object per line: {"before", "after", "steps": [{"name", "params", "after", "changes"}]}.
    With --report, prints one JSON object: n; bleu (sacreBLEU against the input lines); ppl (corpus perplexity
    under ppl_model, the bundled SmolLM2) and ppl_ratio_median (median over lines of the rewrite's perplexity
    / the input's); preserved (% of lines keeping every slot value and requested attribute); change_rate (LAUG
    char/word/slot). When the chain holds impolite, also acc (% judged impolite by parley's own politeness
    scorer, named in acc_judge: not the paper's BERT classifier), gmean (of acc, bleu and 1/ppl) and
    courtesy_free (% of lines without a courtesy marker).
    """
    if list_:
        _list_rewriters()
        return
    if not specs:
        raise ParleyError("give at least one --rewriter SPEC (see `parley rewrite --list`)")
    from parley.engine.rewrite.chain import Chain

    chain = Chain(specs)
    befores: list[str] = []
    afters: list[str] = []
    for i, line in enumerate(iter_lines("-", "standard input")):  # each line answered as it comes
        res = chain.apply(line, seed=seed, turn_index=i)
        if report:
            befores.append(line)
            afters.append(res.after)
        else:
            click.echo(json_text({
                "before": res.before, "after": res.after,
                "steps": [{"name": s.name, "params": dict(s.params), "after": s.after,
                           "changes": [dict(c) for c in s.changes]} for s in res.steps],
            }))
    if report and not befores:  # BLEU 0, 0 % preserved … of nothing: no figures rather than made-up ones
        raise ParleyError("--report: standard input holds no lines to rewrite")
    if report:
        impolite = any(spec.name == "impolite" for spec in chain.specs)
        click.echo(json.dumps(make_report(befores, afters, ppl=not no_ppl, impolite=impolite)))


def make_report(befores: list[str], afters: list[str], *, ppl: bool = True, impolite: bool = True
                ) -> JSONObject:
    """The --report object for parallel lists of inputs and outputs (ACC and G-Mean only for impoliteness)."""
    from parley.engine.rewrite.courtesy import markers
    from parley.engine.rewrite.metrics import (
        ACC_JUDGE,
        PPL_MODEL,
        accuracy_impolite,
        bleu,
        change_rates,
        gmean,
        perplexity,
        ppl_ratios,
        preserved,
    )

    rates = change_rates(zip(befores, afters, strict=True))
    b = bleu(afters, befores)
    p: float | None = None
    ratio: float | None = None
    if ppl and afters:
        try:
            with _quiet_transformers():
                p = perplexity(afters)
                ratios = ppl_ratios(befores, afters)
            ratio = statistics.median(ratios) if ratios else None
        except Exception as e:  # the LLM may be missing: report without it, say why
            click.echo(f"parley: warning: perplexity skipped ({str(e).splitlines()[0] if str(e) else e!r})",
                       err=True)
        if p is not None and math.isnan(p):
            p = None
    out: JSONObject = {"n": len(afters), "bleu": round(b, 2),
                           "ppl": round(p, 3) if p is not None else None,
                           "ppl_ratio_median": round(ratio, 3) if ratio is not None else None,
                           "ppl_model": PPL_MODEL, "preserved": round(preserved(befores, afters), 2),
                           "change_rate": rates.to_json()}
    if impolite:
        acc = accuracy_impolite(afters)
        free = 100.0 * sum(not markers(a) for a in afters) / len(afters) if afters else 0.0
        out.update({"acc": round(acc, 2), "acc_judge": ACC_JUDGE, "courtesy_free": round(free, 2),
                    "gmean": round(gmean(acc, b, p), 3) if p is not None else None})
    return out


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """No "Loading weights"/GGUF conversion progress bars or load warnings on stderr while the LM for
    perplexity loads and runs (the bars come from transformers' and tqdm's own writers, so stderr is
    captured)."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        hf_logging.enable_progress_bar()
        hf_logging.set_verbosity(level)
