"""Helpers shared by the CLI modules: the database, systems, output paths and the options many commands take.

Nothing here catches errors: a ``ParleyError`` (a bad database, spec, model or file) travels up to
``parley.cli.main``, which prints it as one line with exit code 2.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from parley.errors import ParleyError

if TYPE_CHECKING:
    from parley.engine.registry import Entry
    from parley.engine.types import DialogueSystem
    from parley.store import Store

#: a command function, as the option decorators hand it on
CommandFn = TypeVar("CommandFn", bound=Callable[..., object])


class Interrupted(Exception):
    """ctrl+c (or SIGTERM, SIGHUP), with what a command wants to say about it (what was stored), starting
    "interrupted": ``parley: MESSAGE`` on stderr (the word naming the signal), exit code 130 (143, 129) — the
    shell's code for the signal, as for a bare KeyboardInterrupt in any command."""


def resolve_db(db_path: str | None) -> Path:
    """``--db`` or the default location; an empty ``--db`` (an unset shell variable) is refused rather than
    read as "the default database"."""
    from parley.engine.locations import database_path

    if db_path is not None and not db_path.strip():
        raise ParleyError("--db is empty: give a database path (or leave --db out for the default one)")
    return Path(db_path) if db_path else database_path()


def db_given(db_path: str | None) -> bool:
    """Whether the database is a path the user gave (``--db`` or ``PARLEY_DB``), not parley's default one."""
    return bool(db_path) or bool(os.environ.get("PARLEY_DB", "").strip())


def open_db(db_path: str | None, *, must_exist: bool = False, readonly: bool = False,
            hint: str = "") -> Store:
    """The database at ``--db`` (or the default one), created unless ``must_exist``; raises StoreError (also
    for a ``readonly`` open of a database that lacks migrations). The default location makes its own folder;
    a ``--db`` or ``PARLEY_DB`` in a folder that does not exist is refused (a mistyped path is named, never
    created), and so is an empty file given to a command that only reads (it would become a database)."""
    from parley.store import StoreError, open_store

    path = resolve_db(db_path)
    if (must_exist or readonly) and not path.exists():
        raise StoreError(f"{path}: no such database" + (f" ({hint})" if hint else ""))
    if (must_exist or readonly) and path.is_file() and path.stat().st_size == 0:
        raise StoreError(f"{path} is an empty file, not a parley database" + (f" ({hint})" if hint else ""))
    store = open_store(path, readonly=readonly, make_folder=not db_given(db_path))
    if readonly:
        store.require_current()
    return store


def check_trust(system: str) -> None:
    """``--trust-remote-code`` only makes sense for a system that loads checkpoint code."""
    from parley.engine.params import params_of
    from parley.engine.spec import SpecError
    from parley.engine.systems import SYSTEMS

    try:
        cls = SYSTEMS.get(system).load()
    except KeyError as e:
        raise SpecError(str(e.args[0])) from None
    if "trust_remote_code" not in params_of(cls).model_fields:
        raise SpecError(f"--trust-remote-code applies to checkpoint systems, not {system!r}")


def load_system(spec: str, trust_remote_code: bool = False) -> DialogueSystem:
    """Build a system from its spec and load it (progress on stderr)."""
    from parley.engine.systems import build_system

    system = build_system(spec, trust_remote_code=trust_remote_code)
    system.load(progress=lambda msg: click.echo(msg, err=True))
    return system


def input_name(what: str, path: str) -> str:
    """How an input given on the command line is named in a message: "script x.txt", "script (stdin)"."""
    return f"{what} {path}" if path != "-" else f"{what} (stdin)" if what != "standard input" else what


def read_lines(path: str, what: str = "file") -> list[str]:
    """The lines of a UTF-8 text file (``-``: stdin), without their line endings (only \\n and \\r\\n end a
    line), read within the line budgets (:func:`parley.limits.lines`); failures are one line."""
    return list(iter_lines(path, what))


def iter_lines(path: str, what: str = "file") -> Iterator[str]:
    """:func:`read_lines` one line at a time (``parley rewrite`` answers each line as it comes)."""
    import sys

    from parley.limits import lines

    name = input_name(what, path)
    try:
        if path == "-":
            yield from lines(sys.stdin.buffer, name)
            return
        with Path(path).open("rb") as fh:
            yield from lines(fh, name)
    except OSError as e:
        raise ParleyError(f"cannot read {name}: {e.strerror or e}") from None


class OutputPath(click.Path):
    """A path the command will write, checked before any work is done: its folder must exist and be writable
    (otherwise a one-line ParleyError, exit 2).

    ``kind`` is "file" (``-`` allowed, an existing path must be a regular file), "folder", or "any". Whether
    an existing file is replaced is the command's business.
    """

    def __init__(self, kind: str = "file") -> None:
        super().__init__(dir_okay=kind != "file", file_okay=kind != "folder", allow_dash=kind == "file")
        self.kind = kind

    def convert(self, value: str | os.PathLike[str], param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        value = str(super().convert(value, param, ctx))
        if value == "-":
            return value
        path = Path(value)
        parent = path.parent
        opt = f"{param.opts[0]} " if param is not None and param.opts else ""
        if not parent.is_dir():
            raise ParleyError(f"cannot write {opt}{value}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ParleyError(f"cannot write {opt}{value}: folder {parent} is not writable")
        if self.kind == "file" and path.exists() and not path.is_file():
            raise ParleyError(f"cannot write {opt}{value}: it exists and is not a regular file")
        return value


def refuse_existing(*paths: str | Path | None, force: bool = False) -> None:
    """Nothing a user had is replaced silently: an output file that already exists is refused (one line,
    exit 2) unless ``--force``. Call it before any work is done."""
    if force:
        return
    for p in paths:
        if p is not None and p != "-" and Path(p).exists():
            raise ParleyError(f"{p} already exists (pass --force to replace it)")


def refuse_database(db_path: str | None, *outs: str | Path | None) -> None:
    """An output path is never the database the command reads (``export --out study.db --db study.db --force``
    replaced the database with its own export): refused in one line, even with ``--force``."""
    try:
        db = resolve_db(db_path).resolve()
    except OSError:
        return
    mine = {db, *(db.with_name(db.name + s) for s in ("-wal", "-shm", "-journal"))}
    for out in outs:
        if out is not None and out != "-" and Path(out).resolve() in mine:
            raise ParleyError(f"{out} is the database itself ({db}); give another output path")


def refuse_nonempty_dir(path: str) -> None:
    """A model folder is written only into a new or empty folder: one already holding files is refused."""
    if Path(path).exists() and any(Path(path).iterdir()):
        raise ParleyError(f"{path} exists and is not empty; give a new folder")


def force_option(f: CommandFn) -> CommandFn:
    return click.option("--force", is_flag=True, help="Replace output files that already exist.")(f)




class Name(click.ParamType):
    """A tester or rater name (``many``: a comma-separated list of them), refused in one line when it holds
    control characters: the rule of the TUI's name prompt (:func:`parley.store.records.clean_name`)."""

    name = "name"

    def __init__(self, many: bool = False) -> None:
        self.many = many

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from parley.store.records import NAME_RULE, clean_name

        if not isinstance(value, str):
            self.fail(f"must be text, got {value!r}", param, ctx)

        parts = value.split(",") if self.many else [value]
        if not all(clean_name(p.strip()) for p in parts):
            self.fail(f"{NAME_RULE} (tab, newline, escape, bidirectional overrides…)", param, ctx)
        return value


def db_option(f: CommandFn) -> CommandFn:
    return click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
                        help="SQLite database (default: PARLEY_DB or the user data dir).")(f)


def trust_option(f: CommandFn) -> CommandFn:
    return click.option("--trust-remote-code", "trust_remote_code", is_flag=True,
                        help="Let the Hugging Face checkpoint named by --system run its own Python code "
                             "(off by default; only for models you trust).")(f)


def param_lines(entry: Entry, indent: int) -> list[str]:
    """A registered system's or rewriter's parameters, one line each (``name=default {choices} [lo..hi]:
    help``), read from its parameter model; one line saying why when it cannot be loaded (a missing extra)."""
    from parley.engine.params import params_of
    from parley.engine.spec import spec_value

    pad = " " * indent
    try:
        listing = params_of(entry.load()).listing()
    except Exception as e:  # e.g. a system or rewriter whose extra is not installed
        return [f"{pad}(unavailable: {e})"]
    lines = []
    for p in listing:
        rng = f" [{p.lo:g}..{p.hi:g}]" if p.lo is not None and p.hi is not None and p.kind != "choice" else ""
        choices = f" {{{'|'.join(map(str, p.choices))}}}" if p.choices else ""
        default = "none" if p.default is None else spec_value(p.default)
        lines.append(f"{pad}{p.name}={default}{choices}{rng}: {p.help}")
    return lines
