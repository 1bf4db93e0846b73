"""The AB-ReDial ratings read straight from the two CSVs, for the satisfaction analysis in the study's units.

The store keeps only ratings on the study's scales, but the public files hold more (relevance 0-4, interest
arousal 0), so ``parley score --satisfaction --abredial FILE --turn-file FILE`` reads the files themselves
(through the AB-ReDial importer's CSV reader). Rows carry no rater ids: turn-file row k of a ConvId is paired
with dialogue-file row k of the same ConvId (the importer does the same); a dialogue is a ConvId.

Relevance codings (``RELEVANCE_CODINGS``):

- ``paper``: every value as the file writes it, read as the paper's numbers (values outside the paper's 1-3
  are kept and counted as ``outside the paper's scale``);
- ``shifted``: 2/3/4 → no/somewhat/yes (1/2/3), 1 = not applicable (kept as ``'n/a'``, as the importer stores
  it: counted in the distribution, left out of the numbers) and 0 dropped;
- ``auto``: ``shifted`` when a relevance of 4 occurs (impossible on the paper's scale), else ``paper``.

The other aspects are read as written. A blank cell drops that value only; the counts say what each coding
drops.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from parley.engine.scoring.satisfaction import RatingRow, TurnValue, mean
from parley.scales import NOT_APPLICABLE
from parley.store.imports.abredial import DIALOGUE_SCALES, TURN_SCALES, read_number, read_rows

RELEVANCE_CODINGS = ("auto", "paper", "shifted")


@dataclass(frozen=True)
class AbredialRatings:
    """The paired ratings and what the coding did: ``dropped`` / ``outside`` count values per aspect."""

    rows: list[RatingRow]
    turns: list[TurnValue]
    coding: str
    dropped: dict[str, int] = field(default_factory=dict)
    outside: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, object]:
        return {"coding": self.coding, "dropped": dict(sorted(self.dropped.items())),
                "outside_paper_scale": dict(sorted(self.outside.items())), "ratings": len(self.rows),
                "turn_ratings": len(self.turns)}


def _shifted(v: int | None) -> int | str | None:
    return None if v is None or v < 1 else NOT_APPLICABLE if v == 1 else v - 1


def read_ratings(dialogue_file: str | Path, turn_file: str | Path | None = None,
                 relevance_coding: str = "auto") -> AbredialRatings:
    """Rater-level rows (turn aspects averaged over the rater's rated turns) and per-position turn values."""
    if relevance_coding not in RELEVANCE_CODINGS:
        raise ValueError(f"unknown relevance coding {relevance_coding!r} ({', '.join(RELEVANCE_CODINGS)})")
    dpath = Path(dialogue_file)
    _, drows = read_rows(dpath)
    dropped: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    dialogue: dict[tuple[str, int], dict[str, int | None]] = {}
    seen: Counter[str] = Counter()
    for line, row in drows:
        conv = (row.get("ConvId") or "").strip()
        seen[conv] += 1
        values = {f: read_number(row, col, dpath, line) for f, (col, _, _) in DIALOGUE_SCALES.items()}
        for f, v in values.items():
            lo, hi = DIALOGUE_SCALES[f][1:]
            if v is None:
                dropped[f"{f} (blank)"] += 1
            elif not lo <= v <= hi:
                outside[f"{f}={v}"] += 1
        dialogue[(conv, seen[conv])] = values
    turns: list[TurnValue] = []
    coding = relevance_coding
    if turn_file is not None:
        tpath = Path(turn_file)
        theader, trows = read_rows(tpath)
        ks = sorted(int(c[9:]) for c in theader if c.startswith("relevance") and c[9:].isdigit())
        if coding == "auto":
            fours = any(read_number(r, f"relevance{k}", tpath, ln) == 4 for ln, r in trows for k in ks)
            coding = "shifted" if fours else "paper"
        tseen: Counter[str] = Counter()
        for line, row in trows:
            conv = (row.get("ConvId") or "").strip()
            tseen[conv] += 1
            rater = f"row{tseen[conv]}"
            if (conv, tseen[conv]) not in dialogue:
                dropped["turn-file rows without a dialogue-file row"] += 1
                continue
            for k in ks:
                rel = read_number(row, f"relevance{k}", tpath, line)
                intr = read_number(row, f"interestingness{k}", tpath, line)
                value: int | str | None = rel
                if coding == "shifted":
                    if rel is not None and rel < 1:
                        dropped[f"relevance={rel} (unexplained)"] += 1
                    value = _shifted(rel)
                for f, cell in (("relevance", value), ("interestingness", intr)):
                    lo, hi = TURN_SCALES[f][1:]
                    if isinstance(cell, int) and not lo <= cell <= hi:
                        outside[f"{f}={cell}"] += 1
                turns.append(TurnValue(f"{conv}#{tseen[conv]}#{k}", conv, rater, value, intr, k))
    per_pair: dict[tuple[str, str], list[TurnValue]] = defaultdict(list)
    for t in turns:
        per_pair[(t.item, t.rater)].append(t)
    rows = []
    for (conv, k), given in dialogue.items():
        mine = per_pair.get((conv, f"row{k}"), [])
        means = {a: mean([getattr(t, a) for t in mine]) for a in TURN_SCALES}
        rows.append(
            RatingRow(
                conv,
                f"row{k}",
                given["overall"],
                given["understanding"],
                given["task_completion"],
                given["interest_arousal"],
                given["efficiency"],
                **means,
            )
        )
    return AbredialRatings(rows, turns, coding, dict(dropped), dict(outside))
