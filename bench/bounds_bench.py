"""Peak memory of `parley import` and `parley run` against the size of the corpus, and where the budgets stop
a file that is too big.

- `parley import F --format multiwoz` on synthetic MultiWOZ corpora of about 10 MB and 100 MB (JSON);
- `parley run --system echo --dialogues F` on the same files, every dialogue replayed and stored
  (``--run-limit N``: only the first N);
- a zip holding a 1 GiB member: a corpus of about 1.3 million dialogues (refused at once by its declared size
  with the default budget; with PARLEY_MAX_INPUT_MB=2000, `run --limit 1000` streams its first dialogues) and
  a bomb (one dialogue with one 1 GiB turn: refused at once; with the input budget raised, read as a stream
  and stopped by the record budget).

Peak memory is the child's own ``ru_maxrss`` (``os.wait4``). ``--repo DIR`` runs another checkout's code (a
copy of main) with the same corpora, for a before/after table.

Run: .venv/bin/python bench/bounds_bench.py [--sizes 10,100] [--gib] [--run-limit N] [--no-import]
     [--no-run] [--repo DIR] [--out FILE]
Corpora are synthetic (tests/corpora.py), written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.corpora import dialogue, write_corpus  # noqa: E402

PER_DIALOGUE = 795  # bytes a synthetic dialogue of 3 turns takes in the JSON file


def parley(args: list[str], repo: Path, env: dict[str, str] | None = None) -> tuple[int, float, float, str]:
    """``(exit code, peak RSS MB, seconds, last stderr line)`` of ``python -m parley ARGS`` in ``repo``."""
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([sys.executable, "-m", "parley", *args], cwd=repo, stdout=null,
                             stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
        assert p.stderr is not None
        err = p.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(p.pid, 0)
    last = err.strip().splitlines()[-1] if err.strip() else ""
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, time.perf_counter() - t0, last


def zip_corpus(path: Path, n: int) -> Path:
    """``n`` synthetic dialogues as the one member ``data.json`` of a zip, written as a stream."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z, \
            z.open("data.json", "w", force_zip64=True) as fh:
        fh.write(b"{")
        for k in range(n):
            fh.write(((",\n" if k else "\n") + f'"SYN{k:07d}.json": ' + json.dumps(dialogue(k, 3))).encode())
        fh.write(b"\n}\n")
    return path


def zip_bomb(path: Path) -> Path:
    chunk = b"a" * (1 << 24)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z, \
            z.open("data.json", "w", force_zip64=True) as fh:
        fh.write(b'{"SNG0001.json": {"goal": {}, "log": [{"text": "')
        for _ in range(64):
            fh.write(chunk)
        fh.write(b'", "metadata": {}}]}}')
    return path


def row(what: str, size: str, cmd: str, result: tuple[int, float, float, str], goal: str, met: bool) -> str:
    code, rss, secs, last = result
    said = last.replace("|", "\\|")[:150]
    return (f"| {what} | {size} | `{cmd}` | {code} | {rss:,.0f} | {secs:,.1f} | {goal} — "
            f"{'met' if met else 'NOT met'} | {said} |")


def within(result: tuple[int, float, float, str], file_mb: float, base_mb: float) -> bool:
    """Exit 0 and peak memory at most twice the file over the baseline of a tiny import."""
    return result[0] == 0 and result[1] - base_mb <= 2 * file_mb


def refused(result: tuple[int, float, float, str], says: str, peak_mb: float) -> bool:
    """Exit 2, one line naming the limit (``says``), at most ``peak_mb`` of memory."""
    code, rss, _, last = result
    return code == 2 and last.startswith("parley: error: ") and says in last and rss <= peak_mb


def context(repo: Path) -> list[str]:
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    load = os.getloadavg()
    return [f"commit {commit or '?'} ({repo}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{os.cpu_count()}-core {os.uname().machine}, load at start {load[0]:.1f} / {load[1]:.1f} / "
            f"{load[2]:.1f}", ""]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,100", help="corpus sizes in MB")
    ap.add_argument("--gib", action="store_true", help="also the 1 GiB zip members")
    ap.add_argument("--repo", type=Path, default=ROOT, help="the checkout whose parley runs")
    ap.add_argument("--run-limit", type=int, default=0, help="replay only the first N dialogues (0: all)")
    ap.add_argument("--no-import", action="store_true", help="only the run rows")
    ap.add_argument("--no-run", action="store_true", help="only the import rows")
    ap.add_argument("--no-bootstrap", action="store_true",
                    help="run rows with --bootstrap 0 (no confidence intervals: the replay alone)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    rows = [*context(args.repo),
            "| what | file | command | exit | peak RSS MB | s | goal | last line on stderr |",
            "|---|---|---|---|---|---|---|---|"]
    two_x = "≤ 2× file over baseline"
    with tempfile.TemporaryDirectory(prefix="parley-bounds-") as tmp:
        t = Path(tmp)
        small = write_corpus(t / "tiny.json", 20)
        base = parley(["import", str(small), "--format", "multiwoz", "--db", str(t / "b.db")], args.repo)
        rows.append(row("import, 20 dialogues (baseline)", "16 KB", "import F --format multiwoz", base,
                        "(baseline)", base[0] == 0))
        boot = ["--bootstrap", "0"] if args.no_bootstrap else []
        run_cmd = " ".join(["run --system echo --dialogues F", *boot])
        run_base = parley(["run", "--system", "echo", "--dialogues", str(small), *boot, "--db",
                           str(t / "rb.db")], args.repo)
        rows.append(row("run, 20 dialogues (baseline)", "16 KB", run_cmd, run_base, "(baseline)",
                        run_base[0] == 0))
        for mb in (int(s) for s in args.sizes.split(",") if s):
            corpus = write_corpus(t / f"c{mb}.json", mb * 1_000_000 // PER_DIALOGUE)
            file_mb = corpus.stat().st_size / 1e6
            size = f"{file_mb:.1f} MB JSON"
            if not args.no_import:
                r = parley(["import", str(corpus), "--format", "multiwoz", "--db", str(t / f"i{mb}.db")],
                           args.repo)
                rows.append(row(f"import, {mb} MB corpus", size, "import F --format multiwoz", r, two_x,
                                within(r, file_mb, base[1])))
            if not args.no_run:
                limit = ["--limit", str(args.run_limit)] if args.run_limit else []
                shown = " ".join([run_cmd, *limit])
                r = parley(["run", "--system", "echo", "--dialogues", str(corpus), *limit, *boot,
                            "--db", str(t / f"r{mb}.db")], args.repo)
                rows.append(row(f"run, {mb} MB corpus", size, shown, r, two_x,
                                within(r, file_mb, run_base[1])))
            corpus.unlink()
            for db in t.glob("[ir]*.db*"):
                db.unlink()
        if args.gib:
            big = zip_corpus(t / "big.json.zip", (1 << 30) // PER_DIALOGUE)
            with zipfile.ZipFile(big) as z:
                member = z.getinfo("data.json").file_size
            size = f"{big.stat().st_size / 1e6:.0f} MB zip, member {member / 1e9:.2f} GB"
            said = "over the input limit of 512 MB"
            r = parley(["import", str(big), "--format", "multiwoz", "--db", str(t / "g.db")], args.repo)
            rows.append(row("import, 1 GiB member", size, "import F --format multiwoz", r,
                            "refused by its declared size, ≤ 300 MB", refused(r, said, 300)))
            r = parley(["run", "--system", "echo", "--dialogues", str(big), "--db", str(t / "gr.db")],
                       args.repo)
            rows.append(row("run, 1 GiB member", size, "run --system echo --dialogues F", r,
                            "refused by its declared size, ≤ 300 MB", refused(r, said, 300)))
            r = parley(["run", "--system", "echo", "--dialogues", str(big), "--limit", "1000",
                        "--db", str(t / "gs.db")], args.repo, {"PARLEY_MAX_INPUT_MB": "2000"})
            rows.append(row("run, 1 GiB member, PARLEY_MAX_INPUT_MB=2000", size,
                            "run --system echo --dialogues F --limit 1000", r, "streamed: ≤ 300 MB",
                            r[0] == 0 and r[1] <= 300))
            big.unlink()
            bomb = zip_bomb(t / "bomb.json.zip")
            size = f"{bomb.stat().st_size / 1e6:.1f} MB zip, one 1.07 GB turn"
            r = parley(["import", str(bomb), "--format", "multiwoz", "--db", str(t / "z.db")], args.repo)
            rows.append(row("import, zip bomb", size, "import F --format multiwoz", r,
                            "refused by its declared size, ≤ 300 MB", refused(r, said, 300)))
            r = parley(["import", str(bomb), "--format", "multiwoz", "--db", str(t / "z2.db")], args.repo,
                       {"PARLEY_MAX_INPUT_MB": "2000"})
            rows.append(row("import, zip bomb, PARLEY_MAX_INPUT_MB=2000", size, "import F --format multiwoz",
                            r, "streamed, stopped by the record limit, ≤ 300 MB",
                            refused(r, "over the record limit of 64 MB", 300)))
    text = "\n".join(rows)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
