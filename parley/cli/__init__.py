"""``parley`` command line: a thin layer over library calls.

Subcommands live one group per module and are imported only when used (or listed by ``--help``), so every
module here must keep heavy imports (torch, transformers, textual, audio) inside the command function.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from parley import __version__

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
    "run": "parley.cli.score_cmd:run",
    "score": "parley.cli.score_cmd:score",
    "import": "parley.cli.annotate_cmd:import_",
    "rate": "parley.cli.annotate_cmd:rate",
    "merge": "parley.cli.annotate_cmd:merge",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n in COMMANDS if self._load(n) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

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
        cmd: Any = getattr(mod, attr, None)
        return cmd if isinstance(cmd, click.Command) else None


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="parley")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite database (default: PARLEY_DB or the user data dir).")
@click.option("--system", "system_spec", default=None, metavar="NAME[:k=v,...]",
              help="System under test (default: multiwoz). `parley systems` lists them.")
@click.option("--rewrite", "rewrite_specs", multiple=True, metavar="SPEC",
              help="Enable a user-side rewriter from the start (repeatable), e.g. impolite:scenario=2.")
@click.option("--tester", default=None, help="Tester name (asked once and kept in settings otherwise).")
@click.option("--goal", default=None, metavar="random|ID", help="Show a goal card: a random one or a MultiWOZ id.")
@click.option("--seed", type=int, default=None, help="Session seed (rewriters, booking references).")
@click.option("--trust-remote-code", "trust_remote_code", is_flag=True,
              help="Let a Hugging Face checkpoint run its own Python code (off by default).")
@click.pass_context
def main(ctx: click.Context, db_path: str | None, system_spec: str | None, rewrite_specs: tuple[str, ...],
         tester: str | None, goal: str | None, seed: int | None, trust_remote_code: bool) -> None:
    """parley — a live tester for task-oriented dialogue systems.

    With no command, opens the chat in the terminal on the embedded MultiWOZ system.
    """
    if ctx.invoked_subcommand is not None:
        return
    from parley.cli.common import with_trust
    from parley.tui.launch import launch

    if trust_remote_code:
        system_spec = with_trust(system_spec or "multiwoz", True)
    launch(db_path=db_path, system_spec=system_spec, rewrite_specs=rewrite_specs, tester=tester, goal=goal,
           seed=seed)
