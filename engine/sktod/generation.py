"""Response generation: aspect-aware sentiment per snippet (VADER) → an answer stating the majority and the
minority opinion and their proportion, in varied team-written templates.

Optionally a seq2seq or causal checkpoint (folder or hub id) writes the answer from the paper's ABSA-enhanced
input: each snippet followed by "<aspect> is great/ok/bad." (see :class:`ModelGenerator`).
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parley.engine.loading import explain, load_pretrained, pretrained_kwargs, resolve
from parley.engine.sktod.aspects import ASPECTS, aspect_phrase, aspect_word, aspects_of, snippet_aspects
from parley.engine.sktod.knowledge import ScoredSnippet
from parley.engine.types import LoadError
from parley.progress import Progress

#: review words VADER's lexicon lacks or under-weights (team-chosen valences on VADER's −4…4 scale)
EXTRA_LEXICON: dict[str, float] = {
    "noisy": -1.6, "loud": -1.2, "quiet": 1.2, "spotless": 2.2, "cramped": -1.6, "overpriced": -2.0,
    "pricey": -1.2, "slow": -1.3, "reliable": 1.6, "unreliable": -1.8, "spacious": 1.6, "affordable": 1.5,
    "bland": -1.6, "stale": -1.6, "mediocre": -1.4, "spotty": -1.5, "patchy": -1.5, "outdated": -1.4,
    "comfy": 1.8, "cosy": 1.6, "cozy": 1.6, "tasty": 2.0, "filthy": -2.6, "stained": -1.6, "fast": 1.2,
    "lacking": -1.4, "tiny": -0.8, "cold": -0.6, "soggy": -1.6, "greasy": -1.3, "rude": -2.2,
    "attentive": 1.8, "prompt": 1.2, "smelly": -1.8, "musty": -1.6, "broken": -1.8, "peaceful": 1.8,
    "unhelpful": -1.8, "inexpensive": 1.4, "convenient": 1.6, "inconvenient": -1.6, "bargain": 1.6,
    "dropping": -1.3, "dropped": -1.1, "disconnected": -1.4, "disconnecting": -1.4, "flaky": -1.5,
    "lukewarm": -1.0, "overcooked": -1.5, "sticky": -1.0, "dated": -0.8, "sagged": -1.2, "harsh": -1.2,
    "spoiled": -1.6, "warned": -1.0, "grubby": -1.6, "curt": -1.2, "disorganised": -1.6, "undrinkable": -2.0,
}

_CLAUSE = re.compile(r"[;:]|,?\s+\b(?:but|however|although|though|yet|while|whereas|except)\b", re.I)

NUMBER = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
          "twelve")


def number(n: int) -> str:
    return NUMBER[n] if 0 <= n < len(NUMBER) else str(n)


@dataclass(frozen=True)
class Opinion:
    """The sentiment of one selected snippet towards the asked aspect."""

    snippet: ScoredSnippet
    label: str  # "positive" | "negative" | "neutral"
    compound: float
    clause: str

    def to_json(self) -> dict[str, Any]:
        s = self.snippet.snippet
        return {**s.ref(), "text": s.text, "score": round(self.snippet.score, 4), "sentiment": self.label,
                "compound": round(self.compound, 3)}


class Sentiment:
    """VADER with a review lexicon supplement, scored on the clauses that mention the asked aspect."""

    def __init__(self) -> None:
        self._vader: Any = None

    def load(self, progress: Progress = None) -> None:
        if self._vader is None:
            try:
                from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
            except ImportError:
                raise LoadError("VADER is missing: pip install vaderSentiment") from None
            v = SentimentIntensityAnalyzer()
            v.lexicon.update(EXTRA_LEXICON)
            self._vader = v

    def clause(self, text: str, aspects: frozenset[str]) -> str:
        """The part of ``text`` about ``aspects`` (the whole text when no clause names one)."""
        parts = [p.strip() for p in _CLAUSE.split(text) if p and p.strip()]
        if len(parts) > 1 and aspects:
            hits = [p for p in parts if aspects_of(p) & aspects]
            if hits:
                return " ".join(hits)
        return text

    def score(self, text: str, aspects: frozenset[str] = frozenset()) -> tuple[str, float, str]:
        """(label, compound, clause) for one snippet; |compound| < 0.05 is neutral."""
        self.load()
        c = self.clause(text, aspects)
        compound = float(self._vader.polarity_scores(c)["compound"])
        label = "positive" if compound >= 0.05 else "negative" if compound <= -0.05 else "neutral"
        return label, compound, c


@dataclass(frozen=True)
class Answer:
    text: str
    opinions: tuple[Opinion, ...]
    aspects: tuple[str, ...]


def _pick(rng: random.Random, options: Sequence[str]) -> str:
    return options[rng.randrange(len(options))]


def _name(raw: str) -> str:
    """Entity names are upper case in DSTC11: title-case them for answers."""
    words = raw.lower().split()
    small = {"and", "of", "the", "by", "du", "de", "la"}
    return " ".join(w if (i and w in small) else (w[:1].upper() + w[1:]) for i, w in enumerate(words))


def summarise(name: str, opinions: Sequence[Opinion], phrase: str, rng: random.Random) -> str:
    """One or two sentences about one entity: the majority view, the minority view and their proportion.

    Reviews are counted once (a review with several selected sentences counts by its mean compound). A
    positive majority is claimed only when positive reviews outnumber negative ones.
    """
    by_doc: dict[int, list[float]] = {}
    for o in opinions:
        by_doc.setdefault(o.snippet.snippet.doc_id, []).append(o.compound)
    pos = sum(1 for v in by_doc.values() if sum(v) / len(v) >= 0.05)
    neg = sum(1 for v in by_doc.values() if sum(v) / len(v) <= -0.05)
    neu = len(by_doc) - pos - neg
    n = pos + neg + neu
    P = phrase[:1].upper() + phrase[1:]
    ctx = {"name": name, "phrase": phrase, "Phrase": P, "n": number(n), "pos": number(pos),
           "neg": number(neg), "neu": number(neu)}
    if n == 0:
        return _pick(rng, ("I could not find any reviews of {name} that mention {phrase}.",
                           "None of the reviews of {name} say anything about {phrase}.")).format(**ctx)
    if n == 1:
        opts = {
            "positive": ("One guest mentioned {phrase} at {name} and was happy with it.",
                         "There is one review of {phrase} at {name}, and it is positive.",
                         "A guest who wrote about {phrase} at {name} liked it."),
            "negative": ("One guest mentioned {phrase} at {name} and was not impressed.",
                         "There is one review of {phrase} at {name}, and it is negative.",
                         "A guest who wrote about {phrase} at {name} was disappointed."),
            "neutral": ("One guest mentioned {phrase} at {name} without a strong opinion.",
                        "There is one review of {phrase} at {name}; it is neither positive nor negative."),
        }
        label = "positive" if pos else "negative" if neg else "neutral"
        return _pick(rng, opts[label]).format(**ctx)
    if pos == neg == 0:
        return _pick(rng, ("Guests mention {phrase} at {name} ({n} reviews) without a strong opinion either "
                           "way.",
                           "The {n} reviews that mention {phrase} at {name} are neither positive nor "
                           "negative.")
                     ).format(**ctx)
    if pos == n:
        return _pick(rng, ("All {n} guests who mentioned {phrase} at {name} were positive about it.",
                           "Reviews of {phrase} at {name} are all positive ({n} of {n}).",
                           "Every guest who wrote about {phrase} at {name} ({n} reviews) liked it.")
                     ).format(**ctx)
    if neg == n:
        return _pick(rng, ("All {n} guests who mentioned {phrase} at {name} complained about it.",
                           "Reviews of {phrase} at {name} are all negative ({n} of {n}).",
                           "Every guest who wrote about {phrase} at {name} ({n} reviews) was unhappy "
                           "with it.")
                     ).format(**ctx)
    if pos > neg and 2 * pos > n:
        ctx["k"] = number(pos)
        ctx["m"] = number(n - pos)
        minority = ("{m} did not like it" if neg and not neu else "{m} had mixed or neutral feelings"
                    if not neg else "the other {m} were negative or neutral")
        ctx["minority"] = minority.format(**ctx)
        return _pick(rng, ("Most guests — {k} of {n} — were happy with {phrase} at {name}, while {minority}.",
                           "Reviews of {phrase} at {name} are mostly good: {k} of {n} guests liked it and "
                           "{minority}.",
                           "The majority of reviews ({k} of {n}) praise {phrase} at {name}; {minority}.")
                     ).format(**ctx)
    if neg > pos and 2 * neg > n:
        ctx["k"] = number(neg)
        ctx["m"] = number(n - neg)
        minority = ("{m} liked it" if pos and not neu else "{m} were neutral" if not pos
                    else "the other {m} were positive or neutral")
        ctx["minority"] = minority.format(**ctx)
        return _pick(rng, ("Most guests — {k} of {n} — were unhappy with {phrase} at {name}, although "
                           "{minority}.",
                           "Reviews of {phrase} at {name} are mostly poor: {k} of {n} guests complained and "
                           "{minority}.",
                           "The majority of reviews ({k} of {n}) criticise {phrase} at {name}; {minority}.")
                     ).format(**ctx)
    if pos > neg:
        return _pick(rng, ("Reviews of {phrase} at {name} lean positive: {pos} of {n} guests liked it, {neg} "
                           "did not and {neu} had no strong view.",
                           "More guests liked {phrase} at {name} than not — {pos} positive, {neg} negative "
                           "and {neu} neutral out of {n}.")).format(**ctx)
    if neg > pos:
        return _pick(rng, ("Reviews of {phrase} at {name} lean negative: {neg} of {n} guests complained, "
                           "{pos} liked it and {neu} had no strong view.",
                           "More guests were unhappy with {phrase} at {name} than pleased — {neg} negative, "
                           "{pos} positive and {neu} neutral out of {n}.")).format(**ctx)
    return _pick(rng, ("Opinions on {phrase} at {name} are split: {pos} positive, {neg} negative"
                       + (" and {neu} neutral." if neu else "."),
                       "Guests disagree about {phrase} at {name} — {pos} liked it and {neg} did not.")
                 ).format(**ctx)




class TemplateGenerator:
    """Answers from the selected snippets in the reviewers' words; deterministic per question and seed.

    ``follow_up`` is the chance of closing with a follow-up question, as human agents often do; ``style``
    overrides :data:`engine.sktod.summary.STYLE`.
    """

    def __init__(self, seed: int = 0, follow_up: float | None = None,
                 style: dict[str, str] | None = None) -> None:
        from parley.engine.sktod.summary import FOLLOW_UP

        self.seed = seed
        self.follow_up = FOLLOW_UP if follow_up is None else follow_up
        self.style = style
        self.sentiment = Sentiment()

    def load(self, progress: Progress = None) -> None:
        self.sentiment.load(progress)

    def _faq_plain(self) -> bool:
        from parley.engine.sktod.summary import STYLE

        return {**STYLE, **(self.style or {})}.get("faq") == "plain"

    def opinions(self, question: str,
                 selected: Sequence[ScoredSnippet]) -> tuple[list[Opinion], frozenset[str]]:
        asp = aspects_of(question)
        if not asp:  # the question names no known aspect: use what the selected reviews talk about
            counts: dict[str, int] = {}
            for s in selected:
                for a in snippet_aspects(s.snippet.text, s.snippet.entity_name):
                    counts[a] = counts.get(a, 0) + 1
            if counts:
                best = max(counts.values())
                asp = frozenset(a for a in ASPECTS if counts.get(a) == best)
        out = []
        for s in selected:
            label, comp, clause = self.sentiment.score(s.snippet.text, asp)
            out.append(Opinion(s, label, comp, clause))
        return out, asp

    def generate(self, question: str, selected: Sequence[ScoredSnippet]) -> Answer:
        """What reviewers say about the asked aspect, entity by entity (see :mod:`engine.sktod.summary`)."""
        from parley.engine.sktod.summary import abstract, compose, follow_up, views

        rng = random.Random(zlib.crc32(f"{self.seed}:{question}".encode()))
        ops, asp = self.opinions(question, selected)
        parts: list[str] = []
        order: list[tuple[str, int]] = []
        for o in ops:
            if o.snippet.snippet.key[:2] not in order:
                order.append(o.snippet.snippet.key[:2])
        for ent in order:
            mine = [o for o in ops if o.snippet.snippet.key[:2] == ent]
            name = _name(mine[0].snippet.snippet.entity_name or "this place")
            faqs = [o for o in mine if o.snippet.snippet.doc_type == "faq"]
            reviews = [o for o in mine if o.snippet.snippet.doc_type == "review"]
            top = max(mine, key=lambda o: o.snippet.score)
            if top.snippet.snippet.doc_type == "faq":  # a factual question: answer from the best FAQ
                best = top.snippet.snippet
                answer = (best.answer or best.text).strip()
                named = name.lower().removeprefix("the ") in answer.lower()
                parts.append(answer if named or len(order) == 1 and self._faq_plain()
                             else f"{name}: {answer}")
            if reviews:
                from parley.engine.sktod.summary import STYLE

                words = int({**STYLE, **(self.style or {})}["words"])
                st = {**STYLE, **(self.style or {})}
                again = {**(self.style or {}), "again": "short"} if parts else self.style  # a 2nd entity
                said = abstract(name, reviews, question, asp, again) if st["kind"] == "abstract" else ""
                said = said or compose(name, views(reviews, asp, name, words), question, rng, self.style)
                parts.append(said or summarise(name, reviews, aspect_phrase(asp), rng))
            elif not faqs:
                parts.append(summarise(name, reviews, aspect_phrase(asp), rng))
        parts = list(dict.fromkeys(p for p in parts if p))  # never the same sentence twice
        if not parts:
            parts.append("I'm sorry, I couldn't find anything in the reviews about that.")
        if selected and rng.random() < self.follow_up:
            parts.append(follow_up(rng, self.style))
        text = " ".join(p if p.endswith((".", "!", "?")) else p + "." for p in parts if p)
        return Answer(text, tuple(ops), tuple(sorted(asp)))


def absa_input(context: Sequence[str], opinions: Sequence[Opinion], aspects: frozenset[str]) -> str:
    """The paper's ABSA-enhanced generator input: dialogue context, then each snippet + "<aspect> is
    great/ok/bad"."""
    word = aspect_word(aspects)
    tag = {"positive": "great", "neutral": "ok", "negative": "bad"}
    know = " ".join(f"{o.snippet.snippet.text} {word} is {tag[o.label]}." for o in opinions)
    return " ".join(context[-5:]) + " || knowledge: " + know


class ModelGenerator:
    """Any seq2seq (T5/BART) or causal (GPT-2 style) checkpoint by folder or hub id, fed
    :func:`absa_input`."""

    def __init__(self, model: str, seed: int = 0, max_new_tokens: int = 60) -> None:
        self.model_ref = model
        self.max_new_tokens = max_new_tokens
        self.templates = TemplateGenerator(seed)
        self._tok: Any = None
        self._model: Any = None
        self._seq2seq = True

    def load(self, progress: Progress = None) -> None:
        self.templates.load(progress)
        if self._model is not None:
            return
        if progress:
            progress(f"loading generator {self.model_ref}")
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM

        try:  # the shared loader: safetensors preferred, offline hub ids fail fast
            src = resolve(self.model_ref)
            kwargs = pretrained_kwargs(src)
            try:
                cfg = AutoConfig.from_pretrained(src.ref, local_files_only=src.local_files_only)
            except Exception as e:
                raise explain(e, self.model_ref) from e
            self._seq2seq = bool(getattr(cfg, "is_encoder_decoder", False))
            cls = AutoModelForSeq2SeqLM if self._seq2seq else AutoModelForCausalLM
            self._model, self._tok = load_pretrained(src.ref, kwargs, cls, what=self.model_ref)
        except LoadError as e:
            raise LoadError(f"cannot load generator {self.model_ref!r}: {e}") from None

    def generate(self, question: str, selected: Sequence[ScoredSnippet],
                 context: Sequence[str] = ()) -> Answer:
        import torch

        self.load()
        ops, asp = self.templates.opinions(question, selected)
        prompt = absa_input(list(context) or [question], ops, asp)
        enc = self._tok(prompt, return_tensors="pt", truncation=True, max_length=512)
        pad = self._tok.pad_token_id if self._tok.pad_token_id is not None else self._tok.eos_token_id
        with torch.no_grad():
            out = self._model.generate(input_ids=enc["input_ids"], attention_mask=enc.get("attention_mask"),
                                       max_new_tokens=self.max_new_tokens, do_sample=False,
                                       pad_token_id=pad)
        ids = out[0] if self._seq2seq else out[0][enc["input_ids"].shape[1]:]
        text = self._tok.decode(ids, skip_special_tokens=True).strip()
        if not text:
            return self.templates.generate(question, selected)
        return Answer(text, tuple(ops), tuple(sorted(asp)))
