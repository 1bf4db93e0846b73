"""How many user turns of a MultiWOZ file get other protected spans from one version of ``engine/spans.py``
than from another: a cheap check whether a change of ``find_spans`` can have changed what the rewriters gave a
system in a stored run (counts only; no dialogue text is printed).

Usage: .venv/bin/python bench/spans_diff.py --old REV [--new REV] [--data FILE] [--limit N]
(``--new`` defaults to the working tree; REV is any git revision of this repository.)
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from mw_bench import DATA  # noqa: E402  (bench/ is on sys.path when this file runs)

TIMES = ("leaveAt", "arriveBy", "book_time")


def spans_module(rev: str | None, tmp: Path) -> ModuleType:
    """``engine/spans.py`` as it is at ``rev`` (None: the working tree), imported under its own name."""
    path = ROOT / "engine" / "spans.py"
    if rev is not None:
        path = tmp / f"spans_{rev}.py"
        path.write_text(subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:engine/spans.py"], check=True,
                                       capture_output=True, text=True).stdout)
    spec = importlib.util.spec_from_file_location(f"spans_{rev or 'tree'}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="git revision of the old find_spans")
    ap.add_argument("--new", default=None, help="git revision of the new one (default: the working tree)")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--limit", type=int, default=0, help="only the first N dialogues, in file order")
    args = ap.parse_args()
    from parley.engine.systems.mw.dst_eval import iter_turns, load_multiwoz

    dialogues = list(load_multiwoz(args.data).values())
    dialogues = dialogues[: args.limit] if args.limit else dialogues
    with tempfile.TemporaryDirectory() as tmp:
        old, new = spans_module(args.old, Path(tmp)), spans_module(args.new, Path(tmp))
    turns = differ = new_times = 0
    for dia in dialogues:
        for _, user, _, _ in iter_turns(dia):
            turns += 1
            a = {(s.start, s.end, s.slot, s.value) for s in old.find_spans(user)}
            b = {(s.start, s.end, s.slot, s.value) for s in new.find_spans(user)}
            differ += a != b
            new_times += any(s[2] in TIMES and s not in a for s in b)
    print(f"{len(dialogues)} dialogues, {turns} user turns: span sets differ in {differ}; "
          f"a time span only the new find_spans protects in {new_times}")


if __name__ == "__main__":
    main()
