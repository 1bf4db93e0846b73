"""``parley chat --system sktod --script --json`` on the embedded review KB: selected
snippets are about the asked aspect, reviews win over FAQs on a neighbouring aspect, and no sentence
repeats."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from parley.cli import main
from parley.engine.sktod.aspects import aspects_of

SCRIPTS = Path(__file__).parent / "scripts"


def chat(tmp_path: Path) -> list[dict[str, Any]]:
    r = CliRunner().invoke(main, ["chat", "--system", "sktod", "--script", str(SCRIPTS / "sktod_aspects.txt"),
                                  "--json", "--db", str(tmp_path / "s.db"), "--seed", "1"])
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def test_answers_stay_on_the_asked_aspect(tmp_path: Path) -> None:
    turns = chat(tmp_path)
    for turn, aspect, venue in zip(turns, ("food", "wifi", "breakfast"),
                                   ("DOJO NOODLE BAR", "ACORN GUEST HOUSE", "ACORN GUEST HOUSE"),
                                   strict=True):
        know = turn["internals"]["knowledge"]
        assert turn["internals"]["branch"] == "sktod" and know["ktd"]["fired"]
        assert [e["name"] for e in know["entities"]] == [venue]
        snippets = know["snippets"]
        assert snippets and all(aspect in aspects_of(s["text"]) for s in snippets), snippets
        assert all(s["doc_type"] == "review" for s in snippets)  # no FAQ about vegetarian options for "food"
        texts = [s["text"] for s in snippets]
        assert len(texts) == len(set(texts))
        sentences = [x.strip().lower() for x in re.split(r"(?<=[.!?])\s+", turn["system"]) if x.strip()]
        assert len(sentences) == len(set(sentences))
        assert venue.title().split()[0] in turn["system"]
