"""AB-ReDial CSVs: the dialogue file (one row per rater x dialogue) and, optionally, the turn file.

Dialogue file: ``ConvId, utterance0..21, understanding, task-completion, interest-arousal, efficiency,
dialogue-overall, justification-text``. Turn file: ``ConvId`` and, for K = 1..3, four utterances (two of
context, the rated system utterance ``utterance{4K-2}``, the user's reply) with ``relevanceK,
interestingnessK, overallK``. Utterance cells read ``SYSTEM<tab>text`` or ``USER<tab>text`` (a few use
spaces).

The data names no raters: a row's rater is its position among the rows of the same dialogue (``abredial-1``,
``abredial-2``, ...), in each file. A ConvId shared by two different dialogues gives two sessions (the id
includes the text). Ratings are checked against the study's scales (relevance, interestingness, understanding,
task completion, interest arousal 1-3; efficiency 0-1; overall 1-5). A value outside its scale is not imported
and is counted in the report: a turn rating keeps its other, valid aspect; a dialogue rating needs all five,
so it is skipped whole. Values are never clamped. ``overallK`` (turn-level satisfaction) has no place in
parley's turn ratings and is counted as not imported.

Relevance coding. The study's relevance options are No / Somewhat / Yes plus Not applicable, but the public
turn file codes relevance 0-4. Cross-tabulated with the turn-level overall rating, 4 is the clearly positive
answer, which fits 1 = not applicable, 2/3/4 = No/Somewhat/Yes (0 is unexplained). ``relevance_coding``:
``paper`` takes values as 1-3 (4 and 0 are out of range); ``shifted`` maps 2/3/4 → 1/2/3 and 1 → not
applicable (stored as ``'n/a'``, parley's own value for it; NULL is "not rated"), and 0 stays out of
range; ``auto`` (default) uses ``shifted`` when the file holds a relevance of 4 — impossible on the paper's
scale — and says so in the report.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TypedDict

from pydantic import Field

from parley.limits import lines
from parley.scales import DIALOGUE_ASPECTS, NOT_APPLICABLE, TURN_ASPECTS, NotApplicable
from parley.store.imports.base import (
    ImportedDialogue,
    ImportFileError,
    ImportOptions,
    ImportReport,
    InputFile,
    digest,
    session_record,
    stable_id,
    turn_records,
)
from parley.store.records import DialogueRating, TurnRating, now
from parley.text import squash as _norm

FORMAT = "abredial"
#: parley field → (the file's column, the study's scale from parley.scales)
_COLUMNS = {"understanding": "understanding", "task_completion": "task-completion",
            "interest_arousal": "interest-arousal", "efficiency": "efficiency", "overall": "dialogue-overall",
            "relevance": "relevance", "interestingness": "interestingness"}
DIALOGUE_SCALES: dict[str, tuple[str, int, int]] = {
    a.key: (_COLUMNS[a.key], a.lo, a.hi) for a in DIALOGUE_ASPECTS
}
TURN_SCALES: dict[str, tuple[str, int, int]] = {a.key: (_COLUMNS[a.key], a.lo, a.hi) for a in TURN_ASPECTS}
_UTTERANCE = re.compile(r"^(SYSTEM|USER)(?:[\s\u2003]+|$)(.*)$", re.S)


class _Parsed(TypedDict):
    """One dialogue of the file: its utterances ``(role, text)`` and each rater's row ``(line, values,
    justification)``."""

    utts: list[tuple[str, str]]
    ratings: list[tuple[int, dict[str, int | None], str]]


def read_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    reader: csv.DictReader[str] | None = None
    try:
        with path.open("rb") as fh:  # line by line, within the line budgets (parley.limits)
            reader = csv.DictReader(lines(fh, str(path), ImportFileError, keepends=True), strict=True)
            header = list(reader.fieldnames or [])
            rows = []
            prev = reader.line_num
            for row in reader:
                start, prev = prev + 1, reader.line_num  # a quoted cell may span lines: name the first
                if None in row:
                    raise ImportFileError(f"{path}: line {start}: more cells than the header has columns")
                rows.append((start, row))
    except csv.Error as e:
        raise ImportFileError(f"{path}: line {reader.line_num if reader else 1}: bad CSV ({e})") from None
    except UnicodeDecodeError as e:
        raise ImportFileError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    return header, rows


def _utterances(row: dict[str, str], cols: list[str], path: Path, line: int) -> list[tuple[str, str]]:
    out = []
    for c in cols:
        cell = (row.get(c) or "").strip()
        if not cell:
            continue
        m = _UTTERANCE.match(cell)
        if not m:
            raise ImportFileError(
                f"{path}: line {line}, column {c}: an utterance must start with SYSTEM or USER "
                f"(got {cell[:20]!r})"
            )
        out.append(("system" if m.group(1) == "SYSTEM" else "user", m.group(2).strip()))
    return out


def read_number(row: dict[str, str], col: str, path: Path, line: int) -> int | None:
    """The cell as an integer ("3.0" → 3); blank → None; anything else is a malformed file."""
    cell = (row.get(col) or "").strip()
    if not cell:
        return None
    try:
        v = float(cell)
    except ValueError:
        raise ImportFileError(f"{path}: line {line}, column {col}: expected a number, got {cell!r}") from None
    if not v.is_integer():  # also NaN, inf and 1e400
        raise ImportFileError(f"{path}: line {line}, column {col}: expected a whole number, got {cell!r}")
    return int(v)


def _utterance_columns(header: list[str], path: Path) -> list[str]:
    cols = sorted((c for c in header if re.fullmatch(r"utterance\d+", c)), key=lambda c: int(c[9:]))
    if not cols:
        raise ImportFileError(f"{path}: line 1: no utterance0.. columns")
    return cols




RELEVANCE_CODINGS = ("auto", "paper", "shifted")


class Options(ImportOptions):
    turn_file: InputFile | None = Field(
        None, description="The turn CSV (annotated_turns.csv) with turn ratings.")
    relevance_coding: Literal["auto", "paper", "shifted"] | None = Field(
        None, description="How the turn file's relevance values read: paper = 1-3; shifted = 2/3/4 are "
                          "no/somewhat/yes and 1 is not applicable; auto (default) = shifted when a 4 "
                          "occurs.")


def read(path: Path, report: ImportReport, *, turn_file: Path | None = None,
         limit: int | None = None, relevance_coding: str = "auto") -> Iterator[ImportedDialogue]:
    """Parse and validate both files, then yield one dialogue per distinct conversation, with its ratings."""
    header, rows = read_rows(path)
    if "ConvId" not in header:
        raise ImportFileError(f"{path}: line 1: missing column 'ConvId'")
    if "understanding" not in header and "relevance1" in header:
        raise ImportFileError(
            f"{path}: this is the AB-ReDial turn file; pass the dialogue file as FILE and this "
            f"one with --turn-file"
        )
    for col in [c for c, _, _ in DIALOGUE_SCALES.values()] + ["justification-text"]:
        if col not in header:
            raise ImportFileError(f"{path}: line 1: missing column {col!r}")
    ucols = _utterance_columns(header, path)
    if relevance_coding not in RELEVANCE_CODINGS:
        raise ImportFileError(
            f"unknown relevance coding {relevance_coding!r} ({', '.join(RELEVANCE_CODINGS)})"
        )

    # sessions: one per (ConvId, text); each row is one rater's dialogue rating
    sessions: dict[tuple[str, str], _Parsed] = {}
    order: list[tuple[str, str]] = []
    for line, row in rows:
        conv = (row.get("ConvId") or "").strip()
        if not conv:
            raise ImportFileError(f"{path}: line {line}, column ConvId: empty")
        utts = _utterances(row, ucols, path, line)
        if not utts:
            raise ImportFileError(f"{path}: line {line}: the dialogue has no utterances")
        key = (conv, digest(t for _, t in utts))
        if key not in sessions:
            if limit is not None and len(order) >= limit:
                continue
            sessions[key] = {"utts": utts, "ratings": []}
            order.append(key)
        values = {f: read_number(row, col, path, line) for f, (col, _, _) in DIALOGUE_SCALES.items()}
        sessions[key]["ratings"].append((line, values, row.get("justification-text") or ""))

    by_conv: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for key in order:
        by_conv[key[0]].append(key)
    turn_rows = _read_turn_file(turn_file, report, by_conv, sessions, relevance_coding) if turn_file else {}

    base = datetime.now(UTC)
    stamp = now()
    for n, key in enumerate(order):
        conv, content = key
        data = sessions[key]
        session = session_record(fmt=FORMAT, path=path, dialogue_id=conv, content=content, index=n,
                                 base_time=base, system_name="redial-corpus")
        turns = turn_records(session.id, [(role, text, {}) for role, text in data["utts"]])
        d_ratings = []
        for k, (line, values, justification) in enumerate(data["ratings"], start=1):
            bad = _out_of_range(values, DIALOGUE_SCALES, report)
            if any(v is None for v in values.values()):
                report.skipped["dialogue rating with blank cells"] += 1
                report.warn(f"{path.name}: line {line}: dialogue rating has blank cells; skipped")
                continue
            if bad:
                report.warn(f"{path.name}: line {line}: {', '.join(bad)}; dialogue rating skipped")
                report.skipped["dialogue ratings skipped (a value out of range)"] += 1
                continue
            d_ratings.append(DialogueRating(session_id=session.id, rater=f"abredial-{k}",
                                            justification=justification.strip(), created_at=stamp,
                                            **{f: int(v) for f, v in values.items() if v is not None}))
        t_ratings = []
        for k, (line, items) in enumerate(turn_rows.get(key, []), start=1):
            for pos, given in items:
                bad = _out_of_range(given, TURN_SCALES, report)
                for f in bad_fields(given, TURN_SCALES):
                    given[f] = None
                if bad:
                    report.warn(f"{turn_file.name if turn_file else ''}: line {line}: {', '.join(bad)}; "
                                f"value(s) not imported")
                if all(v is None for v in given.values()):
                    report.skipped["turn ratings with no valid value"] += 1
                    continue
                interestingness = given["interestingness"]
                t_ratings.append(TurnRating(turn_id=turns[pos].id, rater=f"abredial-{k}", created_at=stamp,
                                            relevance=given["relevance"],
                                            interestingness=None if isinstance(interestingness, str)
                                            else interestingness))
        yield ImportedDialogue(session, turns, tuple(t_ratings), tuple(d_ratings), where=f"ConvId {conv}")


#: a cell as read (and recoded): a number, "n/a" (a recoded relevance) or blank
Value = int | NotApplicable | None


def bad_fields(values: Mapping[str, Value], scales: dict[str, tuple[str, int, int]]) -> list[str]:
    """The fields holding a number outside their scale ("not applicable" is not a number on it)."""
    return [f for f, v in values.items()
            if isinstance(v, int) and not scales[f][1] <= v <= scales[f][2]]


def _out_of_range(values: Mapping[str, Value], scales: dict[str, tuple[str, int, int]],
                  report: ImportReport) -> list[str]:
    msgs = []
    for f in bad_fields(values, scales):
        lo, hi = scales[f][1], scales[f][2]
        report.skipped[f"{f}={values[f]} outside {lo}-{hi}"] += 1
        msgs.append(f"{f}={values[f]} outside {lo}-{hi}")
    return msgs


def _recode_relevance(v: int | None) -> Value:
    """Shifted coding: 2/3/4 → No/Somewhat/Yes (1/2/3), 1 → not applicable; 0 stays (out of range)."""
    if v is None or v == 0:
        return v
    return NOT_APPLICABLE if v == 1 else v - 1


def _read_turn_file(path: Path, report: ImportReport, by_conv: dict[str, list[tuple[str, str]]],
                    sessions: dict[tuple[str, str], _Parsed], coding: str = "auto",
                    ) -> dict[tuple[str, str], list[tuple[int, list[tuple[int, dict[str, Value]]]]]]:
    """Turn-file rows matched to sessions: ``{session key: [(line, [(turn position, values), ...]),
    ...]}``."""
    header, rows = read_rows(path)
    if "ConvId" not in header:
        raise ImportFileError(f"{path}: line 1: missing column 'ConvId'")
    ks = sorted({int(c[9:]) for c in header if re.fullmatch(r"relevance\d+", c)})
    if not ks:
        raise ImportFileError(f"{path}: line 1: no relevance1.. columns (is this the AB-ReDial turn file?)")
    for k in ks:
        for col in (f"interestingness{k}", f"utterance{4 * k - 2}"):
            if col not in header:
                raise ImportFileError(f"{path}: line 1: missing column {col!r}")
    if coding == "auto":
        fours = any(read_number(row, f"relevance{k}", path, line) == 4 for line, row in rows for k in ks)
        coding = "shifted" if fours else "paper"
        if fours:
            report.warn(f"{path.name}: relevance values of 4 found: read as the shifted coding (1 = not "
                        f"applicable, 2/3/4 = no/somewhat/yes); pass relevance_coding='paper' to refuse them")
    out: dict[tuple[str, str], list[tuple[int, list[tuple[int, dict[str, Value]]]]]] = defaultdict(list)
    for line, row in rows:
        conv = (row.get("ConvId") or "").strip()
        rated = []
        for k in ks:
            col = f"utterance{4 * k - 2}"
            utt = _utterances(row, [col], path, line)
            relevance: Value = read_number(row, f"relevance{k}", path, line)
            if coding == "shifted":
                relevance = _recode_relevance(read_number(row, f"relevance{k}", path, line))
            values: dict[str, Value] = {"relevance": relevance,
                      "interestingness": read_number(row, f"interestingness{k}", path, line)}
            if f"overall{k}" in header and (row.get(f"overall{k}") or "").strip():
                report.skipped["turn-level overall (overallK): no such field in parley"] += 1
            if utt and utt[0][0] != "system":  # a few rows of the real file are shifted by a merged cell
                report.skipped["turn ratings whose rated utterance is not the system's"] += 1
                report.warn(f"{path.name}: line {line}, column {col}: the rated utterance is the USER's; "
                            f"that turn rating is skipped")
                continue
            rated.append((_norm(utt[0][1]) if utt else None, values))
        key = _match(conv, [r[0] for r in rated if r[0]], by_conv, sessions)
        if key is None:
            report.skipped["turn-file rows matching no imported dialogue"] += 1
            if conv in by_conv:  # rows of dialogues left out by --limit are silently ignored
                report.warn(f"{path.name}: line {line}: ConvId {conv}: rated utterances not found in the "
                            f"dialogue file; row skipped")
            continue
        texts = [(_norm(t) if r == "system" else None) for r, t in sessions[key]["utts"]]
        items = [(texts.index(text), values) for text, values in rated if text is not None]
        out[key].append((line, items))
    return out


def _match(conv: str, rated: list[str], by_conv: dict[str, list[tuple[str, str]]],
           sessions: dict[tuple[str, str], _Parsed]) -> tuple[str, str] | None:
    for key in by_conv.get(conv, []):
        texts = {_norm(t) for r, t in sessions[key]["utts"] if r == "system"}
        if rated and all(t in texts for t in rated):
            return key
    return None


__all__ = ["read", "stable_id"]
