"""Helpers shared by the CLI modules: database resolution and one-line errors (exit code 2)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one clear error line to stderr and exit."""
    click.echo(f"parley: error: {message}", err=True)
    sys.exit(code)


def resolve_db(db_path: str | None) -> Path:
    from parley.engine.locations import database_path

    return Path(db_path) if db_path else database_path()


def load_system(spec: str) -> Any:
    """Build a system from its spec and load it (progress on stderr); a bad spec or load ends with one line."""
    from parley.engine.spec import SpecError
    from parley.engine.systems import build_system
    from parley.engine.types import LoadError

    try:
        system = build_system(spec)
        if hasattr(system, "load"):
            system.load(progress=lambda msg: click.echo(msg, err=True))
    except (SpecError, LoadError) as e:
        fail(str(e))
    return system


def open_db(db_path: str | None) -> Any:
    """Open (creating if needed) the database; an unusable file ends with one line and exit 2."""
    from parley.store import StoreError, open_store

    try:
        return open_store(resolve_db(db_path))
    except StoreError as e:
        fail(str(e))


def db_option(f):  # type: ignore[no-untyped-def]
    return click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
                        help="SQLite database (default: PARLEY_DB or the user data dir).")(f)


#: systems that load code and weights from a checkpoint and so honour --trust-remote-code
TRUSTING_SYSTEMS = ("hf-seq2seq", "hf-causal", "llm")


def with_trust(spec: str, trust: bool) -> str:
    """Add ``trust_remote_code=true`` to a checkpoint system's spec when ``--trust-remote-code`` was given."""
    if not trust:
        return spec
    from parley.engine.spec import Spec, parse_spec

    s = parse_spec(spec)
    if s.name not in TRUSTING_SYSTEMS:
        fail(f"--trust-remote-code applies to {', '.join(TRUSTING_SYSTEMS)}, not {s.name!r}")
    return str(Spec(s.name, {**s.params, "trust_remote_code": True}))


def trust_option(f):  # type: ignore[no-untyped-def]
    return click.option("--trust-remote-code", "trust_remote_code", is_flag=True,
                        help="Let a Hugging Face checkpoint run its own Python code (off by default; only for "
                             "models you trust).")(f)
