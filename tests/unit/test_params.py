"""One parameter mechanism on pydantic: systems (their __init__ signature), rewriters (their PARAMS), importer
options and settings all refuse a bad value with one line naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.engine.rewrite import build_rewriter
from parley.engine.settings import SettingsError, load_settings
from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.store import open_store
from parley.store.imports import ImportFileError, import_file


@pytest.mark.parametrize(("spec", "message"), [
    ("remote:url=http://x,timeout=0", "remote: timeout: must be > 0.0, got 0"),
    ("remote:url=http://x,retries=true", "remote: retries: must be a whole number, got True"),
    ("llm:max_new_tokens=abc", "llm: max_new_tokens: must be a whole number, got 'abc'"),
    ("llm:threads=65", "llm: threads: must be ≤ 64, got 65"),
    ("multiwoz:read_system=maybe", "multiwoz: read_system: must be true or false, got 'maybe'"),
    ("multiwoz:colour=red", "multiwoz: colour: unknown parameter (known: seed, db_dir, read_system, clock)"),
    ("hf-seq2seq:model=x,max_input_tokens=8", "hf-seq2seq: max_input_tokens: must be ≥ 16, got 8"),
    ("echo:prefix=true", "echo: prefix: must be text, got True"),
    # rewriters
    ("wp:alpha=2", "wp: alpha: must be ≤ 1.0, got 2"),
    ("impolite:scenario=true", "impolite: scenario: must be a whole number, got True"),
    ("impolite:scenario=2.5", "impolite: scenario: must be one of 1, 2, 3, 4, 5 or 6, got 2.5"),
    ("disfluency:speed=1", "disfluency: speed: unknown key (known: rate, repeat_share, restart, repair)"),
    ("asr-real:speed=9", "asr-real: speed: must be ≤ 2.0, got 9"),
])
def test_params_name_the_bad_one(spec: str, message: str) -> None:
    from parley.engine.rewrite import REWRITERS

    build = build_rewriter if spec.split(":")[0] in REWRITERS else build_system
    with pytest.raises(SpecError) as e:
        build(spec)
    assert str(e.value) == message


def test_valid_params_are_kept() -> None:
    assert build_system("remote:url=http://x,timeout=5").timeout == 5.0
    assert dict(build_rewriter("impolite:scenario=3.0,model=123").params)["scenario"] == 3
    assert dict(build_rewriter("impolite:model=123").params)["model"] == "123"


def test_importer_options(tmp_path: Path) -> None:
    f = tmp_path / "x.json"
    f.write_text("{}", encoding="utf-8")
    store = open_store(tmp_path / "p.db")
    with pytest.raises(ImportFileError, match="limit: must be ≥ 1, got 0"):
        import_file(store, f, "multiwoz", limit=0)
    with pytest.raises(ImportFileError, match="labels: .*absent.json: no such file"):
        import_file(store, f, "dstc11", labels=str(tmp_path / "absent.json"))
    with pytest.raises(ImportFileError, match="relevance_coding: must be one of"):
        import_file(store, f, "abredial", relevance_coding="sideways")
    with pytest.raises(ImportFileError, match="format multiwoz does not take labels"):
        import_file(store, f, "multiwoz", labels=str(f))


def test_settings_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('seed = "soon"\n[audio]\nmax_seconds = "long"\n', encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(cfg))
    with pytest.raises(SettingsError) as e:
        load_settings()
    assert "\n" not in str(e.value) and "config.toml" in str(e.value) and "seed" in str(e.value)
