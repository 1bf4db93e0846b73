"""``parley sessions`` and ``parley export``: read the store, never the engine."""

from __future__ import annotations

import json
from pathlib import Path

import click

from parley.cli.common import db_option, fail, resolve_db


def open_existing(db_path: str | None):  # type: ignore[no-untyped-def]
    """Open a database that must exist; bad files end the command with one line and exit 2."""
    from parley.store import StoreError, open_store

    path = resolve_db(db_path)
    if not path.exists():
        fail(f"no database at {path} (hold a session first, or pass --db)")
    try:
        return open_store(path)
    except StoreError as e:
        fail(str(e))


@click.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per session instead of a table.")
@click.option("--limit", type=int, default=None, help="Show at most N sessions.")
def sessions(db_path: str | None, as_json: bool, limit: int | None) -> None:
    """List the sessions in the database: id, start, mode, system, condition, turns, ratings."""
    store = open_existing(db_path)
    rows = []
    counts = {r[0]: r[1] for r in store.db.execute(
        "SELECT session_id, count(*) FROM turns GROUP BY session_id").fetchall()}
    rated = {r[0]: r[1] for r in store.db.execute(
        "SELECT session_id, count(*) FROM dialogue_ratings GROUP BY session_id").fetchall()}
    for s in store.sessions(limit=limit):
        cond = s.condition.get("name") if isinstance(s.condition, dict) else None
        rows.append({"id": s.id, "started_at": s.started_at, "ended_at": s.ended_at, "mode": s.mode,
                     "tester": s.tester, "system": s.system_name, "condition": cond or "original",
                     "turns": counts.get(s.id, 0), "dialogue_ratings": rated.get(s.id, 0)})
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(rows)} session(s) in {store.path}")
    for col in ("id", "started", "mode", "tester", "system", "condition", "turns", "rated"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["id"][:8], r["started_at"][:19].replace("T", " "), r["mode"], r["tester"], r["system"],
                      r["condition"], str(r["turns"]), str(r["dialogue_ratings"]))
    Console().print(table)


@click.command()
@db_option
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), required=True,
              help="jsonl: one session per line; csv: one file per table in the --out folder.")
@click.option("--out", "out", type=click.Path(), required=True, help="Output file (jsonl) or folder (csv).")
def export(db_path: str | None, fmt: str, out: str) -> None:
    """Export every session with its turns and ratings (the same exporter the TUI uses)."""
    from parley.store.export import export as do_export

    store = open_existing(db_path)
    out_path = Path(out)
    if fmt == "csv" and out_path.exists() and not out_path.is_dir():
        fail(f"{out_path} exists and is not a folder (csv writes one file per table)")
    if fmt == "jsonl" and out_path.is_dir():
        fail(f"{out_path} is a folder; jsonl needs a file path")
    result = do_export(store, fmt, out_path)
    if fmt == "jsonl":
        click.echo(f"wrote {result} session(s) to {out_path}", err=True)
    else:
        click.echo(f"wrote {', '.join(f'{t}: {n}' for t, n in result.items())} to {out_path}/", err=True)
