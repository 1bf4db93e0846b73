"""``parley chat`` (headless sessions from a script) and ``parley systems``."""

from __future__ import annotations

import json
import sys

import click

from parley.cli.common import SEED, db_option, load_system, open_db, read_lines, trust_option


@click.command()
@click.option("--system", "system_spec", default="multiwoz", show_default=True, metavar="NAME[:k=v,...]",
              help="System under test.")
@click.option("--script", "script", type=click.Path(dir_okay=False, allow_dash=True), required=True,
              help="User turns, one per line ('-' reads stdin). Blank lines and lines starting with # are skipped.")
@db_option
@click.option("--seed", type=SEED, default=None, help="Session seed (rewriters, booking references).")
@click.option("--rewrite", "rewrite_specs", multiple=True, metavar="SPEC",
              help="Rewriter applied to every user turn (repeatable), e.g. disfluency:rate=0.3.")
@click.option("--tester", default="", help="Tester name stored with the session.")
@trust_option
@click.option("--json", "as_json", is_flag=True,
              help='Print one JSON object per user turn: {"turn","user","final","system","state","latency_ms",'
                   '"acts","internals"}.')
def chat(system_spec: str, script: str, db_path: str | None, seed: int | None, rewrite_specs: tuple[str, ...],
         tester: str, trust_remote_code: bool, as_json: bool) -> None:
    """Hold a session from a script of user turns, through the same session code as the TUI (mode batch).

    The whole script is read first: a file that cannot be read stores nothing. The session ends (its end time
    is stored) however the run ends.
    """
    from parley.display import visible
    from parley.engine.rewrite.chain import Chain
    from parley.engine.session import Session

    lines = [ln for ln in read_lines(script, "script") if ln.strip() and not ln.lstrip().startswith("#")]
    chain = Chain(rewrite_specs)
    system = load_system(system_spec, trust_remote_code)
    store = open_db(db_path)
    session = Session(store, system, system_spec=system_spec, chain=chain, tester=tester, mode="batch", seed=seed)
    failures = 0
    n = 0
    try:
        for text in lines:
            ex = session.turn(text)
            if ex.error:
                failures += 1
            if as_json:
                click.echo(json.dumps({
                    "turn": n, "user": ex.typed, "final": ex.final,
                    "system": ex.reply.text if ex.reply else None,
                    "state": {d: dict(s) for d, s in ex.reply.state.items()} if ex.reply else {},
                    "latency_ms": round(ex.reply.latency_ms, 3) if ex.reply else None,
                    # what the system decided (acts) and its internals (e.g. llm: fallback + reason)
                    "acts": [dict(a) for a in ex.reply.acts] if ex.reply else [],
                    "internals": dict(ex.reply.internals) if ex.reply else {},
                    **({"error": ex.error} if ex.error else {}),
                }, ensure_ascii=False, default=str))
            else:
                click.echo(f"USER   {visible(ex.typed)}")
                if ex.final != ex.typed:
                    click.echo(f"  ->   {visible(ex.final)}")
                click.echo(f"SYSTEM {visible(ex.reply.text if ex.reply else '[failed] ' + str(ex.error))}")
            n += 1
    finally:
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
