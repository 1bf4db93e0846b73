"""MultiWOZ metrics of stored sessions: live sessions with a goal card and replayed (batch) sessions.

A session is scoreable when it has a MultiWOZ-format goal. Its system turns are read back from the store
(text, ``state``, ``internals.active_domain``); a user turn without a system answer counts as an empty reply,
one that was never answered (``pending`` after a crash, ``cancelled`` at quit) is left out. BLEU and the
corpus booking times need the reference dialogue: replayed sessions name it in ``source`` (``FILE#ID``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from parley.engine.scoring.corpus import CorpusDialogue, CorpusError, load_corpus
from parley.engine.scoring.multiwoz import (
    BLEU_KIND,
    DialogueScore,
    EvalTurn,
    aggregate,
    goal_domains,
    score_dialogue,
)
from parley.jsontypes import json_object

if TYPE_CHECKING:
    from parley.store.records import SessionRecord, TurnRecord


class SessionStore(Protocol):
    """What scoring reads of a store (``store.Store``, or a view of it that reports progress)."""

    def session(self, session_id: str) -> SessionRecord | None: ...
    def sessions(self, *, mode: str | None = None) -> Iterable[SessionRecord]: ...
    def turns(self, session_id: str) -> Sequence[TurnRecord]: ...


def _active(inner: Mapping[str, object]) -> tuple[str, ...] | None:
    a = inner.get("active_domain", inner.get("active_domains"))
    if isinstance(a, str):
        return (a,)
    if isinstance(a, list | tuple):
        return tuple(str(x) for x in a)
    return None


def session_turns(turns: Sequence[TurnRecord]) -> list[EvalTurn]:
    """One :class:`EvalTurn` per user turn of a stored session (``store.records.TurnRecord`` list)."""
    out: list[EvalTurn] = []
    state: Mapping[str, Mapping[str, object]] = {}
    ordered = sorted(turns, key=lambda t: t.index)
    for k, t in enumerate(ordered):
        if t.role != "user" or t.status in ("pending", "cancelled"):  # never answered: not a turn of the test
            continue
        nxt = ordered[k + 1] if k + 1 < len(ordered) else None
        if nxt is None or nxt.role != "system" or nxt.status != "ok":
            out.append(EvalTurn("", dict(state), None))
            continue
        info = nxt.internals or {}
        state = {d: dict(json_object(s)) for d, s in json_object(info.get("state")).items()}
        out.append(EvalTurn(nxt.text, state, _active(json_object(info.get("internals")))))
    return out


def reference_id(source: str | None) -> tuple[str | None, str | None]:
    """``/path/test.json.zip#SNG0073`` → (``/path/test.json.zip``, ``SNG0073``)."""
    if not source:
        return None, None
    path, sep, did = source.rpartition("#")
    return (path or None, did) if sep else (None, source)


def score_session(
    store: SessionStore, session_id: str, reference: CorpusDialogue | None = None
) -> DialogueScore | None:
    """Inform/Success of one stored session, or None when it has no goal. With the ``reference`` dialogue, a
    booking reference counts only once the corpus had booked (as in replay scoring)."""
    rec = store.session(session_id)
    if rec is None:
        raise KeyError(f"no session {session_id}")
    if not rec.goal or not goal_domains(rec.goal):
        return None
    turns = session_turns(store.turns(session_id))
    return score_dialogue(rec.goal, turns, booked=reference.booked if reference else None)


def score_stored(store: SessionStore, *, corpus: Sequence[CorpusDialogue] | None = None,
                 mode: str | None = None) -> dict[str, object]:
    """Scores of every stored session with a goal, grouped by system and condition:
    ``{"conditions": {"SYSTEM / CONDITION": {inform, success, bleu, combined, n, mode, drop?}}}``; ``drop`` is
    the relative decrease against the same system's ``original`` sessions, when there are some.

    BLEU/Combined are given for a group when every session in it names a reference dialogue found in
    ``corpus`` or in the file its ``source`` points to.
    """
    refs: dict[str, CorpusDialogue] = {d.id: d for d in corpus or ()}
    loaded: set[str] = set()
    groups: dict[str, list[tuple[DialogueScore, list[EvalTurn], CorpusDialogue | None]]] = {}
    modes: dict[str, set[str]] = {}
    for rec in store.sessions(mode=mode):
        if not rec.goal or not goal_domains(rec.goal) or rec.mode == "annotation":
            continue
        path, did = reference_id(rec.source)
        if did and did not in refs and path and path not in loaded and Path(path).exists():
            loaded.add(path)
            with contextlib.suppress(CorpusError):  # an unreadable source file only costs BLEU
                refs.update({d.id: d for d in load_corpus(path)})
        ref = refs.get(did) if did else None
        turns = session_turns(store.turns(rec.id))
        score = score_dialogue(rec.goal, turns, booked=ref.booked if ref else None)
        key = f"{rec.system_name} / {(rec.condition or {}).get('name', 'original')}"
        groups.setdefault(key, []).append((score, turns, ref))
        modes.setdefault(key, set()).add(rec.mode)
    out: dict[str, dict[str, object]] = {}
    for key, items in groups.items():
        scores = [s for s, _, _ in items]
        hyps: list[str] | None = []
        refs_t: list[str] | None = []
        if all(r is not None for _, _, r in items):
            for _, turns, r in items:
                assert r is not None and hyps is not None and refs_t is not None
                n = min(len(turns), len(r.system_turns))
                hyps.extend(t.response for t in turns[:n])
                refs_t.extend(r.system_turns[:n])
        else:
            hyps = refs_t = None
        out[key] = {**aggregate(scores, hyps, refs_t).to_json(), "mode": ",".join(sorted(modes[key]))}
    for (
        key,
        row,
    ) in out.items():  # relative drop against the same system's original condition (positive = worse)
        base = out.get(key.split(" / ", 1)[0] + " / original")
        if base is not None:
            row["drop"] = {m: _drop(base.get(m), row.get(m))
                           for m in ("inform", "success", "bleu", "combined")}
    return {"conditions": out, "bleu_kind": BLEU_KIND}


def _drop(base: object, value: object) -> float | None:
    """The relative decrease from ``base`` to ``value`` in percent (None: no base or no value)."""
    if not isinstance(base, int | float) or not base or not isinstance(value, int | float):
        return None
    return round(100.0 * (base - value) / base, 2)
