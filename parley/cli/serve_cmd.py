"""``parley serve-bundled``: a bundled model behind an OpenAI-compatible endpoint, so
``remote:…,api=openai`` (and the LLM rewriter backends) can be tried against a real served model offline.

Two servers: llama.cpp's own (``--backend llamacpp``, the default; the one ``llm`` runs in-process, through
``xllamacpp``: the GGUF file as it is, no conversion, no extra packages) and ``transformers serve``
(``--backend transformers``: the SmolLM2 GGUF converted to safetensors once; needs the ``serve`` extra)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import sys
import threading
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


def _serve_transformers(host: str, port: int, device: str, threads: int | None, print_only: bool) -> None:
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
        f"serving the bundled SmolLM2 on http://{host}:{port}/v1 with transformers (ctrl+c stops it); chat "
        f"with it:\n  parley --system remote:url=http://{host}:{port},api=openai,model={MODEL_NAME}",
        err=True,
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(home)
    os.execve(cmd[0], cmd, env)


def _serve_llamacpp(model: str, host: str, port: int, threads: int | None, print_only: bool) -> None:
    from parley.engine.gguf import resolve_gguf
    from parley.engine.llamacpp import DEFAULT_CTX, LlamaServer, check_gguf, choose_threads, log_path
    from parley.engine.types import LoadError

    try:
        gguf = resolve_gguf(model, progress=lambda msg: click.echo(msg, err=True))
        if gguf is None:
            raise ParleyError(f"--model {model}: give smollm2, qwen2.5-coder-0.5b or a .gguf file")
        check_gguf(gguf)
    except LoadError as e:
        raise ParleyError(str(e)) from None
    alias = Path(model).stem if model.lower().endswith(".gguf") else model
    n = choose_threads(threads or 0)
    if print_only:  # the same server as llama.cpp's own program
        click.echo(f"llama-server -m {gguf} --host {host} --port {port} -t {n} -c {DEFAULT_CTX} "
                   f"--alias {alias}")
        return
    try:
        with socket.socket() as probe:  # llama.cpp would only say it could not start
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as e:
        raise ParleyError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    try:
        server = LlamaServer(gguf, threads=n, host=host, port=port, alias=alias, api_key="", verbosity=2)
    except LoadError as e:
        raise ParleyError(str(e)) from None
    click.echo(
        f"serving {gguf.name} on {server.address}/v1 with llama.cpp, {n} thread(s) (ctrl+c stops it; log: "
        f"{log_path()}); chat with it:\n"
        f"  parley --system remote:url={server.address},api=openai,model={alias}",
        err=True,
    )
    threading.Event().wait()  # the server answers from its own threads until ctrl+c or SIGTERM


@click.command("serve-bundled")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@number(
    "--port", kind=int, ge=1, le=65535, default=8000, show_default=True, help="Port to listen on."
)
@click.option(
    "--backend",
    type=click.Choice(["llamacpp", "transformers"]),
    default="llamacpp",
    show_default=True,
    help="llama.cpp's server on the GGUF file (no conversion) or `transformers serve` (serve extra).",
)
@click.option(
    "--model",
    default=MODEL_NAME,
    show_default=True,
    metavar="smollm2|qwen2.5-coder-0.5b|FILE.gguf",
    help="The model to serve (llamacpp backend; transformers serves SmolLM2 only). Its name in requests.",
)
@click.option(
    "--device",
    default="cpu",
    show_default=True,
    help="Torch device for the transformers backend (cpu, cuda:0).",
)
@number(
    "--threads",
    kind=int, ge=1, le=256, unit="threads",
    default=None,
    help="CPU threads for generation (default: 2, or 1 when the machine is busy; transformers: torch's).",
)
@click.option(
    "--print-command",
    "print_only",
    is_flag=True,
    help="Print the equivalent server command (llama-server, or `transformers serve`) instead of running it.",
)
def serve_bundled(host: str, port: int, backend: str, model: str, device: str, threads: int | None,
                  print_only: bool) -> None:
    """Serve a bundled model (SmolLM2-135M-Instruct by default) on an OpenAI-compatible endpoint. Chat with
    it: parley --system remote:url=http://127.0.0.1:8000,api=openai,model=smollm2"""
    if backend == "transformers":
        if model != MODEL_NAME:
            raise ParleyError(
                f"--backend transformers serves the bundled SmolLM2 only; use --backend llamacpp for {model}"
            )
        _serve_transformers(host, port, device, threads, print_only)
    else:
        if device != "cpu":
            raise ParleyError(
                "--device applies to --backend transformers (this llama.cpp build runs on the CPU)"
            )
        _serve_llamacpp(model, host, port, threads, print_only)
