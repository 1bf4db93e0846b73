"""Word perturbation (LAUG "WP", SC-EDA): EDA's four operations outside slot values, and slot-value swaps.

Per utterance one EDA operation (Wei & Zou 2019) is picked at random — synonym replacement, random insertion
of a synonym of some word, random swap of two words, random deletion — and applied n = max(1, ⌊α·words⌋) times
(α = 0.1 as in LAUG). Words inside protected slot values are never touched by these four. Separately, each
slot value is replaced with probability ``slot`` by another value of the same slot from the MultiWOZ databases
(``engine.rewrite.values``); the label changes with it, so every replacement is reported in
``Rewrite.changes`` and the new value is a protected span of the output.

Synonyms come from ``assets/lexicons/synonyms.tsv``, a list the team wrote for this vocabulary (no WordNet
download at run time).
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar, Literal

from parley.engine.params import Field, Params
from parley.engine.rewrite.base import RewriteContext, WithParams
from parley.engine.rewrite.util import Tok, assemble, sort_spans, split_edges, tokenize
from parley.engine.types import Change, Rewrite, Span

OPS: tuple[str, ...] = ("synonym", "insert", "swap", "delete")


@lru_cache(maxsize=1)
def synonyms() -> dict[str, tuple[str, ...]]:
    """word → synonyms, read once from the bundled lexicon."""
    from parley.assets import asset_path

    table: dict[str, list[str]] = {}
    for line in asset_path("lexicons", "synonyms.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        word, _, syns = line.partition("\t")
        for s in syns.split(","):
            s = s.strip()
            if s and s != word and s not in table.setdefault(word.strip(), []):
                table[word.strip()].append(s)
    return {k: tuple(v) for k, v in table.items()}


def _case_like(template: str, word: str) -> str:
    if template[:1].isupper() and template[1:].islower():
        return word[:1].upper() + word[1:]
    if template.isupper() and len(template) > 1:
        return word.upper()
    return word


class WordPerturbationParams(Params):
    alpha: float = Field(0.1, ge=0.0, le=1.0,
                         description="share of words an EDA operation touches (at least one)")
    op: Literal["random", "synonym", "insert", "swap", "delete"] = Field(
        "random", description="EDA operation: one at random per utterance, or a fixed one")
    slot: float = Field(0.39, ge=0.0, le=1.0,
                        description="probability that a slot value is replaced by another DB value")


class WordPerturbation(WithParams[WordPerturbationParams]):
    """LAUG SC-EDA word perturbation with slot-value replacement."""

    name = "wp"
    PARAMS: ClassVar[type[Params]] = WordPerturbationParams

    def __init__(self, **given: object) -> None:
        self.p = WordPerturbationParams.from_spec(self.name, given)

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite:
        p = self.p
        rng = ctx.rng
        spans = sort_spans(ctx.spans)
        toks = tokenize(text, spans)
        syn = synonyms()
        changes: list[Change] = []
        new_spans: list[Span] = list(spans)

        # slot-value replacement
        from parley.engine.rewrite.values import other_value

        for t in toks:
            if t.span is None or p.slot <= 0 or rng.random() >= p.slot:
                continue
            sp = spans[t.span]
            other = other_value(sp, rng)
            if not other:
                continue
            k = t.text.find(sp.value)
            t.text = t.text[:k] + other + t.text[k + len(sp.value):]
            new_spans[t.span] = Span(0, len(other), sp.slot, other, sp.domain)
            changes.append({"slot": sp.slot, "before": sp.value, "after": other, "kind": "replace"})

        words = [i for i, t in enumerate(toks) if t.span is None and split_edges(t.text)[1].isalpha()]
        n_words = sum(1 for t in toks if split_edges(t.text)[1])
        n = max(1, int(p.alpha * n_words)) if p.alpha > 0 else 0
        op = p.op if p.op != "random" else rng.choice(OPS)
        done = 0
        if words and n:
            if op == "synonym":
                cands = [i for i in words if split_edges(toks[i].text)[1].lower() in syn]
                rng.shuffle(cands)
                for i in cands[:n]:
                    lead, core, tail = split_edges(toks[i].text)
                    toks[i].text = lead + _case_like(core, rng.choice(syn[core.lower()])) + tail
                    done += 1
            elif op == "insert":
                srcs = [w for w in (split_edges(toks[i].text)[1].lower() for i in words) if w in syn]
                for _ in range(n if srcs else 0):
                    src = rng.choice(srcs)
                    toks.insert(rng.randrange(len(toks) + 1), Tok(rng.choice(syn[src])))
                    done += 1
            elif op == "swap" and len(words) >= 2:
                for _ in range(n):
                    a, b = rng.sample(words, 2)
                    la, ca, ta = split_edges(toks[a].text)
                    lb, cb, tb = split_edges(toks[b].text)
                    toks[a].text, toks[b].text = la + cb + ta, lb + ca + tb
                    done += 1
            elif op == "delete" and len(words) >= 2:
                drop = set(rng.sample(words, min(n, len(words) - 1)))
                for i in drop:
                    lead, _, tail = split_edges(toks[i].text)
                    toks[i].text = (lead + tail).strip()
                done = len(drop)
        after, out_spans = assemble(toks, new_spans)
        return Rewrite(self.name, self.params, ctx.seed, text, after, out_spans, tuple(changes),
                       {"op": op, "n": done, "replaced": len(changes)})
