"""Batched greedy decoding for ``hf-causal``: many dialogues in lockstep, one forward pass for all of them.

A forward pass of a small model on a CPU costs about the same for 1 or 16 sequences (it is bound by
per-call overhead, not arithmetic), so ``parley run --batch N`` plays N dialogues in N threads, each with its
own system instance; the instances share one model and one :class:`Gateway`. A thread's ``_generate`` hands
its prompt to the gateway and waits; the gateway's decoder thread keeps one rolling batch: it prefills the
waiting prompts together, merges them into the rows being decoded, advances every row by one token per
forward pass, and hands a row back to its thread as soon as it stops (continuous batching: a short belief
state does not wait for a long response). Turn logic, the DB query and lexicalisation stay per thread.

Rows are padded on the left, the padding masked, and every row has its own position ids, so each row
continues as it would alone: the same greedy tokens as the batch-size-1 path (tests/unit/test_hf_batch.py, on
a random GPT-2 and on the bundled model). The logits are not bit-identical: matrix products of other shapes
(more rows, a longer padded width) round differently, by up to ~4e-6 on the bundled model — as a cached and
an uncached pass of the batch-size-1 path already differ. A greedy token can only change where its two best
logits are closer than that; the smallest gap seen in 12,020 decoding steps of the bundled model was 2.7e-5.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from parley.engine.types import TurnError

if TYPE_CHECKING:
    import torch
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer
    from typing_extensions import TypeIs


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


_FORWARD_KWARGS: dict[type, tuple[str, dict[str, int]]] = {}


def forward_kwargs(model: torch.nn.Module) -> tuple[str, dict[str, int]]:
    """The cache keyword of ``model.forward`` (transformers ≥ 5.2 renamed ``past_key_values`` to ``cache``)
    and the extra keywords that keep only the last logits; looked up once per model class."""
    cls = type(model)
    if cls not in _FORWARD_KWARGS:
        params = inspect.signature(model.forward).parameters
        _FORWARD_KWARGS[cls] = ("cache" if "cache" in params else "past_key_values",
                                {"logits_to_keep": 1} if "logits_to_keep" in params else {})
    return _FORWARD_KWARGS[cls]


def stopped(out: list[int], stop_ids: frozenset[int] | set[int], stop_text: str | None,
            decode: Callable[[list[int]], str]) -> bool:
    """Whether a continuation ends with ``out``: its last token is a stop token, or the stop text (not one
    token in the vocabulary) shows in its last 16 tokens."""
    return out[-1] in stop_ids or (stop_text is not None and stop_text in decode(out[-16:]))


class Grown(Protocol):
    """A layer of :func:`_layer_class`: the keys and values held in buffers with room to grow."""

    kbuf: torch.Tensor | None
    vbuf: torch.Tensor | None
    keys: torch.Tensor | None
    values: torch.Tensor | None

    def set(self, kbuf: torch.Tensor, vbuf: torch.Tensor, n: int) -> None: ...


def grown(layer: object) -> TypeIs[Grown]:
    """Whether ``layer`` is a layer of :func:`_layer_class`."""
    return isinstance(layer, _layer_class())


@functools.cache
def _layer_class() -> type[DynamicLayer]:
    """A ``DynamicLayer`` writing into a preallocated buffer (capacity doubled when full) instead of
    concatenating: ``torch.cat`` of the whole cache at every step was 44 % of a batched step."""
    from transformers.cache_utils import DynamicLayer

    class GrowingLayer(DynamicLayer):
        kbuf: torch.Tensor | None = None
        vbuf: torch.Tensor | None = None
        n = 0

        def set(self, kbuf: torch.Tensor, vbuf: torch.Tensor, n: int) -> None:
            self.kbuf, self.vbuf, self.n = kbuf, vbuf, n
            self.keys, self.values = kbuf[:, :, :n], vbuf[:, :, :n]
            self.device, self.is_initialized = kbuf.device, True

        def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: object, **kwargs: object
                   ) -> tuple[torch.Tensor, torch.Tensor]:
            n, q = self.n, key_states.shape[-2]
            kb, vb = self.kbuf, self.vbuf
            if kb is None or vb is None or n + q > kb.shape[-2]:
                shape = (*key_states.shape[:2], max(2 * (n + q), 64), key_states.shape[-1])
                grown_k, grown_v = key_states.new_zeros(shape), value_states.new_zeros(shape)
                if n and kb is not None and vb is not None:
                    grown_k[:, :, :n], grown_v[:, :, :n] = kb[:, :, :n], vb[:, :, :n]
                kb, vb = grown_k, grown_v
            kb[:, :, n:n + q] = key_states
            vb[:, :, n:n + q] = value_states
            self.set(kb, vb, n + q)
            return kb[:, :, :n + q], vb[:, :, :n + q]

        def batch_select_indices(self, indices: torch.Tensor) -> None:
            if self.kbuf is not None and self.vbuf is not None:
                self.set(self.kbuf[indices], self.vbuf[indices], self.n)

    return GrowingLayer


def _new_cache(layers: Sequence[DynamicLayer] | None = None) -> DynamicCache:
    from transformers import DynamicCache

    cache = DynamicCache()
    cache.layer_class_to_replicate = _layer_class()
    if layers:
        cache.layers = [*layers]
    return cache


@dataclass
class Rows:
    """Rows being decoded: their requests, the shared cache, the mask over the cached tokens, and each row's
    next input token and position."""

    reqs: list[Request | None]  # None: a row that stopped, still in the cache
    cache: DynamicCache
    mask: torch.Tensor
    nxt: torch.Tensor
    pos: torch.Tensor


class Decoder:
    """Prefill, step and merge batches of :class:`Request` on one causal LM."""

    def __init__(self, model: torch.nn.Module, pad_id: int, decode: Callable[[list[int]], str]) -> None:
        self.model = model
        self.pad_id = pad_id
        self.decode = decode
        self.cache_kw, self.extra = forward_kwargs(model)
        self.device = getattr(model, "device", None)
        cfg = getattr(model, "config", None)
        # a stopped row goes on being fed padding: its positions must stay inside the embedding table
        self.last_pos = (getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None)
                         or 1 << 30) - 1

    def _forward(self, x: torch.Tensor, mask: torch.Tensor, pos: torch.Tensor, cache: DynamicCache
                 ) -> list[int]:
        res = self.model(input_ids=x, attention_mask=mask, position_ids=pos, use_cache=True,
                         **{self.cache_kw: cache}, **self.extra)
        return res.logits[:, -1].argmax(-1).tolist()

    def _take(self, rows: Rows, nxt: list[int]) -> tuple[Rows | None, list[Request]]:
        """Append each live row's token; the rows still going and the requests that stopped. A stopped row
        stays in the batch (fed padding, its result ignored) until half the rows are stopped: dropping a row
        copies the whole cache."""
        import torch

        done = []
        for j, r in enumerate(rows.reqs):
            if r is None:
                continue
            r.result.append(nxt[j])
            if len(r.result) >= r.max_new or stopped(r.result, r.stop_ids, r.stop_text, self.decode):
                done.append(r)
                rows.reqs[j] = None
        live = [j for j, r in enumerate(rows.reqs) if r is not None]
        if not live:
            return None, done
        rows.nxt = torch.tensor([[nxt[j] if r is not None else self.pad_id] for j, r in enumerate(rows.reqs)],
                                device=rows.mask.device)
        if 2 * len(live) <= len(rows.reqs):
            rows = self.select(rows, live)
        return rows, done

    @staticmethod
    def select(rows: Rows, keep: list[int]) -> Rows:
        import torch

        idx = torch.tensor(keep, device=rows.mask.device)
        rows.cache.batch_select_indices(idx)
        return Rows([rows.reqs[j] for j in keep], rows.cache, rows.mask[idx], rows.nxt[idx], rows.pos[idx])

    def run(self, reqs: Sequence[Request]) -> None:
        """Decode ``reqs`` to the end (fills every ``request.result``, stop token included)."""
        rows, _ = self.prefill(reqs)
        while rows is not None:
            rows, _ = self.step(rows)

    def prefill(self, reqs: Sequence[Request]) -> tuple[Rows | None, list[Request]]:
        import torch

        width = max(len(r.ids) for r in reqs)
        x = torch.full((len(reqs), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(reqs), width), dtype=torch.long)
        for i, r in enumerate(reqs):
            x[i, width - len(r.ids):] = torch.tensor(r.ids, dtype=torch.long)
            mask[i, width - len(r.ids):] = 1
        pos = (mask.cumsum(-1) - 1).clamp(min=0)  # each row counts positions from its own first token
        if self.device is not None:
            x, mask, pos = x.to(self.device), mask.to(self.device), pos.to(self.device)
        cache = _new_cache()
        with torch.inference_mode():
            nxt = self._forward(x, mask, pos, cache)
        # the next tokens are set by _take (a row's first token comes from this pass)
        return self._take(Rows(list(reqs), cache, mask, x[:, -1:], pos[:, -1:] + 1), nxt)

    @staticmethod
    def live(rows: Rows | None) -> int:
        return sum(r is not None for r in rows.reqs) if rows else 0

    def step(self, rows: Rows) -> tuple[Rows | None, list[Request]]:
        import torch

        mask = torch.cat([rows.mask, rows.mask.new_ones((len(rows.reqs), 1))], dim=1)
        with torch.inference_mode():
            nxt = self._forward(rows.nxt, mask, rows.pos, rows.cache)
        rows.mask, rows.pos = mask, (rows.pos + 1).clamp(max=self.last_pos)
        return self._take(rows, nxt)

    @staticmethod
    def merge(a: Rows | None, b: Rows | None) -> Rows | None:
        """One batch of the live rows of both, right-aligned: the cache columns no live row attends to are
        dropped, the shorter side is padded (masked) on the left."""
        import torch

        if a is None or b is None:
            return a or b
        ia = [j for j, r in enumerate(a.reqs) if r is not None]
        ib = [j for j, r in enumerate(b.reqs) if r is not None]
        ma, mb = a.mask[ia], b.mask[ib]
        la, lb = (int(m.shape[1] - m.any(0).int().argmax()) for m in (ma, mb))
        n, na = max(la, lb), len(ia)
        layers: list[DynamicLayer] = []
        for x, y in zip(a.cache.layers, b.cache.layers, strict=True):
            layer = _layer_class()()
            if not (grown(x) and grown(y) and grown(layer)) or x.kbuf is None or x.vbuf is None \
                    or x.keys is None or x.values is None or y.keys is None or y.values is None:
                raise TypeError("a batch cache holds a layer that is not a filled growing layer")
            shape = (na + len(ib), x.kbuf.shape[1], n + 64, x.kbuf.shape[3])
            kb, vb = x.kbuf.new_zeros(shape), x.vbuf.new_zeros(shape)
            kb[:na, :, n - la:n], vb[:na, :, n - la:n] = x.keys[ia, :, -la:], x.values[ia, :, -la:]
            kb[na:, :, n - lb:n], vb[na:, :, n - lb:n] = y.keys[ib, :, -lb:], y.values[ib, :, -lb:]
            layer.set(kb, vb, n)
            layers.append(layer)
        mask = ma.new_zeros((shape[0], n))
        mask[:na, n - la:], mask[na:, n - lb:] = ma[:, -la:], mb[:, -lb:]
        return Rows([a.reqs[j] for j in ia] + [b.reqs[j] for j in ib], _new_cache(layers), mask,
                    torch.cat([a.nxt[ia], b.nxt[ib]]), torch.cat([a.pos[ia], b.pos[ib]]))

class Gateway:
    """A decoder thread with one rolling batch, fed by the threads playing dialogues.

    A thread counts as a member while it plays a dialogue (:meth:`member`). Waiting prompts join the batch
    in groups (:meth:`_join_now`); a member busy elsewhere delays the others at most ``patience`` seconds."""

    def __init__(self, decoder: Decoder, patience: float = 0.3) -> None:
        self.decoder = decoder
        self.patience = patience
        self._cond = threading.Condition()
        self._pending: list[Request] = []
        self._since = 0.0
        self._members = 0
        self._active = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self.batches: list[int] = []  # rows after every join (for measurements and tests)

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

    def submit(self, req: Request) -> list[int]:
        """Block until ``req`` is decoded; its new token ids."""
        with self._cond:
            if self._closed:
                raise GatewayClosed("the run was cancelled")
            if not self._pending:
                self._since = time.monotonic()
            self._pending.append(req)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="parley-decoder", daemon=True)
                self._thread.start()
            self._cond.notify_all()
            while not req.done:
                self._cond.wait()
        if req.error is not None:
            raise req.error
        return req.result

    def _join_now(self) -> bool:
        """Whether the waiting prompts join now: all idle members wait, or a quarter of the members do (a
        join copies the whole cache: joining one prompt at a time cost a fifth of the decoder's time), or
        the first has waited ``patience`` seconds."""
        if not self._pending:
            return False
        enough = min(self._members - self._active, max(1, self._members // 4))
        return len(self._pending) >= enough or time.monotonic() - self._since >= self.patience

    def _loop(self) -> None:
        rows: Rows | None = None
        while True:
            with self._cond:
                while not self._closed and rows is None and not self._join_now():
                    self._cond.wait(self.patience / 4 if self._pending else None)
                if self._closed:
                    left = [r for r in (rows.reqs if rows else []) if r is not None]
                    self._finish([*self._pending, *left], GatewayClosed("the run was cancelled"))
                    self._pending, self._thread = [], None
                    return
                take = self._pending if self._join_now() else []
                if take:
                    self._pending = []
            done: list[Request] = []
            try:
                if take:
                    new, done = self.decoder.prefill(take)
                    rows = self.decoder.merge(rows, new)
                    self.batches.append(self.decoder.live(rows))
                if rows is not None:
                    rows, more = self.decoder.step(rows)
                    done += more
            except Exception as e:
                with self._cond:
                    self._finish(done, None)
                    self._finish([r for r in [*take, *(rows.reqs if rows else [])] if r and not r.done], e)
                rows, done = None, []
            with self._cond:
                self._active = self.decoder.live(rows)
                self._finish(done, None)

    def _finish(self, reqs: Sequence[Request], error: BaseException | None) -> None:
        """Hand ``reqs`` back to their threads (called with the lock held)."""
        for r in reqs:
            r.error = r.error or error
            r.done = True
        self._cond.notify_all()
