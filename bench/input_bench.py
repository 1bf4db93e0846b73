"""Input benchmark: keys per second the chat takes from a terminal without losing or misrouting one.

Run: .venv/bin/python bench/input_bench.py [--sizes 10,100,1000] [--loads idle,busy] [--repeats 3]
                                           [--out bench/results/input.md]

``parley --system echo`` runs in a pseudo-terminal, as a tester's terminal runs it. For each burst size the
benchmark writes that many keys in one ``write`` — turns of text, each ended by Enter — which is the fastest a
terminal can deliver them (a paste, tmux send-keys, a fast typist on a loaded machine), then waits until every
turn is stored and compares what the database holds with what was sent: the turns in order, every character.
Two more rows per load: the same keys written one at a time 5 ms apart (200 keys/s, faster than anyone types),
and a rating burst — escape, then ``2 3`` and text in one write — where the rating must land on the selected
turn and every following key in the turns. ``busy`` runs the same with one spinning process per core beside
the chat (``tests.load.cpu_load``). Keys per second: keys sent / (time from the write to the last turn
stored).
The load average (1 min) is read before and after each row. Goal: nothing lost or misrouted at any rate.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.test_tui_process import Tui, tui_in_pty, wait_for  # noqa: E402
from tests.load import cpu_load  # noqa: E402

WORDS = ("find", "me", "a", "cheap", "place", "to", "eat", "in", "the", "north", "for", "two", "people", "at",
         "seven", "tonight", "please")


@dataclass
class Row:
    what: str
    keys: int
    seconds: float
    lost: int  # keys sent and not stored as sent (see compare)
    wrong: int  # turns stored differently from how they were sent (merged, split, reordered, changed)
    rated: str  # "" or whether the rating landed where it was meant
    load: str


def turns_of(size: int, tag: str) -> list[str]:
    """Turns whose characters and Enters add up to exactly ``size`` keys, each unique (tag + number)."""
    turns: list[str] = []
    left = size
    n = 0
    while left > 0:
        body = f"{tag}{n}"
        i = n
        while len(body) < 19 and len(body) < left - 1:
            body += " " + WORDS[i % len(WORDS)]
            i += 1
        body = body[: max(1, left - 1)]
        body = body[:-1] + "s" if body.endswith(" ") else body  # the prompt strips a turn's outer spaces
        turns.append(body)
        left -= len(body) + 1
        n += 1
    return turns


def stored(db: Path, sql: str) -> list[tuple[object, ...]]:
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # the tables are not created yet
        return []
    finally:
        conn.close()


def user_texts(db: Path) -> list[str]:
    return [str(t) for (t,) in stored(db, "SELECT text FROM turns WHERE role = 'user' ORDER BY \"index\"")]


def answered(db: Path) -> int:
    return len(stored(db, "SELECT id FROM turns WHERE role = 'system' AND status = 'ok'"))


def soon(condition: Callable[[], bool], seconds: float = 120) -> bool:
    """``wait_for`` polling every 2 ms (its 0.1 s step would be most of a short burst's time)."""
    deadline = time.perf_counter() + seconds
    while not condition():
        if time.perf_counter() > deadline:
            return False
        time.sleep(0.002)
    return True


def load_now() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def send_turns(tui: Tui, db: Path, turns: list[str], gap: float = 0.0) -> tuple[float, int, int]:
    """Send ``turns`` (one write, or a key per ``gap`` seconds): seconds until all are stored, lost, wrong."""
    before = user_texts(db)
    data = "".join(t + "\r" for t in turns).encode()
    t0 = time.perf_counter()
    if gap:
        for i in range(len(data)):
            tui.press(data[i:i + 1])
            time.sleep(gap)
    else:
        tui.press(data)
    done = soon(lambda: len(user_texts(db)) >= len(before) + len(turns))
    seconds = time.perf_counter() - t0
    new = user_texts(db)[len(before):]
    wait_for(lambda: answered(db) == len(before) + len(new), 120)  # the next row starts on a quiet chat
    return (seconds if done else float("nan")), *compare(turns, new)


def compare(sent: list[str], got: list[str]) -> tuple[int, int]:
    """Keys of the turns sent that are not stored as a turn of their own (lost, or merged into another), and
    turns stored differently from how they were sent, position by position (merged, split, reordered,
    changed, missing or extra)."""
    lost = sum(len(t) + 1 for t in sent if t not in got)  # + 1: its enter
    return lost, sum(a != b for a, b in zip(sent, got, strict=False)) + abs(len(sent) - len(got))


def rate_then_type(tui: Tui, db: Path, size: int, tag: str) -> tuple[float, int, int, str]:
    """escape (alone: a lone ESC is a key only when nothing follows at once), then ``2 3`` and text. The
    rating must be one new rating, (2, 3), of one system turn (the latest shown); no other rating changes."""
    ratings_sql = "SELECT turn_id, relevance, interestingness FROM turn_ratings ORDER BY turn_id"
    rated_before = stored(db, ratings_sql)
    mark = len(tui.screen)
    tui.press(b"\x1b")
    wait_for(lambda: tui.screen.find(b"Somewhat", mark) >= 0, 60)
    turns = turns_of(size - 2, tag)
    before = user_texts(db)
    t0 = time.perf_counter()
    tui.press(b"23" + "".join(t + "\r" for t in turns).encode())
    done = soon(lambda: len(user_texts(db)) >= len(before) + len(turns))
    seconds = time.perf_counter() - t0
    wait_for(lambda: answered(db) == len(before) + len(turns), 120)
    new = user_texts(db)[len(before):]

    def added() -> list[tuple[object, ...]]:
        return [r[1:] for r in stored(db, ratings_sql) if r not in rated_before]

    wait_for(lambda: added() == [(2, 3)], 60)  # written by a worker of its own, maybe after the turns
    kept = all(r in stored(db, ratings_sql) for r in rated_before)
    rated = "yes" if added() == [(2, 3)] and kept else f"no: {added()}, earlier ones kept: {kept}"
    return (seconds if done else float("nan")), *compare(turns, new), rated


def run_load(kind: str, sizes: list[int], repeats: int) -> list[Row]:
    rows: list[Row] = []
    with cpu_load(kind), tempfile.TemporaryDirectory(prefix="parley-input-") as tmp:
        home, db = Path(tmp), Path(tmp) / "t.db"
        with tui_in_pty(db, home, "echo") as tui:
            if not tui.shown(b"ype to the system", 120):
                raise SystemExit("the chat did not start")
            tui.press(b"ready\r")
            if not wait_for(lambda: db.exists() and answered(db) == 1, 120):
                raise SystemExit("the chat did not answer")
            for size in sizes:
                for r in range(repeats):
                    start = load_now()
                    s, lost, wrong = send_turns(tui, db, turns_of(size, f"b{size}r{r}t"))
                    rows.append(Row(f"burst of {size:,} keys (one write)", size, s, lost, wrong, "",
                                    f"{start}-{load_now()}"))
            start = load_now()
            s, lost, wrong = send_turns(tui, db, turns_of(100, "paced"), gap=0.005)
            rows.append(Row("100 keys, one write each, 5 ms sleep between (keys/s: as fast as sent)",
                            100, s, lost, wrong, "", f"{start}-{load_now()}"))
            start = load_now()
            s, lost, wrong, rated = rate_then_type(tui, db, 100, "rated")
            rows.append(Row("escape, then 2 3 + 98 keys of turns (one write)", 100, s, lost, wrong, rated,
                            f"{start}-{load_now()}"))
            tui.press(b"\x11")
            with contextlib.suppress(subprocess.TimeoutExpired):
                tui.proc.wait(60)
    return rows


def table(rows_by_load: dict[str, list[Row]]) -> str:
    """One line per CPU load and kind of input: keys/s as the median (slowest-fastest) of the repeats."""
    out = ["| CPU | what | keys | runs | keys/s, median (slowest-fastest) | keys lost or misrouted "
           "| turns wrong | rating landed | load avg (1 min) during |", "|---" * 9 + "|"]
    for kind, rows in rows_by_load.items():
        for what in dict.fromkeys(r.what for r in rows):
            same = [r for r in rows if r.what == what]
            rates = sorted(r.keys / r.seconds for r in same if r.seconds == r.seconds)  # NaN: turns missing
            rate = (f"{statistics.median(rates):,.0f} ({rates[0]:,.0f}-{rates[-1]:,.0f})" if rates else "—")
            if len(same) - len(rates):
                rate += f"; {len(same) - len(rates)} run(s) never complete"
            loads = [float(x) for r in same for x in r.load.split("-")]
            rated = ", ".join(r.rated for r in same if r.rated) or "—"
            out.append(f"| {kind} | {what} | {same[0].keys:,} | {len(same)} | {rate} | "
                       f"{sum(r.lost for r in same)} | {sum(r.wrong for r in same)} | "
                       f"{rated} | {min(loads):.1f}-{max(loads):.1f} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100,1000")
    ap.add_argument("--loads", default="idle,busy")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, help="write the markdown table here as well")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = {kind: run_load(kind, sizes, args.repeats) for kind in args.loads.split(",")}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    head = (f"Command: `.venv/bin/python bench/input_bench.py {' '.join(sys.argv[1:])}`. Commit {commit}, "
            f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {platform.machine()} {os.cpu_count()} cores, "
            f"Python {platform.python_version()}.")
    text = head + "\n\n" + table(rows) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
