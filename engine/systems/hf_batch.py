"""Batched greedy decoding for ``hf-causal``: many dialogues in lockstep, one forward pass for all of them.

A forward pass of a small model on a CPU costs about the same for 1 or 16 sequences (it is bound by
per-call overhead, not arithmetic), so ``parley run --batch N`` plays N dialogues in N threads, each with its
own system instance; the instances share one model and one :class:`Gateway`. A thread's ``_generate`` hands
its prompt to the gateway, which waits until every thread still playing a dialogue has a prompt pending, then
decodes them together (:func:`greedy_batch`) and gives each thread its tokens. Turn logic, the DB query and
lexicalisation stay per thread, unchanged.

:func:`greedy_batch` pads on the left, masks the padding and gives every row its own position ids, so each
row continues exactly as it would alone: the same greedy tokens as the batch-size-1 path (checked by
tests/unit/test_hf_batch.py on a random GPT-2 and on the bundled model). Rows that reach their stop token (or
stop text, or the token limit) leave the batch and its cache.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from parley.engine.types import TurnError


class GatewayClosed(TurnError):
    """The run was cancelled (ctrl+c): the dialogues in flight end without another generation."""


@dataclass(eq=False)
class Request:
    """One prompt: its token ids, when to stop, and (once decoded) the new token ids."""

    ids: list[int]
    stop_ids: frozenset[int]
    stop_text: str | None
    max_new: int
    result: list[int] = field(default_factory=list)
    error: BaseException | None = None
    done: bool = False


def growing_cache() -> Any:
    """A ``DynamicCache`` whose layers write into preallocated buffers (capacity doubled when full) instead of
    concatenating: ``torch.cat`` of the whole cache at every step was 44 % of a batched step."""
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer

    class GrowingLayer(DynamicLayer):  # type: ignore[misc]
        def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
            if not self.is_initialized:
                self.lazy_initialization(key_states, value_states)
                self._kbuf = self._vbuf = None
                self._n = 0
            n, q = self._n, key_states.shape[-2]
            if self._kbuf is None or n + q > self._kbuf.shape[-2]:
                cap = max(2 * (n + q), 64)
                kb = key_states.new_empty((*key_states.shape[:2], cap, key_states.shape[-1]))
                vb = value_states.new_empty((*value_states.shape[:2], cap, value_states.shape[-1]))
                if n:
                    kb[:, :, :n] = self._kbuf[:, :, :n]
                    vb[:, :, :n] = self._vbuf[:, :, :n]
                self._kbuf, self._vbuf = kb, vb
            self._kbuf[:, :, n:n + q] = key_states
            self._vbuf[:, :, n:n + q] = value_states
            self._n = n + q
            self.keys, self.values = self._kbuf[:, :, :self._n], self._vbuf[:, :, :self._n]
            return self.keys, self.values

        def batch_select_indices(self, indices: Any) -> None:
            if self.is_initialized and self._kbuf is not None:
                self._kbuf, self._vbuf = self._kbuf[indices], self._vbuf[indices]
                self.keys, self.values = self._kbuf[:, :, :self._n], self._vbuf[:, :, :self._n]

    cache = DynamicCache()
    cache.layer_class_to_replicate = GrowingLayer
    return cache


def greedy_batch(model: Any, requests: Sequence[Request], pad_id: int,
                 decode: Callable[[list[int]], str]) -> None:
    """Greedy continuation of every request's ids with one batched forward pass per step; fills
    ``request.result`` (stop token included, as the single-sequence loop returns it)."""
    import torch

    params = inspect.signature(model.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"  # transformers ≥ 5.2 renamed it
    extra = {"logits_to_keep": 1} if "logits_to_keep" in params else {}
    device = getattr(model, "device", None)
    width = max(len(r.ids) for r in requests)
    x = torch.full((len(requests), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(requests), width), dtype=torch.long)
    for i, r in enumerate(requests):
        x[i, width - len(r.ids):] = torch.tensor(r.ids, dtype=torch.long)
        mask[i, width - len(r.ids):] = 1
    pos = (mask.cumsum(-1) - 1).clamp(min=0)  # each row counts its positions from its own first token
    if device is not None:
        x, mask, pos = x.to(device), mask.to(device), pos.to(device)
    alive = list(requests)
    cache = growing_cache()
    with torch.inference_mode():
        while alive:
            res = model(input_ids=x, attention_mask=mask, position_ids=pos, use_cache=True,
                        **{cache_kw: cache}, **extra)
            cache = getattr(res, "cache", None) or getattr(res, "past_key_values", None)
            nxt = res.logits[:, -1].argmax(-1).tolist()
            keep: list[int] = []
            for j, r in enumerate(alive):
                r.result.append(nxt[j])
                stop = nxt[j] in r.stop_ids or len(r.result) >= r.max_new or (
                    r.stop_text is not None and r.stop_text in decode(r.result[-16:]))
                if not stop:
                    keep.append(j)
            if len(keep) < len(alive):
                if not keep:
                    break
                idx = torch.tensor(keep, device=mask.device)
                cache.batch_select_indices(idx)
                mask, pos = mask[idx], pos[idx]
            alive = [alive[j] for j in keep]
            x = torch.tensor([[nxt[j]] for j in keep], device=mask.device)
            pos = pos[:, -1:] + 1
            mask = torch.cat([mask, mask.new_ones((len(keep), 1))], dim=1)


class Gateway:
    """Collects the prompts of the threads playing dialogues and decodes them as one batch.

    A thread counts as a member while it plays a dialogue (:meth:`member`); a batch runs once every member
    has a prompt pending, or when no new prompt arrived for ``patience`` seconds (a member busy elsewhere
    only delays, never blocks, the others). One batch runs at a time, in the thread that completed it."""

    def __init__(self, run: Callable[[list[Request]], None], patience: float = 0.25) -> None:
        self._run = run
        self.patience = patience
        self._cond = threading.Condition()
        self._pending: list[Request] = []
        self._members = 0
        self._running = False
        self._closed = False
        self._last = 0.0
        self.batches: list[int] = []  # the size of every batch run (for measurements and tests)

    @contextlib.contextmanager
    def member(self) -> Iterator[None]:
        with self._cond:
            self._members += 1
        try:
            yield
        finally:
            with self._cond:
                self._members -= 1
                self._cond.notify_all()

    def close(self) -> None:
        """Refuse new prompts and end the waiting ones (their threads raise :class:`GatewayClosed`)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _ready(self) -> bool:
        return not self._running and bool(self._pending) and (
            len(self._pending) >= self._members or time.monotonic() - self._last >= self.patience)

    def submit(self, req: Request) -> list[int]:
        """Block until ``req`` is decoded (in this thread or another one); its new token ids."""
        batch: list[Request] = []
        with self._cond:
            if self._closed:
                raise GatewayClosed("the run was cancelled")
            self._pending.append(req)
            self._last = time.monotonic()
            self._cond.notify_all()
            while not req.done:
                if self._closed and req in self._pending:
                    self._pending.remove(req)
                    raise GatewayClosed("the run was cancelled")
                if self._ready():
                    batch, self._pending, self._running = self._pending, [], True
                    break
                self._cond.wait(self.patience)
        if batch:
            try:
                self._run(batch)
            except BaseException as e:
                for r in batch:
                    r.error = e
                raise
            finally:
                with self._cond:
                    self.batches.append(len(batch))
                    for r in batch:
                        r.done = True
                    self._running = False
                    self._cond.notify_all()
        if req.error is not None:
            raise req.error
        return req.result
