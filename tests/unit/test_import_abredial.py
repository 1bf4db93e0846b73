"""AB-ReDial importer on small CSVs in the real column layout, with out-of-range values as in the real
data."""

from __future__ import annotations

import csv

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.store import open_store
from parley.store.imports import ImportFileError, import_file

DLG_COLS = (["ConvId"] + [f"utterance{i}" for i in range(22)]
            + ["understanding", "task-completion", "interest-arousal", "efficiency", "dialogue-overall",
               "justification-text"])
TURN_COLS = ["ConvId"]
for k in (1, 2, 3):
    TURN_COLS += [f"utterance{4 * k - 4 + j}" for j in range(4)] + [f"relevance{k}", f"interestingness{k}",
                                                                    f"overall{k}"]

DIALOGUE = ["SYSTEM\tHey! What films do you enjoy?", "USER\tMostly old westerns.",
            "SYSTEM\tTry \"Dusty Trail (1961)\" then.", "USER\tSeen it, something newer?",
            "SYSTEM\tMaybe \"Iron Mesa (2009)\"?", "USER \u2003 Sounds fun, thanks.",
            "SYSTEM\tEnjoy it!", "USER\tBye."]
OTHER = ["USER\thi", "SYSTEM\tHello, any genre in mind?", "USER\tcomedies",
         "SYSTEM\t\"Laugh Track (2004)\" is light.", "USER\tgreat"]


def drow(conv, utts, ratings, just):
    cells = [conv] + utts + [""] * (22 - len(utts)) + list(ratings) + [just]
    return dict(zip(DLG_COLS, cells, strict=True))


def trow(conv, utts, vals):
    row = {"ConvId": conv}
    for k in (1, 2, 3):
        for j in range(4):
            row[f"utterance{4 * k - 4 + j}"] = utts[k - 1][j]
        row[f"relevance{k}"], row[f"interestingness{k}"], row[f"overall{k}"] = vals[k - 1]
    return row


def write(path, cols, rows):
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    return path


@pytest.fixture
def files(tmp_path):
    d = write(tmp_path / "annotated_dialogues.csv", DLG_COLS, [
        drow("Q1", DIALOGUE, ["3.0", "2.0", "3.0", "1.0", "4.0"], "Quick and on point."),
        drow("Q1", DIALOGUE, ["2.0", "2.0", "0.0", "0.0", "3.0"], "Meh."),       # interest arousal 0
        drow("Q1", DIALOGUE, ["", "", "", "", ""], "Left blank."),
        drow("Q1", OTHER, ["3.0", "3.0", "3.0", "1.0", "5.0"], "A different dialogue, same id."),
    ])
    w = [DIALOGUE[0:4], DIALOGUE[2:6], DIALOGUE[4:8]]
    t = write(tmp_path / "annotated_turns.csv", TURN_COLS, [
        trow("Q1", w, [("3", "2", "4"), ("4", "1", "3.0"), ("1", "3", "2")]),   # relevance 4
        trow("Q1", w, [("2", "2", "3"), ("0", "5", "3"), ("2", "1", "3")]),     # both out of range in turn 2
    ])
    return d, t


def test_dialogues_ratings_and_scale_checks(tmp_path, files):
    d, t = files
    store = open_store(tmp_path / "p.db")
    r = import_file(store, d, "abredial", turn_file=t, relevance_coding="paper")
    assert r.added["sessions"] == 2  # Q1 names two different dialogues
    s1, s2 = store.sessions()
    assert s1.source == s2.source == "annotated_dialogues.csv#Q1" and s1.id != s2.id
    turns = store.turns(s1.id)
    assert [x.role for x in turns][:2] == ["system", "user"] and turns[5].text == "Sounds fun, thanks."
    dr = store.dialogue_ratings(s1.id)
    assert [(x.rater, x.understanding, x.overall, x.justification) for x in dr] == [
        ("abredial-1", 3, 4, "Quick and on point.")]
    assert r.skipped["interest_arousal=0 outside 1-3"] == 1
    assert r.skipped["dialogue rating with blank cells"] == 1
    tr = {(x.rater, x.turn_id): x for x in store.turn_ratings(s1.id)}
    sys_ids = [x.id for x in turns if x.role == "system"][1:]  # turn K rates utterance 4K-2
    assert (tr["abredial-1", sys_ids[0]].relevance, tr["abredial-1", sys_ids[0]].interestingness) == (3, 2)
    # relevance 4 is not clamped: the value is dropped, interestingness kept
    assert (tr["abredial-1", sys_ids[1]].relevance, tr["abredial-1", sys_ids[1]].interestingness) == (None, 1)
    assert ("abredial-2", sys_ids[1]) not in tr  # nothing valid left
    assert r.skipped["relevance=4 outside 1-3"] == 1 and r.skipped["relevance=0 outside 1-3"] == 1
    assert r.skipped["interestingness=5 outside 1-3"] == 1
    assert r.skipped["turn-level overall (overallK): no such field in parley"] == 6
    assert any("line 3" in w and "interest_arousal=0" in w for w in r.warnings)
    assert store.dialogue_ratings(s2.id)[0].overall == 5
    assert import_file(store, d, "abredial", turn_file=t, relevance_coding="paper").added["turn_ratings"] == 0


def test_auto_relevance_coding_reads_a_4_as_the_shifted_scale(tmp_path, files):
    d, t = files
    store = open_store(tmp_path / "p.db")
    r = import_file(store, d, "abredial", turn_file=t)  # the file holds a relevance of 4
    assert any("shifted coding" in w for w in r.warnings)
    s1 = store.sessions()[0]
    sys_ids = [x.id for x in store.turns(s1.id) if x.role == "system"][1:]
    tr = {(x.rater, x.turn_id): (x.relevance, x.interestingness) for x in store.turn_ratings(s1.id)}
    # rater 1 wrote relevance 3, 4, 1 → somewhat (2), yes (3), not applicable ('n/a', not NULL: unrated)
    assert [tr["abredial-1", i] for i in sys_ids] == [(2, 2), (3, 1), ("n/a", 3)]
    # rater 2: 2 → no (1); 0 stays out of range and is not imported
    assert tr["abredial-2", sys_ids[0]] == (1, 2)
    assert r.skipped["relevance=0 outside 1-3"] == 1 and "relevance=4 outside 1-3" not in r.skipped


def test_cli_reports_out_of_range_counts(tmp_path, files):
    d, t = files
    r = CliRunner().invoke(main, ["import", str(d), "--format", "abredial", "--turn-file", str(t),
                                  "--relevance-coding", "paper", "--db", str(tmp_path / "p.db")])
    assert r.exit_code == 0, r.output
    assert "not imported: 1 x relevance=4 outside 1-3" in r.output
    assert "2 new session(s)" in r.output


@pytest.mark.parametrize("mutate,needle", [
    (lambda rows: rows[1].__setitem__("efficiency", "yes"), "line 3, column efficiency: expected a number"),
    (lambda rows: rows[0].__setitem__("utterance1", "BOT\thi"), "line 2, column utterance1"),
    (lambda rows: rows[1].__setitem__("dialogue-overall", "2.5"), "line 3, column dialogue-overall"),
])
def test_malformed_dialogue_file(tmp_path, mutate, needle):
    rows = [drow("A", OTHER, ["3", "3", "3", "1", "5"], ""),
            drow("B", DIALOGUE, ["3", "3", "3", "1", "5"], "")]
    mutate(rows)
    d = write(tmp_path / "d.csv", DLG_COLS, rows)
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError) as e:
        import_file(store, d, "abredial")
    assert needle in str(e.value)
    assert store.counts()["sessions"] == 0


def test_missing_column_and_turn_file_as_main_file(tmp_path, files):
    d, t = files
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError, match="turn file"):
        import_file(store, t, "abredial")
    cols = [c for c in DLG_COLS if c != "efficiency"]
    bad = write(
        tmp_path / "x.csv", cols, [{c: v for c, v in drow("A", OTHER, "33315", "").items() if c in cols}]
    )
    with pytest.raises(ImportFileError, match="line 1: missing column 'efficiency'"):
        import_file(store, bad, "abredial")


@pytest.mark.shared
def test_real_ab_redial(shared_data, tmp_path):
    d = shared_data / "ab-redial"
    store = open_store(tmp_path / "p.db")
    r = import_file(store, d / "annotated_dialogues.csv", "abredial", turn_file=d / "annotated_turns.csv")
    assert r.added["sessions"] == 200 and r.added["dialogue_ratings"] == 640 - 4 - 28
    assert r.skipped["interest_arousal=0 outside 1-3"] == 28
    assert r.skipped["relevance=4 outside 1-3"] == 0 and r.skipped["relevance=0 outside 1-3"] > 0
    paper = import_file(open_store(tmp_path / "q.db"), d / "annotated_dialogues.csv", "abredial",
                        turn_file=d / "annotated_turns.csv", relevance_coding="paper")
    assert paper.skipped["relevance=4 outside 1-3"] > 0
