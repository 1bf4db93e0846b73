"""Format files for end-to-end TOD checkpoints: how a checkpoint was trained to see a dialogue; rendering it.

A *format file* (TOML, bundled ones in ``assets/formats/``) says how user and system turns are wrapped and
normalised, the prompts (PPTOD), the segment markers and their order (UBAR: ``<sos_u> … <eos_u> <sos_b> …
<eos_b> <sos_db> … <eos_db> <sos_a> … <eos_a> <sos_r> … <eos_r>``), the belief-state and act syntaxes
(:mod:`engine.systems.hf_belief`), the DB summary, and how the model's slot names map to parley's
(:mod:`engine.mwdb`). Each bundled file names the reference commit it was checked against.

The same rendering serves inference (:mod:`engine.systems.hf_causal`, :mod:`engine.systems.hf_seq2seq`) and
training (:mod:`engine.train`), so a model trained here sees exactly what the adapter feeds it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from parley.assets import asset_path
from parley.engine.mwdb import DOMAINS
from parley.engine.spec import SpecError
from parley.engine.systems.hf_belief import State, format_belief, parse_belief, parse_belief_checked
from parley.text import squash

__all__ = ["Format", "State", "TurnRecord", "active_domain", "between", "format_belief", "join",
           "list_formats", "load_format", "normalise_text", "parse_belief", "parse_belief_checked",
           "render_context", "render_target"]

FORMATS_DIR = asset_path("formats")
BELIEF_STYLES = ("bracket", "triples", "brace")
ACT_STYLES = ("bracket", "triples")
DB_STYLES = ("bucket", "count", "simpletod", "augpt", "none")
NORMALISE = ("none", "lower", "multiwoz")
#: SimpleTOD's DB pointer buckets (MultiWOZ's 6-way pointer vector, as text)
DB_DOMAINS = ("restaurant", "hotel", "attraction", "train")


@dataclass(frozen=True)
class TurnRecord:
    """One finished turn as the model saw and wrote it (delexicalised), plus what the user was shown."""

    user: str
    belief: str = ""
    db: str = ""
    act: str = ""
    response: str = ""
    shown: str = ""


def augpt_match(count: int) -> str:
    """AuGPT's text for a DB match count: ``no match``, ``1 match``, ``N matches``."""
    return "no match" if count == 0 else "1 match" if count == 1 else f"{count} matches"


def simpletod_match(domain: str, count: int) -> str:
    """SimpleTOD's text for a DB match count: ``=0`` … ``=4``, ``>=5``; trains ``=0 <3 <6 <11 <41 >40``."""
    if domain != "train":
        return ">=5" if count >= 5 else f"={count}"
    for limit, label in ((0, "=0"), (2, "<3"), (5, "<6"), (10, "<11"), (40, "<41")):
        if count <= limit:
            return label
    return ">40"


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
    normalise: str = "none"  # user/system text: "none", "lower", "multiwoz" (lower case, corpus tokenisation)
    prompt_markers: bool = True  # causal: parley writes each segment's start marker (false: the model does)
    system_text: str = "delex"  # earlier system turns in the context: "delex" (as written), "shown" (filled)
    separator: str = " "  # between the context and the segments (causal); "" = markers carry their own spaces
    history: str = "text"  # causal only: "text" (user/system only) or "full" (every segment of earlier turns)
    previous_belief: bool = False  # the state before this turn, as a belief segment, before the user's turn
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
    belief_ignore: tuple[str, ...] = ()  # model slot names that are not constraints (AuGPT's "booked")
    db_style: str = "bucket"
    db_start: str = "<sos_db>"
    db_end: str = "<eos_db>"
    db_tokens: tuple[str, ...] = ("[db_0]", "[db_1]", "[db_2]", "[db_3]")
    db_thresholds: tuple[int, ...] = (0, 1, 3)
    db_template: str = "{domain} {count}"
    db_thresholds_by_domain: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    db_scope: str = "active"  # "active": the turn's domain; "belief": every DB domain in the belief state
    db_nores: str = ""  # bucket token when the turn has no DB query (no constraints, or not a DB domain)
    db_place: str = "encoder"  # seq2seq: "encoder" (in the input) or "decoder" (first decoder token, MinTL)
    act_start: str = "<sos_a>"
    act_end: str = "<eos_a>"
    act_style: str = "bracket"
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
        for k in ("special_tokens", "db_tokens", "db_thresholds", "belief_ignore"):
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
        if self.db_scope not in ("active", "belief"):
            raise SpecError(f"format {source}: db scope must be active or belief")
        if self.db_place not in ("encoder", "decoder"):
            raise SpecError(f"format {source}: db place must be encoder or decoder")
        if self.act_style not in ACT_STYLES:
            raise SpecError(f"format {source}: act style must be one of {', '.join(ACT_STYLES)}")
        if self.system_text not in ("delex", "shown"):
            raise SpecError(f"format {source}: context system_text must be delex or shown")
        if self.normalise not in NORMALISE:
            raise SpecError(f"format {source}: context normalise must be one of {', '.join(NORMALISE)}")
        if self.history not in ("text", "full"):
            raise SpecError(f"format {source}: context history must be text or full")
        if "{text}" not in self.user or "{text}" not in self.system:
            raise SpecError(f"format {source}: context user/system templates need {{text}}")

    # ---- rendering -----------------------------------------------------------------------------------------
    def db_text(self, domain: str | None, count: int) -> str:
        """The DB segment for one domain's match count (with its markers), e.g. ``<sos_db> [db_2] <eos_db>``.
        """
        return self.db_segment([(domain, count)] if domain else [])

    def db_segment(self, counts: Sequence[tuple[str | None, int | None]]) -> str:
        """The DB segment for ``(domain, match count)`` pairs; a count of None means no query was made (no
        constraints yet). One pair for ``scope = "active"``; SimpleTOD and AuGPT list several
        (``restaurant match=2 , train match<6``; ``restaurant 2 matches , train no match``)."""
        if self.db_style == "none":
            return ""
        if self.db_style == "simpletod":
            body = " , ".join(f"{d} match{simpletod_match(d, n or 0)}" for d, n in counts if d)
        elif self.db_style == "augpt":
            body = " , ".join(f"{d} {augpt_match(n or 0)}" for d, n in counts if d)
        elif self.db_style == "bucket":
            domain, count = counts[0] if counts else (None, None)
            body = self.db_tokens[-1]
            if self.db_nores and (count is None or domain not in DB_DOMAINS):
                body = self.db_nores
            else:
                limits = self.db_thresholds_by_domain.get(domain or "", self.db_thresholds)
                for tok, limit in zip(self.db_tokens, limits, strict=False):
                    if (count or 0) <= limit:
                        body = tok
                        break
        else:
            domain, count = counts[0] if counts else (None, None)
            body = self.db_template.format(domain=domain or "none", count=count or 0)
        return self.segment(self.db_start, body, self.db_end)

    def segment(self, *parts: str) -> str:
        """Parts joined the format's way: by ``separator`` (stripped, empty parts dropped; ``separator = ""``
        concatenates them as written, for formats whose markers carry their own spaces)."""
        if self.separator:
            return self.separator.join(p.strip() for p in parts if p and p.strip())
        return "".join(parts)

    def db_domains(self, state: Mapping[str, Mapping[str, object]], active: str | None) -> list[str]:
        """The domains the DB segment reports on for ``state`` (see ``db_scope``)."""
        if self.db_scope == "belief":
            return [d for d in DB_DOMAINS if state.get(d)]
        return [active] if active else []


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
    from parley.jsonfile import decode
    from parley.limits import RECORD, read_bytes

    fmt = Format.from_toml(decode(read_bytes(p, str(p), SpecError, RECORD), str(p), SpecError), str(p))
    if kind and fmt.kind != kind:
        raise SpecError(f"format {fmt.name!r} is for {fmt.kind} models, not {kind}")
    return fmt


def between(text: str, start: str, end: str) -> str:
    """The text between the first ``start`` marker and the following ``end`` marker (either may be missing).
    """
    s = text
    if start and start in s:
        s = s.split(start, 1)[1]
    if end and end in s:
        s = s.split(end, 1)[0]
    return s.strip()


def active_domain(state: Mapping[str, Mapping[str, object]],
                  previous: Mapping[str, Mapping[str, object]] | None, hint: str | None = None) -> str | None:
    """The domain the turn is about: one whose slots changed this turn, else ``hint``, else the last in the
    state."""
    prev = previous or {}
    changed = [d for d, s in state.items() if dict(s) != dict(prev.get(d, {}))]
    if changed:
        return changed[-1]
    if hint and hint in DOMAINS:
        return hint
    return next(reversed(list(state)), None) if state else None


_TIME = re.compile(r"(\d{1,2})\s*:\s*(\d{2})\b")
_CLITIC = re.compile(r"(\w)(n't|'s|'m|'re|'ve|'ll|'d)\b")
_PUNCT = re.compile(r"[!?;()\"]|[.,:](?!\d)|(?<!\d)[.,:]")


def normalise_text(fmt: Format, text: str) -> str:
    """User/system text as the format's training data spelled it. ``multiwoz``: lower case and the corpus's
    tokenisation — ``I'd like it at 6:30, please.`` → ``i 'd like it at 6:30 , please .`` (times and decimals
    kept whole, clitics and punctuation split off)."""
    t = squash(text)
    if fmt.normalise == "none":
        return t
    t = t.lower().replace("\u2019", "'")
    if fmt.normalise == "multiwoz":
        t = _TIME.sub(r"\1:\2", t)
        t = _CLITIC.sub(r"\1 \2", t)
        t = _PUNCT.sub(lambda m: f" {m.group(0)} ", t)
    return squash(t)


def render_context(fmt: Format, records: Sequence[TurnRecord], user: str, full: bool = False,
                   previous: Mapping[str, Mapping[str, object]] | None = None) -> str:
    """The dialogue context the way the format wraps it (the last ``max_turns`` earlier turns).

    ``full`` (UBAR) feeds every segment of earlier turns back; otherwise earlier turns are user and system
    text and the context ends with ``context_suffix``. With ``previous_belief`` the state before this turn
    (``previous``, empty at the start) comes as a belief segment before the user's turn, so slots given
    earlier than ``max_turns`` turns back stay in view.
    """
    if fmt.max_turns:
        records = records[-fmt.max_turns:]
    parts = [fmt.context_prefix]
    for r in records:
        parts.append(fmt.user.format(text=normalise_text(fmt, r.user)))
        if full:
            parts += [join(fmt.belief_start, r.belief, fmt.belief_end), r.db,
                      join(fmt.act_start, r.act, fmt.act_end) if r.act else "",
                      join(fmt.response_start, r.response, fmt.response_end)]
        else:
            said = r.shown if fmt.system_text == "shown" and r.shown else r.response
            parts.append(fmt.system.format(text=normalise_text(fmt, said)))
    if fmt.previous_belief:
        parts.append(format_belief(previous or {}, fmt, markers=True))
    parts.append(fmt.user.format(text=normalise_text(fmt, user)))
    if not full:
        parts.append(fmt.context_suffix)
    return join(*parts)


def render_target(fmt: Format, belief: str, db: str, act: str, response: str) -> str:
    """What a causal model writes after the context for one turn: belief, DB segment (written by parley at
    inference), acts and the delexicalised response, each with its markers."""
    return fmt.segment(fmt.belief_start, belief, fmt.belief_end, db,
                       fmt.segment(fmt.act_start, act, fmt.act_end) if fmt.act_start or act else "",
                       fmt.response_start, response, fmt.response_end)
