"""A new importer touches one place: its module plus one register() line; `parley import` derives its --format
choices and options from the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.store import open_store
from parley.store.imports import IMPORTERS, register
from tests.unit.clihelpers import cli

TOY = '''
from datetime import UTC, datetime

from pydantic import Field

from parley.store.imports.base import ImportedDialogue, ImportOptions, session_record, turn_records


class Options(ImportOptions):
    speaker: str = Field("bot", description="Name of the toy system.")
    shout: bool = Field(False, description="Upper-case every line.")


def read(path, report, *, limit=None, speaker="bot", shout=False):
    lines = path.read_text(encoding="utf-8").split("\\n")
    for i, line in enumerate(x for x in lines if x.strip()):
        text = line.upper() if shout else line
        s = session_record(fmt="toy", path=path, dialogue_id=str(i), content=text, index=i,
                           base_time=datetime(2026, 1, 1, tzinfo=UTC), system_name=speaker)
        turns = turn_records(s.id, [("user", text, {}), ("system", "ok", {})])
        yield ImportedDialogue(s, turns, where=f"line {i}")
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "parley_toy_importer.py").write_text(TOY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("parley.store.imports.IMPORTERS", dict(IMPORTERS))
    register("toy", "parley_toy_importer", "one dialogue per line")  # the one line a new importer adds
    f = tmp_path / "in.txt"
    f.write_text("hello there\nbye now\n", encoding="utf-8")
    return f


def test_new_importer_gets_its_format_and_options(toy: Path, tmp_path: Path) -> None:
    help_text = cli(["import", "--help"]).output
    assert "toy: one dialogue per line" in help_text and "--speaker" in help_text and "--shout" in help_text
    db = tmp_path / "p.db"
    r = cli(["import", str(toy), "--format", "toy", "--speaker", "zed", "--shout", "--db", str(db)])
    assert r.exit_code == 0, r.output
    sessions = open_store(db).sessions()
    assert [s.system_name for s in sessions] == ["zed", "zed"]
    assert open_store(db).turns(sessions[0].id)[0].text == "HELLO THERE"
    r = cli(["import", str(toy), "--format", "multiwoz", "--speaker", "zed", "--db", str(db)])
    assert r.exit_code == 2 and "format multiwoz does not take speaker" in r.output


def test_registry_options_disappear_with_the_importer() -> None:
    help_text = cli(["import", "--help"]).output
    assert "--speaker" not in help_text and "--labels" in help_text
