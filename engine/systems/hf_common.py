"""Format files for end-to-end TOD checkpoints, and belief-state parsing/serialising.

A *format file* (TOML, bundled ones in ``assets/formats/``) says how a checkpoint was trained to see a dialogue:
how user and system turns are wrapped, the prompts (PPTOD), the segment markers and their order
(UBAR: ``<sos_u> … <eos_u> <sos_b> … <eos_b> <sos_db> … <eos_db> <sos_a> … <eos_a> <sos_r> … <eos_r>``), the
belief-state syntax, the DB summary, and how the model's slot names map to parley's (:mod:`engine.mwdb`).

Belief-state syntaxes (``[belief] style``):

- ``bracket`` (UBAR, PPTOD, MinTL): ``[restaurant] food chinese area centre [hotel] stars 4``
- ``triples`` (SimpleTOD): ``restaurant food chinese, restaurant area centre``
- ``brace`` (AuGPT): ``restaurant { food = chinese , area = centre } hotel { stars = 4 }``

``[belief] mode`` is ``full`` (the model writes the whole state each turn) or ``delta`` (MinTL-style updates merged
into the previous state; the value ``<null>`` or ``none`` deletes a slot).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from parley.engine.mwdb import BOOKABLE, DOMAINS, INFORMABLE, normalise_time
from parley.engine.spec import SpecError

FORMATS_DIR = Path(__file__).resolve().parents[2] / "assets" / "formats"
BELIEF_STYLES = ("bracket", "triples", "brace")
DB_STYLES = ("bucket", "count", "none")
NULL_VALUES = frozenset({"", "none", "not mentioned", "<null>", "null", "nan"})
DONTCARE_VALUES = frozenset({"dontcare", "don't care", "do n't care", "dont care", "any", "doesn't care"})

State = dict[str, dict[str, str]]


@dataclass(frozen=True)
class Format:
    """How one family of checkpoints reads and writes a dialogue (see the module docstring)."""

    name: str
    kind: str  # "seq2seq" | "causal"
    description: str = ""
    special_tokens: tuple[str, ...] = ()
    # context
    user: str = "<sos_u> {text} <eos_u>"
    system: str = "<sos_r> {text} <eos_r>"
    context_prefix: str = ""
    context_suffix: str = ""
    max_turns: int = 0  # previous turns kept in the context (0 = all)
    history: str = "text"  # causal only: "text" (user/system only) or "full" (every segment of earlier turns)
    # seq2seq prompts; inputs may use {prompt}, {context}, {belief}, {db}, {prev_belief}
    belief_prompt: str = ""
    response_prompt: str = ""
    belief_input: str = "{prompt} {context}"
    response_input: str = "{prompt} {context} {db}"
    # segments
    belief_start: str = "<sos_b>"
    belief_end: str = "<eos_b>"
    belief_style: str = "bracket"
    belief_mode: str = "full"
    db_style: str = "bucket"
    db_start: str = "<sos_db>"
    db_end: str = "<eos_db>"
    db_tokens: tuple[str, ...] = ("[db_0]", "[db_1]", "[db_2]", "[db_3]")
    db_thresholds: tuple[int, ...] = (0, 1, 3)
    db_template: str = "{domain} {count}"
    db_thresholds_by_domain: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    act_start: str = "<sos_a>"
    act_end: str = "<eos_a>"
    response_start: str = "<sos_r>"
    response_end: str = "<eos_r>"
    slots: Mapping[str, str] = field(default_factory=dict)
    max_new_tokens: int = 80

    # ---- loading -------------------------------------------------------------------------------------------
    @classmethod
    def from_toml(cls, text: str, source: str = "<format>") -> Format:
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise SpecError(f"format file {source}: {e}") from None
        flat: dict[str, Any] = {}
        sections = {"context": "", "prompts": "", "belief": "belief_", "db": "db_", "act": "act_",
                    "response": "response_"}
        renames = {"context_prefix": "context_prefix", "prefix": "context_prefix", "suffix": "context_suffix",
                   "belief": "belief_prompt", "response": "response_prompt"}
        for key, value in raw.items():
            if key == "slots":
                if not isinstance(value, dict):
                    raise SpecError(f"format file {source}: [slots] must be a table")
                flat["slots"] = {str(k).lower(): str(v) for k, v in value.items()}
            elif key in sections and isinstance(value, dict):
                for k, v in value.items():
                    name = str(renames.get(k, k)) if key in ("context", "prompts") else sections[key] + k
                    flat[name] = v
            else:
                flat[key] = value
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(flat) - known)
        if unknown:
            raise SpecError(f"format file {source}: unknown keys {', '.join(unknown)}")
        for k in ("special_tokens", "db_tokens", "db_thresholds"):
            if k in flat:
                flat[k] = tuple(flat[k])
        if "db_thresholds_by_domain" in flat:
            flat["db_thresholds_by_domain"] = {str(d): tuple(int(x) for x in v)
                                               for d, v in dict(flat["db_thresholds_by_domain"]).items()}
        flat.setdefault("name", Path(source).stem)
        fmt = cls(**flat)
        fmt.validate(source)
        return fmt

    def validate(self, source: str = "<format>") -> None:
        if self.kind not in ("seq2seq", "causal"):
            raise SpecError(f"format {source}: kind must be seq2seq or causal, not {self.kind!r}")
        if self.belief_style not in BELIEF_STYLES:
            raise SpecError(f"format {source}: belief style must be one of {', '.join(BELIEF_STYLES)}")
        if self.belief_mode not in ("full", "delta"):
            raise SpecError(f"format {source}: belief mode must be full or delta")
        if self.db_style not in DB_STYLES:
            raise SpecError(f"format {source}: db style must be one of {', '.join(DB_STYLES)}")
        for limits in (self.db_thresholds, *self.db_thresholds_by_domain.values()):
            if self.db_style == "bucket" and len(self.db_tokens) != len(limits) + 1:
                raise SpecError(f"format {source}: db needs one more token than thresholds")
        if self.history not in ("text", "full"):
            raise SpecError(f"format {source}: context history must be text or full")
        if "{text}" not in self.user or "{text}" not in self.system:
            raise SpecError(f"format {source}: context user/system templates need {{text}}")

    # ---- rendering -----------------------------------------------------------------------------------------
    def db_text(self, domain: str | None, count: int) -> str:
        """The DB segment for a match count (with its markers), e.g. ``<sos_db> [db_2] <eos_db>``."""
        if self.db_style == "none":
            return ""
        if self.db_style == "bucket":
            token = self.db_tokens[-1]
            limits = self.db_thresholds_by_domain.get(domain or "", self.db_thresholds)
            for tok, limit in zip(self.db_tokens, limits, strict=False):
                if count <= limit:
                    token = tok
                    break
            body = token
        else:
            body = self.db_template.format(domain=domain or "none", count=count)
        return join(self.db_start, body, self.db_end)


def join(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p and p.strip())


def list_formats() -> list[str]:
    """Names of the bundled format files."""
    return sorted(p.stem for p in FORMATS_DIR.glob("*.toml"))


def load_format(name_or_path: str | Path, kind: str | None = None) -> Format:
    """A bundled format by name (``pptod``) or a TOML file by path; ``kind`` checks it suits the system."""
    p = Path(str(name_or_path)).expanduser()
    if not p.suffix and not p.exists():
        p = FORMATS_DIR / f"{name_or_path}.toml"
    if not p.is_file():
        raise SpecError(f"unknown format {str(name_or_path)!r} (bundled: {', '.join(list_formats())}; "
                        "or a path to a .toml format file)")
    fmt = Format.from_toml(p.read_text(encoding="utf-8"), str(p))
    if kind and fmt.kind != kind:
        raise SpecError(f"format {fmt.name!r} is for {fmt.kind} models, not {kind}")
    return fmt


# ---- belief states ---------------------------------------------------------------------------------------------

def _slot_vocab(fmt: Format, domain: str) -> list[str]:
    """Model-side slot names that may appear in ``domain``, longest first (multi-word names matched greedily)."""
    names: set[str] = set()
    for key in fmt.slots:
        d, dot, s = key.rpartition(".")
        if not dot:
            names.add(key)
        elif d == domain:
            names.add(s)
    for s in (*INFORMABLE.get(domain, ()), *BOOKABLE.get(domain, ())):
        names.add(s.lower())
        names.add(s.lower().replace("_", " "))
    return sorted(names, key=lambda n: (-len(n.split()), -len(n)))


def canonical_slot(fmt: Format, domain: str, slot: str) -> str:
    """Model slot name → parley slot name (``leave`` → ``leaveAt``, ``book people`` → ``book_people``)."""
    s = slot.strip().lower()
    mapped = fmt.slots.get(f"{domain}.{s}") or fmt.slots.get(s)
    if mapped:
        return mapped
    for name in (*INFORMABLE.get(domain, ()), *BOOKABLE.get(domain, ())):
        if s in (name.lower(), name.lower().replace("_", " ")):
            return name
    return re.sub(r"\s+", "_", s)


def model_slot(fmt: Format, domain: str, slot: str) -> str:
    """parley slot name → the model's name for it (inverse of :func:`canonical_slot`)."""
    for key, value in fmt.slots.items():
        d, dot, s = key.rpartition(".")
        if value == slot and (not dot or d == domain) and (dot or f"{domain}.{s}" not in fmt.slots):
            return s
    return slot.replace("_", " ") if slot.startswith("book_") else slot.lower()


def clean_value(slot: str, value: str) -> str | None:
    v = re.sub(r"\s+", " ", value.strip().lower())
    if v in NULL_VALUES:
        return None
    if v in DONTCARE_VALUES:
        return "dontcare"
    if slot in ("leaveAt", "arriveBy", "book_time"):
        v = normalise_time(v.replace(" : ", ":"))
    return v


def _put(state: State, fmt: Format, domain: str, slot: str, value: str, deletions: set[tuple[str, str]]) -> None:
    domain = domain.strip("[] ").lower()
    if domain not in DOMAINS or not slot.strip():
        return
    name = canonical_slot(fmt, domain, slot)
    v = clean_value(name, value)
    if v is None:
        deletions.add((domain, name))
        return
    state.setdefault(domain, {})[name] = v


def _split_slots(fmt: Format, domain: str, words: list[str]) -> list[tuple[str, str]]:
    vocab = _slot_vocab(fmt, domain)
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(words):
        hit = None
        for name in vocab:
            n = name.split()
            if [w.lower() for w in words[i:i + len(n)]] == n:
                hit = n
                break
        # a slot name directly after another slot name is a value ("type hotel", "name parking lot")
        if hit and not (out and not out[-1][1]):
            out.append((" ".join(hit), []))
            i += len(hit)
            continue
        if out:
            out[-1][1].append(words[i])
        i += 1
    return [(s, " ".join(v)) for s, v in out]


def parse_belief(text: str, fmt: Format, previous: Mapping[str, Mapping[str, str]] | None = None) -> State:
    """Parse a generated belief state into ``{domain: {slot: value}}`` (parley slot names, lower-case values).

    Segment markers are stripped; unknown domains are ignored. In ``delta`` mode the result is ``previous``
    updated by the parsed slots.
    """
    body = text
    for marker in (fmt.belief_start, fmt.belief_end):
        if marker:
            body = body.replace(marker, " ")
    body = body.strip()
    state: State = {}
    deletions: set[tuple[str, str]] = set()
    if fmt.belief_style == "bracket":
        for m in re.finditer(r"\[\s*([a-z]+)\s*\]([^\[]*)", body, flags=re.I):
            domain = m.group(1).lower()
            for slot, value in _split_slots(fmt, domain, m.group(2).split()):
                _put(state, fmt, domain, slot, value, deletions)
    elif fmt.belief_style == "triples":
        for part in body.split(","):
            words = part.split()
            if len(words) >= 3:
                domain = words[0].lower()
                pairs = _split_slots(fmt, domain, words[1:])
                if pairs:
                    slot, value = pairs[0]
                    _put(state, fmt, domain, slot, value, deletions)
    else:  # brace
        for m in re.finditer(r"([a-z]+)\s*\{([^}]*)\}", body, flags=re.I):
            for pair in m.group(2).split(","):
                slot, eq, value = pair.partition("=")
                if eq:
                    _put(state, fmt, m.group(1), slot, value, deletions)
    if fmt.belief_mode == "delta":
        merged: State = {d: dict(s) for d, s in (previous or {}).items()}
        for d, slots in state.items():
            merged.setdefault(d, {}).update(slots)
        for d, slot in deletions:
            merged.get(d, {}).pop(slot, None)
        return {d: s for d, s in merged.items() if s}
    return state


def format_belief(state: Mapping[str, Mapping[str, Any]], fmt: Format, markers: bool = True) -> str:
    """Serialise a state the way the model writes it (for ``full`` histories and ``{prev_belief}``)."""
    parts: list[str] = []
    for domain, slots in state.items():
        items = [(model_slot(fmt, domain, s), str(v)) for s, v in slots.items() if v not in (None, "")]
        if not items:
            continue
        if fmt.belief_style == "bracket":
            parts.append(f"[{domain}] " + " ".join(f"{s} {v}" for s, v in items))
        elif fmt.belief_style == "triples":
            parts.append(", ".join(f"{domain} {s} {v}" for s, v in items))
        else:
            parts.append(f"{domain} {{ " + " , ".join(f"{s} = {v}" for s, v in items) + " }")
    body = (", " if fmt.belief_style == "triples" else " ").join(parts)
    return join(fmt.belief_start, body, fmt.belief_end) if markers else body


def between(text: str, start: str, end: str) -> str:
    """The text between the first ``start`` marker and the following ``end`` marker (either may be missing)."""
    s = text
    if start and start in s:
        s = s.split(start, 1)[1]
    if end and end in s:
        s = s.split(end, 1)[0]
    return s.strip()


def active_domain(state: Mapping[str, Mapping[str, Any]], previous: Mapping[str, Mapping[str, Any]] | None,
                  hint: str | None = None) -> str | None:
    """The domain the turn is about: one whose slots changed this turn, else ``hint``, else the last in the state."""
    prev = previous or {}
    changed = [d for d, s in state.items() if dict(s) != dict(prev.get(d, {}))]
    if changed:
        return changed[-1]
    if hint and hint in DOMAINS:
        return hint
    return next(reversed(list(state)), None) if state else None
