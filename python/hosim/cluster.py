"""Running tasks on a Dask cluster: ``hosim sweep --cluster`` and ``hosim reproduce --cluster``.

``DaskExecutor`` is an ``hosim.runner.Executor``: it groups the tasks into batches, submits
the batches to a Dask distributed scheduler, longest first, and yields every run's result as
its batch completes, so a campaign keeps each run on disk as soon as it is back.

>>> from hosim.cluster import DaskExecutor
>>> from hosim.runner import make_task, run_tasks
>>> tasks = [make_task("lte-x2", seed) for seed in range(1, 51)]
>>> with DaskExecutor.from_spec("local:2") as executor:                 # a LocalCluster
...     summaries = run_tasks(tasks, executor)
>>> DaskExecutor.from_spec("tcp://127.0.0.1:8786")                      # a running scheduler

Batches. A run of a few milliseconds would cost less than the scheduler's own work per task,
so runs travel in batches. The cost of a run is estimated before it runs as ``duration_s ×
flows`` (simulated seconds times the number of flows or UEs its scenario names, at least 1).
A batch is filled, in decreasing order of cost, until its cost reaches the larger of
``MIN_BATCH_COST`` and the total cost divided by ``BATCHES_PER_WORKER`` × the cluster's worker
threads; a run costing more than that is a batch of its own. Batches are submitted longest
first (and with decreasing Dask priority), so the long runs do not end up last.

Lost workers. Dask re-runs the tasks of a worker that dies on another worker, and the client
receives each batch's result once. ``map`` yields each task's index at most once whatever
happens (a result for an index already yielded is dropped), and the campaign writes each run to
``runs/<task-key>.json`` once, atomically, so a run is never lost or duplicated.

Workers must import the same hosim as the client: each batch carries the client's
``core_version()`` and a worker with another build refuses it (``ClusterError``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from hosim.errors import ClusterError
from hosim.runner import Progress, Task, core_version, estimated_cost

__all__ = [
    "BATCHES_PER_WORKER",
    "EXTRA_HINT",
    "MIN_BATCH_COST",
    "DaskExecutor",
    "check_spec",
    "estimated_cost",
    "plan_batches",
]

T = TypeVar("T")

#: What to install when Dask is missing.
EXTRA_HINT = "pip install 'hosim[cluster]' (or: pip install 'dask[distributed]')"
#: Smallest batch, in estimated flow-seconds: a dumbbell run of 8 flows for 60 s (480) takes
#: about 60 ms, so a batch of at least 2000 takes about a quarter of a second, well above the
#: scheduler's few milliseconds per task.
MIN_BATCH_COST = 2000.0
#: Batches per worker thread when the runs are long enough: enough to balance the load and to
#: move the progress bar, few enough to keep the scheduler idle.
BATCHES_PER_WORKER = 4
#: Seconds to wait for a scheduler to answer, and for a LocalCluster to start.
CONNECT_TIMEOUT_S = 30


# --- batches -------------------------------------------------------------------------------------


def plan_batches(costs: Sequence[float], workers: int) -> list[list[int]]:
    """Indices into ``costs`` grouped into batches (see the module doc), longest batch first;
    within a batch, longest run first. Every index is in exactly one batch."""
    if not costs:
        return []
    order = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
    target = max(MIN_BATCH_COST, sum(costs) / (max(1, workers) * BATCHES_PER_WORKER))
    batches: list[list[int]] = []
    current: list[int] = []
    current_cost = 0.0
    for index in order:
        current.append(index)
        current_cost += costs[index]
        if current_cost >= target:
            batches.append(current)
            current, current_cost = [], 0.0
    if current:
        batches.append(current)
    batches.sort(key=lambda batch: -sum(costs[i] for i in batch))
    return batches


def run_batch(fn: Callable[[Task], T], items: Sequence[tuple[int, Task]], core: str) -> list[tuple[int, T]]:
    """What a worker runs: ``fn`` over a batch of ``(index, task)``, after checking that it has
    the client's hosim build (``core``)."""
    mine = core_version()
    if mine != core:
        raise ClusterError(f"worker {os.uname().nodename} (pid {os.getpid()}) has {mine}, the client {core}: "
                           "install the same hosim on every worker")
    return [(index, fn(task)) for index, task in items]


# --- the executor ----------------------------------------------------------------------------------


def check_spec(spec: str) -> int | None:
    """The N of ``local:N``, or ``None`` for a scheduler address; ``ClusterError`` for anything
    else. Needs no Dask, so a malformed ``--cluster`` fails before anything runs."""
    spec = spec.strip()
    if spec.startswith("local:"):
        count = spec[len("local:"):]
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--cluster {spec}: expected local:N with N >= 1 worker processes")
        return int(count)
    if "://" not in spec:
        raise ClusterError(f"--cluster {spec}: expected local:N or a scheduler address such as tcp://HOST:8786")
    return None


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed, which is not installed: {EXTRA_HINT}") from None
    return distributed


class DaskExecutor:
    """Runs tasks on a Dask cluster through ``client`` (a ``distributed.Client``), in batches.

    ``from_spec`` connects to a scheduler (``tcp://HOST:PORT``) or starts a ``LocalCluster``
    (``local:N``: N single-threaded worker processes on 127.0.0.1); ``close()`` (or leaving a
    ``with`` block) disconnects, and stops the LocalCluster if it started one. A scheduler given
    by address is never stopped.
    """

    def __init__(self, client: Any, cluster: Any = None):
        self.client = client
        self._cluster = cluster

    @classmethod
    def from_spec(cls, spec: str) -> DaskExecutor:
        """``local:N`` or a scheduler address (``tcp://HOST:PORT``, or any address Dask accepts)."""
        local = check_spec(spec)
        distributed = _distributed()
        spec = spec.strip()
        if local is not None:
            cluster = distributed.LocalCluster(
                n_workers=local, threads_per_worker=1, processes=True, host="127.0.0.1",
                dashboard_address=None, scheduler_port=0, silence_logs=40,
            )
            try:
                return cls(distributed.Client(cluster, timeout=CONNECT_TIMEOUT_S), cluster)
            except BaseException:
                cluster.close()
                raise
        try:
            client = distributed.Client(spec, timeout=CONNECT_TIMEOUT_S)
        except OSError as exc:
            raise ClusterError(f"--cluster {spec}: cannot reach the scheduler ({exc})") from None
        return cls(client)

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect; stop the LocalCluster if this executor started it."""
        client, self.client = self.client, None
        cluster, self._cluster = self._cluster, None
        if client is not None:
            client.close(timeout=CONNECT_TIMEOUT_S)
        if cluster is not None:
            cluster.close(timeout=CONNECT_TIMEOUT_S)

    def workers(self) -> int:
        """Worker threads in the cluster now (at least 1)."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def map(
        self, fn: Callable[[Task], T], tasks: Sequence[Task], progress: Progress | None = None
    ) -> Iterator[tuple[int, T]]:
        if not tasks:
            return
        if self.client is None:
            raise ClusterError("the Dask executor is closed")
        distributed = _distributed()
        self.client.wait_for_workers(1)  # a scheduler whose workers are still queued (SLURM): wait
        batches = plan_batches([estimated_cost(task) for task in tasks], self.workers())
        core = core_version()
        token = uuid.uuid4().hex[:12]
        futures = [
            self.client.submit(run_batch, fn, [(i, tasks[i]) for i in batch], core,
                               key=f"hosim-runs-{token}-{n}", priority=len(batches) - n, pure=False)
            for n, batch in enumerate(batches)
        ]
        yielded: set[int] = set()
        try:
            for future in distributed.as_completed(futures):
                for index, value in future.result():
                    if index in yielded:  # never twice, even if a batch came back twice
                        continue
                    yielded.add(index)
                    if progress is not None:
                        progress(len(yielded), len(tasks))
                    yield index, value
                future.release()
        finally:
            pending = [f for f in futures if not f.done()]
            if pending and self.client is not None:
                self.client.cancel(pending)
