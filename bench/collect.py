"""Rebuild bench/RESULTS.md: one current table per area.

Sources, per area (the file stem names the area):

- ``bench/results/<area>.figures.json``: the current figures, one row each (figure, value, goal, commit,
  date, load, command; the machine once per area). This is what the table shows.
- ``bench/results/<area>.md``: the area's notes (method, every run, what was tried). Linked from the table.
  An area that has only a ``.md`` (no ``.figures.json`` yet) is included as written, under its own heading,
  until its figures are moved into rows.

Older figures are history: they live in the area's notes and in CHANGELOG.md, not in the table.

Run: .venv/bin/python bench/collect.py [--check]
(``--check`` writes nothing and exits 1 when RESULTS.md is not what the sources give.)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
OUT = HERE / "RESULTS.md"
ORDER = ["store", "tui", "input", "mw", "llm", "sys", "rw", "audio", "voice", "sktod", "score", "fidelity",
         "neural", "formats", "annotate", "remote", "run", "bounds", "install"]
MAX_LINES = 300
FIELDS = ("figure", "value", "goal", "commit", "date", "load", "command")
DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")

HEADER = """# Benchmark results

The current figure of every benchmarked area, one table per area. Benchmarks are scripts in `bench/`, not
timed tests. Every figure was measured on a shared 2-core x86_64 VM (no GPU, 24 GB, Python 3.11, torch CPU)
while other work ran: the 1-minute load average is beside each figure, and wall times move with it. "commit"
is the code measured; where the source names none it is the commit that recorded the figure (marked *). Each
area's notes (method, earlier runs, what was tried) are linked under its table; history is in `CHANGELOG.md`.

Rebuilt from `bench/results/<area>.figures.json` (and `<area>.md`) by `.venv/bin/python bench/collect.py`.
"""


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def load_area(path: Path) -> dict[str, Any]:
    """One area's figures; a missing field is an error naming the file and the row."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{path.name}: no rows")
    for i, row in enumerate(rows, 1):
        missing = [f for f in FIELDS if f not in row]
        if missing:
            raise ValueError(f"{path.name}: row {i} lacks {', '.join(missing)}")
    return data


def render_area(data: dict[str, Any], notes: Path | None) -> list[str]:
    lines = [f"## {data['title']}", ""]
    lines.append(f"Machine: {data.get('machine', '2-core x86_64 VM')}.")
    lines += ["", "| figure | value | goal | commit | date | load |", "|---|---|---|---|---|---|"]
    commands: list[str] = []
    for row in data["rows"]:
        commit = row["commit"] + ("*" if row.get("commit_is") == "recorded" else "")
        lines.append("| " + " | ".join(_cell(v) for v in (row["figure"], row["value"], row["goal"], commit,
                                                            row["date"], row["load"])) + " |")
        if row["command"] not in commands:
            commands.append(row["command"])
    lines.append("")
    lines.append("Commands: " + "; ".join(f"`{c}`" for c in commands) + ".")
    if notes is not None:
        lines.append(f"Notes: [`bench/results/{notes.name}`](results/{notes.name}).")
    lines.append("")
    return lines


def newer_notes(data: dict[str, Any], notes: Path) -> str | None:
    """The latest date in the notes when it is later than every row's date (figures not yet in rows)."""
    in_rows = [d for row in data["rows"] for d in DATE.findall(str(row["date"]))]
    in_notes = DATE.findall(notes.read_text(encoding="utf-8"))
    if in_notes and in_rows and max(in_notes) > max(in_rows):
        return max(in_notes)
    return None


def _key(stem: str) -> tuple[int, str]:
    return (ORDER.index(stem) if stem in ORDER else len(ORDER), stem)


def build() -> tuple[str, list[str]]:
    """The text of RESULTS.md and the warnings for the person running it."""
    tables = {p.name[: -len(".figures.json")]: p for p in RESULTS.glob("*.figures.json")}
    notes = {p.stem: p for p in RESULTS.glob("*.md")}
    warnings: list[str] = []
    parts = [HEADER]
    for area in sorted(set(tables) | set(notes), key=_key):
        if area in tables:
            data = load_area(tables[area])
            parts.append("\n".join(render_area(data, notes.get(area))))
            if area in notes and (later := newer_notes(data, notes[area])):
                warnings.append(f"bench/results/{area}.md holds figures dated {later}, later than every row "
                                f"of {area}.figures.json: move the current ones into rows")
        else:
            text = notes[area].read_text(encoding="utf-8").strip()
            if text.startswith("# "):  # demote the notes' headings by one level
                text = "\n".join("#" + line if line.startswith("#") else line for line in text.splitlines())
            parts.append(text + "\n")
            warnings.append(f"bench/results/{area}.md has no {area}.figures.json: included as written")
    text = "\n".join(parts)
    n = text.count("\n")
    if n > MAX_LINES:
        warnings.append(f"RESULTS.md is {n} lines (more than {MAX_LINES}): keep only current figures in rows")
    return text, warnings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Rebuild bench/RESULTS.md from bench/results/.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if RESULTS.md is stale")
    args = parser.parse_args(argv)
    text, warnings = build()
    for w in warnings:
        print(f"collect: {w}", file=sys.stderr)
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("collect: bench/RESULTS.md is stale: run .venv/bin/python bench/collect.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
