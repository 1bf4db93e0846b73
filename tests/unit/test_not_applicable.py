"""Relevance "not applicable" is a value of its own ('n/a'), distinct from NULL (not rated): stored, migrated
from older databases, exported (JSONL and CSV), imported back, and scored as such."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from parley.engine.scoring.satisfaction import analyse, rows_from_store
from parley.store import Store, open_store
from parley.store.annotation import Annotation, AnnotationError, turn_rating_complete
from parley.store.export import export_csv, export_jsonl
from parley.store.imports import import_file
from parley.store.migrations import migrations
from parley.store.records import DialogueRating, SessionRecord, TurnRating, TurnRecord, to_row


def _insert(conn: sqlite3.Connection, table: str, rec: object) -> None:
    row = to_row(rec)
    cols = ", ".join(f'"{c}"' for c in row)
    conn.execute(f"INSERT INTO {table} ({cols}) VALUES ({', '.join('?' for _ in row)})", list(row.values()))


def _dialogue(sid: str, mode: str = "annotation", tester: str = "") -> tuple[SessionRecord, list[TurnRecord]]:
    session = SessionRecord(id=sid, mode=mode, tester=tester, started_at=f"2026-02-0{sid[-1]}T10:00:00+00:00",
                            source=f"mini.json#{sid}")
    turns = [TurnRecord(session_id=sid, index=i, role="user" if i % 2 == 0 else "system",
                        text=f"line {i} of {sid}", id=f"{sid}-t{i}", created_at="2026-02-01T10:00:00+00:00")
             for i in range(4)]
    return session, turns


def _store(path: Path, *sids: str) -> Store:
    """A database holding an imported dialogue per id in ``sids``."""
    store = open_store(path)
    for sid in sids:
        session, turns = _dialogue(sid)
        store.add_session(session)
        for t in turns:
            store.add_turn(t)
    return store


def test_an_old_database_keeps_its_meaning(tmp_path: Path) -> None:
    """Before, "not applicable" was NULL beside an interestingness: migrated to 'n/a' wherever only parley
    rate or an importer could have written it; a live session's own tester's ratings (the chat stores each
    aspect as given) stay NULL."""
    path = tmp_path / "v5.db"
    migrations.apply(Database(sqlite3.connect(path)), stop_before="m006_relevance_not_applicable")
    conn = sqlite3.connect(path, isolation_level=None)
    imported, imported_turns = _dialogue("s1")
    live, live_turns = _dialogue("s2", mode="live", tester="ada")
    for rec in (imported, live, *imported_turns, *live_turns):
        _insert(conn, "sessions" if isinstance(rec, SessionRecord) else "turns", rec)
    for name in ("ann", "ada", "bob"):
        conn.execute("INSERT INTO raters VALUES (?, 'x')", [name])
    rows = [("s1-t1", "ann", None, 3), ("s1-t3", "ann", 2, None), ("s2-t1", "ada", None, 2),
            ("s2-t1", "bob", None, 1), ("s2-t3", "ada", 3, 3)]
    conn.executemany("INSERT INTO turn_ratings VALUES (?, ?, ?, ?, 'x')", rows)
    with pytest.raises(sqlite3.IntegrityError):  # the old schema has no room for it
        conn.execute("UPDATE turn_ratings SET relevance = 'n/a' WHERE turn_id = 's1-t1'")
    conn.close()

    store = open_store(path)
    got = {(r.turn_id, r.rater): (r.relevance, r.interestingness) for r in store.turn_ratings()}
    assert got == {("s1-t1", "ann"): ("n/a", 3), ("s1-t3", "ann"): (2, None), ("s2-t1", "ada"): (None, 2),
                   ("s2-t1", "bob"): ("n/a", 1), ("s2-t3", "ada"): (3, 3)}
    for bad in ("N/A", "x", 0, 4):
        with pytest.raises(sqlite3.IntegrityError):
            store.db.execute("UPDATE turn_ratings SET relevance = ? WHERE turn_id = 's2-t3'", [bad])
    assert store.integrity_ok() and not store.db.execute("PRAGMA foreign_key_check").fetchall()
    with store.write() as c:  # the rebuilt table still cascades from turns
        c.execute("DELETE FROM turns WHERE id = 's1-t1'")
    assert ("s1-t1", "ann") not in {(r.turn_id, r.rater) for r in store.turn_ratings()}


def test_not_applicable_is_not_unrated(tmp_path: Path) -> None:
    ann = Annotation(_store(tmp_path / "r.db", "s1"), "ann")
    assert turn_rating_complete(ann.rate_turn("s1-t1", "n/a", 3))
    assert not turn_rating_complete(ann.rate_turn("s1-t3", None, 2))  # relevance not given yet
    assert [p.rated_turns for p in ann.progress()] == [1]
    with pytest.raises(AnnotationError, match="relevance must be 1-3 or 'n/a'"):
        ann.rate_turn("s1-t3", "N/A", 2)  # type: ignore[arg-type]
    with pytest.raises(AnnotationError, match="interestingness must be 1-3, not 'n/a'"):
        ann.rate_turn("s1-t3", 2, "n/a")  # type: ignore[arg-type]


def test_export_and_import_round_trip(tmp_path: Path) -> None:
    store = _store(tmp_path / "a.db", "s1")
    given = [TurnRating("s1-t1", "ann", "n/a", 3, created_at="2026-02-01T10:01:00+00:00"),
             TurnRating("s1-t3", "ann", None, 2, created_at="2026-02-01T10:02:00+00:00"),
             TurnRating("s1-t1", "bob", 2, 1, created_at="2026-02-01T10:03:00+00:00")]
    for r in given:
        store.rate_turn(r)
    store.rate_dialogue(DialogueRating("s1", "ann", 2, 2, 1, 0, 3, "fine",
                                       created_at="2026-02-01T10:05:00+00:00"))

    export_jsonl(store, tmp_path / "out.jsonl")
    (line,) = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    exported = {(r["turn_id"], r["rater"]): (r["relevance"], r["interestingness"])
                for r in json.loads(line)["turn_ratings"]}
    assert exported == {("s1-t1", "ann"): ("n/a", 3), ("s1-t3", "ann"): (None, 2), ("s1-t1", "bob"): (2, 1)}
    assert '"relevance":"n/a"' in line and '"relevance":null' in line

    export_csv(store, tmp_path / "csv")
    with (tmp_path / "csv" / "turn_ratings.csv").open(encoding="utf-8", newline="") as fh:
        cells = {(r["turn_id"], r["rater"]): (r["relevance"], r["interestingness"])
                 for r in csv.DictReader(fh)}
    assert cells == {("s1-t1", "ann"): ("n/a", "3"), ("s1-t3", "ann"): ("", "2"),
                     ("s1-t1", "bob"): ("2", "1")}

    copy = open_store(tmp_path / "b.db")
    report = import_file(copy, tmp_path / "out.jsonl", "jsonl")
    assert report.added["turn_ratings"] == 3
    assert sorted(copy.turn_ratings(), key=lambda r: (r.turn_id, r.rater)) == \
        sorted(given, key=lambda r: (r.turn_id, r.rater))
    assert import_file(copy, tmp_path / "out.jsonl", "jsonl").added["turn_ratings"] == 0  # same rows again


@pytest.mark.parametrize("value", ['"N/A"', '"na"', "0", "true"])
def test_import_refuses_other_spellings(tmp_path: Path, value: str) -> None:
    from parley.store.imports.base import ImportFileError

    store = _store(tmp_path / "a.db", "s1")
    store.rate_turn(TurnRating("s1-t1", "ann", "n/a", 3))
    export_jsonl(store, tmp_path / "out.jsonl")
    text = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    text = text.replace('"relevance":"n/a"', f'"relevance":{value}')
    (tmp_path / "bad.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(ImportFileError, match="turn_ratings|outside its scale"):
        import_file(open_store(tmp_path / "b.db"), tmp_path / "bad.jsonl", "jsonl")


def _two_raters(tmp_path: Path) -> Store:
    """Two dialogues rated by ann (every turn) and bob (one turn, the other not applicable)."""
    store = _store(tmp_path / "s.db", "s1", "s2")
    for sid, overall in (("s1", 5), ("s2", 1)):
        hi = 3 if overall == 5 else 1
        store.rate_turn(TurnRating(f"{sid}-t1", "ann", hi, 2))
        store.rate_turn(TurnRating(f"{sid}-t3", "ann", 2, 2))
        store.rate_turn(TurnRating(f"{sid}-t1", "bob", "n/a", 3))
        store.rate_turn(TurnRating(f"{sid}-t3", "bob", hi, 1))
        for rater in ("ann", "bob"):
            store.rate_dialogue(DialogueRating(sid, rater, hi, hi, hi, 1 if hi == 3 else 0, overall, "x"))
    return store


def test_scores_keep_not_applicable_apart_and_average_each_raters_mean(tmp_path: Path) -> None:
    store = _two_raters(tmp_path)
    rows, turns = rows_from_store(store)
    means = {(r.item, r.rater): r.relevance for r in rows}
    assert means == {("s1", "ann"): 2.5, ("s1", "bob"): 3.0, ("s2", "ann"): 1.5, ("s2", "bob"): 1.0}
    report = analyse(rows, turns)
    assert report.to_json()["distributions"]["relevance"] == {"1": 2, "2": 2, "3": 2, "n/a": 2}
    assert any("2 turn rating(s) not applicable" in n for n in report.notes)
    from parley.engine.scoring.satisfaction import dialogue_means

    by_dialogue = {r.item: r.relevance for r in dialogue_means(rows)}
    # each rater counts once: (2.5 + 3) / 2, not the pooled turns (3 + 2 + 3) / 3
    assert by_dialogue == {"s1": 2.75, "s2": 1.25}


def test_cli_keeps_to_raters_and_sources_and_names_units(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from parley.cli import main

    store = _two_raters(tmp_path)
    db = str(store.path)
    run = CliRunner()
    res = run.invoke(main, ["score", "--satisfaction", "--db", db, "--json", "--rater", "b*"])
    assert res.exit_code == 0, res.output
    sat = json.loads(res.stdout)["satisfaction"]
    assert sat["n_raters"] == 1 and sat["n_ratings"] == 2
    assert sat["selection"] == {"raters": ["b*"], "sources": []}
    res = run.invoke(main, ["score", "--satisfaction", "--db", db, "--json", "--source", "mini.json#s1",
                            "--rater", "ann", "--rater", "bob"])
    sat = json.loads(res.stdout)["satisfaction"]
    assert sat["n_dialogues"] == 1 and sat["n_ratings"] == 2
    res = run.invoke(main, ["score", "--satisfaction", "--db", db, "--rater", "nobody"])
    assert res.exit_code == 2 and "no dialogue ratings matching --rater nobody" in res.output
    res = run.invoke(main, ["score", "--multiwoz", "--db", db, "--rater", "ann"])
    assert res.exit_code == 2 and "--rater selects stored ratings" in res.output
    res = run.invoke(main, ["score", "--satisfaction", "--db", db, "--rater", "ann"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    for unit in ("rater level (one point per rater × dialogue", "OLS of overall impression on aspect sets, "
                 "rater level", "item: a dialogue for dialogue aspects, a system turn for turn aspects",
                 "counts of ratings: turn aspects per turn rating", "by unit of analysis", "only raters ann"):
        assert unit in text, unit
