"""``parley serve-bundled``: the bundled SmolLM2 behind an OpenAI-compatible endpoint (``transformers
serve``), so
``remote:…,api=openai`` (and LLM rewriter backends) can be tried against a real served model offline."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import click

from parley.cli.options import number
from parley.errors import ParleyError

MODEL_NAME = "smollm2"


def serve_folder(folder: Path) -> Path:
    """A folder holding a link named ``smollm2`` to the model: served from there, the model's id is
    ``smollm2`` (``transformers serve`` answers only requests naming the model it was started with)."""
    from parley.engine.locations import cache_dir

    home = cache_dir() / "serve"
    home.mkdir(parents=True, exist_ok=True)
    link = home / MODEL_NAME
    if link.is_symlink() or link.exists():
        if link.resolve() == folder.resolve():
            return home
        link.unlink()
    link.symlink_to(folder.resolve(), target_is_directory=True)
    return home


def serve_command(host: str, port: int, device: str) -> list[str]:
    """The ``transformers serve`` command line, to run in :func:`serve_folder`."""
    exe = Path(sys.executable).with_name("transformers")
    found = str(exe) if exe.exists() else shutil.which("transformers")
    if not found:
        raise ParleyError("the `transformers` command is not installed next to parley")
    return [found, "serve", MODEL_NAME, "--host", host, "--port", str(port), "--device", device,
            "--log-level", "warning"]


@click.command("serve-bundled")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@number(
    "--port", kind=int, ge=1, le=65535, default=8000, show_default=True, help="Port to listen on."
)
@click.option(
    "--device", default="cpu", show_default=True, help="Torch device for the model (cpu, cuda:0, auto)."
)
@number(
    "--threads",
    kind=int, ge=1, le=256, unit="threads",
    default=None,
    help="CPU threads for generation (OMP_NUM_THREADS; default: torch's choice).",
)
@click.option(
    "--print-command",
    "print_only",
    is_flag=True,
    help="Print the `transformers serve` command instead of running it.",
)
def serve_bundled(host: str, port: int, device: str, threads: int | None, print_only: bool) -> None:
    """Serve the bundled SmolLM2-135M-Instruct on an OpenAI-compatible endpoint (`transformers serve`; needs
    `pip install 'parley-tod[serve]'`). Chat with it: parley --system
    remote:url=http://127.0.0.1:8000,api=openai,model=smollm2"""
    from parley.engine.smollm import ensure_converted

    missing = [m for m in ("fastapi", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing and not print_only:
        raise ParleyError(
            f"`transformers serve` needs {' and '.join(missing)}: pip install 'parley-tod[serve]'"
        )
    folder = ensure_converted(progress=lambda msg: click.echo(msg, err=True))
    home = serve_folder(folder)
    cmd = serve_command(host, port, device)
    if print_only:
        click.echo(f"cd {home} && HF_HUB_OFFLINE=1 {' '.join(cmd)}")
        return
    click.echo(
        f"serving the bundled SmolLM2 on http://{host}:{port}/v1 (ctrl+c stops it); chat with it:\n"
        f"  parley --system remote:url=http://{host}:{port},api=openai,model={MODEL_NAME}",
        err=True,
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(home)
    os.execve(cmd[0], cmd, env)
