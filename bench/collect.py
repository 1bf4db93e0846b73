"""Rebuild bench/RESULTS.md from the per-area result files in bench/results/*.md.

Run: .venv/bin/python bench/collect.py
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ["store", "mw", "tui", "rw", "audio", "sys", "sktod", "score", "fidelity", "annotate"]

HEADER = """# Benchmark results

Benchmarks are scripts in `bench/` (not timed tests). Each section below gives the machine, the date, the \
command
and the figures next to the goals of the issue it belongs to. The machine for every figure: 2-core x86_64 CPU,
24 GB RAM, no GPU, Python 3.11.7, torch 2.13.0 CPU — a shared machine: figures taken while other work ran are
marked as such in their section. Rebuild this file with `.venv/bin/python bench/collect.py`.
"""


def main() -> None:
    files = sorted((HERE / "results").glob("*.md"),
                   key=lambda p: (ORDER.index(p.stem) if p.stem in ORDER else len(ORDER), p.stem))
    parts = [HEADER]
    for f in files:
        text = f.read_text(encoding="utf-8").strip()
        if text.startswith("# "):  # one section per area: demote the file's headings by one level
            text = "\n".join("#" + line if line.startswith("#") else line for line in text.splitlines())
        parts.append(text + "\n")
    (HERE / "RESULTS.md").write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {HERE / 'RESULTS.md'} from {len(files)} file(s)")


if __name__ == "__main__":
    main()
