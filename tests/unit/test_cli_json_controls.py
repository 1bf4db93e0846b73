"""``--json`` output of ``parley chat`` and ``parley rewrite`` is safe to print: a C1 control (``\\x9b`` is a
one-byte CSI) or a bidirectional override in a user's turn comes out escaped, and the line decodes to the same
text."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.clihelpers import cli

HOSTILE = "book it\x9b2J now \u202eevil"


def test_chat_json_escapes_c1_controls(tmp_path: Path) -> None:
    r = cli(["chat", "--system", "echo", "--script", "-", "--json", "--db", str(tmp_path / "p.db")],
            input=(HOSTILE + "\n").encode("utf-8"))
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("{"))
    assert "\x9b" not in line and "\u202e" not in line and "\\u009b" in line
    assert json.loads(line)["user"] == HOSTILE


def test_rewrite_json_escapes_c1_controls() -> None:
    r = cli(["rewrite", "-r", "wp:alpha=0"], input=(HOSTILE + "\n").encode("utf-8"))
    assert r.exit_code == 0, r.output
    line = r.stdout.strip().splitlines()[0]
    assert "\x9b" not in line and "\u202e" not in line
    assert json.loads(line)["before"] == HOSTILE
