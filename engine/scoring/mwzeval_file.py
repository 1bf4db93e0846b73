"""Scoring any model's outputs given in mwzeval's input format (``parley score --mwzeval-file``).

The format (Nekvinda & Dušek's MultiWOZ_Evaluation, the one ``parley run --mwzeval-out`` writes):
``{dialogue_id: [{"response": delexicalised text, "state"?: {domain: {slot: value}}, "active_domains"?:
[domain, ...]}, ...]}``, one entry per system turn, ids lower-case without ``.json`` (``sng0073``). Responses
mark what they give with placeholders: ``[name]``, ``[phone]``, ``[address]``, ``[postcode]``,
``[reference]``, ``[trainid]`` — also with a domain or ``value_`` prefix (``[restaurant_phone]``,
``[value_reference]``) or a plural ``s``.

Goals and booking times come from the reference dialogues (a MultiWOZ-format file). A state is required:
mwzeval falls back to MultiWOZ 2.2 gold states, which parley does not ship, so a turn without one is an error
here.

BLEU: parley's usual BLEU compares lexicalised text with the corpus text; these responses are delexicalised,
so the figure here is mwzeval's: sacreBLEU of the responses against mwzeval's delexicalised MultiWOZ 2.2
references (``--references``: its ``data/references/mwz22.json``), both normalised as mwzeval does
(placeholders upper-cased to its names, Moses tokenised and detokenised with sacremoses). Without references
no BLEU is given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from parley.engine.scoring.corpus import CorpusDialogue, mwzeval_dialogue_id
from parley.engine.scoring.mentions import (
    PLACEHOLDER_PATTERN,
    PLACEHOLDER_PREFIX,
    placeholder_mentions,
    scoring_state,
)
from parley.engine.scoring.multiwoz import EvalTurn, score_dialogue
from parley.errors import ParleyError

if TYPE_CHECKING:
    from sacremoses import MosesDetokenizer, MosesTokenizer

#: mwzeval's unified placeholder names (its BLEU compares text with these), from the slot after the prefix
_UNIFIED = {
    "NAME": "name", "PHONE": "phone", "ADDRESS": "address", "POST": "postcode", "REFERENCE": "ref reference",
    "TRAINID": "trainid train_id id", "AREA": "area", "FOOD": "food", "DAY": "day bookday",
    "TIME": "time booktime duration arriveby arrive_by arrive leaveat leave_at leave",
    "PLACE": "destination departure place", "PRICE": "price pricerange price_range entrancefee entrance_fee",
    "COUNT": "stars stay bookstay people bookpeople choice count", "TYPE": "type car",
    "INTERNET": "internet", "PARKING": "parking", "DEPARTMENT": "department", "OPEN": "openhours",
}
_MWZEVAL_NAMES = {alias: name for name, aliases in _UNIFIED.items() for alias in aliases.split()}


class MwzevalFileError(ParleyError, ValueError):
    """A predictions file that is not in mwzeval's format, or dialogues missing from the references."""


def mentions(response: str) -> frozenset[str]:
    """Which of name/phone/address/postcode/reference/trainid a delexicalised response gives."""
    return placeholder_mentions(response)


def _json(p: Path) -> object:
    from parley.formats import FormatError, read_json

    try:
        return read_json(p)
    except FormatError as e:
        raise MwzevalFileError(e.message) from None


def _state(raw: object, where: str) -> dict[str, dict[str, str]]:
    if not isinstance(raw, Mapping):
        raise MwzevalFileError(f"{where}.state: expected an object {{domain: {{slot: value}}}}")
    for domain, slots in raw.items():
        if not isinstance(slots, Mapping):
            raise MwzevalFileError(f"{where}.state.{domain}: expected an object {{slot: value}}")
    return scoring_state(raw)


def read(path: str | Path) -> dict[str, list[EvalTurn]]:
    """``{dialogue_id: [EvalTurn, ...]}`` from an mwzeval input file; errors name the key at fault."""
    p = Path(path)
    data = _json(p)
    if not isinstance(data, Mapping) or not data:
        raise MwzevalFileError(f"{p}: expected an object {{dialogue_id: [turns]}} with at least one dialogue")
    out: dict[str, list[EvalTurn]] = {}
    for did, turns in data.items():
        if not isinstance(turns, list):
            raise MwzevalFileError(f"{p}: key {did}: expected a list of turns")
        rows = []
        for i, t in enumerate(turns):
            where = f"{p}: key {did}[{i}]"
            if not isinstance(t, Mapping) or not isinstance(t.get("response"), str):
                raise MwzevalFileError(f"{where}.response: missing or not a string")
            if "state" not in t:
                raise MwzevalFileError(
                    f"{where}.state: missing (parley does not ship MultiWOZ 2.2 gold states)"
                )
            active = t.get("active_domains")
            if active is not None and not (
                isinstance(active, list) and all(isinstance(a, str) for a in active)
            ):
                raise MwzevalFileError(f"{where}.active_domains: expected a list of domain names")
            rows.append(EvalTurn(t["response"], _state(t["state"], where),
                                 None if active is None else tuple(a.lower() for a in active)))
        out[mwzeval_dialogue_id(str(did))] = rows
    return out


def score(predictions: Mapping[str, Sequence[EvalTurn]], corpus: Sequence[CorpusDialogue],
          references: Mapping[str, Sequence[str]] | None = None) -> dict[str, object]:
    """Totals and per-dialogue verdicts: ``{"n", "inform", "success", "bleu", "bleu_kind", "dialogues": {id:
    {"inform", "success", "domains"}}}`` (percentages; ``bleu`` None without ``references``)."""
    by_id = {mwzeval_dialogue_id(c.id): c for c in corpus}
    missing = sorted(d for d in predictions if d not in by_id)
    if missing:
        raise MwzevalFileError(f"{len(missing)} dialogue(s) not in the reference dialogues: "
                               f"{', '.join(missing[:5])}{' …' if len(missing) > 5 else ''}")
    per = {}
    for did, turns in predictions.items():
        ref = by_id[did]
        per[did] = score_dialogue(ref.goal, turns, booked=ref.booked or None, mentions=mentions)
    n = len(per)
    out: dict[str, object] = {
        "n": n, "inform": round(100.0 * sum(v.inform for v in per.values()) / n, 2),
        "success": round(100.0 * sum(v.success for v in per.values()) / n, 2), "bleu": None,
        "bleu_kind": "none: no references given (--references mwzeval's data/references/mwz22.json)"}
    if references is not None:
        out["bleu"] = round(mwzeval_bleu(predictions, references), 2)
        out["bleu_kind"] = (
            "mwzeval: sacreBLEU of the delexicalised responses against mwzeval's delexicalised "
            "MultiWOZ 2.2 references, both normalised as mwzeval does"
        )
    out["dialogues"] = {did: v.to_json() for did, v in per.items()}
    return out


def mwzeval_normalise(response: str, tokenizer: MosesTokenizer, detokenizer: MosesDetokenizer) -> str:
    """A response as mwzeval's ``normalize_data`` leaves it (placeholders renamed, Moses round trip)."""

    def rename(m: re.Match[str]) -> str:
        raw = m.group(1).strip().replace(" ", "_")
        prefix = PLACEHOLDER_PREFIX.match(raw)
        slot = raw[prefix.end():] if prefix else raw
        if slot == "id" and prefix and prefix.group(1) not in ("train", "value"):
            return "ID"
        return "TRAINID" if raw == "train" else _MWZEVAL_NAMES.get(slot, "")

    text = PLACEHOLDER_PATTERN.sub(rename, response.lower())
    text = text.replace("-s", "").replace("-ly", "")
    return str(detokenizer.detokenize(tokenizer.tokenize(text)))


def mwzeval_bleu(
    predictions: Mapping[str, Sequence[EvalTurn]], references: Mapping[str, Sequence[str]]
) -> float:
    import sacrebleu
    from sacremoses import MosesDetokenizer, MosesTokenizer

    mt, md = MosesTokenizer(lang="en"), MosesDetokenizer(lang="en")
    hyps, refs = [], []
    for did, turns in predictions.items():
        if did not in references:
            raise MwzevalFileError(f"dialogue {did} is not in the BLEU references")
        for i, t in enumerate(turns):
            if i >= len(references[did]):
                raise MwzevalFileError(f"dialogue {did} has more turns than its BLEU references")
            hyps.append(mwzeval_normalise(t.response, mt, md))
            refs.append(references[did][i])
    return float(sacrebleu.corpus_bleu(hyps, [refs]).score)


def load_references(path: str | Path) -> dict[str, list[str]]:
    """mwzeval's reference file (``{dialogue_id: [delexicalised response, ...]}``)."""
    p = Path(path)
    data = _json(p)
    if not isinstance(data, Mapping) or not all(isinstance(v, list) for v in data.values()):
        raise MwzevalFileError(f"{p}: expected mwzeval's references {{dialogue_id: [responses]}}")
    return {mwzeval_dialogue_id(str(k)): [str(x) for x in v] for k, v in data.items()}
