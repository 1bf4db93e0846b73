"""Response generation: aspect-aware sentiment per snippet (VADER) → per venue, how many reviews are for and
against the asked aspect and in which words → an answer that follows the majority and names the minority, in
varied team-written frames (:mod:`engine.sktod.wording`).

Optionally a seq2seq or causal checkpoint (folder or hub id) writes the answer from the paper's ABSA-enhanced
input: each snippet followed by "<aspect> is great/ok/bad." (see :class:`ModelGenerator`).
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from parley.engine.loading import explain, load_pretrained, pretrained_kwargs, resolve
from parley.engine.sktod.aspects import ASPECTS, aspect_word, named_aspects, snippet_aspects
from parley.engine.sktod.evidence import Stance
from parley.engine.sktod.knowledge import ScoredSnippet, Snippet
from parley.engine.sktod.question import Ask
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
    "lackluster": -1.5, "lacklustre": -1.5, "unkempt": -1.4, "letdown": -1.6, "drab": -1.2,
}

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
        from parley.engine.sktod.evidence import clause_about

        return clause_about(text, aspects)

    def score(self, text: str, aspects: frozenset[str] = frozenset()) -> tuple[str, float, str]:
        """(label, compound, clause) for one snippet; |compound| < 0.05 is neutral."""
        from parley.engine.sktod.evidence import amounts_plain

        self.load()
        c = self.clause(text, aspects)
        compound = float(self._vader.polarity_scores(amounts_plain(c))["compound"])
        label = "positive" if compound >= 0.05 else "negative" if compound <= -0.05 else "neutral"
        return label, compound, c


@dataclass(frozen=True)
class Answer:
    text: str
    opinions: tuple[Opinion, ...]
    aspects: tuple[str, ...]
    stances: tuple[Stance, ...] = ()  # what each venue's reviews say (template answers)


class TemplateGenerator:
    """Answers from the selected snippets: per venue, what its reviews say about the asked aspect
    (:mod:`engine.sktod.evidence`) in parley's words (:mod:`engine.sktod.wording`); deterministic per question
    and seed. ``style`` overrides :data:`engine.sktod.style.STYLE` (frame weights, follow-up rate)."""

    def __init__(self, seed: int = 0, follow_up: float | None = None,
                 style: Mapping[str, Any] | None = None) -> None:
        from parley.engine.sktod.style import fitted_style

        self.seed = seed
        self.style = {**fitted_style(), **(style or {})}
        if follow_up is not None:
            self.style["follow_up"] = follow_up
        self.sentiment = Sentiment()

    def load(self, progress: Progress = None) -> None:
        self.sentiment.load(progress)

    def opinions(self, question: str,
                 selected: Sequence[ScoredSnippet]) -> tuple[list[Opinion], frozenset[str]]:
        """The sentiment of each snippet towards the asked aspect, and that aspect (when the question names
        none: what most selected snippets talk about)."""
        from parley.engine.sktod.evidence import focus, question_text

        question = question_text(question, sorted({s.snippet.entity_name for s in selected}))
        asp = named_aspects(question)
        if not asp:
            counts: dict[str, int] = {}
            for s in selected:
                for a in snippet_aspects(s.snippet.text, s.snippet.entity_name):
                    counts[a] = counts.get(a, 0) + 1
            if counts:
                best = max(counts.values())
                asp = frozenset(a for a in ASPECTS if counts.get(a) == best)
        asp = focus(asp, question)
        out = []
        for s in selected:
            label, comp, clause = self.sentiment.score(s.snippet.text, asp)
            out.append(Opinion(s, label, comp, clause))
        return out, asp

    def stances(self, opinions: Sequence[Opinion], aspects: frozenset[str]) -> dict[tuple[str, int], Stance]:
        """One :class:`Stance` per venue (by domain and entity id), in the order of the snippets."""
        from parley.engine.sktod.evidence import review_view, stance

        venues: dict[tuple[str, int], list[Opinion]] = {}
        for o in opinions:
            venues.setdefault(o.snippet.snippet.key[:2], []).append(o)
        out = {}
        for v, mine in venues.items():
            snip = mine[0].snippet.snippet
            top = max(mine, key=lambda o: o.snippet.score).snippet.snippet
            faq = (top.answer or top.text).strip() if top.doc_type == "faq" else ""
            docs: dict[int, list[tuple[str, float]]] = {}
            for o in mine:
                if o.snippet.snippet.doc_type == "review":
                    docs.setdefault(o.snippet.snippet.doc_id, []).append((o.snippet.snippet.text, o.compound))
            views = [review_view(d, aspects) for d in docs.values()]
            out[v] = stance(snip.entity_name or "this place", snip.domain, views, faq)
        return out

    def plan(self, question: str, selected: Sequence[ScoredSnippet],
             pool: Sequence[Snippet] = ()) -> tuple[Ask, list[Stance], list[Opinion]]:
        """What was asked and what each venue's reviews say about it: the selected snippets, plus the other
        reviews in ``pool`` of the same venues that talk about the asked aspect (an answer counts every
        review of it, not only the best matches)."""
        from parley.engine.sktod.evidence import elsewhere, mentions, question_text
        from parley.engine.sktod.question import ask

        ops, asp = self.opinions(question, selected)
        text = question_text(question, sorted({s.snippet.entity_name for s in selected}))
        q = ask(text, asp)
        known = {s.snippet.key[:2]: s.snippet for s in selected} | {s.key[:2]: s for s in reversed(pool)}
        venues = list(dict.fromkeys(s.snippet.key[:2] for s in selected))
        if q.compare:  # "which has the best view?" is about every venue under discussion
            venues += [v for v in dict.fromkeys(s.key[:2] for s in pool) if v not in venues]
        seen = {s.snippet.key for s in selected}
        extra = [ScoredSnippet(s, 0.0) for s in pool if s.doc_type == "review" and s.key[:2] in venues
                 and s.key not in seen and mentions(s.text, q.aspects)]
        # a fact (FAQ) about the aspect answers for a venue whose selected snippets do not talk about it
        told = {s.snippet.key[:2] for s in selected if mentions(s.snippet.text, q.aspects)}
        best = max((s.score for s in selected), default=0.0) + 1.0
        extra += [ScoredSnippet(s, best) for s in pool if s.doc_type == "faq" and s.key[:2] in venues
                  and s.key[:2] not in told and s.key not in seen and mentions(s.text, q.aspects)]
        if extra:
            ops = ops + self.opinions(question, extra)[0]
        # a venue of which nothing talks about the aspect the question names is said to be silent on it: the
        # one decision for an answer, whether about one venue or a comparison
        silent = {v for v in venues if named_aspects(text) and not any(
            mentions(o.snippet.snippet.text, q.aspects) for o in ops if o.snippet.snippet.key[:2] == v)}
        ops = [o for o in ops if o.snippet.snippet.key[:2] not in silent]
        # reviews that do not talk about the asked aspect say nothing about it (when some do)
        about = [o for o in ops if o.snippet.snippet.doc_type == "faq"
                 or mentions(t := o.snippet.snippet.text, q.aspects) and not elsewhere(t, text, q.aspects)]
        if any(o.snippet.snippet.doc_type == "review" for o in about) or named_aspects(text) and about:
            ops = about  # (when the question names the aspect, an FAQ about it alone may answer)
        said = self.stances(ops, q.aspects)
        quiet = {v: Stance(known[v].entity_name or "this place", v[0], unmentioned=True) for v in silent}
        stances = [said.get(v) or quiet[v] for v in venues if v in said or v in quiet]
        return q, stances, ops

    def render(self, q: Ask, stances: Sequence[Stance], rng: random.Random,
               after_booking: bool = False) -> str:
        from parley.engine.sktod.closing import follow_up
        from parley.engine.sktod.wording import kind, sentence, unmentioned

        said = [st for st in stances if not st.unmentioned]
        if stances and not said:
            return unmentioned(q, stances)
        kinds = dict(self.style.get("kinds", {}))
        what = kind(q, said)  # then the same kind about this aspect ("yn-all|view"), when fitted apart
        about = f"{what}|{'+'.join(sorted(q.aspects))}"
        style = {**self.style, **kinds.get(what, {}), **kinds.get(about, {})}
        if len({st.verdict for st in said if st.reviews}) > 1:
            q = replace(q, yes_no=False)  # venues the reviews judge differently: no single yes or no
        parts: list[str] = []
        for k, st in enumerate(stances):
            if st.unmentioned:
                parts.append(unmentioned(q, [st]))
            elif st.faq:
                faq = sentence(q, replace(st, positive=0, negative=0, neutral=0), rng, style)
                parts.append(faq.split(": ", 1)[-1] if len(stances) == 1 else faq)
            if not st.unmentioned and (st.reviews or not st.faq):
                parts.append(sentence(q, st, rng, style, first=k == 0 and not st.faq))
        parts = list(dict.fromkeys(p for p in parts if p))  # never the same sentence twice
        if not parts:
            return "Sorry, the reviews say nothing about that."
        if rng.random() < float(style.get("follow_up", 0.0)):
            parts.append(follow_up(said, rng, style, after_booking))
        return " ".join(p if p.endswith((".", "!", "?")) else p + "." for p in parts)

    def generate(self, question: str, selected: Sequence[ScoredSnippet],
                 pool: Sequence[Snippet] = (), context: Sequence[str] = ()) -> Answer:
        """What reviewers say about the asked aspect, venue by venue (``pool``: see :meth:`plan`; ``context``:
        the dialogue so far, the question last, so that no booking is offered right after one was made)."""
        from parley.engine.sktod.closing import booked

        rng = random.Random(zlib.crc32(f"{self.seed}:{question}".encode()))
        q, stances, ops = self.plan(question, selected, pool)
        text = self.render(q, stances, rng, booked(context))
        return Answer(text, tuple(ops), tuple(sorted(q.aspects)), tuple(stances))


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

        from parley.engine.sktod.wording import unmentioned

        self.load()
        q, stances, _ = self.templates.plan(question, selected)
        if stances and all(st.unmentioned for st in stances):  # the same decision as the template answers
            return Answer(unmentioned(q, stances), (), tuple(sorted(q.aspects)), tuple(stances))
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
