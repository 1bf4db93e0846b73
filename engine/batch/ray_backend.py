"""Playing dialogues on a Ray cluster (``pip install 'parley-tod[ray]'``; ``parley run --backend ray``).

Each of the N actors builds the system once (a local model is loaded once per actor, on the node Ray places
it); an actor asks for one CPU (none for a remote bot, whose actor waits on the network) and, when the cluster
has GPUs and the system is a local model, an equal share of them (one GPU each when there are as many GPUs as
workers; Ray sets ``CUDA_VISIBLE_DEVICES`` for each actor). Results return to the driver, which alone writes
SQLite. ``address=None`` starts a local Ray instance; ``address="auto"`` or
``"ray://head:10001"`` joins an existing cluster (parley must be installed on every node).
"""

from __future__ import annotations

from typing import Any

from parley.engine.batch.backends import THREAD_SYSTEMS
from parley.engine.batch.play import Played, WorkerSpec, WorkItem
from parley.engine.types import LoadError

#: systems that hold a model in memory (an actor of these asks for a GPU when the cluster has one)
MODEL_SYSTEMS = ("llm", "hf-seq2seq", "hf-causal", "sktod")


class _Actor:
    def __init__(self, spec: WorkerSpec) -> None:
        from parley.engine.batch.play import Worker

        self.worker = Worker.build(spec)

    def play(self, item: WorkItem) -> Played:
        return self.worker.play(item)


class RayBackend:
    def __init__(self, spec: WorkerSpec, workers: int, *, address: str | None = None) -> None:
        try:
            import ray
            from ray.util import ActorPool
        except ImportError:
            raise LoadError("--backend ray needs Ray: pip install 'parley-tod[ray]'") from None
        from parley.engine.spec import parse_spec

        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            try:
                ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                         configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise LoadError(
                    f"cannot start or join Ray{f' at {address}' if address else ''}: {e}"
                ) from None
            self._started = True
        name = parse_spec(spec.system_spec).name
        gpus = ray.cluster_resources().get("GPU", 0) if name in MODEL_SYSTEMS else 0
        cpus = 0 if name in THREAD_SYSTEMS else 1  # a remote bot's actor mostly waits on the network
        actor_cls = ray.remote(num_cpus=cpus, num_gpus=min(1.0, gpus / workers) if gpus else 0)(_Actor)
        self.workers = workers
        # ray.remote's stub types the result as a handle or the class: the handles are held untyped
        self._actors: list[Any] = [actor_cls.remote(spec) for _ in range(workers)]
        self._pool = ActorPool(self._actors)

    def submit(self, item: WorkItem) -> None:
        self._pool.submit(lambda actor, it: actor.play.remote(it), item)

    def next_result(self) -> Played:
        try:
            result: Played = self._pool.get_next()
        except self._ray.exceptions.RayError as e:  # an actor that could not build its system, or died
            first = str(e).strip().splitlines()
            raise LoadError(f"a Ray worker failed: {first[-1] if first else type(e).__name__}") from None
        return result

    def close(self, *, cancel: bool = False) -> None:
        for a in self._actors:
            self._ray.kill(a)
        self._actors = []
        if self._started:
            self._ray.shutdown()
