"""What ``hf-seq2seq`` and ``hf-causal`` share: parameters, history bookkeeping, the belief → DB → lexicalise turn.

A turn runs in three steps: (1) the model writes the belief state for the dialogue so far; (2) parley parses it,
queries the MultiWOZ DB for the active domain and renders the DB segment the model was trained to read;
(3) the model writes the (delexicalised) response, which parley lexicalises from the matching DB rows.
Subclasses implement :meth:`HFTODSystem._generate_belief` and :meth:`HFTODSystem._generate_response` on top of a
single text-in/text-out :meth:`HFTODSystem._generate` (which tests replace to script the model's output).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from parley.engine.loading import resolve
from parley.engine.mwdb import MultiwozDB, load_db
from parley.engine.params import checked
from parley.engine.spec import SpecError
from parley.engine.systems.hf_common import Format, State, active_domain, join, load_format, parse_belief
from parley.engine.systems.hf_lex import lexicalise as lex_fill
from parley.engine.systems.hf_lex import lookup
from parley.engine.types import Message, SystemTurn, TurnError
from parley.params import Text
from parley.progress import Progress

FORMAT_FILE = "parley-format.toml"


@dataclass(frozen=True)
class TurnRecord:
    """One finished turn as the model saw and wrote it (delexicalised), plus what the user was shown."""

    user: str
    belief: str = ""
    db: str = ""
    act: str = ""
    response: str = ""
    shown: str = ""


class HFTODSystem:
    """Base class of the end-to-end checkpoint systems (not registered itself)."""

    name = "hf"
    kind = "seq2seq"
    default_format = "pptod"

    @checked
    def __init__(self, model: Text | None = None, format: Text | None = None,
                 max_new_tokens: Annotated[int, Field(ge=1, le=1024)] | None = None,
                 allow_pickle: bool = False, trust_remote_code: bool = False, db: Text | None = None,
                 max_input_tokens: Annotated[int, Field(ge=16)] | None = None,
                 seed: int | None = None) -> None:
        if model is None or not str(model).strip():
            raise SpecError(f"{self.name} needs model=PATH or a Hugging Face id, e.g. {self.name}:model=./pptod")
        self.model_ref = str(model).strip()
        self.allow_pickle = allow_pickle
        self.trust_remote_code = trust_remote_code
        fmt_ref = format
        if fmt_ref is None and Path(self.model_ref).expanduser().joinpath(FORMAT_FILE).is_file():
            fmt_ref = str(Path(self.model_ref).expanduser() / FORMAT_FILE)
        self.format: Format = load_format(str(fmt_ref or self.default_format), kind=self.kind)
        self.max_new_tokens = int(max_new_tokens or self.format.max_new_tokens)
        self.max_input_tokens = max_input_tokens
        self.db_dir = db
        self.seed = seed
        self.model: Any = None
        self.tokenizer: Any = None
        self._db: MultiwozDB | None = None
        self._load_lock = threading.Lock()
        self._records: list[TurnRecord] = []
        self._state: State = {}
        self.missing_tokens: list[str] = []

    # ---- lifecycle ---------------------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self.model is not None

    def load(self, progress: Progress = None) -> None:
        """Load the checkpoint (safety rules of :mod:`engine.loading`); raises :class:`LoadError`."""
        with self._load_lock:
            if self.model is not None:
                return
            src = resolve(self.model_ref, allow_pickle=self.allow_pickle)
            self._db = load_db(self.db_dir)
            self.model, self.tokenizer = self._load_model(src, progress)

    def _load_model(self, src: Any, progress: Progress) -> tuple[Any, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else self.seed
        self._records = []
        self._state = {}

    @property
    def db(self) -> MultiwozDB:
        if self._db is None:
            self._db = load_db(self.db_dir)
        return self._db

    # ---- history -----------------------------------------------------------------------------------------------
    def _sync(self, history: tuple[Message, ...]) -> tuple[list[TurnRecord], State]:
        """Our records when ``history`` is the dialogue we produced; else records rebuilt from its text."""
        pairs: list[tuple[str, str]] = []
        pending: str | None = None
        for m in history[:-1]:
            if m.role == "user":
                pending = m.text if pending is None else f"{pending} {m.text}"
            else:
                pairs.append((pending or "", m.text))
                pending = None
        mine = [(r.user, r.shown) for r in self._records]
        if pairs == mine:
            return list(self._records), dict(self._state)
        return [TurnRecord(user=u, response=s, shown=s) for u, s in pairs], {}

    def context(self, records: list[TurnRecord], user: str, full: bool = False) -> str:
        """The dialogue context the way the format wraps it (last ``max_turns`` earlier turns)."""
        fmt = self.format
        if fmt.max_turns:
            records = records[-fmt.max_turns:]
        parts = [fmt.context_prefix]
        for r in records:
            parts.append(fmt.user.format(text=r.user))
            if full:
                parts += [join(fmt.belief_start, r.belief, fmt.belief_end), r.db,
                          join(fmt.act_start, r.act, fmt.act_end) if r.act else "",
                          join(fmt.response_start, r.response, fmt.response_end)]
            else:
                parts.append(fmt.system.format(text=r.response))
        parts.append(fmt.user.format(text=user))
        if not full:
            parts.append(fmt.context_suffix)
        return join(*parts)

    def fit(self, build: Callable[[list[TurnRecord]], str], records: list[TurnRecord]) -> str:
        """``build(records)``, dropping the oldest turns until it fits the model's input length."""
        limit = self._input_limit()
        text = build(records)
        while records and limit and self._count_tokens(text) > limit:
            records = records[1:]
            text = build(records)
        return text

    def _input_limit(self) -> int:
        return self.max_input_tokens or 0

    def _count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text)["input_ids"]) if self.tokenizer is not None else len(text.split())

    # ---- the turn ----------------------------------------------------------------------------------------------
    def _generate(self, text: str, stop: str | None = None) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _generate_belief(self, records: list[TurnRecord], user: str, prev: State) -> tuple[str, str]:
        """``(belief text without markers, raw model output)``."""
        raise NotImplementedError

    def _generate_response(self, records: list[TurnRecord], user: str, belief: str, db_text: str
                           ) -> tuple[str, str, str]:
        """``(act text, delexicalised response, raw model output)``."""
        raise NotImplementedError

    def respond(self, history: tuple[Message, ...]) -> SystemTurn:
        if not history or history[-1].role != "user":
            raise TurnError("the dialogue history must end with a user message")
        if not self.loaded:
            self.load()
        t0 = time.perf_counter()
        records, prev = self._sync(history)
        user = history[-1].text
        try:
            belief, raw_b = self._generate_belief(records, user, prev)
            state = parse_belief(belief, self.format, prev)
            domain = active_domain(state, prev)
            result = lookup(self.db, state, domain)
            db_text = self.format.db_text(domain, result.count)
            act, response, raw_r = self._generate_response(records, user, belief, db_text)
        except TurnError:
            raise
        except Exception as e:
            raise TurnError(f"{self.name}: generation failed: {type(e).__name__}: {e}") from e
        turn_no = len(records)
        lex = lex_fill(response, self.db, domain, result, state, seed=self.seed, turn=turn_no)
        text = lex.text or "(the model produced an empty response)"
        self._records = [*records, TurnRecord(user, belief, db_text, act, response, text)]
        self._state = state
        internals: dict[str, Any] = {
            "model": self.model_ref, "format": self.format.name, "belief_raw": belief, "db": result.to_json(),
            "db_segment": db_text, "act_raw": act, "delexicalised": response, "filled": dict(lex.filled),
            "unfilled": list(lex.unfilled), "raw_output": {"belief": raw_b, "response": raw_r},
            "active_domain": domain,
        }
        if self.missing_tokens:  # the format's markers are not single tokens of this model
            internals["missing_special_tokens"] = list(self.missing_tokens)
        return SystemTurn(text=text, state={d: dict(s) for d, s in state.items()}, acts=parse_acts(act),
                          internals=internals, latency_ms=(time.perf_counter() - t0) * 1000)


def parse_acts(act: str) -> tuple[Mapping[str, Any], ...]:
    """UBAR-style act text ``[restaurant] [inform] name food [request] area`` → act dicts (best effort)."""
    import re

    out: list[dict[str, Any]] = []
    domain: str | None = None
    intent: str | None = None
    for tok in act.split():
        m = re.fullmatch(r"\[([a-z_]+)\]", tok)
        if m:
            word = m.group(1)
            if word in ("restaurant", "hotel", "attraction", "train", "taxi", "hospital", "police", "general",
                        "booking"):
                domain, intent = word, None
            else:
                intent = word
                out.append({"act": intent, "domain": domain, "slot": None, "value": None})
        elif intent is not None:
            if out and out[-1]["act"] == intent and out[-1]["slot"] is None:
                out[-1]["slot"] = tok
            else:
                out.append({"act": intent, "domain": domain, "slot": tok, "value": None})
    return tuple(out)


def check_special_tokens(fmt: Format, tokenizer: Any) -> list[str]:
    """The format's special tokens the tokenizer does not know as single tokens (worth a warning)."""
    vocab = tokenizer.get_vocab() if hasattr(tokenizer, "get_vocab") else {}
    return [t for t in fmt.special_tokens if t not in vocab]
