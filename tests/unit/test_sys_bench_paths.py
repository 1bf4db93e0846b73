"""bench/sys_bench.py keeps no machine's own paths in the raw figures it writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_paths_in_the_raw_figures_are_relative() -> None:
    spec = importlib.util.spec_from_file_location("sys_bench", REPO / "bench" / "sys_bench.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    data = mod.rel(mod.TEST_ZIP)
    assert not Path(data).is_absolute() and (REPO / data).resolve() == mod.TEST_ZIP.resolve()
    assert mod.rel(REPO / "bench" / "results" / "llm.json") == "bench/results/llm.json"
    assert mod.rel("--limit") == "--limit" and mod.rel("bench/sys_bench.py") == "bench/sys_bench.py"
