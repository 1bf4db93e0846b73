"""No NaN or infinity poisons the store: specs and imports refuse them, the store writes strict JSON, and a
database written the old way (json.dumps with NaN) still exports. The jsonl importer checks types against the
export schema and names the line and key."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.engine.rewrite import build_rewriter
from parley.engine.spec import Spec, SpecError, parse_spec
from parley.store import open_store
from parley.store.export import export_jsonl
from parley.store.imports import ImportFileError, import_file
from parley.store.records import SessionRecord, TurnRecord, finite, to_json, to_row
from tests.unit.clihelpers import cli, one_line_error
from tests.unit.storehelpers import fill_fixed


def _strict(text: str) -> object:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in exported JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400"])
def test_spec_params_refuse_nan_and_infinity(value: str, tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="finite"):
        parse_spec(f"wp:alpha={value}")
    db = tmp_path / "p.db"
    line = one_line_error(cli(["chat", "--script", "-", "--system", "echo", "--rewrite", f"wp:alpha={value}",
                               "--db", str(db)], input="hi\n"))
    assert "finite" in line
    assert not db.exists() or open_store(db).counts()["sessions"] == 0


def test_params_built_in_code_refuse_nan_too() -> None:
    with pytest.raises(SpecError, match="alpha: must be a finite number"):
        build_rewriter(Spec("wp", {"alpha": math.nan}))


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_jsonl_import_refuses_nan(literal: str, tmp_path: Path) -> None:
    line = ('{"session": {"id": "s1", "started_at": "2026", "system_config": {"x": LITERAL}}, "turns": []}'
            .replace("LITERAL", literal))
    f = tmp_path / "x.jsonl"
    f.write_text(line + "\n", encoding="utf-8")
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError, match="line 1"):
        import_file(store, f, "jsonl")
    assert store.counts()["sessions"] == 0


def test_the_store_writes_strict_json() -> None:
    row = to_row(TurnRecord(session_id="s", index=0, role="system", text="x", latency_ms=math.inf,
                            internals={"score": math.nan, "deep": [{"x": -math.inf}]}))
    assert row["latency_ms"] is None
    assert _strict(row["internals"]) == {"deep": [{"x": None}], "score": None}


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=20)


@given(_JSONISH)
def test_to_json_is_the_finite_walk_encoded_strictly(value: object) -> None:
    # to_json skips the Python walk unless the encoder finds a NaN/inf: the text is the same either way
    text = to_json(value)
    assert text == json.dumps(finite(value), ensure_ascii=False, sort_keys=True, default=str, allow_nan=False)
    _strict(text)


def test_a_database_written_the_old_way_still_exports(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    store = open_store(db)
    fill_fixed(store)
    s = store.add_session(SessionRecord(tester="old", mode="batch", system_name="echo", seed=1))
    store.add_turn(TurnRecord(session_id=s.id, index=0, role="user", text="hi"))
    store.close()
    conn = sqlite3.connect(db)  # what parley wrote before it refused NaN: json.dumps(allow_nan=True), inf
    conn.execute("UPDATE sessions SET system_config = ? WHERE id = ?",
                 [json.dumps({"rewriters": [{"alpha": math.nan}], "t": math.inf}), s.id])
    conn.execute("UPDATE turns SET internals = ?, latency_ms = ? WHERE session_id = ?",
                 [json.dumps({"p": -math.inf}), math.inf, s.id])
    conn.commit()
    conn.close()
    out = tmp_path / "out.jsonl"
    r = cli(["export", "--db", str(db), "--format", "jsonl", "--out", str(out)])
    assert r.exit_code == 0, r.output
    lines = [_strict(x) for x in out.read_text(encoding="utf-8").splitlines()]
    old = next(x for x in lines if x["session"]["id"] == s.id)  # type: ignore[index]
    assert old["session"]["system_config"] == {"rewriters": [{"alpha": None}], "t": None}  # type: ignore[index]
    assert old["turns"][0]["internals"] == {"p": None} and old["turns"][0]["latency_ms"] is None  # type: ignore
    fresh = open_store(tmp_path / "fresh.db")  # and it imports again
    assert import_file(fresh, out, "jsonl").added["sessions"] == 3
    csv_dir = tmp_path / "csv"
    assert cli(["export", "--db", str(db), "--format", "csv", "--out", str(csv_dir)]).exit_code == 0
    assert "NaN" not in (csv_dir / "sessions.csv").read_text(encoding="utf-8")


def _exported(tmp_path: Path) -> dict:  # type: ignore[type-arg]
    store = open_store(tmp_path / "src.db")
    fill_fixed(store)
    export_jsonl(store, tmp_path / "src.jsonl")
    return json.loads((tmp_path / "src.jsonl").read_text(encoding="utf-8").splitlines()[0])


@pytest.mark.parametrize(("path", "value", "key"), [
    (("turns", 0, "index"), "abc", "turns[0].index"),
    (("turn_ratings", 0, "interestingness"), 2.7, "turn_ratings[0].interestingness"),
    (("turn_ratings", 0, "relevance"), True, "turn_ratings[0].relevance"),
    (("session", "locked"), "no", "session.locked"),
    (("session", "seed"), 2**70, "session.seed"),
    (("turns", 1, "latency_ms"), "fast", "turns[1].latency_ms"),
])
def test_jsonl_types_are_checked(path: tuple, value: object, key: str, tmp_path: Path) -> None:  # type: ignore
    obj = _exported(tmp_path)
    target = obj
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError) as e:
        import_file(store, f, "jsonl")
    assert f"line 1, key {key}:" in str(e.value)
    assert store.counts()["sessions"] == 0
