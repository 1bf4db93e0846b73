"""Spec syntax, settings precedence and persistence, locations."""

from __future__ import annotations

import pytest

from parley.engine import locations
from parley.engine.settings import load_settings, save_settings, update_settings
from parley.engine.spec import SpecError, condition_name, parse_condition, parse_spec


def test_parse_spec_types():
    s = parse_spec("impolite:scenario=2,intensity=2,profanity=false,wer=0.15,model=t5-small")
    assert s.name == "impolite"
    assert s.params == {"scenario": 2, "intensity": 2, "profanity": False, "wer": 0.15, "model": "t5-small"}
    assert str(parse_spec("wp")) == "wp"
    assert parse_spec(str(s)) == s


@pytest.mark.parametrize("bad", ["", ":x=1", "a b", "x:novalue", "x:=3"])
def test_bad_specs(bad):
    with pytest.raises(SpecError):
        parse_spec(bad)


def test_conditions():
    assert parse_condition("original") == ()
    specs = parse_condition("disfluency+asr-sim:wer=0.2")
    assert [s.name for s in specs] == ["disfluency", "asr-sim"]
    assert condition_name(specs) == "disfluency+asr-sim:wer=0.2"


def test_settings_file_env_and_paths(tmp_path, monkeypatch):
    cfg = tmp_path / "conf" / "parley.toml"
    monkeypatch.setenv("PARLEY_CONFIG", str(cfg))
    monkeypatch.setenv("PARLEY_DB", str(tmp_path / "x.db"))
    assert locations.config_path() == cfg
    assert locations.database_path() == tmp_path / "x.db"
    assert load_settings().tester == ""
    update_settings(tester="ada", rewriters=["wp"])
    assert "ada" in cfg.read_text()
    assert load_settings().tester == "ada" and load_settings().rewriters == ["wp"]
    monkeypatch.setenv("PARLEY_TESTER", "bo")
    monkeypatch.setenv("PARLEY_AUDIO__ASR_MODEL", "base")
    s = load_settings()
    assert s.tester == "bo" and s.audio.asr_model == "base"
    save_settings(s)
    assert 'asr_model = "base"' in cfg.read_text()


def test_broken_settings_file_is_a_clear_error(tmp_path, monkeypatch):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("tester = [unclosed\n")
    monkeypatch.setenv("PARLEY_CONFIG", str(cfg))
    with pytest.raises(ValueError, match="bad.toml"):
        load_settings()


def test_default_data_paths_use_platformdirs(monkeypatch):
    for var in ("PARLEY_DB", "PARLEY_DATA", "PARLEY_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    assert locations.database_path().name == "parley.db"
    assert "parley" in str(locations.database_path())
    assert locations.config_path().name == "config.toml"
