"""A small authored corpus for the annotation tests, imported through the real MultiWOZ importer."""

from __future__ import annotations

import json
from pathlib import Path

from parley.store import Store, open_store
from parley.store.imports import import_file

CORPUS = {
    "HOTEL1": {"goal": {}, "log": [
        {"text": "i need a cheap place to stay in the east ."},
        {"text": "the Birch Court is cheap and in the east ."},
        {"text": "does it have free parking ?"},
        {"text": "yes , parking is free there ."},
        {"text": "great , thank you ."},
        {"text": "you are welcome , goodbye ."},
    ]},
    "TRAIN2": {"goal": {}, "log": [
        {"text": "is there a train to ely on friday ?"},
        {"text": "there are 12 . when would you like to leave ?"},
        {"text": "after 9 in the morning ."},
        {"text": "the 09:15 arrives at 09:40 . shall i book it ?"},
    ]},
}


#: one imported dialogue whose text holds HTML entities, as AB-ReDial's does (written for these tests)
ESCAPED = {"ESC1": {"goal": {}, "log": [
    {"text": "is &quot;The Copper Kettle&quot; open &gt; 9 pm ?"},
    {"text": "&quot;The Copper Kettle&quot; closes at 10 pm &amp; takes cards ."},
]}}


def escaped_store(tmp_path: Path) -> Store:
    """A database holding :data:`ESCAPED`, imported through the MultiWOZ importer (text kept as written)."""
    return corpus_store(tmp_path, ESCAPED, "esc")


def corpus_store(tmp_path: Path, corpus: dict | None = None, name: str = "rate") -> Store:  # type: ignore[type-arg]
    """A database holding ``corpus`` (default :data:`CORPUS`), imported through the MultiWOZ importer."""
    f = tmp_path / f"{name}.json" if corpus is not None else tmp_path / "mini.json"
    f.write_text(json.dumps(CORPUS if corpus is None else corpus), encoding="utf-8")
    store = open_store(tmp_path / f"{name}.db")
    import_file(store, f, "multiwoz")
    return store


# Three corpus dialogues, each replayed under two conditions: six sessions of a small study (parley's JSONL).
STUDY_DIALOGUES = {
    "D1": [("could you find me a cheap hotel in the north ?", "find me a cheap hotel in the north. now."),
           ("the Acorn Lodge is cheap and in the north .", None),
           ("does it have wifi ?", "does it have wifi or not?"),
           ("yes , wifi is free at the Acorn Lodge .", None)],
    "D2": [("i would like a train to ely on sunday please .", "train to ely. sunday."),
           ("the 10:05 leaves cambridge and reaches ely at 10:22 .", None),
           ("how much is a ticket ?", "how much, then?"),
           ("a ticket costs 4.40 pounds .", None)],
    "D3": [("is there an indian restaurant in the centre ?", "any indian place in the centre? hurry up."),
           ("Spice Garden serves indian food in the centre .", None),
           ("what is the phone number ?", "phone number."),
           ("its number is 01223 000111 .", None)],
}
STUDY_CONDITIONS = ("original", "impolite")


def study_file(path: Path) -> Path:
    """Six sessions (3 dialogues x 2 conditions) as a parley JSONL export, with fixed ids."""
    lines = []
    for d, (did, turns) in enumerate(STUDY_DIALOGUES.items(), start=1):
        for c, cond in enumerate(STUDY_CONDITIONS):
            sid = f"5e550000-0000-4000-8000-0000000000{d}{c}"
            session = {"id": sid, "started_at": f"2026-01-0{d}T10:0{c}:00+00:00", "mode": "batch",
                       "system_name": "multiwoz", "condition": {"name": cond},
                       "source": f"dialogues.json#{did}", "tester": "replay"}
            rows = []
            for i, (text, rude) in enumerate(turns):
                role = "user" if i % 2 == 0 else "system"
                final = (rude if cond == "impolite" else text) if role == "user" else None
                rows.append({"id": f"{sid[:-4]}{d}{c}{i:02d}", "session_id": sid, "index": i, "role": role,
                             "text": text, "text_final": final, "created_at": session["started_at"]})
            lines.append(json.dumps({"session": session, "turns": rows}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def long_dialogue(path: Path, n_turns: int) -> Path:
    """One MultiWOZ-format dialogue of ``n_turns`` turns (user and system alternating), written for parley."""
    log = []
    for i in range(n_turns):
        k = i // 2 + 1
        if i % 2 == 0:
            log.append({"text": f"question {k} : is there a table for {k % 7 + 1} people at {k % 12 + 1} pm"})
        else:
            log.append({"text": f"answer {k} : yes , a table for {k % 7 + 1} is free at {k % 12 + 1} pm ."})
    path.write_text(json.dumps({"LONG1": {"goal": {}, "log": log}}), encoding="utf-8")
    return path
