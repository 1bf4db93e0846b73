"""Systems and rewriters declare their parameters one way: a frozen ``engine.params.Params`` model that checks
the spec, lists the parameters and reaches the component typed; what a rewrite step records is typed too."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from parley.engine.params import Params, params_of
from parley.engine.rewrite import REWRITERS, build_rewriter
from parley.engine.rewrite.chain import Chain
from parley.engine.spec import SpecError
from parley.engine.systems import SYSTEMS, build_system
from parley.engine.types import Change, RewriteInfo

#: parley's own entries (tests register fakes of their own)
ENTRIES = [("system", e.name) for e in SYSTEMS if e.target.startswith("parley.")] + [
    ("rewriter", e.name) for e in REWRITERS if e.target.startswith("parley.")]


@pytest.mark.parametrize(("kind", "name"), ENTRIES)
def test_every_registry_entry_declares_a_params_model_and_checks_with_it(kind: str, name: str) -> None:
    registry, build = (SYSTEMS, build_system) if kind == "system" else (REWRITERS, build_rewriter)
    model = params_of(registry.get(name).load())
    assert issubclass(model, Params) and model.model_config.get("frozen")
    with pytest.raises(SpecError) as e:
        build(f"{name}:no_such_key=1")
    assert str(e.value).startswith(f"{name}: no_such_key: unknown ")
    assert str(e.value).endswith(f"(known: {', '.join(model.model_fields)})")
    listing = model.listing()
    assert [p.name for p in listing] == list(model.model_fields)
    assert all(p.kind in ("int", "float", "bool", "str", "choice", "value") for p in listing)


def test_a_component_gets_its_params_typed_and_frozen() -> None:
    from parley.engine.rewrite.wp import WordPerturbation

    wp = build_rewriter("wp:alpha=0.5,op=swap")
    assert isinstance(wp, WordPerturbation)
    typed = wp.p
    assert (typed.alpha, typed.op, typed.slot) == (0.5, "swap", 0.39)
    with pytest.raises(ValidationError):
        typed.alpha = 0.9
    assert dict(wp.params) == {"alpha": 0.5, "op": "swap", "slot": 0.39}
    remote = build_system("remote:url=http://x,timeout=5")
    assert remote.timeout == 5.0


def test_listing_reads_bounds_choices_and_help_from_the_model() -> None:
    listed = {p.name: p for p in params_of(REWRITERS.get("impolite").load()).listing()}
    scenario = listed["scenario"]
    assert (scenario.kind, scenario.choices, scenario.lo, scenario.hi, scenario.default) == (
        "int", (1, 2, 3, 4, 5, 6), 1, 6, 2)
    assert (listed["timeout"].kind, listed["timeout"].lo, listed["timeout"].hi) == ("float", 0, 3600)
    assert (listed["backend"].kind, listed["backend"].choices) == ("choice", ("rules", "openai"))
    assert listed["model"].kind == "str" and listed["model"].default is None
    assert all(p.help for p in listed.values())
    clock = {p.name: p for p in params_of(SYSTEMS.get("multiwoz").load()).listing()}["clock"]
    assert clock.kind == "value" and clock.default == "today"


def test_what_the_rewriters_record_fits_the_typed_change_and_info() -> None:
    chain = Chain(["impolite", "disfluency:repair=1,rate=0.5", "wp:slot=1", "asr-sim:wer=0.6"])
    change_keys = set(Change.__annotations__)
    required = {"slot", "before", "after", "kind"}  # reparandum and edit_term: disfluency repairs only
    info_keys = set(RewriteInfo.__annotations__)
    seen_changes = 0
    for seed in range(8):
        text = "I want a cheap chinese restaurant in the centre for 4 people at 13:45"
        result = chain.apply(text, seed=seed)
        for step in result.steps:
            assert set(step.info) <= info_keys, step.name
            for change in step.changes:
                assert required <= set(change) <= change_keys
                assert change["kind"] in ("repair", "replace", "asr")
                seen_changes += 1
            assert step.to_json()["changes"] == [dict(c) for c in step.changes]
    assert seen_changes


def test_systems_params_lists_every_parameter_of_every_system_with_help() -> None:
    """``parley systems --params`` reads the same models: each system's fields, each with a help text."""
    from click.testing import CliRunner

    from parley.cli import main

    r = CliRunner().invoke(main, ["systems", "--params"])
    assert r.exit_code == 0, r.output
    blocks: dict[str, list[str]] = {}
    for line in r.output.splitlines():
        if line[:2] in ("* ", "  ") and not line.startswith("    "):
            current = blocks.setdefault(line[2:].split()[0], [])
        else:
            current.append(line.strip())
    for entry in SYSTEMS:
        if not entry.target.startswith("parley."):
            continue
        fields = params_of(entry.load()).model_fields
        names = [ln.split("=", 1)[0] for ln in blocks[entry.name]]
        assert names == list(fields), entry.name
        assert all(not ln.endswith(":") and ": " in ln for ln in blocks[entry.name]), blocks[entry.name]
    assert "Qwen2.5-Coder" in r.output  # the llm default named as it is
