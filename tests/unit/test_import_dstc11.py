"""DSTC11 track-5 importer on small logs/labels/predictions files written by the test."""

from __future__ import annotations

import json

import pytest

from parley.store import open_store
from parley.store.imports import ImportFileError, import_file

LOGS = [
    [{"speaker": "U", "text": "Is there a quiet guesthouse up north?"},
     {"speaker": "S", "text": "Yes, the Maple Lodge is up there."},
     {"speaker": "U", "text": "Do guests say the beds are comfy?"}],
    [{"speaker": "U", "text": "Book me a table for four."}],
]
LABELS = [
    {"target": True, "knowledge": [{"domain": "hotel", "entity_id": 3, "doc_type": "review", "doc_id": 1,
                                    "sent_id": 2}],
     "response": "Guests mostly found the beds comfortable."},
    {"target": False},
]
PRED = [
    {"target": True, "knowledge": [{"domain": "hotel", "entity_id": 3, "doc_type": "faq", "doc_id": 0}],
     "response": "Reviewers liked the beds a lot."},
    {"target": False},
]


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_logs_with_labels_and_predictions(tmp_path):
    logs, labels, pred = (write(tmp_path, n, d) for n, d in
                          (("logs.json", LOGS), ("labels.json", LABELS), ("run1.json", PRED)))
    store = open_store(tmp_path / "p.db")
    r = import_file(store, logs, "dstc11", labels=labels, pred=pred)
    assert r.added["sessions"] == 2 and r.skipped["no answer (target false)"] == 1
    s1, s2 = store.sessions()
    assert s1.source == "logs.json#0" and s1.system_name == "dstc11-pred:run1" and s1.mode == "annotation"
    t = store.turns(s1.id)
    assert [x.role for x in t] == ["user", "system", "user", "system"]
    assert t[-1].text == "Reviewers liked the beds a lot."
    info = t[-1].internals["internals"]
    assert info["answer_from"] == "pred" and info["knowledge"][0]["doc_type"] == "faq"
    assert info["gold"]["response"] == "Guests mostly found the beds comfortable."
    assert [x.role for x in store.turns(s2.id)] == ["user"]

    # gold answers are another "system": separate sessions; re-import adds nothing
    r2 = import_file(store, logs, "dstc11", labels=labels, targets_only=True)
    assert r2.added["sessions"] == 1
    assert store.turns(store.sessions()[-1].id)[-1].text == "Guests mostly found the beds comfortable."
    assert import_file(store, logs, "dstc11", labels=labels, targets_only=True).added["sessions"] == 0


@pytest.mark.parametrize("logs,labels,needle", [
    ([[{"speaker": "X", "text": "hi"}]], None, "key [0][0].speaker"),
    ([[{"speaker": "U"}]], None, "key [0][0].text"),
    ([[{"speaker": "U", "text": "a"}, {"speaker": "S", "text": "b"}]], None, "key [1]: the last turn"),
    (LOGS, LABELS[:1], "labels has 1 entries but logs.json has 2"),
    (LOGS, [{"target": True}, {"target": False}], "key [0].response"),
    (LOGS, [{"target": "yes"}, {"target": False}], "key [0].target"),
])
def test_malformed_inputs_are_refused_whole(tmp_path, logs, labels, needle):
    if needle.startswith("key [1]"):
        logs = [LOGS[1], logs[0]]
    p = write(tmp_path, "logs.json", logs)
    lab = write(tmp_path, "labels.json", labels) if labels is not None else None
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError) as e:
        import_file(store, p, "dstc11", labels=lab)
    assert needle in str(e.value)
    assert store.counts()["sessions"] == 0


@pytest.mark.shared
def test_real_val_set(shared_data, tmp_path):
    d = shared_data / "dstc11-track5" / "val"
    store = open_store(tmp_path / "p.db")
    r = import_file(store, d / "logs.json", "dstc11", labels=d / "labels.json", targets_only=True, limit=50)
    assert r.added["sessions"] == 50
    assert all(store.turns(s.id)[-1].role == "system" for s in store.sessions())
