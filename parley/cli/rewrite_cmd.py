"""``parley rewrite``: run the user-side rewriter chain over lines of stdin (JSONL out, or one report)."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from parley.cli.common import SEED, read_lines
from parley.errors import ParleyError


def _list_rewriters() -> None:
    from parley.engine.rewrite import ORDER, REWRITERS

    for name in ORDER:
        entry = REWRITERS.get(name)
        click.echo(f"{name:<11} {entry.summary}")
        try:
            cls = entry.load()
        except Exception as e:  # e.g. the audio channel without its extras
            click.echo(f"{'':<11}   (unavailable: {e})")
            continue
        for p in getattr(cls, "PARAMS", ()):
            rng = f" [{p.lo:g}..{p.hi:g}]" if p.lo is not None and p.hi is not None and p.kind != "choice" else ""
            ch = f" {{{'|'.join(map(str, p.choices))}}}" if p.choices else ""
            click.echo(f"{'':<11}   {p.name}={p.default}{ch}{rng}: {p.help}")


@click.command()
@click.option("--rewriter", "-r", "specs", multiple=True, metavar="SPEC",
              help="A rewriter spec, repeatable, e.g. impolite:scenario=2 or asr-sim:wer=0.2 "
                   "(applied in the fixed order impolite, disfluency, wp, asr-sim).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Session seed (line i is turn i).")
@click.option("--report", is_flag=True,
              help="Print one JSON report (n, acc, bleu, ppl, gmean, change_rate) instead of JSONL.")
@click.option("--no-ppl", is_flag=True, help="With --report: skip perplexity (does not load the LLM).")
@click.option("--list", "list_", is_flag=True, help="List the rewriters and their parameters, then exit.")
def rewrite(specs: tuple[str, ...], seed: int, report: bool, no_ppl: bool, list_: bool) -> None:
    """Rewrite each line of stdin with the user-side rewriter chain.

    Writes one JSON object per line: {"before", "after", "steps": [{"name", "params", "after", "changes"}]}.
    With --report, prints {"n", "acc", "bleu", "ppl", "gmean", "change_rate": {"char", "word", "slot"}}:
    ACC = % judged impolite by the politeness scorer, BLEU against the input lines, PPL under the bundled
    SmolLM2, G-Mean of ACC, BLEU and 1/PPL, LAUG change rates of characters, words and slot values.
    """
    if list_:
        _list_rewriters()
        return
    if not specs:
        raise ParleyError("give at least one --rewriter SPEC (see `parley rewrite --list`)")
    from parley.engine.rewrite.chain import Chain

    chain = Chain(specs)
    lines = read_lines("-", "standard input")
    befores: list[str] = []
    afters: list[str] = []
    for i, line in enumerate(lines):
        res = chain.apply(line, seed=seed, turn_index=i)
        befores.append(line)
        afters.append(res.after)
        if not report:
            click.echo(json.dumps({
                "before": res.before, "after": res.after,
                "steps": [{"name": s.name, "params": dict(s.params), "after": s.after,
                           "changes": [dict(c) for c in s.changes]} for s in res.steps],
            }, ensure_ascii=False))
    if report:
        click.echo(json.dumps(make_report(befores, afters, ppl=not no_ppl)))


def make_report(befores: list[str], afters: list[str], *, ppl: bool = True) -> dict[str, Any]:
    """The --report object for parallel lists of inputs and outputs."""
    from parley.engine.rewrite.metrics import accuracy_impolite, bleu, change_rates, gmean, perplexity

    rates = change_rates(zip(befores, afters, strict=True))
    acc = accuracy_impolite(afters)
    b = bleu(afters, befores)
    p: float | None = None
    if ppl and afters:
        try:
            p = perplexity(afters)
        except Exception as e:  # the LLM may be missing: report without it, say why
            click.echo(f"parley: warning: perplexity skipped ({str(e).splitlines()[0] if str(e) else e!r})",
                       err=True)
        if p is not None and math.isnan(p):
            p = None
    return {"n": len(afters), "acc": round(acc, 2), "bleu": round(b, 2),
            "ppl": round(p, 3) if p is not None else None,
            "gmean": round(gmean(acc, b, p), 3) if p is not None else None,
            "change_rate": rates.to_json()}
