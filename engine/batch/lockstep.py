"""``--batch N --workers W --backend process``: W spawned processes, each loading the model once and playing N
dialogues at a time in lockstep on it (its N threads share one model and decode together, as
:class:`~.backends.BatchBackend` does in the driver's process).

The driver puts work items on one queue that every thread of every process takes from as soon as it is free
(so a process that loads late or plays short dialogues simply takes more), and reads the played dialogues
from one result queue, handing them back **in submission order**: the driver alone writes the database, and
the run stores what a ``--batch 1`` run stores. A worker process ignores ctrl+c (the driver's business) and
ends by itself when the driver is killed; a worker process that dies is reported as one line.
"""

from __future__ import annotations

import os
import pickle
import queue
import threading
from collections import deque
from typing import TYPE_CHECKING

from parley.engine.batch.play import Played, Worker, WorkerSpec, WorkItem, batched

if TYPE_CHECKING:
    from multiprocessing.queues import Queue

#: (seq, played, error); seq None with an error: the process could not load its system and has ended
_Result = tuple[int | None, Played | None, BaseException | None]


def _picklable(e: BaseException) -> BaseException:
    """``e`` itself if it crosses a process border, else a RuntimeError with its one-line text."""
    try:
        pickle.loads(pickle.dumps(e))
    except Exception:
        return RuntimeError(f"{type(e).__name__}: {e}")
    return e


def _member(w: Worker, todo: Queue[WorkItem | None], done: Queue[_Result]) -> None:
    """One thread of a worker process: take an item, play it as a member of the batch group, send it back;
    ``None`` ends the thread."""
    while (item := todo.get()) is not None:
        try:
            with batched(w.system).batch_member():
                played = w.play(item)
        except Exception as e:
            done.put((item.seq, None, _picklable(e)))
        else:
            done.put((item.seq, played, None))


def _serve(spec: WorkerSpec, batch: int, todo: Queue[WorkItem | None], done: Queue[_Result], parent: int,
           threads: int) -> None:
    """A worker process: load the system once, then ``batch`` threads play dialogues in lockstep."""
    from parley.engine.batch.backends import batch_members, detach_worker

    detach_worker(parent, threads)
    try:
        members = batch_members(spec, Worker.build(spec).system, batch)
    except Exception as e:
        from parley.engine.types import LoadError

        done.put((None, None, LoadError(
            f"a worker process could not load {spec.system_spec}: {type(e).__name__}: {e}")))
        return
    pool = [threading.Thread(target=_member, args=(w, todo, done), name=f"parley-batch-{k}")
            for k, w in enumerate(members)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    for w in members:
        w.close()


class LockstepBackend:
    """``workers`` processes × ``batch`` dialogues in lockstep; results in submission order."""

    def __init__(self, spec: WorkerSpec, workers: int, batch: int) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # no lock or model shared by fork
        self.workers = workers * batch  # dialogues in flight
        self._batch = batch
        self._todo: Queue[WorkItem | None] = ctx.Queue()
        self._done: Queue[_Result] = ctx.Queue()
        self._order: deque[int] = deque()
        self._results: dict[int, _Result] = {}
        threads = max(1, (os.cpu_count() or 1) // workers)
        self._procs = [
            ctx.Process(target=_serve, args=(spec, batch, self._todo, self._done, os.getpid(), threads),
                        name=f"parley-lockstep-{k}", daemon=True)
            for k in range(workers)
        ]
        for p in self._procs:
            p.start()

    def submit(self, item: WorkItem) -> None:
        self._order.append(item.seq)
        self._todo.put(item)

    def next_result(self) -> Played:
        seq = self._order.popleft()
        while seq not in self._results:
            try:
                got: _Result = self._done.get(timeout=0.5)
            except queue.Empty:
                self._check_alive()
                continue
            if got[0] is None:
                assert got[2] is not None
                raise got[2]
            self._results[got[0]] = got
        _, played, error = self._results.pop(seq)
        if error is not None:
            raise error
        assert played is not None
        return played

    def _check_alive(self) -> None:
        from parley.engine.types import LoadError

        for p in self._procs:
            if p.exitcode:  # 0: it could not load, and said so on the result queue
                raise LoadError(f"a worker process ended unexpectedly (exit code {p.exitcode}); "
                                "run the same command again to continue")

    def close(self, *, cancel: bool = False) -> None:
        """Let the processes finish (``cancel``: end them now; the dialogues in flight are dropped, a
        resumed run plays them again)."""
        self._order.clear()
        self._results.clear()
        if cancel:
            self._todo.cancel_join_thread()
            for p in self._procs:
                p.terminate()
        else:
            for _ in range(len(self._procs) * self._batch):
                self._todo.put(None)
        for p in self._procs:
            p.join(timeout=None if not cancel else 10)
            if p.is_alive():
                p.kill()
                p.join()
        for q in (self._todo, self._done):
            q.close()
