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


def corpus_store(tmp_path: Path) -> Store:
    f = tmp_path / "mini.json"
    f.write_text(json.dumps(CORPUS), encoding="utf-8")
    store = open_store(tmp_path / "rate.db")
    import_file(store, f, "multiwoz")
    return store
