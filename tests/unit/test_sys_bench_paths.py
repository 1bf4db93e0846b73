"""bench/sys_bench.py keeps no machine's own paths in the raw figures it writes."""

from __future__ import annotations

import runpy
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_paths_in_the_raw_figures_are_relative() -> None:
    bench = runpy.run_path(str(REPO / "bench" / "sys_bench.py"))  # defines, runs nothing
    rel, zip_path = bench["rel"], bench["TEST_ZIP"]
    data = rel(zip_path)
    assert not Path(data).is_absolute() and (REPO / data).resolve() == zip_path.resolve()
    assert rel(REPO / "bench" / "results" / "llm.json") == "bench/results/llm.json"
    assert rel("--limit") == "--limit" and rel("bench/sys_bench.py") == "bench/sys_bench.py"
