"""Run the reference implementations' own parsers and serialisers beside parley's, on the same strings.

Needs the reference repositories as git mirrors in one folder (`--mirror DIR`, or $PARLEY_MIRROR), each as
`owner+name/repo` (a bare clone):
salesforce/simpletod (utils/simpletod.py get_belief), TonyNemo/UBAR-MultiWOZ (reader.py
bspan_to_constraint_dict with ontology.py) and ufal/augpt (data/utils.py BeliefParser, format_belief). Each
reference function is loaded from the mirrored file at the commit the format file names, and run on sample
model outputs; the parsed states are compared with parley's after mapping slot names. Prints a markdown table
(--out writes it).

Run: .venv/bin/python bench/formats_check.py --mirror DIR [--out bench/results/formats.md]
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import types
from collections import OrderedDict
from pathlib import Path
from typing import Any

SAMPLES = {
    "simpletod": [
        "<|belief|> restaurant food italian , restaurant pricerange cheap , restaurant area north "
        "<|endofbelief|>",
        "<|belief|> hotel name acorn guest house , hotel book stay 3 , hotel book people 2 , train leaveat "
        "09:15 , train day friday <|endofbelief|>",
        "<|belief|> attraction type museum , attraction area centre , taxi destination the junction "
        "<|endofbelief|>",
    ],
    "ubar": [
        "[restaurant] food italian pricerange cheap area north <eos_b>",
        "[hotel] type hotel stars 4 parking yes stay 3 people 2 day friday [train] leave 09:15 day friday "
        "<eos_b>",
        "[attraction] type museum area centre [taxi] destination the junction arrive 17:00 <eos_b>",
    ],
    "augpt": [
        "restaurant {area = north, food = italian, price range = cheap}",
        "hotel {day = friday, people = 2, stay = 3} train {day = friday, leave at = 09:15}",
        "attraction {area = centre, type = museum} taxi {destination = the junction}",
    ],
}
COMMITS = {"simpletod": ("salesforce+simpletod", "a6050a4d08dfb1515d472a3b1aea7ad6c1a8ab1b"),
           "ubar": ("TonyNemo+UBAR-MultiWOZ", "5b8db7ff34afe57bcd8d79a48a6b6604fbedd109"),
           "augpt": ("ufal+augpt", "fa8a57961ed1d8fe6099978c489c0b0f8956d64e")}


def source(mirror: Path, fmt: str, path: str) -> str:
    repo, commit = COMMITS[fmt]
    return subprocess.run(["git", "-C", str(mirror / repo / "repo"), "show", f"{commit}:{path}"],
                          capture_output=True, text=True, check=True).stdout


def functions(src: str, names: set[str], namespace: dict[str, Any]) -> dict[str, Any]:
    """The named top-level functions/classes of ``src`` only, run in ``namespace`` (no module imports)."""
    tree = ast.parse(src)
    keep = [n for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name in names]
    exec(compile(ast.Module(body=keep, type_ignores=[]), "<reference>", "exec"), namespace)  # noqa: S102
    return namespace


def method(src: str, cls: str, name: str, namespace: dict[str, Any]) -> Any:
    tree = ast.parse(src)
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    fn = next(n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == name)
    exec(compile(ast.Module(body=[fn], type_ignores=[]), "<reference>", "exec"), namespace)  # noqa: S102
    return namespace[name]


def reference_simpletod(mirror: Path, text: str) -> dict[str, dict[str, str]]:
    ns = functions(source(mirror, "simpletod", "utils/simpletod.py"), {"get_belief_dbsearch"}, {})
    out: dict[str, dict[str, str]] = {}
    for bs in ns["get_belief_dbsearch"](text):  # as get_db_dynamically reads the triples
        w = bs.split()
        slot, val = ("book " + w[2], " ".join(w[3:])) if "book" in bs else (w[1], " ".join(w[2:]))
        out.setdefault(w[0], {})[slot] = val
    return out


def reference_ubar(mirror: Path, text: str) -> dict[str, dict[str, str]]:
    onto = types.ModuleType("ontology")
    exec(source(mirror, "ubar", "ontology.py"), onto.__dict__)  # noqa: S102
    fn = method(source(mirror, "ubar", "reader.py"), "MultiWozReader", "bspan_to_constraint_dict",
                {"ontology": onto})
    return fn(types.SimpleNamespace(vocab=None), text)


def reference_augpt(mirror: Path, text: str) -> dict[str, dict[str, str]]:
    import re

    ns = functions(source(mirror, "augpt", "data/utils.py"), {"BeliefParser", "format_belief"},
                   {"re": re, "OrderedDict": OrderedDict})
    parsed = ns["BeliefParser"]()(text)
    assert ns["format_belief"](parsed) == text, "format_belief(parse(x)) != x"
    return {d: dict(s) for d, s in parsed.items()}


def parley_as(fmt: str, text: str) -> dict[str, dict[str, str]]:
    """parley's parse, with slot names written back in the reference's vocabulary."""
    from parley.engine.systems.hf_belief import model_slot
    from parley.engine.systems.hf_common import load_format, parse_belief

    f = load_format(fmt)
    state = parse_belief(text, f)
    return {d: {model_slot(f, d, s): v for s, v in slots.items()} for d, slots in state.items()}


def parley_writes(fmt: str, text: str) -> bool:
    """parley serialises its parse back to the model's exact belief text (markers aside)."""
    from parley.engine.systems.hf_common import between, format_belief, load_format, parse_belief

    f = load_format(fmt)
    body = between(text, f.belief_start, f.belief_end) if fmt != "augpt" else text
    return format_belief(parse_belief(text, f), f, markers=False) == body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, default=os.environ.get("PARLEY_MIRROR"),
                    required="PARLEY_MIRROR" not in os.environ, help="folder of the git mirrors")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    refs = {"simpletod": reference_simpletod, "ubar": reference_ubar, "augpt": reference_augpt}
    lines = ["| format | reference commit | model output | reference parse = parley parse | parley writes it "
             "back |", "|---|---|---|---|---|"]
    bad = 0
    for fmt, samples in SAMPLES.items():
        for text in samples:
            ref, mine = refs[fmt](args.mirror, text), parley_as(fmt, text)
            if fmt == "augpt":  # AuGPT's own names for booking slots are the bare "day", "people", "stay"
                mine = {d: {k.removeprefix("book "): v for k, v in s.items()} for d, s in mine.items()}
            same, back = ref == mine, parley_writes(fmt, text)
            bad += not (same and back)
            verdict = "yes" if same else f"NO: {ref} vs {mine}"
            lines.append(f"| {fmt} | {COMMITS[fmt][1][:8]} | `{text}` | {verdict} | "
                         f"{'yes' if back else 'NO'} |")
    report = "\n".join(lines)
    print(report)
    if args.out:
        from datetime import UTC, datetime

        head = ["# Format files against the reference code", "",
                f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC. `.venv/bin/python bench/formats_check.py --out "
                f"{args.out}`: each reference parser, loaded from the mirrored repository at the commit its "
                "format file names, parses sample model outputs; parley parses the same strings (slot names "
                "mapped back to the reference's) and writes its parse back in the model's syntax. PPTOD and "
                "MinTL reuse UBAR's/DAMD's belief parser (bspan_to_constraint_dict). The exact model inputs "
                "are golden tests (tests/unit/test_formats_reference.py).", ""]
        args.out.write_text("\n".join(head) + "\n" + report + "\n", encoding="utf-8")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
