"""bench/RESULTS.md: one current table per area, built by bench/collect.py from bench/results/."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def _collect() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_collect", REPO / "bench" / "collect.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def collect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    mod = _collect()
    (tmp_path / "results").mkdir()
    monkeypatch.setattr(mod, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(mod, "OUT", tmp_path / "RESULTS.md")
    return mod


def _row(**over: str) -> dict[str, str]:
    row = {"figure": "commit 10,000 turns", "value": "0.67 s", "goal": "≤ 2 s — met", "commit": "abc1234",
           "date": "2026-11-26 17:16 UTC", "load": "0.8", "command": "python bench/store_bench.py"}
    row.update(over)
    return row


def _area(path: Path, name: str, rows: list[dict[str, str]]) -> None:
    data = {"area": name, "title": f"Area {name}", "machine": "2-core x86_64 VM", "rows": rows}
    (path / f"{name}.figures.json").write_text(json.dumps(data), encoding="utf-8")


def test_results_md_is_what_the_sources_give_and_short() -> None:
    mod = _collect()
    text, _ = mod.build()
    assert (REPO / "bench" / "RESULTS.md").read_text(encoding="utf-8") == text, (
        "bench/RESULTS.md is stale: run .venv/bin/python bench/collect.py")
    assert text.count("\n") <= 300
    assert mod.main(["--check"]) == 0


def test_every_area_with_notes_has_a_current_table() -> None:
    results = REPO / "bench" / "results"
    notes = {p.stem for p in results.glob("*.md")}
    tables = {p.name.removesuffix(".figures.json") for p in results.glob("*.figures.json")}
    assert notes <= tables, f"areas with notes but no figures: {sorted(notes - tables)}"


def test_a_table_row_shows_value_goal_commit_date_and_load(collect: ModuleType) -> None:
    _area(collect.RESULTS, "store", [_row(), _row(figure="export to CSV", value="0.78 s", command="x")])
    text, warnings = collect.build()
    assert "| commit 10,000 turns | 0.67 s | ≤ 2 s — met | abc1234 | 2026-11-26 17:16 UTC | 0.8 |" in text
    assert "Machine: 2-core x86_64 VM." in text
    assert "`python bench/store_bench.py`; `x`" in text
    assert warnings == []


def test_an_area_written_as_markdown_only_is_included_as_written(collect: ModuleType) -> None:
    (collect.RESULTS / "new.md").write_text("# New area\n\n| figure | value |\n|---|---|\n| a | 1 |\n",
                                            encoding="utf-8")
    text, warnings = collect.build()
    assert "## New area" in text and "| a | 1 |" in text
    assert any("new.md has no new.figures.json" in w for w in warnings)


def test_notes_newer_than_the_table_are_reported(collect: ModuleType) -> None:
    _area(collect.RESULTS, "store", [_row()])
    (collect.RESULTS / "store.md").write_text("## Store\n\n2026-11-28: commits 0.5 s\n", encoding="utf-8")
    text, warnings = collect.build()
    assert "Notes: [`bench/results/store.md`](results/store.md)." in text
    assert any("2026-11-28" in w for w in warnings)


def test_a_row_missing_a_field_names_the_file_and_row(collect: ModuleType) -> None:
    row = _row()
    del row["load"]
    _area(collect.RESULTS, "store", [_row(), row])
    with pytest.raises(ValueError, match=r"store.figures.json: row 2 lacks load"):
        collect.build()


def test_check_fails_on_a_stale_file(collect: ModuleType) -> None:
    _area(collect.RESULTS, "store", [_row()])
    assert collect.main(["--check"]) == 1
    assert collect.main([]) == 0
    assert collect.main(["--check"]) == 0
