"""Running many simulations: tasks, executors and the result cache.

A ``Task`` is one run: scenario TOML text, a seed and overrides. ``run_tasks`` runs a list of
tasks on an ``Executor`` and returns their summaries in task order, taking what it can from a
``ResultCache`` on disk. Sweeps, reproductions and the models' ``--from-sim`` all go through it.

>>> from hosim.runner import ProcessExecutor, ResultCache, make_task, run_tasks
>>> tasks = [make_task("dumbbell", seed, {"duration_s": 2}) for seed in (1, 2, 3)]
>>> summaries = run_tasks(tasks, ProcessExecutor(jobs=2), ResultCache.from_env())

Runs are deterministic, so the summaries are the same whatever the executor, apart from
``wall_time_s`` (a cache hit returns the ``wall_time_s`` of the run that filled it).

Adding an executor means one class with the ``map`` method of ``Executor``: apply a picklable
module-level function to every task and yield ``(index, value)`` pairs as they complete, in any
order, calling ``progress`` after each. ``hosim.cluster.DaskExecutor`` (``--cluster``) is one.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn, Protocol, TypeVar

from hosim.errors import InvariantError, ScenarioError

if TYPE_CHECKING:
    import hashlib
    import multiprocessing.context
    from concurrent.futures import Future
    from concurrent.futures import ProcessPoolExecutor as _Pool

# hashlib, multiprocessing, signal and concurrent.futures are imported where they are used:
# `hosim run --json` imports this module (through the CLI's options) and needs none of them,
# and together they are a fifth of its start-up (bench/decisions.md).

__all__ = [
    "CACHE_DIR_ENV",
    "NO_CACHE_ENV",
    "Executor",
    "Failure",
    "InProcessExecutor",
    "InterruptibleExecutor",
    "ProcessExecutor",
    "Progress",
    "ResultCache",
    "Runner",
    "Task",
    "available_cores",
    "core_version",
    "default_cache_dir",
    "estimated_cost",
    "make_executor",
    "make_task",
    "progress_bar",
    "run_task",
    "run_tasks",
]

#: Directory of the result cache (default: ``$XDG_CACHE_HOME/hosim``, else ``~/.cache/hosim``).
CACHE_DIR_ENV = "HOSIM_CACHE_DIR"
#: Set to anything but ``""`` or ``0`` to turn the result cache off.
NO_CACHE_ENV = "HOSIM_NO_CACHE"

T = TypeVar("T")
#: ``progress(done, total)``, called after every finished task (cache hits included).
Progress = Callable[[int, int], None]


# --- tasks -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """One simulation run.

    scenario: the scenario's TOML text (``make_task`` resolves preset names and files).
    seed: the run's seed; ``None`` means the scenario's ``seed``, else 1.
    overrides: ``(dotted key, TOML literal)`` pairs applied in order, like ``--set``.
    source: names the scenario in error messages; not part of the run's identity.
    """

    scenario: str
    seed: int | None = None
    overrides: tuple[tuple[str, str], ...] = ()
    source: str = "<string>"

    def cache_fields(self) -> dict[str, Any]:
        """What identifies the run's result, apart from the core version: the scenario text's
        hash, the seed and the overrides sorted by key (the last value of a repeated key wins)."""
        return {
            "scenario_sha256": _sha256(self.scenario.encode("utf-8")).hexdigest(),
            "seed": self.seed,
            "overrides": sorted(dict(self.overrides).items()),
        }


def make_task(
    scenario: str | os.PathLike[str], seed: int | None = None, overrides: Mapping[str, Any] | None = None
) -> Task:
    """A ``Task`` from a preset name, a scenario file or TOML text (resolved as ``hosim.run``
    does) and ``{"dotted.key": python value}`` overrides."""
    from hosim.scenario import load_scenario, override_pairs

    text, source = load_scenario(scenario)
    return Task(text, seed, tuple(override_pairs(overrides)), source)


class Failure(NamedTuple):
    """A run that failed. Worker processes return it instead of raising: the native
    exceptions do not pickle."""

    kind: str  # "scenario" or "invariant"
    message: str

    def exception(self, context: str = "") -> Exception:
        cls = ScenarioError if self.kind == "scenario" else InvariantError
        return cls(self.message + context)


def run_task(task: Task) -> str | Failure:
    """Run ``task`` without traces; returns the summary as JSON text, or the ``Failure``."""
    import hosim._native as _native  # not hosim.api: a worker process need not import pandas

    try:
        summary_json, _ = _native.run(task.scenario, task.source, task.seed, list(task.overrides), False)
    except ScenarioError as exc:
        return Failure("scenario", str(exc))
    except InvariantError as exc:
        return Failure("invariant", str(exc))
    return str(summary_json)


def estimated_cost(task: Task) -> float:
    """``duration_s × flows`` of ``task`` (flow-seconds), an estimate of its cost made before it
    runs, from its scenario text and overrides, by the core: each template counts the flows
    of its own section (``dumbbell.flows``, a cell's UEs), a graph its ``[[flows]]``; at least
    1 flow, 10 s when the text gives no duration."""
    import hosim._native as _native

    return float(_native.estimated_cost(task.scenario, list(task.overrides)))


# --- executors -------------------------------------------------------------------------------


class Executor(Protocol):
    """Runs a function over tasks. Implementations: ``InProcessExecutor``, ``ProcessExecutor``,
    ``InterruptibleExecutor``, ``hosim.cluster.DaskExecutor``."""

    def map(
        self, fn: Callable[[Task], T], tasks: Sequence[Task], progress: Progress | None = None
    ) -> Iterator[tuple[int, T]]:
        """Yield ``(index into tasks, fn(task))`` for every task as it completes, in any order,
        and call ``progress(done, len(tasks))`` after each. ``fn`` is a picklable module-level
        function. Closing the iterator early cancels the tasks not yet started."""
        ...


class InProcessExecutor:
    """Runs every task in this process, one after the other, in order."""

    def __enter__(self) -> InProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to release; here so that both executors can be closed alike."""

    def map(
        self, fn: Callable[[Task], T], tasks: Sequence[Task], progress: Progress | None = None
    ) -> Iterator[tuple[int, T]]:
        for index, task in enumerate(tasks):
            value = fn(task)
            if progress is not None:
                progress(index + 1, len(tasks))
            yield index, value


class ProcessExecutor:
    """Runs tasks in ``jobs`` worker processes (``concurrent.futures``), each a fresh
    interpreter (forkserver, else spawn), so it is safe with threads in the parent.

    The workers start on the first ``map`` and serve every later one, so a reproduction made of
    many small batches starts them once; ``close()`` (or leaving a ``with`` block) stops them.
    """

    def __init__(self, jobs: int | None = None):
        jobs = available_cores() if jobs is None else jobs
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
        self.jobs = jobs
        self._pool: _Pool | None = None

    def __enter__(self) -> ProcessExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes once their runs are over (a later ``map`` starts new ones)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def map(
        self, fn: Callable[[Task], T], tasks: Sequence[Task], progress: Progress | None = None
    ) -> Iterator[tuple[int, T]]:
        if not tasks:
            return
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures import ProcessPoolExecutor as _Pool
        from concurrent.futures.process import BrokenProcessPool

        if self._pool is None:
            # A script's workers are forked when that is safe: a fork server or spawn would
            # import the script again in every worker, and a script without an
            # `if __name__ == "__main__":` guard would then start its sweep again there.
            context = _mp_context(allow_fork=_main_is_a_script())
            self._pool = _Pool(max_workers=self.jobs, mp_context=context, initializer=_ignore_sigint)
        pending: dict[Future[T], int] = {self._pool.submit(fn, task): i for i, task in enumerate(tasks)}
        try:
            done_count = 0
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=pending.__getitem__):
                    index = pending.pop(future)
                    done_count += 1
                    if progress is not None:
                        progress(done_count, len(tasks))
                    try:
                        value = future.result()
                    except BrokenProcessPool:
                        raise RuntimeError(_broken_pool_message()) from None
                    yield index, value
        finally:
            for future in pending:  # closed early, or an error: drop what has not started
                future.cancel()


class InterruptibleExecutor:
    """Runs tasks in ``jobs`` worker processes that can be killed at once: leaving a ``with``
    block on an exception (Ctrl-C, a failed run), or closing ``map`` early, kills the workers
    instead of waiting for the runs under way. ``hosim sweep`` uses it so that Ctrl-C stops
    within a second.

    Each worker talks to this process over a pipe of its own, and nothing else: no lock is
    shared between processes, so a worker killed at any point (even while it sends a result)
    leaves nothing behind that this process could wait on. (``multiprocessing.Pool`` shares a
    lock on its result queue among its workers; one killed while holding it made
    ``Pool.terminate()`` wait for ever.) A worker that dies on its own raises an error here
    instead of hanging the campaign.

    The workers are forked from this process if it has a single thread when they start
    (``start`` before any other thread, as ``hosim sweep`` does): they are then ready in
    milliseconds, with the native module already loaded. Otherwise a fork server starts them
    (spawn where there is none), which takes a fresh interpreter (tenths of a second).
    """

    def __init__(self, jobs: int = 1):
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
        self.jobs = jobs
        self._workers: list[_Worker] | None = None
        #: How the current workers were started ("fork", "forkserver" or "spawn"; None: none).
        self.start_method: str | None = None

    def __enter__(self) -> InterruptibleExecutor:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.terminate()

    def close(self) -> None:
        """Let the workers finish what they were given, then stop them."""
        workers, self._workers = self._workers, None
        for worker in workers or ():
            worker.stop()
        self.start_method = None

    def terminate(self) -> None:
        """Kill the workers now, abandoning the runs under way."""
        workers, self._workers = self._workers, None
        for worker in workers or ():
            worker.kill()
        self.start_method = None

    def start(self) -> InterruptibleExecutor:
        """Start the worker processes now (``map`` starts them otherwise): forked if this
        process has one thread, so call it before starting others. Returns the executor."""
        if self._workers is None:
            context = _mp_context(allow_fork=True)
            self._workers = [_Worker(context) for _ in range(self.jobs)]
            self.start_method = context.get_start_method()
        return self

    def map(
        self, fn: Callable[[Task], T], tasks: Sequence[Task], progress: Progress | None = None
    ) -> Iterator[tuple[int, T]]:
        if not tasks:
            return
        from multiprocessing.connection import wait

        workers = self.start()._workers
        assert workers is not None
        size = chunk_size(tasks, self.jobs)
        items = list(enumerate(tasks))
        chunks = (items[i : i + size] for i in range(0, len(items), size))
        busy: dict[Any, _Worker] = {}
        finished = False
        try:
            for worker in workers:
                chunk = next(chunks, None)
                if chunk is None:
                    break
                worker.send((fn, chunk))
                busy[worker.conn] = worker
            done = 0
            while busy:
                for ready in wait(list(busy)):
                    worker = busy.pop(ready)
                    status, payload = worker.receive()
                    if status == "error":
                        raise payload
                    chunk = next(chunks, None)
                    if chunk is not None:
                        worker.send((fn, chunk))
                        busy[worker.conn] = worker
                    for index, value in payload:
                        done += 1
                        if progress is not None:
                            progress(done, len(tasks))
                        yield index, value
            finished = True
        finally:
            if not finished:
                self.terminate()


class _Worker:
    """One worker process of an ``InterruptibleExecutor`` and its end of their pipe."""

    def __init__(self, context: multiprocessing.context.BaseContext):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True)  # type: ignore[attr-defined]
        self.process.start()
        child.close()

    def send(self, message: object) -> None:
        try:
            self.conn.send(message)
        except OSError:  # its end of the pipe closed: it died
            self._died()

    def receive(self) -> Any:
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self._died()

    def _died(self) -> NoReturn:
        self.process.join()
        raise RuntimeError(f"a worker process died (exit code {self.process.exitcode}) during its runs") from None

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:  # already gone
            pass
        # A chunk still under way (its ``map`` left unfinished) ends in a reply that may not
        # fit the pipe: read and drop it, so that the worker reaches the stop message.
        while self.process.is_alive():
            try:
                if self.conn.poll(0.05):
                    self.conn.recv()
            except (EOFError, OSError):
                break
        self.process.join()
        self.conn.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


def _serve(conn: Any) -> None:
    """A worker's loop: ``(fn, [(index, task), ...])`` in, ``("ok", [(index, fn(task)), ...])``
    or ``("error", exception)`` out; ``None`` stops it."""
    _ignore_sigint()
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the parent is gone
            return
        if message is None:
            return
        fn, chunk = message
        try:
            reply: tuple[str, Any] = ("ok", [(index, fn(task)) for index, task in chunk])
        except Exception as error:  # the parent re-raises it, as a pool would
            reply = ("error", error)
        try:
            conn.send(reply)
        except Exception as error:  # an unpicklable result or exception
            conn.send(("error", RuntimeError(f"a worker could not send its result back: {error!r}")))


#: Runs estimated below this many flow-seconds (``estimated_cost``; about 50 ms) travel to the
#: worker processes in chunks, so that IPC and scheduling do not cost more than the runs.
SMALL_RUN_COST = 400.0
#: Most runs in one chunk: a chunk's runs reach the caller (and a campaign's ``runs/``) together.
MAX_CHUNK = 8


def chunk_size(tasks: Sequence[Task], jobs: int) -> int:
    """Runs per message to a worker process: 1 for runs that are not small (each is kept as soon
    as it finishes), else up to ``MAX_CHUNK``, leaving at least 4 chunks per worker."""
    if not tasks or sum(estimated_cost(t) for t in tasks) / len(tasks) >= SMALL_RUN_COST:
        return 1
    return max(1, min(MAX_CHUNK, len(tasks) // (4 * jobs)))


def _sha256(data: bytes) -> hashlib._Hash:
    import hashlib

    return hashlib.sha256(data)


def _ignore_sigint() -> None:
    # Ctrl-C in a terminal reaches every process of the group: only the parent handles it (and
    # stops or waits for the workers), so workers print no traceback of their own.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # `hosim` turns SIGTERM into Ctrl-C for itself (hosim.cli.main); a worker it forked ends on it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def available_cores() -> int:
    """CPU cores this process may run on (the default number of jobs)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def make_executor(jobs: int | None = None) -> InProcessExecutor | ProcessExecutor:
    """``InProcessExecutor`` for one job, else a ``ProcessExecutor`` (default: every core)."""
    jobs = available_cores() if jobs is None else jobs
    if jobs == 1:
        return InProcessExecutor()
    return ProcessExecutor(jobs)


def _mp_context(allow_fork: bool = False) -> multiprocessing.context.BaseContext:
    """Fork when ``allow_fork`` and safe (this process has one thread: no lock can be held by
    another thread at the time of the fork), else a fork server, else spawn."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if allow_fork and "fork" in methods and _single_threaded():
        return multiprocessing.get_context("fork")
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # The fork server loads the native module once: every worker starts with the simulator
    # loaded. ("__main__" asks it to load the main module too, so that functions defined there
    # unpickle; on CPython 3.11 that entry has no effect, the fork server is not given the main
    # module's path, and each worker imports the main module itself as it starts.)
    context.set_forkserver_preload(["__main__", "hosim._native"])
    return context


def _main_is_a_script() -> bool:
    """Whether the main module is a file run as a script (``python script.py``), which a fork
    server or spawn would import again in each worker."""
    main = sys.modules.get("__main__")
    return getattr(main, "__spec__", None) is None and isinstance(getattr(main, "__file__", None), str)


def _broken_pool_message() -> str:
    if _main_is_a_script():
        return ("a worker process died as it started: a script that runs simulations in parallel (jobs > 1) from "
                "more than one thread must call them under `if __name__ == \"__main__\":`, or use jobs=1")
    return "a worker process died (the pool of worker processes is broken); run with jobs=1 to see the error"


def _single_threaded() -> bool:
    """Whether this process has one thread, native threads included (Linux: ``/proc``;
    elsewhere unknown, so ``False``)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


# --- the result cache ------------------------------------------------------------------------


@cache
def core_version() -> str:
    """The package version, the native core's version and a hash of the native module file:
    a rebuilt core invalidates the cache even when no version number changed."""
    from hosim._version import __version__
    from hosim.scenario import native

    module = native()
    digest = _sha256(b"")
    path = getattr(module, "__file__", None)
    if path:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return f"hosim {__version__}; core {module.version()}; native sha256 {digest.hexdigest()[:16]}"


def default_cache_dir() -> Path:
    """``$HOSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/hosim``, else ``~/.cache/hosim``."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(base).expanduser() / "hosim"


class ResultCache:
    """Run summaries on disk, one JSON file per run, keyed by the core version, the scenario
    text, the seed and the overrides. Writes are atomic, so concurrent runs may share it."""

    def __init__(self, directory: str | os.PathLike[str], version: str | None = None):
        self.directory = Path(directory)
        self._version = version

    @classmethod
    def from_env(cls, directory: str | os.PathLike[str] | None = None, enabled: bool = True) -> ResultCache | None:
        """The cache at ``directory`` (default: ``default_cache_dir()``), or ``None`` when
        ``enabled`` is false or ``HOSIM_NO_CACHE`` is set."""
        if not enabled or os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
            return None
        return cls(default_cache_dir() if directory is None else directory)

    @property
    def version(self) -> str:
        if self._version is None:
            self._version = core_version()
        return self._version

    def key(self, task: Task) -> str:
        fields = {"core": self.version, **task.cache_fields()}
        return _sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()

    def path(self, task: Task) -> Path:
        key = self.key(task)
        return self.directory / "runs" / key[:2] / f"{key}.json"

    def get(self, task: Task) -> str | None:
        """The cached summary JSON of ``task``, or ``None`` (also for an unreadable entry,
        which the next ``put`` replaces)."""
        try:
            text = self.path(task).read_text(encoding="utf-8")
            json.loads(text)
        except (OSError, ValueError):
            return None
        return text

    def put(self, task: Task, summary_json: str) -> None:
        path = self.path(task)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(summary_json, encoding="utf-8")
        os.replace(tmp, path)


# --- running ---------------------------------------------------------------------------------


def run_tasks(
    tasks: Sequence[Task],
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    progress: Progress | None = None,
    describe: Callable[[Task], str] | None = None,
    on_result: Callable[[int, str], None] | None = None,
) -> list[dict[str, Any]]:
    """Summaries of ``tasks``, in task order. Cached runs are not run again; new results are
    stored as they arrive. A failed run raises ``ScenarioError`` (or ``InvariantError``) for the
    failing task of lowest index, whatever the executor; ``describe(task)`` adds context to its
    message (default: the seed). ``executor`` defaults to ``InProcessExecutor``.
    ``on_result(index, summary_json)`` is called for every successful run as soon as its result
    is known (cache hits first), so a caller can keep it before the batch is over."""
    executor = InProcessExecutor() if executor is None else executor
    results: dict[int, str] = {}
    todo: list[int] = []
    for index, task in enumerate(tasks):
        hit = cache.get(task) if cache is not None else None
        if hit is None:
            todo.append(index)
        else:
            results[index] = hit
            if on_result is not None:
                on_result(index, hit)
    hits = len(results)
    if progress is not None and hits:
        progress(hits, len(tasks))

    def advance(done: int, _total: int) -> None:
        if progress is not None:
            progress(hits + done, len(tasks))

    failures: dict[int, Failure] = {}
    outcomes = executor.map(run_task, [tasks[i] for i in todo], advance)
    finished: set[int] = set()
    try:
        for position, outcome in outcomes:
            index = todo[position]
            finished.add(position)
            if isinstance(outcome, Failure):
                failures[index] = outcome
            else:
                results[index] = outcome
                if cache is not None:
                    cache.put(tasks[index], outcome)
                if on_result is not None:
                    on_result(index, outcome)
            # Stop once every task before the first failure has finished: the error reported
            # is then the same whatever the executor and the order of completion.
            if failures and all(p in finished for p in range(todo.index(min(failures)))):
                break
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    if failures:
        index = min(failures)
        task = tasks[index]
        raise failures[index].exception(f" ({describe(task) if describe else f'seed {task.seed}'})")
    return [json.loads(results[index]) for index in range(len(tasks))]


class Runner:
    """An executor, a cache and a progress callback, passed around as one value."""

    def __init__(
        self, executor: Executor | None = None, cache: ResultCache | None = None, progress: Progress | None = None
    ):
        self.executor: Executor = InProcessExecutor() if executor is None else executor
        self.cache = cache
        self.progress = progress

    @classmethod
    def from_options(
        cls,
        jobs: int | None = 1,
        cache_dir: str | os.PathLike[str] | None = None,
        cache: bool = True,
    ) -> Runner:
        """The runner the command-line options describe (``--jobs``, ``--cache-dir``,
        ``--no-cache``); ``hosim.cli.options.runner_from_options`` adds ``--cluster``."""
        return cls(make_executor(jobs), ResultCache.from_env(cache_dir, enabled=cache))

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the executor if it has worker processes to stop."""
        close = getattr(self.executor, "close", None)
        if close is not None:
            close()

    def summaries(self, tasks: Sequence[Task], describe: Callable[[Task], str] | None = None) -> list[dict[str, Any]]:
        """``run_tasks`` with this runner's executor, cache and progress."""
        return run_tasks(tasks, self.executor, self.cache, self.progress, describe)

    def summary(
        self, scenario: str | os.PathLike[str], seed: int | None = None, overrides: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The summary of one run (cached like the others)."""
        return self.summaries([make_task(scenario, seed, overrides)])[0]


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Progress | None]:
    """A rich progress bar on stdout as a ``Progress`` callback, or ``None`` when not
    ``enabled`` or stdout is not a terminal. It disappears when the block ends."""
    if not enabled or not sys.stdout.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Bar(*columns, transient=True) as bar:
        bar_task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(bar_task, completed=done, total=total)

        yield update
