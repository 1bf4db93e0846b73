"""``parley chat`` (headless sessions from a script) and ``parley systems``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from parley.cli.common import (
    Interrupted,
    Name,
    db_option,
    input_name,
    load_system,
    open_db,
    read_lines,
    trust_option,
)
from parley.cli.options import SEED, NumberOption
from parley.display import json_text
from parley.errors import ParleyError

if TYPE_CHECKING:
    from parley.engine.session import Exchange


@click.command()
@click.option("--system", "system_spec", default="multiwoz", show_default=True, metavar="NAME[:k=v,...]",
              help="System under test.")
@click.option("--script", "script", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="User turns, one per line ('-' reads stdin). Blank lines and lines starting with # are "
                   "skipped.")
@click.option("--audio-script", "audio_script", default=None, metavar="DIR|LIST",
              help="Spoken user turns instead: a folder of WAV files (by name) or a file listing them, one "
                   "per line. Each goes through the voice path (VAD, Whisper, rewriters, system, spoken "
                   "reply); the recordings and reply WAVs are stored with the turns.")
@click.option("--asr-model", default="tiny.en", show_default=True, metavar="tiny.en|base|PATH",
              help="--audio-script: Whisper model.")
@click.option("--tts", "tts_backend", type=click.Choice(["piper", "espeak", "coqui"]), default="piper",
              show_default=True, help="--audio-script: voice of the spoken replies.")
@click.option("--play", is_flag=True, help="--audio-script: also play the replies on the output device.")
@db_option
@click.option("--seed", type=SEED, cls=NumberOption, default=None,
              help="Session seed (rewriters, booking references).")
@click.option("--rewrite", "rewrite_specs", multiple=True, metavar="SPEC",
              help="Rewriter applied to every user turn (repeatable), e.g. disfluency:rate=0.3.")
@click.option("--tester", type=Name(), default="", help="Tester name stored with the session.")
@trust_option
@click.option("--json", "as_json", is_flag=True,
              help='Print one JSON object per user turn: {"turn","user","final","system","state",'
                   '"latency_ms","acts","internals"}; spoken turns add "audio_in", "audio_out" and "voice" '
                   '(stage latencies).')
def chat(system_spec: str, script: str | None, audio_script: str | None, asr_model: str, tts_backend: str,
         play: bool, db_path: str | None, seed: int | None, rewrite_specs: tuple[str, ...], tester: str,
         trust_remote_code: bool, as_json: bool) -> None:
    """Hold a session from a script of user turns (typed, or spoken with --audio-script), through the same
    session code as the TUI (mode batch).

    The whole script is read first: a file that cannot be read stores nothing. The session ends (its end time
    is stored) however the run ends.
    """
    from parley.display import visible
    from parley.engine.rewrite.chain import Chain
    from parley.engine.session import Session

    if (script is None) == (audio_script is None):
        raise ParleyError("give one of --script FILE or --audio-script DIR|LIST")
    lines: list[str] = []
    files = None
    if audio_script is not None:
        from parley.cli.audio_cmd import audio_script_files, audio_turns

        files = audio_script_files(audio_script)
    elif script is not None:
        lines = [ln for ln in read_lines(script, "script") if ln.strip() and not ln.lstrip().startswith("#")]
        if not lines:  # a session is stored with its first turn: nothing to hold, nothing to report as stored
            raise ParleyError(f"{input_name('script', script)} holds no user turns "
                              "(blank lines and # lines are skipped)")
    chain = Chain(rewrite_specs)
    system = load_system(system_spec, trust_remote_code)
    store = open_db(db_path)
    session = Session(store, system, system_spec=system_spec, chain=chain, tester=tester, mode="batch",
                      seed=seed)
    turns: Iterator[tuple[Exchange | None, dict[str, object]]]
    if files is not None:
        turns = audio_turns(session, files, asr_model=asr_model, tts_backend=tts_backend, play=play)
    else:
        turns = ((session.turn(text), {}) for text in lines)
    failures = 0
    n = 0
    try:
        for ex, extra in turns:
            if ex is None or ex.error:
                failures += 1
            if as_json:
                reply = ex.reply if ex else None
                click.echo(json_text({
                    "turn": n, "user": ex.typed if ex else None, "final": ex.final if ex else None,
                    "system": reply.text if reply else None,
                    "state": {d: dict(s) for d, s in reply.state.items()} if reply else {},
                    "latency_ms": round(reply.latency_ms, 3) if reply else None,
                    # what the system decided (acts) and its internals (e.g. llm: fallback + reason)
                    "acts": [dict(a) for a in reply.acts] if reply else [],
                    "internals": dict(reply.internals) if reply else {},
                    **({"error": ex.error} if ex and ex.error else {}), **extra,
                }, default=str))
            elif ex is None:
                error, heard = visible(str(extra.get("error"))), visible(str(extra.get("audio_in")))
                click.echo(f"USER   [{error}: {heard}]")
            else:
                click.echo(f"USER   {visible(ex.typed)}")
                if ex.final != ex.typed:
                    click.echo(f"  ->   {visible(ex.final)}")
                click.echo(f"SYSTEM {visible(ex.reply.text if ex.reply else '[failed] ' + str(ex.error))}")
            n += 1
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted: session {session.id}: {n} user turn(s) answered, stored in "
                          f"{store.path}") from None
    finally:
        session.end()
    click.echo(f"session {session.id}: {n} user turn(s), {failures} failed, stored in {store.path}", err=True)
    if failures:
        sys.exit(1)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="JSON list of {name, summary}.")
@click.option("--params", "with_params", is_flag=True,
              help="Also list each system's parameters (name=default {choices} [range]: help), as a spec "
                   "such as `llm:model=smollm2,seed=3` sets them.")
def systems(as_json: bool, with_params: bool) -> None:
    """List the registered dialogue systems (* marks the default)."""
    from parley.cli.common import param_lines
    from parley.engine.systems import DEFAULT_SYSTEM, SYSTEMS

    entries = [{"name": e.name, "summary": e.summary, "default": e.name == DEFAULT_SYSTEM} for e in SYSTEMS]
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    width = max(len(str(e["name"])) for e in entries)
    for e, entry in zip(entries, SYSTEMS, strict=True):
        mark = "*" if e["default"] else " "
        click.echo(f"{mark} {e['name']:<{width}}  {e['summary']}")
        if with_params:
            for line in param_lines(entry, indent=width + 4):
                click.echo(line)
