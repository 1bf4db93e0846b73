"""What ``hf-seq2seq`` and ``hf-causal`` share: parameters, history bookkeeping, the belief → DB → lexicalise
turn.

A turn runs in three steps: (1) the model writes the belief state for the dialogue so far; (2) parley parses
it, queries the MultiWOZ DB for the active domain and renders the DB segment the model was trained to read;
(3) the model writes the (delexicalised) response, which parley lexicalises from the matching DB rows.
Subclasses implement :meth:`HFTODSystem._generate_belief` and :meth:`HFTODSystem._generate_response` on top of
a single text-in/text-out :meth:`HFTODSystem._generate`.

Malformed generations never reach the user as garbage: a belief state without its end marker, fragments that
are not ``domain slot value`` of the MultiWOZ ontology, or a response without its end marker (or empty) become
:data:`FALLBACK` with ``internals["fallback"] = True``, ``internals["reason"]`` and the raw output kept.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from parley.engine.loading import resolve
from parley.engine.mwdb import MultiwozDB, load_db
from parley.engine.params import Field, Params, SystemParams
from parley.engine.spec import SpecError
from parley.engine.systems.hf_belief import parse_acts, parse_belief_checked
from parley.engine.systems.hf_common import (
    Format,
    State,
    TurnRecord,
    active_domain,
    load_format,
    render_context,
)
from parley.engine.systems.hf_lex import db_counts, lookup
from parley.engine.systems.hf_lex import lexicalise as lex_fill
from parley.engine.systems.hf_snap import snap_state
from parley.engine.types import Message, SystemInternals, SystemTurn, TurnError
from parley.params import Text
from parley.progress import Progress

__all__ = ["FALLBACK", "HFTODSystem", "TurnRecord", "check_special_tokens", "parse_acts"]

FORMAT_FILE = "parley-format.toml"
FALLBACK = "Sorry, I did not understand that. Could you say it again, in other words?"


class HFParams(SystemParams):
    """The parameters of the checkpoint systems (``hf-seq2seq``, ``hf-causal``, ``neural``)."""

    model: Text | None = Field(None, description="checkpoint folder or Hugging Face id")
    format: Text | None = Field(None, description="a bundled format name or a parley-format.toml")
    max_new_tokens: int | None = Field(None, ge=1, le=1024, description="longest generation, in tokens")
    allow_pickle: bool = Field(False, description="load pickled weights (.bin) as well as safetensors")
    trust_remote_code: bool = Field(False, description="run the checkpoint's own code (command line only)")
    db: Text | None = Field(None, description="folder of MultiWOZ database files")
    max_input_tokens: int | None = Field(None, ge=16, description="longest context, in tokens")
    seed: int | None = Field(None, description="seed of the booking references it fills in")
    threads: int = Field(0, ge=0, le=64, description="torch threads (0: one when the CPUs are busy)")
    snap: bool = Field(False, description="snap belief values written this turn to the closest DB value")


class HFTODSystem:
    """Base class of the end-to-end checkpoint systems (not registered itself)."""

    name = "hf"
    kind = "seq2seq"
    default_format = "pptod"

    PARAMS: ClassVar[type[Params]] = HFParams

    def __init__(self, **given: object) -> None:
        p = HFParams.from_spec(self.name, given)
        model = p.model
        if model is None or not model.strip():
            raise SpecError(f"{self.name} needs model=PATH or a Hugging Face id, "
                            f"e.g. {self.name}:model=./pptod")
        self.model_ref = str(model).strip()
        self.allow_pickle = p.allow_pickle
        self.trust_remote_code = p.trust_remote_code
        fmt_ref = p.format
        if fmt_ref is None and Path(self.model_ref).expanduser().joinpath(FORMAT_FILE).is_file():
            fmt_ref = str(Path(self.model_ref).expanduser() / FORMAT_FILE)
        self.format: Format = load_format(str(fmt_ref or self.default_format), kind=self.kind)
        self.max_new_tokens = int(p.max_new_tokens or self.format.max_new_tokens)
        self.max_input_tokens = p.max_input_tokens
        self.threads = p.threads
        self.db_dir = p.db
        self.seed = p.seed
        self.snap = p.snap
        self.model: Any = None
        self.tokenizer: Any = None
        self._db: MultiwozDB | None = None
        self._load_lock = threading.Lock()
        self._records: list[TurnRecord] = []
        self._state: State = {}
        self.missing_tokens: list[str] = []

    # ---- lifecycle -----------------------------------------------------------------------------------------
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

    # ---- history -------------------------------------------------------------------------------------------
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

    def context(self, records: list[TurnRecord], user: str, full: bool = False,
                previous: State | None = None) -> str:
        """The dialogue context the way the format wraps it (:func:`engine.systems.hf_common.render_context`;
        ``previous``: the state before this turn)."""
        return render_context(self.format, records, user, full, previous)

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

    # ---- the turn ------------------------------------------------------------------------------------------
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
        fmt = self.format
        act = response = raw_r = db_text = ""
        reason: str | None = None
        try:
            with torch_threads(self.threads):
                belief, raw_b = self._generate_belief(records, user, prev)
            parsed = parse_belief_checked(belief, fmt, prev)
            if fmt.belief_end and fmt.belief_end not in raw_b:
                reason = f"the belief state has no end marker {fmt.belief_end}"
            elif parsed.invalid:
                reason = "the belief state has fragments outside the ontology: " + "; ".join(parsed.invalid)
            state = parsed.state if reason is None else {d: dict(v) for d, v in prev.items()}
            snapped: dict[str, str] = {}
            if self.snap and reason is None:
                state, snapped = snap_state(state, prev, self.db, user)
            domain = active_domain(state, prev)
            result = lookup(self.db, state, domain)
            if reason is None:
                db_text = fmt.db_segment(db_counts(fmt, self.db, state, domain, result))
                with torch_threads(self.threads):
                    act, response, raw_r = self._generate_response(records, user, belief, db_text)
                if fmt.response_end and fmt.response_end not in raw_r:
                    reason = f"the response has no end marker {fmt.response_end}"
                elif not response.strip():
                    reason = "the response is empty"
        except TurnError:
            raise
        except Exception as e:
            raise TurnError(f"{self.name}: generation failed: {type(e).__name__}: {e}") from e
        turn_no = len(records)
        if reason is None:
            lex = lex_fill(response, self.db, domain, result, state, seed=self.seed, turn=turn_no)
            text = lex.text
        else:
            lex, text, act, response = lex_fill("", self.db, domain, result, state), FALLBACK, "", FALLBACK
        kept = belief if reason is None else ""
        self._records = [*records, TurnRecord(user, kept, db_text, act, response, text)]
        self._state = state
        internals: SystemInternals = {
            "model": self.model_ref, "format": fmt.name, "belief_raw": belief, "db": result.to_json(),
            "db_segment": db_text, "act_raw": act, "delexicalised": response, "filled": dict(lex.filled),
            "unfilled": list(lex.unfilled), "replaced": dict(lex.replaced),
            "raw_output": {"belief": raw_b, "response": raw_r},
            "active_domain": domain, "fallback": reason is not None, "reason": reason,
        }
        if parsed.invalid:
            internals["invalid_belief"] = list(parsed.invalid)
        if snapped:
            internals["snapped"] = snapped
        if self.missing_tokens:  # the format's markers are not single tokens of this model
            internals["missing_special_tokens"] = list(self.missing_tokens)
        return SystemTurn(text=text, state={d: dict(s) for d, s in state.items()},
                          acts=parse_acts(act, fmt.act_style), internals=internals,
                          latency_ms=(time.perf_counter() - t0) * 1000)


@contextlib.contextmanager
def torch_threads(threads: int = 0) -> Iterator[int]:
    """Run with ``threads`` torch threads (0: 1 when the CPUs are busy with other work — contending OpenMP
    threads ran 10-30x slower here — else up to 2), restoring the previous setting after."""
    import os

    import torch

    if not threads:
        cpus = os.cpu_count() or 1
        try:
            busy = os.getloadavg()[0] > cpus - 0.5
        except OSError:
            busy = False
        threads = 1 if busy or cpus < 2 else min(2, cpus)
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield threads
    finally:
        torch.set_num_threads(previous)


def check_special_tokens(fmt: Format, tokenizer: object) -> list[str]:
    """The format's special tokens the tokenizer does not know as single tokens (worth a warning)."""
    vocab = tokenizer.get_vocab() if hasattr(tokenizer, "get_vocab") else {}
    return [t for t in fmt.special_tokens if t not in vocab]
