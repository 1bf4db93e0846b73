"""Where dialogues are played: threads, processes or Ray actors, each worker building its system once.

Every backend takes :class:`~.play.WorkItem` s through :meth:`Backend.submit` and gives the
:class:`~.play.Played` results back **in submission order** through :meth:`Backend.next_result`, so the driver
alone writes the database, in corpus order.

- ``thread`` — N threads, each with its own system instance (its own HTTP session for ``remote``); for remote
  bots, whose time is spent waiting on the network;
- ``process`` — N processes (spawned, so no lock or model is shared by fork), each loading its model once; for
  local models and the CPU-bound rule systems;
- ``ray`` — N Ray actors on a cluster (:mod:`.ray_backend`);
- ``--batch N`` (:class:`BatchBackend`) — N threads whose systems share one model and decode their prompts
  together (:mod:`engine.systems.hf_batch`); for small local decoder models, whose forward passes cost about
  the same for 1 or N sequences. With ``--backend process --workers W``, W processes do that
  (:mod:`.lockstep`).
"""

from __future__ import annotations

import os
import queue
import signal
import threading
from collections import deque
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from parley.engine.batch.play import Played, WorkerSpec, WorkItem, batched

if TYPE_CHECKING:
    from parley.engine.batch.play import Worker
    from parley.engine.types import DialogueSystem

BACKENDS = ("auto", "thread", "process", "ray")
#: systems whose work is waiting on the network: threads are enough
THREAD_SYSTEMS = ("remote", "echo")


class Backend(Protocol):
    workers: int

    def submit(self, item: WorkItem) -> None: ...

    def next_result(self) -> Played: ...

    def close(self, *, cancel: bool = False) -> None: ...


def choose(backend: str, system_spec: str, workers: int) -> str:
    """``auto``: threads for a single worker or a network-bound system, processes otherwise."""
    if backend != "auto":
        return backend
    from parley.engine.spec import parse_spec

    return "thread" if workers == 1 or parse_spec(system_spec).name in THREAD_SYSTEMS else "process"


def make_backend(kind: str, spec: WorkerSpec, workers: int, *, address: str | None = None,
                 system: DialogueSystem | None = None, batch: int = 1) -> Backend:
    """Start ``workers`` workers of ``kind``. ``system`` (thread backend, one worker) reuses a loaded
    system; ``batch`` > 1 plays that many dialogues in lockstep on it (:class:`BatchBackend`), or in each of
    ``workers`` processes (:class:`~.lockstep.LockstepBackend`)."""
    if batch > 1 and kind == "process":
        from parley.engine.batch.lockstep import LockstepBackend

        return LockstepBackend(spec, workers, batch)
    if batch > 1:
        if kind != "thread" or workers > 1:
            raise ValueError(f"--batch runs on one thread pool or on processes, not {workers} x {kind}")
        return BatchBackend(spec, system, batch)
    if kind == "thread":
        return ThreadBackend(spec, workers, system=system)
    if kind == "process":
        return ProcessBackend(spec, workers)
    if kind == "ray":
        from parley.engine.batch.ray_backend import RayBackend

        return RayBackend(spec, workers, address=address)
    raise ValueError(f"unknown backend {kind!r} (known: {', '.join(BACKENDS)})")


class _FutureBackend:
    """Shared by the thread and process backends: an executor and the futures in submission order."""

    workers: int
    _pool: Executor

    def __init__(self) -> None:
        self._futures: deque[Future[Played]] = deque()

    def _submit(self, item: WorkItem) -> Future[Played]:
        raise NotImplementedError

    def submit(self, item: WorkItem) -> None:
        self._futures.append(self._submit(item))

    def next_result(self) -> Played:
        return self._futures.popleft().result()

    def close(self, *, cancel: bool = False) -> None:
        for f in self._futures:
            f.cancel()
        self._futures.clear()
        self._pool.shutdown(wait=not cancel, cancel_futures=True)


class ThreadBackend(_FutureBackend):
    def __init__(self, spec: WorkerSpec, workers: int, *, system: DialogueSystem | None = None) -> None:
        from parley.engine.batch.play import Worker

        super().__init__()
        self.workers = workers
        self._idle: queue.SimpleQueue[Worker] = queue.SimpleQueue()
        self._all: list[Worker] = []
        for k in range(workers):
            w = Worker(system, spec.conditions, system_spec=spec.system_spec, tester=spec.tester) \
                if system is not None and k == 0 else Worker.build(spec)
            self._all.append(w)
            self._idle.put(w)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="parley-run")

    def _play(self, item: WorkItem) -> Played:
        w = self._idle.get()
        try:
            return w.play(item)
        finally:
            self._idle.put(w)

    def _submit(self, item: WorkItem) -> Future[Played]:
        return self._pool.submit(self._play, item)

    def close(self, *, cancel: bool = False) -> None:
        if cancel:  # a remote request in flight ends now instead of at its deadline
            for w in self._all:
                w.close()
        super().close(cancel=cancel)
        for w in self._all:
            w.close()


def batch_members(spec: WorkerSpec, system: DialogueSystem, batch: int) -> list[Worker]:
    """One :class:`~.play.Worker` per system of ``system.batch_group(batch)`` (they share the model)."""
    from parley.engine.batch.play import Worker

    return [Worker(s, spec.conditions, system_spec=spec.system_spec, tester=spec.tester)
            for s in batched(system).batch_group(batch)]


class BatchBackend(ThreadBackend):
    """``batch`` threads, each playing its dialogue with one system of ``system.batch_group(batch)``: the
    systems share the model and decode together, so the threads advance in lockstep."""

    def __init__(self, spec: WorkerSpec, system: DialogueSystem | None, batch: int) -> None:
        from parley.engine.batch.play import Worker

        _FutureBackend.__init__(self)
        if system is None:
            system = Worker.build(spec).system
        self.workers = batch
        self._idle = queue.SimpleQueue()
        self._all = batch_members(spec, system, batch)
        for w in self._all:
            self._idle.put(w)
        self._pool = ThreadPoolExecutor(max_workers=batch, thread_name_prefix="parley-batch")

    def _play(self, item: WorkItem) -> Played:
        w = self._idle.get()
        try:
            with batched(w.system).batch_member():
                return w.play(item)
        finally:
            self._idle.put(w)


# -- processes -------------------------------------------------------------------------------------------
_worker: Worker | None = None


def _watch_parent(parent: int) -> None:
    """End this worker process when the driver is gone (kill -9 leaves no one to shut the pool down)."""
    while True:
        threading.Event().wait(1.0)
        if os.getppid() != parent:
            os._exit(0)


_init_error: str | None = None


def detach_worker(parent: int, threads: int) -> None:
    """Set up a worker process: ctrl+c is the driver's business, torch/BLAS use ``threads`` (N processes
    share the cores; unless the user said otherwise), and the process ends when the driver is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(threads))
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _init_process(spec: WorkerSpec, parent: int, threads: int) -> None:
    global _worker, _init_error
    detach_worker(parent, threads)
    from parley.engine.batch.play import Worker

    try:
        _worker = Worker.build(spec)
    except Exception as e:  # reported with the first dialogue, as one line (not a broken pool's traceback)
        _init_error = f"a worker process could not load {spec.system_spec}: {type(e).__name__}: {e}"


def _play_in_process(item: WorkItem) -> Played:
    if _worker is None:
        from parley.engine.types import LoadError

        raise LoadError(_init_error or "the worker process has no system")
    return _worker.play(item)


class ProcessBackend(_FutureBackend):
    def __init__(self, spec: WorkerSpec, workers: int) -> None:
        import multiprocessing

        super().__init__()
        self.workers = workers
        self._pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_process,
            initargs=(spec, os.getpid(), max(1, (os.cpu_count() or 1) // workers)),
        )

    def _submit(self, item: WorkItem) -> Future[Played]:
        return self._pool.submit(_play_in_process, item)
