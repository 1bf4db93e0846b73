"""Nothing a user had is replaced silently: every output file a command writes (``--plot``, ``--html``,
``--mwzeval-out``, ``sktod run --out``, ``speak --out``) is refused with one line and exit 2 when it exists,
before any work is done, unless ``--force``. (``export`` has its own tests in test_cli_export.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.clihelpers import REPO, one_line_error, run

OLD = b"a file the user had\n"


def _dialogues(tmp_path: Path) -> str:
    f = tmp_path / "dialogues.json"
    log = [{"text": "i need a train", "metadata": {}}, {"text": "where to?", "metadata": {}}]
    f.write_text(json.dumps({"d1.json": {"goal": {}, "log": log}}), encoding="utf-8")
    return str(f)


def _mine(tmp_path: Path, name: str) -> Path:
    p = tmp_path / name
    p.write_bytes(OLD)
    return p


def _cases(tmp_path: Path) -> dict[str, tuple[list[str], Path]]:
    db = str(tmp_path / "p.db")
    d = _dialogues(tmp_path)
    logs = tmp_path / "logs.json"
    logs.write_text(json.dumps([[{"speaker": "U", "text": "is the wifi good?"}]]), encoding="utf-8")
    cases = {
        "score --plot": (["score", "--satisfaction", "--db", db, "--plot"], "s.png"),
        "score --html": (["score", "--satisfaction", "--db", db, "--html"], "s.html"),
        "run --plot": (["run", "--system", "echo", "--dialogues", d, "--db", db, "--plot"], "r.png"),
        "run --html": (["run", "--system", "echo", "--dialogues", d, "--db", db, "--html"], "r.html"),
        "run --mwzeval-out": (["run", "--system", "echo", "--dialogues", d, "--db", db, "--mwzeval-out"],
                              "m.json"),
        "sktod run --out": (["sktod", "run", "--logs", str(logs), "--out"], "pred.json"),
        "speak --out": (["speak", "hello", "--no-play", "--out"], "hi.wav"),
    }
    return {k: ([*argv, str(tmp_path / name)], tmp_path / name) for k, (argv, name) in cases.items()}


@pytest.mark.subprocess
@pytest.mark.parametrize("case", ["score --plot", "score --html", "run --plot", "run --html",
                                  "run --mwzeval-out", "sktod run --out", "speak --out"])
def test_existing_output_is_refused(tmp_path: Path, case: str) -> None:
    argv, out = _cases(tmp_path)[case]
    out.write_bytes(OLD)
    line = one_line_error(run(argv, cwd=REPO))
    assert "already exists" in line and "--force" in line
    assert out.read_bytes() == OLD
    assert not (tmp_path / "p.db").exists()  # refused before any work: no database created


@pytest.mark.subprocess
def test_mwzeval_file_per_condition_is_refused(tmp_path: Path) -> None:
    """With several conditions --mwzeval-out names one file per condition; each is checked."""
    out = tmp_path / "m.json"
    mine = _mine(tmp_path, "m.wp.json")
    argv = ["run", "--system", "echo", "--dialogues", _dialogues(tmp_path), "--db", str(tmp_path / "p.db"),
            "--condition", "original", "--condition", "wp", "--mwzeval-out", str(out)]
    assert "m.wp.json already exists" in one_line_error(run(argv, cwd=REPO))
    assert mine.read_bytes() == OLD and not out.exists()


@pytest.mark.subprocess
def test_force_replaces(tmp_path: Path) -> None:
    argv, out = _cases(tmp_path)["run --html"]
    out.write_bytes(OLD)
    p = run([*argv, "--force", "--bootstrap", "0"], cwd=REPO)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes() != OLD
    assert out.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype")


@pytest.mark.subprocess
def test_sktod_train_keeps_a_model_folder(tmp_path: Path) -> None:
    """``sktod train --out`` wrote config.json and the weights into an existing model folder (after the whole
    fit); like ``train tod`` it now wants a new or empty folder and says so before any work."""
    model = tmp_path / "model"
    model.mkdir()
    config = _mine(model, "config.json")
    missing = str(tmp_path / "missing.json")
    argv = ["sktod", "train", "--logs", missing, "--labels", missing, "--knowledge", missing,
            "--out", str(model)]
    assert "is not empty" in one_line_error(run(argv, cwd=REPO))
    assert config.read_bytes() == OLD
