"""MultiWOZ-format dialogue files: loading (zip or JSON), gold belief states, booked domains, references, and
the export of system outputs in the input format of the reference evaluator (mwzeval).

A dialogue file is ``{dialogue_id: {"goal": {...}, "log": [{"text", "metadata", ...}, ...]}}``: even turns are
the user (metadata ``{}``), odd turns the system with the corpus belief state ``{domain: {"book": {...},
"semi": {...}}}`` (the ConvLab-3 copy of MultiWOZ 2.1 uses this layout; MultiWOZ 2.0/2.1 ``data.json`` too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from parley.engine.mwdb import DOMAINS
from parley.errors import ParleyError
from parley.formats import FormatError
from parley.formats.multiwoz import booked_domains, flatten_state, iter_dialogues, literal

if TYPE_CHECKING:
    from parley.engine.scoring.multiwoz import EvalTurn

#: parley slot name → MultiWOZ 2.2 / mwzeval slot name
_MWZ22 = {"leaveAt": "leaveat", "arriveBy": "arriveby"}


class CorpusError(ParleyError, ValueError):
    """A dialogue file that cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class CorpusDialogue:
    """One reference dialogue: its goal, user turns, corpus system turns, gold states and booked domains."""

    id: str
    goal: Mapping[str, object]
    user_turns: tuple[str, ...]
    system_turns: tuple[str, ...]
    gold_states: tuple[Mapping[str, Mapping[str, object]], ...] = ()
    booked: tuple[tuple[str, ...], ...] = ()
    extra: Mapping[str, object] = field(default_factory=dict)


def load_corpus(path: str | Path, *, limit: int | None = None, ids: Iterable[str] | None = None
                ) -> list[CorpusDialogue]:
    """Read a MultiWOZ-format ``.json`` file or a ``.zip`` holding one; dialogues in file order, parsed one at
    a time (only the parsed dialogues are kept)."""
    p = Path(path)
    wanted = {i.lower().removesuffix(".json") for i in ids} if ids else None
    out: list[CorpusDialogue] = []
    for did, dia in iter_dialogues(p, CorpusError):
        if wanted is not None and did.lower().removesuffix(".json") not in wanted:
            continue
        out.append(parse_dialogue(did, dia, source=p))
        if limit and len(out) >= limit:
            break
    return out


def parse_dialogue(did: str, dia: object, *, source: Path | str = "") -> CorpusDialogue:
    if not isinstance(dia, Mapping) or not isinstance(dia.get("log"), list):
        raise CorpusError(f"{source}: dialogue {did!r} has no 'log' list")
    log = dia["log"]
    users = tuple(str(t.get("text", "")) for t in log[0::2])
    systems = tuple(str(t.get("text", "")) for t in log[1::2])
    try:
        metas = [literal(t.get("metadata") or {}, f"{did}.log[{2 * i + 1}].metadata")
                 for i, t in enumerate(log[1::2])]
    except FormatError as e:
        raise CorpusError(f"{source}: {e.message}") from None
    states = tuple(flatten_state(m) for m in metas)
    booked = tuple(booked_domains(m) for m in metas)
    goal = {k: v for k, v in (dia.get("goal") or {}).items() if k in DOMAINS or k == "message"}
    return CorpusDialogue(id=did.removesuffix(".json"), goal=goal, user_turns=users, system_turns=systems,
                          gold_states=states, booked=booked)


#: the one belief-state flattener and booked-domain reader (parley.formats.multiwoz), under their old names
state_from_metadata = flatten_state
booked_from_metadata = booked_domains


# -- mwzeval export ------------------------------------------------------------------------------------------
def mwzeval_state(state: Mapping[str, Mapping[str, object]]) -> dict[str, dict[str, str]]:
    """parley state → mwzeval's (MultiWOZ 2.2 slot names, informable slots only)."""
    out: dict[str, dict[str, str]] = {}
    for domain, slots in state.items():
        d = {_MWZ22.get(k, k.lower()): str(v) for k, v in slots.items() if not k.startswith("book_") and v}
        if d:
            out[domain] = d
    return out


def mwzeval_dialogue_id(did: str) -> str:
    """``SNG0073.json`` → ``sng0073`` (the key format mwzeval expects)."""
    return did.lower().removesuffix(".json")


def to_mwzeval(outputs: Mapping[str, Sequence[EvalTurn]]) -> dict[str, list[dict[str, object]]]:
    """``{dialogue_id: [EvalTurn, ...]}`` → the mwzeval input format
    ``{dialogue_id: [{"response": delexicalised, "state": {...}, "active_domains": [...]}]}``."""
    from parley.engine.scoring.multiwoz import estimate_active_domains, mwzeval_view

    result: dict[str, list[dict[str, object]]] = {}
    for did, turns in outputs.items():
        est = estimate_active_domains([t.state for t in turns])
        rows: list[dict[str, object]] = []
        for i, t in enumerate(turns):
            active = t.active_domains if t.active_domains is not None else est[i]
            rows.append({"response": mwzeval_view(t).response, "state": mwzeval_state(t.state),
                         "active_domains": list(active)})
        result[mwzeval_dialogue_id(did)] = rows
    return result
