"""MultiWOZ Inform, Success, BLEU and Combined with the standard (mwzeval) definitions.

Definitions (Nekvinda & Dušek 2021, the ``mwzeval`` package), applied to lexicalised system output:

- A system turn *gives a venue* of domain D when D is among the turn's active domains and the turn names a
  restaurant/hotel/attraction (domains restaurant, hotel, attraction) or a train id (train). The venues
  offered for D are then the DB results for the turn's belief state of D; the last such turn counts, except
  that a turn whose results contain every venue already offered keeps the earlier list.
- **Inform** (per dialogue, 0/1): every goal domain matched. A domain matches when the goal fixes the venue
  name, when it is taxi/police/hospital, when it is train and no train was offered nor a train id requested,
  or when the offered venues are a non-empty subset of the DB results for the goal's constraints.
- **Success**: Inform, and for every goal domain every requested attribute among phone, address, postcode,
  train id — plus the booking reference when the goal books — was given in a turn where that domain was
  active. A reference counts only once the reference corpus has booked the domain (``booked``), as in mwzeval.
- **BLEU**: sacreBLEU corpus BLEU of the system turns against the corpus system turns, both lower-cased and
  tokenised alike (the corpus text is tokenised: ``John 's college .``).
- **Combined** = (Inform + Success) / 2 + BLEU, all in percent.

Mentions are found in the text by :class:`Delexicaliser` (DB names and addresses, train ids, phone numbers,
postcodes, booking references), so any system — rule pipeline, LLM, remote bot — is scored the same way. A
lexicalised dialogue is scored through :func:`mwzeval_view`, exactly as ``parley run --mwzeval-out`` writes
it, so ``parley score --mwzeval-file`` on that file gives every dialogue the same verdict.
Goals use the MultiWOZ goal format ``{domain: {"info": {...}, "reqt": [...], "book": {...}}}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from parley.engine.mwdb import DOMAINS, MultiwozDB, load_db
from parley.engine.scoring.mentions import (
    NAMED_DOMAINS,
    PLACEHOLDERS,
    Delexicaliser,
    canonical_state,
    canonical_value,
    delexicaliser,
    placeholder_mentions,
    scoring_state,
)
from parley.engine.scoring.venues import query
from parley.jsontypes import json_object
from parley.text import squash

__all__ = [
    "NAMED_DOMAINS",
    "PLACEHOLDERS",
    "REQUESTABLE",
    "Delexicaliser",
    "DialogueScore",
    "EvalTurn",
    "Metrics",
    "aggregate",
    "bleu_normalise",
    "canonical_state",
    "canonical_value",
    "corpus_bleu",
    "delexicaliser",
    "estimate_active_domains",
    "goal_domains",
    "goal_informable",
    "goal_requestables",
    "mwzeval_view",
    "score_dialogue",
]

REQUESTABLE: tuple[str, ...] = ("phone", "address", "postcode", "trainid", "reference")
#: what ``bleu`` is in parley's MultiWOZ results (not mwzeval's delexicalised BLEU)
BLEU_KIND = ("sacreBLEU of the lexicalised system text against the corpus system text, both lower-cased and "
             "tokenised like the corpus")
_AUTO_MATCH = ("taxi", "police", "hospital")


# -- goals ---------------------------------------------------------------------------------------------------
def goal_domains(goal: Mapping[str, object]) -> list[str]:
    """The domains a MultiWOZ-format goal actually uses (non-empty, known), in the standard domain order."""
    return [d for d in DOMAINS if isinstance(goal.get(d), Mapping) and goal[d]]


def goal_informable(goal: Mapping[str, object], domain: str) -> dict[str, str]:
    info = json_object(json_object(goal.get(domain)).get("info"))
    return {k: str(v).lower() for k, v in info.items()}


def goal_requestables(goal: Mapping[str, object], domain: str) -> set[str]:
    """Requested attributes that Success checks: phone/address/postcode/train id, plus reference if
    booking."""
    g = json_object(goal.get(domain))
    out = set()
    reqt = g.get("reqt")
    for slot in reqt if isinstance(reqt, list | tuple) else ():
        s = str(slot).lower().replace(" ", "")
        if s in ("phone", "address", "postcode"):
            out.add(s)
        elif s in ("trainid", "id"):
            out.add("trainid")
    if g.get("book"):
        out.add("reference")
    return out


# -- active domains ------------------------------------------------------------------------------------------
def estimate_active_domains(states: Sequence[Mapping[str, Mapping[str, object]]]) -> list[tuple[str, ...]]:
    """Per turn, the domain the system is most likely talking about, estimated as mwzeval does.

    Only informable slots count (booking slots are not part of mwzeval's state). The active domain is the one
    whose slots changed last; when several change in one turn, the current one is kept if it is among them,
    else the changed domain with the most filled slots wins. The multi-domain fallback: on the first turn
    where nothing changes after a turn that changed several domains, the other domain changed then (still in
    the state) becomes the active one. Used when a system does not report its active domain.
    """
    out: list[tuple[str, ...]] = []
    current: str | None = None
    previous: Mapping[str, set[tuple[str, str]]] = {}
    previous_changed: list[str] = []
    for raw in states:
        state = {d: set(_items(slots)) for d, slots in raw.items()}
        state = {d: items for d, items in state.items() if items}
        changed = [d for d, items in state.items() if items - previous.get(d, set())]
        if not changed:
            if current is None:
                out.append(())
                continue
            if len(previous_changed) > 1:
                others = [d for d in previous_changed if d in state and d != current]
                if others:
                    current = others[0]
        elif current not in changed:
            current = max(changed, key=lambda d: len(state[d]))
        previous, previous_changed = state, changed
        out.append((current,) if current else ())
    return out


def _items(slots: Mapping[str, object] | None) -> list[tuple[str, str]]:
    return [
        (k, str(v)) for k, v in (slots or {}).items() if v not in (None, "") and not k.startswith("book_")
    ]


# -- per-dialogue scoring ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvalTurn:
    """One system turn as the metrics see it: the reply, the belief state, the active domains (None:
    estimate)."""

    response: str
    state: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    active_domains: tuple[str, ...] | None = None


class DomainVerdict(TypedDict):
    """Inform of one goal domain, the attributes Success checks and those provided, and how many venues were
    offered."""

    inform: bool
    requested: list[str]
    provided: list[str]
    offered: int


@dataclass(frozen=True)
class DialogueScore:
    """Inform/Success of one dialogue, with the per-domain verdicts and what was offered/provided."""

    inform: bool
    success: bool
    domains: Mapping[str, DomainVerdict]

    def to_json(self) -> dict[str, object]:
        return {"inform": self.inform, "success": self.success, "domains": {d: dict(v) for d, v in
                                                                              self.domains.items()}}


def score_dialogue(goal: Mapping[str, object], turns: Sequence[EvalTurn], *,
                   booked: Sequence[Iterable[str]] | None = None, db: MultiwozDB | None = None,
                   mentions: Callable[[str], frozenset[str]] | None = None) -> DialogueScore:
    """Inform and Success of one dialogue (see the module docstring).

    ``booked[i]`` lists the domains the reference corpus had booked by system turn ``i``; without it (live
    sessions) a reference counts whenever given. ``mentions`` reads which of :data:`PLACEHOLDERS` a response
    holds (default: found in lexicalised text by :class:`Delexicaliser`).
    """
    db = db or load_db()
    estimated = estimate_active_domains([t.state for t in turns])
    find = mentions or placeholder_mentions
    if mentions is None:  # lexicalised replies: scored as `parley run --mwzeval-out` writes them
        turns = [mwzeval_view(t, db) for t in turns]
    domains = goal_domains(goal)
    offered: dict[str, list[str] | None] = {d: [] for d in domains}
    provided: dict[str, set[str]] = {d: set() for d in domains}
    for i, turn in enumerate(turns):
        active = turn.active_domains if turn.active_domains is not None else estimated[i]
        found = find(turn.response)
        booked_now = set(booked[i]) if booked is not None and i < len(booked) else None
        for d in domains:
            if d not in active:
                continue
            if ("name" in found and d in NAMED_DOMAINS) or ("trainid" in found and d == "train"):
                venues = query(d, turn.state[d], db) if d in turn.state else []
                before = offered[d] or []
                if not before or any(v not in venues for v in before):
                    offered[d] = venues
            for slot in REQUESTABLE:
                if slot not in found:
                    continue
                if slot == "reference" and booked_now is not None and d not in booked_now:
                    continue
                provided[d].add(slot)
    verdicts: dict[str, DomainVerdict] = {}
    for d in domains:
        informable = goal_informable(goal, d)
        wanted = goal_requestables(goal, d)
        offers = offered[d] or []
        auto = ("name" in informable or d in _AUTO_MATCH
                or (d == "train" and not offers and "trainid" not in wanted))
        if auto:
            match = True
        elif offers:
            goal_venues = set(query(d, informable, db))
            match = set(offers) <= goal_venues
        else:
            match = False
        verdicts[d] = {"inform": match, "requested": sorted(wanted), "provided": sorted(provided[d] & wanted),
                       "offered": len(offers)}
    inform = all(v["inform"] for v in verdicts.values())
    success = inform and all(set(v["requested"]) <= set(v["provided"]) for v in verdicts.values())
    return DialogueScore(inform=inform, success=success, domains=verdicts)


def mwzeval_view(turn: EvalTurn, db: MultiwozDB | None = None) -> EvalTurn:
    """A turn of lexicalised text as the metrics read it, and as ``--mwzeval-out`` writes it for
    ``parley score --mwzeval-file``: the reply delexicalised by :class:`Delexicaliser` (a placeholder the
    system left unfilled is no mention), the state in mwzeval's form (informable slots only)."""
    from parley.engine.scoring.corpus import mwzeval_state

    return EvalTurn(delexicaliser(db).delexicalise(turn.response), scoring_state(mwzeval_state(turn.state)),
                    turn.active_domains)


# -- BLEU and corpus aggregates ------------------------------------------------------------------------------
_CLITIC = re.compile(r"(\w)(n't|'s|'m|'re|'ve|'ll|'d)\b", re.IGNORECASE)
_PUNCT = re.compile(r"([.,!?;:()\"])")


def bleu_normalise(text: str) -> str:
    """Lower-case and tokenise like the MultiWOZ corpus (``john's college.`` → ``john 's college .``)."""
    t = text.lower().replace("’", "'")
    t = _CLITIC.sub(r"\1 \2", t)
    return squash(_PUNCT.sub(r" \1 ", t))


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str], *, normalise: bool = True) -> float:
    """sacreBLEU corpus BLEU (0-100) with one reference per hypothesis; ``normalise`` applies
    :func:`bleu_normalise` to both sides first."""
    import sacrebleu

    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")
    if not hypotheses:
        return 0.0
    hyps = [bleu_normalise(h) for h in hypotheses] if normalise else list(hypotheses)
    refs = [bleu_normalise(r) for r in references] if normalise else list(references)
    return float(sacrebleu.corpus_bleu(hyps, [refs], force=True).score)  # tokenised on purpose


@dataclass(frozen=True)
class Metrics:
    """Corpus-level scores in percent; ``bleu``/``combined`` are None without references."""

    inform: float
    success: float
    bleu: float | None
    combined: float | None
    n: int

    def to_json(self) -> dict[str, float | None]:
        return {"inform": _r(self.inform), "success": _r(self.success), "bleu": _r(self.bleu),
                "combined": _r(self.combined), "n": self.n}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def aggregate(scores: Sequence[DialogueScore], hypotheses: Sequence[str] | None = None,
              references: Sequence[str] | None = None) -> Metrics:
    """Inform/Success rates over dialogues, BLEU over all turns, Combined = (Inform + Success) / 2 + BLEU."""
    n = len(scores)
    inform = 100.0 * sum(s.inform for s in scores) / n if n else 0.0
    success = 100.0 * sum(s.success for s in scores) / n if n else 0.0
    bleu = None
    if hypotheses is not None and references is not None:
        bleu = corpus_bleu(hypotheses, references)
    combined = None if bleu is None else (inform + success) / 2 + bleu
    return Metrics(inform, success, bleu, combined, n)
