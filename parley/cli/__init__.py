"""``parley`` command line: a thin layer over library calls.

Subcommands live one group per module and are imported only when used (or listed by ``--help``), so every
module here must keep heavy imports (torch, transformers, textual, audio) inside the command function.

Errors are handled once, here: a :class:`~parley.errors.ParleyError` raised anywhere in a command ends it with
one line ``parley: error: …`` on stderr and exit code 2, and so does a click usage error (a bad option or
value, with the ``--help`` to read). ctrl+c ends any command with one line and exit code 130 (click's own
"Aborted!" exited 1); SIGTERM and SIGHUP end it the same way, with 143 and 129 (:mod:`parley.signals`).
Any other exception is a bug and keeps its traceback. Options given
before the command (``parley --db X sessions``) reach it.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
from collections.abc import Mapping
from typing import IO

import click
from click.core import ParameterSource

from parley import __version__
from parley.cli.common import Interrupted, Name
from parley.cli.options import SEED, NumberOption
from parley.errors import ParleyError

#: command name → "module:attribute" of a click command
COMMANDS: dict[str, str] = {
    "sessions": "parley.cli.store_cmd:sessions",
    "export": "parley.cli.store_cmd:export",
    "chat": "parley.cli.chat_cmd:chat",
    "systems": "parley.cli.chat_cmd:systems",
    "rewrite": "parley.cli.rewrite_cmd:rewrite",
    "doctor": "parley.cli.audio_cmd:doctor",
    "speak": "parley.cli.audio_cmd:speak",
    "transcribe": "parley.cli.audio_cmd:transcribe",
    "sktod": "parley.cli.sktod_cmd:sktod",
    "run": "parley.cli.run_cmd:run",
    "serve-bundled": "parley.cli.serve_cmd:serve_bundled",
    "score": "parley.cli.score_cmd:score",
    "import": "parley.cli.import_cmd:import_",
    "rate": "parley.cli.annotate_cmd:rate",
    "merge": "parley.cli.annotate_cmd:merge",
    "train": "parley.cli.train_cmd:train",
    "assign": "parley.cli.annotate_cmd:assign",
    "progress": "parley.cli.annotate_cmd:progress",
    "models": "parley.cli.models_cmd:models",
}


#: a full disk or quota, or a device that fails (``parley rewrite > /dev/full``): the user's to fix, one line
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EIO)


class CliError(click.ClickException):
    """A ParleyError on its way out: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file: IO[str] | None = None) -> None:
        click.echo(f"parley: error: {self.message}", err=True)


def _one_line_usage(e: click.UsageError) -> click.ClickException:
    """click's usage errors print three lines (usage, hint, error); parley's are one, exit 2 as before.
    ``parley GROUP`` without a subcommand still shows the group's help."""
    from click.exceptions import NoArgsIsHelpError

    from parley.display import visible

    if isinstance(e, NoArgsIsHelpError):
        return e
    where = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
    return CliError(visible(e.format_message() + where, one_line=True))


class LazyGroup(click.Group):
    """The ``parley`` group: commands load on first use; ParleyErrors become one line and exit 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n in COMMANDS if self._load(n) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: object) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as e:  # a bad option before the command: `parley --db FOLDER sessions`
            raise _one_line_usage(e) from None

    def invoke(self, ctx: click.Context) -> object:
        from parley import signals
        from parley.display import visible

        signals.install()
        try:
            return super().invoke(ctx)
        except ParleyError as e:
            raise CliError(visible(e.message, one_line=True)) from None
        except ModuleNotFoundError as e:  # an optional part that is not installed: name its extra
            from parley import extras

            name = ctx.invoked_subcommand or ""
            told = extras.explain(e, f"`parley {name}`" if name else "parley", extras.COMMANDS.get(name))
            if told is None:
                raise
            raise CliError(told.message) from None
        except click.UsageError as e:  # a bad option or value of a command
            raise _one_line_usage(e) from None
        except OSError as e:
            if e.errno == errno.EPIPE:  # `parley export --out - | head`: the reader left; end quietly, 128+13
                _pacify_stdout()
                raise click.exceptions.Exit(141) from None
            if e.errno not in _FULL:
                raise
            raise CliError(f"cannot write: {e.strerror} (standard output or an output file)") from None
        except (KeyboardInterrupt, Interrupted) as e:  # what was stored stays stored: every write commits
            said = str(e) if isinstance(e, Interrupted) else ""  # SIGTERM, SIGHUP: a KeyboardInterrupt too
            signum = signals.signum_of(e if isinstance(e, KeyboardInterrupt) else e.__context__)
            with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone; the exit code still tells
                click.echo(f"parley: {visible(signals.reword(said, signum), one_line=True)}", err=True)
            raise click.exceptions.Exit(signals.exit_code(signum)) from None

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name == module:  # the command's module is not written yet
                return None
            raise
        cmd: object = getattr(mod, attr, None)
        return cmd if isinstance(cmd, click.Command) else None


def _pacify_stdout() -> None:
    """Standard output's reader is gone: point it at /dev/null so the flush at exit cannot fail again."""
    import os
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _pass_down(ctx: click.Context, name: str, given: Mapping[str, object]) -> dict[str, object]:
    """``ctx.default_map`` that hands the options given before command ``name`` to it (and its subcommands),
    wherever they take an option of that name (``parley --db X sessions`` = ``parley sessions --db X``); an
    option given on the command itself wins. Commands without such an option (``parley --db X doctor``) ignore
    it, so ``alias parley='parley --db study.db'`` works for every command."""

    def defaults(cmd: click.Command) -> dict[str, object]:
        names = {p.name for p in cmd.params}
        out: dict[str, object] = {k: v for k, v in given.items() if k in names}
        if isinstance(cmd, click.Group):
            for sub in cmd.list_commands(ctx):
                sub_cmd = cmd.get_command(ctx, sub)
                if sub_cmd is not None:
                    out[sub] = defaults(sub_cmd)
        return out

    cmd = ctx.command.get_command(ctx, name) if isinstance(ctx.command, click.Group) else None
    return {name: defaults(cmd)} if cmd is not None else {}


@click.group(
    cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]}
)
@click.version_option(__version__, "-V", "--version", prog_name="parley")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite database (default: PARLEY_DB or the user data dir).")
@click.option("--system", "system_spec", default=None, metavar="NAME[:k=v,...]",
              help="System under test (default: multiwoz). `parley systems` lists them.")
@click.option("--rewrite", "rewrite_specs", multiple=True, metavar="SPEC",
              help="Enable a user-side rewriter from the start (repeatable), e.g. impolite:scenario=2.")
@click.option("--tester", type=Name(), default=None,
              help="Tester name (asked once and kept in settings otherwise).")
@click.option(
    "--goal", default=None, metavar="random|ID", help="Show a goal card: a random one or a MultiWOZ id."
)
@click.option("--seed", type=SEED, cls=NumberOption, default=None,
              help="Session seed (rewriters, booking references).")
@click.option("--trust-remote-code", "trust_remote_code", is_flag=True,
              help="Let the Hugging Face checkpoint named by --system run its own Python code "
                   "(off by default).")
@click.option("-v", "--verbose", is_flag=True,
              help="Say more: transformers' full load reports of a checkpoint (PARLEY_VERBOSE=1), every "
                   "import warning.")
@click.pass_context
def main(ctx: click.Context, db_path: str | None, system_spec: str | None, rewrite_specs: tuple[str, ...],
         tester: str | None, goal: str | None, seed: int | None, trust_remote_code: bool,
         verbose: bool) -> None:
    """parley — a live tester for task-oriented dialogue systems.

    With no command, opens the chat in the terminal on the embedded MultiWOZ system. Options given before a
    command apply to it: `parley --db X sessions` lists the sessions of X.
    """
    if verbose:  # read where a checkpoint loads, in this process and in the worker processes it starts
        import os

        os.environ["PARLEY_VERBOSE"] = "1"
    if ctx.invoked_subcommand is not None:
        given = {n: v for n, v in ctx.params.items()
                 if ctx.get_parameter_source(n) not in (ParameterSource.DEFAULT, None)}
        if given:
            ctx.default_map = _pass_down(ctx, ctx.invoked_subcommand, given)
        return
    from parley.cli.common import db_given

    if db_path is not None or db_given(db_path):  # an empty or mistyped --db (or PARLEY_DB) is refused before
        from parley.cli.common import resolve_db  # a screen opens, as commands do
        from parley.store.db import check_folder

        check_folder(resolve_db(db_path).parent, make=False)
    from parley.engine.settings import load_settings
    from parley.tui.launch import launch

    if trust_remote_code:
        from parley.cli.common import check_trust
        from parley.engine.spec import parse_spec

        check_trust(parse_spec(system_spec or "multiwoz").name)
    settings = load_settings()  # a broken settings file: one line and exit 2 before the screen opens
    launch(db_path=db_path, system_spec=system_spec, rewrite_specs=rewrite_specs, tester=tester, goal=goal,
           seed=seed, trust_remote_code=trust_remote_code, settings=settings)
