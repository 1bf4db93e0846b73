"""``parley sessions`` as a tester reads it: the condition each session really ran under (``mixed`` when the
rewriters changed mid-session, counted from the turns), and ``--json`` lines that cannot drive a terminal."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from parley.cli import main
from parley.engine.rewrite.chain import Chain
from parley.engine.session import Session
from parley.engine.systems import build_system
from parley.store import open_store
from parley.store.records import SessionRecord
from tests.unit.clihelpers import cli


def _sessions(db: Path, *extra: str) -> str:
    r = CliRunner().invoke(main, ["sessions", "--db", str(db), *extra], env={"COLUMNS": "250"},
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_rewriters_switched_mid_session_show_mixed_with_the_conditions_used(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = open_store(db)
    plain = Session(store, build_system("echo"), system_spec="echo", tester="ada")
    plain.turn("one")
    plain.end()
    mixed = Session(store, build_system("echo"), system_spec="echo", tester="bea")
    mixed.turn("one")
    mixed.set_chain(Chain(["wp"]))
    mixed.turn("two")
    mixed.turn("three")
    mixed.end()
    late = Session(store, build_system("echo"), system_spec="echo", tester="cy")
    late.set_chain(Chain(["wp"]))  # switched before the first turn: the session record still says original
    late.turn("one")
    late.end()
    store.close()
    wp = Chain(["wp"]).name
    rows = {r["tester"]: r for r in map(json.loads, _sessions(db, "--json").splitlines())}
    assert rows["ada"]["condition"] == "original" and rows["ada"]["conditions_used"] == ["original"]
    assert rows["bea"]["condition"] == f"mixed (original, {wp})"
    assert rows["bea"]["conditions_used"] == ["original", wp]
    assert rows["cy"]["condition"] == wp
    assert f"mixed (original, {wp})" in _sessions(db)


def test_json_lines_escape_c1_controls_and_bidi_overrides(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    name = "ev\x9b31mil\x85\u202egnp\x7f"  # \x9b is a one-byte CSI for terminals that take 8-bit controls
    # --tester refuses such a name now, but a database may hold one (an import, an older parley): store it
    store = open_store(db)
    store.add_session(SessionRecord(tester=name, mode="batch", system_name="echo"))
    store.close()
    out = _sessions(db, "--json")
    assert not any(0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in out), ascii(out)
    assert "\\u009b" in out and json.loads(out)["tester"] == name  # escaped, not lost


def test_ids_that_share_a_prefix_are_shown_apart_and_the_shown_prefix_selects_one(tmp_path: Path) -> None:
    from parley.cli.store_cmd import unique_prefixes
    from parley.store.records import SessionRecord

    db = tmp_path / "p.db"
    store = open_store(db)
    twins = ["mwz-test-PMUL0001.json", "mwz-test-PMUL0002.json", "7c1e44aa-0000-4000-8000-000000000000"]
    for sid in twins:
        store.add_session(SessionRecord(id=sid, mode="annotation"))
    store.close()
    out = _sessions(db)
    assert "mwz-test-PMUL0001" in out and "mwz-test-PMUL0002" in out and "7c1e44aa " in out
    short = unique_prefixes(twins)
    assert short["7c1e44aa-0000-4000-8000-000000000000"] == "7c1e44aa"
    assert all(sum(t.startswith(p) for t in twins) == 1 for p in short.values())


def test_a_limit_beyond_64_bits_lists_every_session(tmp_path: Path) -> None:
    """``--limit 99999999999999999999`` reached SQLite's LIMIT and ended in a traceback (datatype mismatch);
    "at most N" for any N past the 64-bit range is every session."""
    db = tmp_path / "p.db"
    store = open_store(db)
    store.add_session(SessionRecord(tester="ann", mode="batch", system_name="echo"))
    store.close()
    r = cli(["sessions", "--db", str(db), "--json", "--limit", "9" * 20])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 1
