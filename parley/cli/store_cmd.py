"""``parley sessions`` and ``parley export``: read the store, never the engine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, cast

import click

from parley.cli.common import OutputPath, db_option, open_db, refuse_database
from parley.cli.options import number
from parley.display import json_text
from parley.errors import ParleyError

_NO_DB = "hold a session first, or pass --db"


@click.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per session instead of a table.")
@number("--limit", kind=int, ge=1, le=2**63 - 1, unit="sessions", clamp=True, default=None,
        help="Show at most N sessions.")  # SQLite's LIMIT is a 64-bit integer
def sessions(db_path: str | None, as_json: bool, limit: int | None) -> None:
    """List the sessions in the database: id, start, mode, system, condition, turns, ratings."""
    from parley.display import literal
    from parley.store.selection import shown_condition, turn_conditions

    store = open_db(db_path, must_exist=True, hint=_NO_DB)
    rows = []
    counts = {r[0]: r[1] for r in store.db.execute(
        "SELECT session_id, count(*) FROM turns GROUP BY session_id").fetchall()}
    rated = {r[0]: r[1] for r in store.db.execute(
        "SELECT session_id, count(*) FROM dialogue_ratings GROUP BY session_id").fetchall()}
    used = turn_conditions(store)
    for s in store.sessions(limit=limit):
        cond = s.condition.get("name") if isinstance(s.condition, dict) else None
        rows.append({"id": s.id, "started_at": s.started_at, "ended_at": s.ended_at, "mode": s.mode,
                     "tester": s.tester, "system": s.system_name,
                     "condition": shown_condition(str(cond or "original"), used.get(s.id)),
                     "conditions_used": used.get(s.id, []),
                     "turns": counts.get(s.id, 0), "dialogue_ratings": rated.get(s.id, 0)})
    if as_json:
        for r in rows:
            click.echo(json_text(r))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=literal(f"{len(rows)} session(s) in {store.path}"))
    for col in ("id", "started", "mode", "tester", "system", "condition", "turns", "rated"):
        table.add_column(col, overflow="fold")
    short = unique_prefixes([str(r[0]) for r in store.db.execute("SELECT id FROM sessions").fetchall()])
    for r in rows:
        cells = (short.get(r["id"], r["id"]), str(r["started_at"])[:19].replace("T", " "), r["mode"],
                 r["tester"], r["system"], r["condition"], r["turns"], r["dialogue_ratings"])
        table.add_row(*(literal(c, one_line=True) for c in cells))
    Console().print(table)


def unique_prefixes(ids: list[str], shortest: int = 8) -> dict[str, str]:
    """Each id's shortest prefix (at least ``shortest`` characters) that no other id starts with — what
    ``parley sessions`` shows and what ``--session`` accepts — so imported ids that share a prefix stay
    apart."""
    from os.path import commonprefix

    order = sorted(set(ids))
    out = {}
    for i, sid in enumerate(order):
        near = [order[j] for j in (i - 1, i + 1) if 0 <= j < len(order)]
        n = max([len(commonprefix([sid, o])) + 1 for o in near] + [shortest])
        out[sid] = sid[:n]
    return out


class _Shown:
    """A text stream that writes JSON with DEL, C1 controls and bidirectional overrides escaped
    (:func:`parley.display.json_controls`): each line decodes to the same value, and a terminal shows it."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh

    def write(self, text: str) -> int:
        from parley.display import json_controls

        return int(self.fh.write(json_controls(text)))


@click.command()
@db_option
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), required=True,
              help="jsonl: one session per line; csv: one file per table in the --out folder.")
@click.option("--out", "out", type=OutputPath("any"), required=True,
              help="Output file (jsonl; - writes to stdout) or folder (csv).")
@click.option("--force", is_flag=True,
              help="Replace an existing output file (csv: the table files in the folder).")
@click.option("--raw-csv", "raw_csv", is_flag=True,
              help="csv: write text exactly as stored, without the spreadsheet guard (no ' before =, +, "
                   "-, @; control characters kept).")
def export(db_path: str | None, fmt: str, out: str, force: bool, raw_csv: bool) -> None:
    """Export every session with its turns and ratings (the same exporter the TUI uses).

    An existing --out is refused unless --force. The export is written beside the target and renamed into
    place once complete, so a failure (disk full, no permission) leaves nothing half-written and the old file
    as it was.
    """
    from parley.store.export import TABLES, write_jsonl
    from parley.store.export import export as do_export

    out_path = Path(out)
    if raw_csv and fmt != "csv":
        raise ParleyError("--raw-csv goes with --format csv (jsonl escapes control characters itself)")
    if out == "-" and fmt == "csv":
        raise ParleyError("csv writes one file per table: give --out a folder (only jsonl writes to stdout)")
    if out == "-" and fmt == "jsonl":  # C1 controls and bidi overrides escaped: the same JSON, safe to show
        n = write_jsonl(open_db(db_path, must_exist=True, hint=_NO_DB), cast(IO[str], _Shown(sys.stdout)))
        click.echo(f"wrote {n} session(s) to stdout", err=True)
        return
    refuse_database(db_path, out_path, *(out_path / f"{t}.csv" for t in TABLES if fmt == "csv"))
    if fmt == "jsonl" and out_path.is_dir():
        raise ParleyError(f"{out_path} is a folder; jsonl needs a file path")
    if fmt == "jsonl" and out_path.exists() and not force:
        raise ParleyError(f"{out_path} already exists (pass --force to replace it)")
    store = open_db(db_path, must_exist=True, hint=_NO_DB)
    result = do_export(store, fmt, out_path, overwrite=force, raw_csv=raw_csv)
    if isinstance(result, int):  # jsonl: sessions written; csv: rows per table
        click.echo(f"wrote {result} session(s) to {out_path}", err=True)
    else:
        click.echo(f"wrote {', '.join(f'{t}: {n}' for t, n in result.items())} to {out_path}/", err=True)
