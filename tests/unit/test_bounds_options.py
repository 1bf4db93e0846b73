"""Every numeric option of every command goes through the checked parameter layer of the specs: finite, in
range, with a unit. ``train tod --lr nan`` or ``--epochs inf`` ended in tracebacks, ``--lr inf`` and
``--max-minutes nan`` were written into the manifest as Infinity and NaN, ``--block 100000000`` tried to
allocate 100 GB; each is now one line naming the option, before anything is read or written."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from parley.cli import main
from tests.corpora import write_corpus
from tests.unit.clihelpers import cli, one_line_error
from tests.unit.limited import one_error, run_limited


@pytest.mark.subprocess
@pytest.mark.parametrize(("option", "value", "said"), [
    ("--lr", "nan", "must be a finite number (not NaN or infinity), got nan"),
    ("--epochs", "inf", "must be a finite number (not NaN or infinity), got inf"),
    ("--lr", "inf", "must be a finite number (not NaN or infinity), got inf"),
    ("--max-minutes", "nan", "must be a finite number (not NaN or infinity), got nan"),
    ("--block", "100000000", "must be ≤ 65,536 tokens, got 100000000"),
    ("--threads", "0", "must be ≥ 1 threads, got 0"),
    ("--steps", "1e400", "must be a whole number, got 1e400"),
])
def test_train_options_are_checked_before_anything_runs(option: str, value: str, said: str,
                                                       tmp_path: Path) -> None:
    data = write_corpus(tmp_path / "d.json", 4)
    out = tmp_path / "model"
    r = run_limited(["train", "tod", "--data", str(data), "--out", str(out), "--steps", "1", option, value],
                    mem_mb=3000)
    line = one_error(r)
    assert f"Invalid value for '{option}': {said}" in line, line
    assert not out.exists()


@pytest.mark.subprocess
def test_a_model_too_big_to_train_is_refused_before_it_is_allocated(tmp_path: Path) -> None:
    data = write_corpus(tmp_path / "d.json", 4)
    out = tmp_path / "model"
    r = run_limited(["train", "tod", "--data", str(data), "--out", str(out), "--steps", "1", "--dim", "16384",
                     "--layers", "256", "--heads", "16"], mem_mb=3000)
    line = one_error(r)
    assert "the model to train: 824," in line and "parameters need" in line and "is available" in line, line
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.subprocess
def test_a_small_run_records_finite_options(tmp_path: Path) -> None:
    data = write_corpus(tmp_path / "d.json", 4)
    out = tmp_path / "model"
    r = run_limited(["train", "tod", "--data", str(data), "--out", str(out), "--steps", "1", "--layers", "1",
                     "--dim", "16", "--heads", "2", "--vocab", "300", "--block", "64", "--lr", "0.01",
                     "--max-minutes", "30", "--threads", "1"], mem_mb=3000)
    assert r.returncode == 0, r.stderr[-3000:]
    text = (out / "manifest.json").read_text(encoding="utf-8")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the manifest"))


def _numeric_options() -> list[tuple[str, click.Option]]:
    """Every option of every command (subcommands included) whose value is a number."""
    ctx = click.Context(main)
    found: list[tuple[str, click.Option]] = []

    def walk(cmd: click.Command, path: str) -> None:
        for p in cmd.get_params(ctx):
            numeric = isinstance(p.type, click.types._NumberParamTypeBase) or \
                getattr(p.type, "name", "") in ("integer", "number")
            if isinstance(p, click.Option) and numeric:
                found.append((f"{path} {p.opts[-1]}".strip(), p))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk(sub, f"{path} {name}".strip())

    walk(main, "")
    return found


def test_every_numeric_option_goes_through_the_checked_layer() -> None:
    from parley.cli.options import Number, NumberOption

    options = _numeric_options()
    assert len(options) > 30
    plain = [name for name, opt in options if not isinstance(opt.type, Number)]
    assert not plain, f"numeric options outside the checked layer: {plain}"
    no_range = [name for name, opt in options if not isinstance(opt, NumberOption)]
    assert not no_range, f"numeric options whose help shows no range: {no_range}"
    for _name, opt in options:
        for bad in ("nan", "inf", "-inf", "1e400"):
            with pytest.raises(click.BadParameter, match="finite|whole number"):
                opt.type.convert(bad, opt, None)


def test_help_shows_sane_ranges() -> None:
    text = cli(["chat", "--help"]).output + cli(["train", "tod", "--help"]).output
    assert "9223372036854775808" not in text and "-9,223" not in text
    assert "a 64-bit whole number" in text
    assert "1–64 threads" in text and "0 < x ≤ 10" in text


def test_a_number_option_error_is_one_line(tmp_path: Path) -> None:
    line = one_line_error(cli(["run", "--dialogues", str(write_corpus(tmp_path / "d.json", 2)), "--workers",
                               "nan", "--db", str(tmp_path / "p.db")]))
    assert "Invalid value for '--workers': must be a whole number, got nan" in line
