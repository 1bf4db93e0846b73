"""MultiWOZ dialogues (ConvLab-3 / MultiWOZ 2.1 layout) → training sequences in a format file's syntax.

Per system turn: the context (earlier turns, truncated to the format's ``max_turns``), the corpus belief
state, the DB segment computed from parley's MultiWOZ DB for that state, the system acts and the delexicalised
system turn. The response is delexicalised from the corpus span annotations (``span_info``): names, addresses,
phones, postcodes, references, train ids and taxi cars become ``[domain_slot]`` placeholders, every other
annotated value a ``[value_slot]`` placeholder — the names :mod:`engine.systems.hf_lex` fills at inference.
Rendering goes through :func:`engine.systems.hf_common.render_context` / :func:`render_target`, the code the
``hf-causal`` adapter uses.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, cast

from parley.engine.mwdb import DOMAINS, MultiwozDB
from parley.engine.systems.hf_belief import belief_target, clean_value, format_acts
from parley.engine.systems.hf_common import (
    Format,
    TurnRecord,
    active_domain,
    normalise_text,
    render_context,
    render_target,
)
from parley.engine.systems.hf_lex import db_counts
from parley.engine.train.delex import guess_acts, value_delexicalise
from parley.errors import ParleyError
from parley.jsontypes import JSONObject

#: corpus span slot → placeholder key; keys in DOMAIN_KEYS keep the domain (``[hotel_name]``)
SPAN_KEYS = {
    "name": "name", "addr": "address", "post": "postcode", "phone": "phone", "ref": "reference", "id": "id",
    "car": "car", "choice": "count", "area": "area", "food": "food", "fee": "price", "ticket": "price",
    "price": "price",
    "leave": "leave", "arrive": "arrive", "depart": "departure", "dest": "destination", "day": "day",
    "people": "people", "stay": "stay", "stars": "stars", "type": "type", "open": "open",
    "department": "department", "time": "time",
}
DOMAIN_KEYS = frozenset({"name", "address", "postcode", "phone", "reference", "id", "car"})


class DataError(ParleyError):
    """A training data file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Example:
    """One training sequence: ``prompt`` (what the adapter feeds) and ``target`` (what the model writes)."""

    dialogue_id: str
    turn: int
    prompt: str
    target: str

    @property
    def text(self) -> str:
        return f"{self.prompt} {self.target}"


class CorpusTurn(TypedDict, total=False):
    """One turn of a MultiWOZ-layout training dialogue (the fields training reads)."""

    text: str
    metadata: JSONObject
    dialog_act: dict[str, list[list[str]]]
    span_info: list[list[str | int]]


class TrainDialogue(TypedDict):
    """A MultiWOZ-layout training dialogue: user and system turns alternate in ``log``."""

    log: list[CorpusTurn]


def iter_dialogues(path: str | Path) -> Iterator[tuple[str, TrainDialogue]]:
    """``(id, dialogue)`` of a MultiWOZ-format ``.json`` file or a ``.zip`` holding one, read one dialogue
    at a time (:func:`parley.formats.multiwoz.iter_dialogues`, within the input budget)."""
    from parley.formats.multiwoz import iter_dialogues as stream

    p = Path(path)
    if not p.is_file():
        raise DataError(f"{p}: no such file")
    shape = "expected {dialogue id: {'log': [...]}} (ConvLab-3 / MultiWOZ 2.1 layout)"
    for did, dialogue in stream(p, DataError):
        if not isinstance(dialogue, dict) or not isinstance(dialogue.get("log"), list):
            raise DataError(f"{p}: dialogue {did!r}: {shape}")
        yield str(did), cast(TrainDialogue, dialogue)  # the layout checked above


def read_dialogues(path: str | Path) -> dict[str, TrainDialogue]:
    """``{id: dialogue}`` from a MultiWOZ-format ``.json`` file or a ``.zip`` holding one."""
    return dict(iter_dialogues(path))


def corpus_state(metadata: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """A corpus belief state in parley's names, values cleaned the way the adapter cleans generated ones."""
    from parley.engine.scoring.corpus import state_from_metadata

    out: dict[str, dict[str, str]] = {}
    for domain, slots in state_from_metadata(metadata).items():
        kept = {s: v for s, v in ((s, clean_value(s, v)) for s, v in slots.items()) if v}
        if kept:
            out[domain] = kept
    return out


def corpus_acts(dialog_act: Mapping[str, Sequence[Sequence[object]]]) -> list[tuple[str, str, str]]:
    """``{"Hotel-Inform": [["Area", "east"], ...]}`` → ``[("hotel", "inform", "area"), ...]`` without repeats.
    """
    out: list[tuple[str, str, str]] = []
    for key, pairs in dialog_act.items():
        domain, _, act = str(key).lower().partition("-")
        for pair in pairs or [["none", "none"]]:
            triple = (domain, act, str(pair[0]).lower())
            if triple not in out:
                out.append(triple)
    return out


def delexicalise(text: str, spans: Sequence[Sequence[str | int]], turn_domain: str | None) -> str:
    """Replace the annotated value spans of a system turn by placeholders (overlapping spans: first wins)."""
    words = text.split()
    marks: list[tuple[int, int, str]] = []
    for span in sorted(spans, key=lambda s: (int(s[3]), -int(s[4]))):
        act, slot, start, end = str(span[0]), str(span[1]).lower(), int(span[3]), int(span[4])
        key = SPAN_KEYS.get(slot)
        overlaps = any(start <= e and s <= end for s, e, _ in marks)
        if key is None or not 0 <= start <= end < len(words) or overlaps:
            continue
        domain = act.split("-")[0].lower()
        if domain not in DOMAINS:
            domain = turn_domain or "value"
        if key == "price" and domain in ("hotel", "restaurant"):
            key = "pricerange"
        if key == "time" and domain == "train":
            key = "duration"
        marks.append((start, end, f"[{domain}_{key}]" if key in DOMAIN_KEYS else f"[value_{key}]"))
    for start, end, ph in sorted(marks, reverse=True):
        words[start:end + 1] = [ph]
    return " ".join(words)


def _turn_domain(acts: list[tuple[str, str, str]], state: Mapping[str, Mapping[str, str]],
                 prev: Mapping[str, Mapping[str, str]]) -> str | None:
    named = [d for d, _, _ in acts if d in DOMAINS]
    return active_domain(state, prev, hint=named[0] if named else None)


def dialogue_examples(did: str, dialogue: TrainDialogue, fmt: Format, db: MultiwozDB
                      ) -> Iterator[Example]:
    """The training sequences of one dialogue, one per system turn."""
    log = dialogue["log"]
    records: list[TurnRecord] = []
    prev: dict[str, dict[str, str]] = {}
    for i in range(0, len(log) - 1, 2):
        user, system = log[i], log[i + 1]
        state = corpus_state(system.get("metadata") or {})
        acts = corpus_acts(system.get("dialog_act") or {})
        domain = _turn_domain(acts, state, prev)
        db_text = fmt.db_segment(db_counts(fmt, db, state, domain))
        belief = belief_target(state, prev, fmt)
        shown = str(system.get("text", ""))
        if "span_info" in system:
            response = normalise_text(fmt, delexicalise(shown, system.get("span_info") or [], domain))
        else:  # a copy of the corpus without span annotations (DAMD, IC-DST): values found by what they are
            response = value_delexicalise(normalise_text(fmt, shown), state, domain, db)
        if "dialog_act" not in system:
            acts = guess_acts(response, domain)
        act = format_acts(acts, fmt)
        prompt = render_context(fmt, records, str(user.get("text", "")), previous=prev)
        yield Example(did, i // 2, prompt, render_target(fmt, belief, db_text, act, response))
        records.append(TurnRecord(str(user.get("text", "")), belief, db_text, act, response, shown))
        prev = state


def build_examples(dialogues: Mapping[str, TrainDialogue], fmt: Format, db: MultiwozDB) -> list[Example]:
    return [ex for did, dia in dialogues.items() for ex in dialogue_examples(did, dia, fmt, db)]
