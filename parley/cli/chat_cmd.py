"""``parley chat`` (headless sessions from a script) and ``parley systems``."""

from __future__ import annotations

import json
import sys

import click

from parley.cli.common import db_option, fail, load_system, open_db, trust_option, with_trust


@click.command()
@click.option("--system", "system_spec", default="multiwoz", show_default=True, metavar="NAME[:k=v,...]",
              help="System under test.")
@click.option("--script", "script", type=click.File("r", encoding="utf-8"), default=None,
              help="User turns, one per line ('-' reads stdin). Blank lines and lines starting with # are skipped.")
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
@click.option("--seed", type=int, default=None, help="Session seed (rewriters, booking references).")
@click.option("--rewrite", "rewrite_specs", multiple=True, metavar="SPEC",
              help="Rewriter applied to every user turn (repeatable), e.g. disfluency:rate=0.3.")
@click.option("--tester", default="", help="Tester name stored with the session.")
@trust_option
@click.option("--json", "as_json", is_flag=True,
              help='Print one JSON object per user turn: {"turn","user","final","system","state","latency_ms"}.')
def chat(system_spec: str, script, audio_script: str | None, asr_model: str,  # type: ignore[no-untyped-def]
         tts_backend: str, play: bool, db_path: str | None, seed: int | None, rewrite_specs: tuple[str, ...],
         tester: str, trust_remote_code: bool, as_json: bool) -> None:
    """Hold a session from a script of user turns (typed, or spoken with --audio-script), through the same
    session code as the TUI (mode batch)."""
    from parley.engine.rewrite.chain import Chain
    from parley.engine.session import Session
    from parley.engine.spec import SpecError

    system_spec = with_trust(system_spec, trust_remote_code)
    if (script is None) == (audio_script is None):
        fail("give one of --script FILE or --audio-script DIR|LIST")
    try:
        chain = Chain(rewrite_specs)
    except SpecError as e:
        fail(str(e))
    files = None
    if audio_script is not None:
        from parley.cli.audio_cmd import audio_script_files, audio_turns

        files = audio_script_files(audio_script)
    system = load_system(system_spec)
    store = open_db(db_path)
    session = Session(store, system, system_spec=system_spec, chain=chain, tester=tester, mode="batch", seed=seed)
    if files is not None:
        turns = audio_turns(session, files, asr_model=asr_model, tts_backend=tts_backend, play=play)
    else:
        lines = (line.rstrip("\n") for line in script)
        turns = ((session.turn(t), {}) for t in lines if t.strip() and not t.lstrip().startswith("#"))
    failures = 0
    n = 0
    for ex, extra in turns:
        if ex is None or ex.error:
            failures += 1
        if as_json:
            click.echo(json.dumps({
                "turn": n, "user": ex.typed if ex else None, "final": ex.final if ex else None,
                "system": ex.reply.text if ex and ex.reply else None,
                "state": {d: dict(s) for d, s in ex.reply.state.items()} if ex and ex.reply else {},
                "latency_ms": round(ex.reply.latency_ms, 3) if ex and ex.reply else None,
                **({"error": ex.error} if ex and ex.error else {}), **extra,
            }, ensure_ascii=False))
        elif ex is None:
            click.echo(f"USER   [{extra.get('error')}: {extra.get('audio_in')}]")
        else:
            click.echo(f"USER   {ex.typed}")
            if ex.final != ex.typed:
                click.echo(f"  ->   {ex.final}")
            click.echo(f"SYSTEM {ex.reply.text if ex.reply else '[failed] ' + str(ex.error)}")
        n += 1
    session.end()
    click.echo(f"session {session.id}: {n} user turn(s), {failures} failed, stored in {store.path}", err=True)
    if failures:
        sys.exit(1)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="JSON list of {name, summary}.")
def systems(as_json: bool) -> None:
    """List the registered dialogue systems."""
    from parley.engine.systems import DEFAULT_SYSTEM, SYSTEMS

    entries = [{"name": e.name, "summary": e.summary, "default": e.name == DEFAULT_SYSTEM} for e in SYSTEMS]
    if as_json:
        click.echo(json.dumps(entries, indent=2))
        return
    width = max(len(str(e["name"])) for e in entries)
    for e in entries:
        mark = "*" if e["default"] else " "
        click.echo(f"{mark} {e['name']:<{width}}  {e['summary']}")
