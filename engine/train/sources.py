"""Training data files in the layouts MultiWOZ circulates in, read into one shape, test overlaps dropped.

- **MultiWOZ layout** (ConvLab-3 / MultiWOZ 2.0 / 2.1 ``data.json``, DAMD's copy):
  ``{id: {"log": [turn, ...]}}``,
  system turns with the belief state in ``metadata`` and, in 2.1, ``dialog_act`` and ``span_info``. Turns
  without the last two are delexicalised and tagged by :mod:`engine.train.delex`.
- **IC-DST turn records** (a ``.json`` list, or a ``.zip`` of them): one record per user turn, ``{"ID",
  "turn_id", "dialog": {"sys": [...], "usr": [...]}, "slot_values": {"domain-slot": value}}``. The record
  with the highest ``turn_id`` holds the whole history; each record's ``slot_values`` is the state after its
  user turn. The system turn after the last user turn is not in the records, so that user turn is dropped.
  A dialogue in several files is read once (the longest copy).
- **Dialogue text** (a ``.txt`` file, or a ``.zip`` of them read in name order): one utterance per line, user
  and system alternating, a blank line between dialogues; values may be in ``[brackets]``. No ids and no
  annotations: used to pre-train on.

:func:`load` reads any mix of these, drops a dialogue seen before (by id) and every dialogue that overlaps a
held-out split (:mod:`engine.train.overlap`), and says what it kept and dropped per file.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from parley.engine.train.data import CorpusTurn, DataError, TrainDialogue
from parley.engine.train.overlap import Dropped, HeldOut, dialogue_key, drop_overlaps
from parley.jsontypes import JSONObject, json_object
from parley.limits import RECORD, open_member, read_bytes

KINDS = ("multiwoz", "icdst", "text")
#: IC-DST slot names that differ from parley's
_ICDST_SLOTS = {"arriveby": "arriveBy", "leaveat": "leaveAt"}


@dataclass(frozen=True)
class SourceFile:
    """What one data file gave: its kind, dialogues read, kept and dropped (with reasons)."""

    path: str
    kind: str
    sha256: str
    read: int
    kept: int
    repeated: int = 0
    dropped: tuple[Dropped, ...] = ()

    def to_json(self) -> dict[str, str | int]:
        return {"file": Path(self.path).name, "kind": self.kind, "sha256": self.sha256, "read": self.read,
                "kept": self.kept, "repeated": self.repeated, "dropped_overlap": len(self.dropped)}


@dataclass(frozen=True)
class TrainingData:
    """Annotated dialogues (MultiWOZ layout, by id) and unannotated dialogue texts (utterance lists)."""

    dialogues: dict[str, TrainDialogue] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    files: tuple[SourceFile, ...] = ()

    @property
    def dropped(self) -> list[Dropped]:
        return [d for f in self.files for d in f.dropped]


# ---- reading -----------------------------------------------------------------------------------------------

def _members(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(name, bytes)`` of a file, or of the ``.json``/``.txt`` members of a zip in name order."""
    if path.suffix.lower() != ".zip":  # a data file is held whole: at most the record budget
        yield path.name, read_bytes(path, str(path), DataError, budget=RECORD)
        return
    try:
        with zipfile.ZipFile(path) as zf:
            names = sorted(n for n in zf.namelist() if n.lower().endswith((".json", ".txt"))
                           and not n.startswith("__MACOSX/"))
            if not names:
                raise DataError(f"{path}: the zip holds no .json or .txt file")
            for n in names:  # within the input budget, and held whole: within the record budget
                with open_member(zf, zf.getinfo(n), f"{path}:{n}", DataError) as fh:
                    fh.mark(n)
                    yield n, fh.read()
    except zipfile.BadZipFile as e:
        raise DataError(f"{path}: not a zip file ({e})") from None
    except OSError as e:
        raise DataError(f"{path}: cannot read ({e.strerror or e})") from None


def _kind(name: str, raw: object) -> str:
    if name.lower().endswith(".txt"):
        return "text"
    if isinstance(raw, Mapping) and raw and all(isinstance(d, Mapping) and isinstance(d.get("log"), list)
                                               for d in raw.values()):
        return "multiwoz"
    if isinstance(raw, list) and raw and all(isinstance(r, Mapping) and {"ID", "turn_id", "dialog"} <= set(r)
                                             for r in raw):
        return "icdst"
    raise DataError(f"{name}: neither MultiWOZ-layout dialogues ({{id: {{'log': [...]}}}}) nor IC-DST turn "
                    "records ([{'ID', 'turn_id', 'dialog', ...}])")


def text_blocks(text: str) -> list[list[str]]:
    """Dialogues of a text file: utterances one per line, a blank line between dialogues."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip():
            current.append(line.strip())
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _icdst_metadata(slot_values: Mapping[str, object]) -> JSONObject:
    """IC-DST ``{"hotel-book stay": "2", ...}`` → MultiWOZ ``metadata`` (``semi`` and ``book`` parts)."""
    frames: dict[str, tuple[JSONObject, JSONObject]] = {}  # domain → (semi, book)
    for key, value in slot_values.items():
        domain, _, slot = str(key).partition("-")
        semi, book = frames.setdefault(domain, ({}, {"booked": []}))
        if slot.startswith("book "):
            book[slot[5:]] = str(value)
        else:
            semi[_ICDST_SLOTS.get(slot, slot)] = str(value)
    return {domain: {"semi": semi, "book": book} for domain, (semi, book) in frames.items()}


def _turn_id(value: object) -> int:
    if not isinstance(value, str | int | float):
        raise TypeError(f"not a number: {value!r}")
    return int(value)


def _items(value: object) -> list[object]:
    return list(value) if isinstance(value, list | tuple) else []


def icdst_dialogues(records: Sequence[Mapping[str, object]], where: str) -> dict[str, TrainDialogue]:
    """IC-DST turn records → ``{id: {"log": [...]}}`` (see the module docstring)."""
    by_id: dict[str, dict[int, Mapping[str, object]]] = {}
    for r in records:
        try:
            by_id.setdefault(str(r["ID"]), {})[_turn_id(r["turn_id"])] = r
        except (TypeError, ValueError):
            raise DataError(f"{where}: record {r.get('ID')!r}: turn_id is not a number") from None
    out: dict[str, TrainDialogue] = {}
    for did, turns in by_id.items():
        last = turns[max(turns)]
        dialog = json_object(last.get("dialog"))
        usr, sys = _items(dialog.get("usr")), _items(dialog.get("sys"))
        log: list[CorpusTurn] = []
        for i in range(len(usr) - 1):
            if i not in turns or i + 1 >= len(sys):
                break
            log.append({"text": str(usr[i]), "metadata": {}})
            meta = _icdst_metadata(json_object(turns[i].get("slot_values")))
            log.append({"text": str(sys[i + 1]), "metadata": meta})
        if log:
            out[did.removesuffix(".json")] = {"log": log}
    return out


def read_file(path: str | Path) -> tuple[str, dict[str, TrainDialogue], dict[str, list[str]]]:
    """``(kind, annotated dialogues, texts)`` of one data file (:data:`KINDS`)."""
    from parley.jsonfile import loads

    p = Path(path)
    kinds: set[str] = set()
    dialogues: dict[str, TrainDialogue] = {}
    texts: dict[str, list[str]] = {}
    for name, data in _members(p):
        where = f"{p}#{name}" if p.name != name else str(p)
        if name.lower().endswith(".txt"):
            kinds.add("text")
            try:
                blocks = text_blocks(data.decode("utf-8"))
            except UnicodeDecodeError:
                raise DataError(f"{where}: not UTF-8 text") from None
            for k, b in enumerate(blocks):
                texts[f"#{Path(name).stem}:{k + 1}"] = b
            continue
        raw = loads(data, where, DataError)
        kind = _kind(where, raw)
        kinds.add(kind)
        # _kind checked the layout: {id: {"log": [...]}} or a list of IC-DST turn records
        found = (cast("dict[str, TrainDialogue]", raw) if kind == "multiwoz"
                 else icdst_dialogues(raw if isinstance(raw, list) else [], where))
        for did, dia in found.items():
            key = str(did).removesuffix(".json")
            if key not in dialogues or len(dia["log"]) > len(dialogues[key]["log"]):
                dialogues[key] = dia
    if len(kinds) > 1:
        raise DataError(f"{p}: mixes {' and '.join(sorted(kinds))} data; give them as separate files")
    return (kinds.pop() if kinds else "multiwoz"), dialogues, texts


def load(paths: Sequence[str | Path], held_out: Sequence[HeldOut] = (),
         require_held_out_for_text: bool = True) -> TrainingData:
    """Every file of ``paths`` read, repeats (same id in an earlier file) and held-out overlaps dropped."""
    from parley.engine.smollm import sha256_file

    dialogues: dict[str, TrainDialogue] = {}
    texts: dict[str, list[str]] = {}
    seen: set[str] = set()
    files: list[SourceFile] = []
    for path in paths:
        kind, found, blocks = read_file(path)
        if kind == "text" and require_held_out_for_text and not held_out:
            raise DataError(f"{path}: dialogue text has no ids, so nothing shows whether it holds evaluation "
                            "dialogues; name the split to keep out (--exclude test.json.zip)")
        name = Path(path).name
        fresh = {k: v for k, v in found.items() if dialogue_key(k) not in seen}
        kept, dropped = drop_overlaps(fresh, held_out, name,
                                      lambda d: [str(t.get("text", "")) for t in d["log"]])
        kept_t, dropped_t = drop_overlaps({f"#{name}{k}": v for k, v in blocks.items()}, held_out, name,
                                          lambda b: b)
        seen.update(dialogue_key(k) for k in kept)
        dialogues.update(kept)
        texts.update(kept_t)
        files.append(SourceFile(str(path), kind, sha256_file(Path(path)), len(found) + len(blocks),
                                len(kept) + len(kept_t), len(found) - len(fresh), (*dropped, *dropped_t)))
    return TrainingData(dialogues, texts, tuple(files))


def summary(data: TrainingData) -> list[dict[str, str | int]]:
    """Per file: kind, hash, dialogues read / kept / repeated / dropped for overlapping the held-out split."""
    return [f.to_json() for f in data.files]


def dump_dropped(data: TrainingData) -> str:
    """The dropped dialogues as JSON lines (source, id, reason)."""
    return "".join(json.dumps({"file": d.source, "dialogue": d.dialogue, "reason": d.reason}) + "\n"
                   for d in data.dropped)
