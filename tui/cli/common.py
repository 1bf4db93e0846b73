"""Helpers shared by the CLI modules: database resolution and one-line errors (exit code 2)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one clear error line to stderr and exit."""
    click.echo(f"parley: error: {message}", err=True)
    sys.exit(code)


def resolve_db(db_path: str | None) -> Path:
    from engine.locations import database_path

    return Path(db_path) if db_path else database_path()


def db_option(f):  # type: ignore[no-untyped-def]
    return click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
                        help="SQLite database (default: PARLEY_DB or the user data dir).")(f)
