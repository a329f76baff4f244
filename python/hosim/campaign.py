"""``hosim sweep --out DIR`` as a campaign that survives interruption.

Layout of DIR::

    manifest.json         what the sweep is: scenario (name, text hash), fixed --set and --unset
                          values, grid, seeds, hosim version, command line
    hosim.lock            the pid of the sweep writing DIR (only while it runs)
    runs/<task-key>.json  one run summary per finished run, written as soon as it finishes
    flows.csv ... runs.*  the merged tables, rebuilt from runs/ at the end

Running the same sweep again into DIR (same manifest, apart from the command line) runs only
what ``runs/`` lacks, so an interrupted sweep resumes and ends with the same tables as an
uninterrupted one. A different sweep is refused unless ``--force`` (which drops the old runs).
Before anything runs, every grid point's scenario is built once with a tiny ``duration_s`` (the
core has no validate-only call), so an invalid grid value fails at once, naming its key.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hosim.errors import Interrupted, ScenarioError
from hosim.outdir import DirectoryLock, OutputError, atomic_write_text, prepare_output, write_manifest
from hosim.runner import InterruptibleExecutor, Progress, ResultCache, Task, run_tasks
from hosim.sweeps import TABLE_NAMES, SweepPlan, SweepResult, write_tables

if TYPE_CHECKING:
    from hosim.cluster import DaskExecutor

__all__ = ["RUNS_DIR", "Campaign", "Interrupted", "local_executor", "run_campaign", "task_key", "validate_plan"]

RUNS_DIR = "runs"
#: Manifest fields that must match for a sweep to resume into a directory.
IDENTITY = ("command", "hosim", "scenario", "scenario_sha256", "fixed", "unset", "grid", "seeds", "seed_base")
#: The tables a sweep writes at the end (``write_tables``).
_TABLE_FILES = tuple(f"{name}.{ext}" for name in ("results", *TABLE_NAMES)
                     for ext in ("parquet", "csv"))
#: ``duration_s`` of the validation runs: long enough to build the scenario, too short to simulate.
VALIDATION_DURATION_S = 1e-6


@dataclass(frozen=True)
class Campaign:
    """What a finished campaign did: its tables, the files written and where the runs came from."""

    result: SweepResult
    written: list[Path]
    resumed: int
    ran: int


def task_key(task: Task) -> str:
    """File name stem of a run in ``runs/``: a hash of the scenario text, seed and overrides."""
    fields = json.dumps(task.cache_fields(), sort_keys=True)
    return hashlib.sha256(fields.encode("utf-8")).hexdigest()[:20]


def manifest(
    plan: SweepPlan, seeds: int, seed_base: int, unset: Sequence[str], command_line: Sequence[str]
) -> dict[str, Any]:
    """What ``manifest.json`` records; the ``IDENTITY`` fields decide whether a sweep resumes."""
    from hosim.runner import core_version
    from hosim.scenario import toml_literal

    grid = {
        key: list(dict.fromkeys(toml_literal(point[i]) for point in plan.points)) for i, key in enumerate(plan.keys)
    }
    return {
        "command": "sweep",
        "hosim": core_version(),
        "scenario": plan.source,
        "scenario_sha256": hashlib.sha256(plan.text.encode("utf-8")).hexdigest(),
        "fixed": dict(plan.fixed),
        "unset": list(unset),
        "grid": grid,
        "seeds": seeds,
        "seed_base": seed_base,
        "runs": len(plan.tasks),
        "command_line": list(command_line),
    }


# --- validation --------------------------------------------------------------------------------

_GOT = re.compile(r"got (-?[0-9][0-9.eE+-]*)")


def validate_plan(plan: SweepPlan) -> None:
    """Build the scenario of every distinct grid point once (first seed); the first invalid one
    raises ``ScenarioError`` naming the key and the grid point."""
    seen: set[int] = set()
    for task, (point, _seed) in zip(plan.tasks, plan.runs):
        if point not in seen:
            seen.add(point)
            validate_task(task, plan.describe)


def validate_task(task: Task, describe: Callable[[Task], str] | None = None) -> None:
    """Run ``task`` with ``duration_s`` shortened to almost nothing. A check that ties another
    key to ``duration_s`` ("must be before the end of the run, got 2.3") is retried with a
    duration just past the value it names, as long as that is within the scenario's own. The
    ``ScenarioError`` of an invalid task ends with `` (describe(task))`` when ``describe`` is given."""
    import hosim._native as _native

    real = _duration_s(task)
    duration: float | None = VALIDATION_DURATION_S if real is not None else None
    for _attempt in range(4):
        extra = [] if duration is None else [("duration_s", repr(duration))]
        try:
            _native.run(task.scenario, task.source, task.seed, [*task.overrides, *extra], False)
            return
        except ScenarioError as exc:
            message = str(exc)
            got = _GOT.search(message)
            if duration is None or "duration_s" not in message or got is None or real is None:
                raise ScenarioError(message if describe is None else f"{message} ({describe(task)})") from None
            needed = float(got.group(1)) + 0.01
            duration = needed if needed < real else None  # else: the real duration decides


def _duration_s(task: Task) -> float | None:
    """The ``duration_s`` the task runs with, or ``None`` if it cannot be told cheaply."""
    from hosim.scenario import parse_toml_value, toml_loads

    value: Any = None
    for key, literal in task.overrides:
        if key == "duration_s":
            value = parse_toml_value(literal)
    if value is None:
        loads = toml_loads()
        try:
            value = loads(task.scenario).get("duration_s") if loads is not None else None
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    return float(value)


# --- running -------------------------------------------------------------------------------------


def run_campaign(
    plan: SweepPlan,
    out: Path,
    *,
    seeds: int,
    seed_base: int = 1,
    unset: Sequence[str] = (),
    jobs: int = 1,
    cluster: str | None = None,
    cache: ResultCache | None = None,
    force: bool = False,
    progress: Progress | None = None,
    command_line: Sequence[str] = (),
    warn: Callable[[str], None] | None = None,
    label_columns: dict[str, Any] | None = None,
    executor: InterruptibleExecutor | None = None,
) -> Campaign:
    """Run ``plan`` into ``out`` (see the module doc). Every run goes to ``runs/`` as it
    finishes, once (a result for a run already kept is ignored); Ctrl-C kills the workers at
    once and raises ``Interrupted``. The runs go to ``jobs`` local worker processes, or to the
    Dask ``cluster`` (``local:N`` or a scheduler address, see ``hosim.cluster``), which is
    started or connected to only once the grid is valid and something is left to run. ``warn``
    gets one line when the first grid point's first two seeds give the same summary.
    ``executor`` (``local_executor``, started by the caller before any thread of its own)
    replaces ``jobs``; the caller closes it."""
    validate_plan(plan)
    previous = prepare_output(out, "sweep", force)
    wanted = manifest(plan, seeds, seed_base, unset, command_line)
    with DirectoryLock(out, "hosim sweep"):
        runs_dir = out / RUNS_DIR
        if previous is not None and previous.get("command") == "sweep" and _identity(previous) != _identity(wanted):
            if not force:
                differ = ", ".join(k for k in IDENTITY if previous.get(k) != wanted.get(k))
                raise OutputError(
                    f"--out {out}: holds a different sweep (its manifest differs in: {differ}); "
                    "choose a new directory, or pass --force to replace it"
                )
            # The old sweep's tables go with its runs, before the new manifest is written: an
            # interrupted --force leaves the new sweep's manifest and runs/, never old tables.
            for stale in _TABLE_FILES:
                (out / stale).unlink(missing_ok=True)
            shutil.rmtree(runs_dir, ignore_errors=True)
        write_manifest(out, wanted)
        runs_dir.mkdir(exist_ok=True)
        summaries = _load_finished(plan.tasks, runs_dir)
        resumed = len(summaries)
        check_seeds = _SeedCheck(plan, summaries, warn)
        todo = [i for i in range(len(plan.tasks)) if i not in summaries]

        def keep(position: int, summary_json: str) -> None:
            index = todo[position]
            if index in summaries:  # already kept: each run is written once
                return
            atomic_write_text(runs_dir / f"{task_key(plan.tasks[index])}.json", summary_json)
            summaries[index] = summary_json
            check_seeds.after(index)

        def advance(done: int, _total: int) -> None:
            if progress is not None:
                progress(resumed + done, len(plan.tasks))

        if progress is not None:
            progress(resumed, len(plan.tasks))
        check_seeds.after(None)
        try:
            if todo:
                with _executor(jobs, len(todo), cluster, executor) as runs_on:
                    if isinstance(runs_on, InterruptibleExecutor):
                        runs_on.start()  # fork the workers before the thread below starts
                    _prefetch_table_modules()
                    run_tasks([plan.tasks[i] for i in todo], runs_on, cache, advance,
                              plan.describe, on_result=keep)
            result = plan.result([json.loads(summaries[i]) for i in range(len(plan.tasks))])
            written = write_tables(result.labelled(label_columns or {}), out)
        except KeyboardInterrupt:
            raise Interrupted(
                f"{len(summaries)} of {len(plan.tasks)} runs finished and kept in {out}; "
                "run the same command again to resume"
            ) from None
    return Campaign(result, written, resumed, len(todo))


def _prefetch_table_modules() -> None:
    """Import pyarrow's parquet writer (about 0.1 s) on a background thread while the runs go
    on, so the tables written at the end do not wait for it. The runs release the GIL
    (in-process) or happen in other processes; the import lock makes the later import of the
    table code wait for this one rather than repeat it. pandas is not needed (``hosim.table``);
    workers import neither (``hosim.runner``)."""

    def load() -> None:
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:  # the table code reports it, with its own message
            pass

    threading.Thread(target=load, name="hosim-prefetch-pandas", daemon=True).start()


def local_executor(jobs: int, runs: int) -> InterruptibleExecutor:
    """The executor of a campaign of ``runs`` runs on this machine with ``jobs`` jobs:
    ``jobs`` worker processes (fewer when there are fewer runs)."""
    return InterruptibleExecutor(max(1, min(jobs, runs)))


def _executor(
    jobs: int, runs: int, cluster: str | None, given: InterruptibleExecutor | None
) -> AbstractContextManager[InterruptibleExecutor | DaskExecutor]:
    if given is not None:
        return nullcontext(given)
    if cluster is None:
        return local_executor(jobs, runs)
    from hosim.cluster import DaskExecutor

    return DaskExecutor.from_spec(cluster)


def _identity(manifest: dict[str, Any]) -> dict[str, Any]:
    return {k: manifest.get(k) for k in IDENTITY}


def _load_finished(tasks: Sequence[Task], runs_dir: Path) -> dict[int, str]:
    """Runs already in ``runs/`` (an unreadable file counts as not run)."""
    found: dict[int, str] = {}
    for index, task in enumerate(tasks):
        try:
            text = (runs_dir / f"{task_key(task)}.json").read_text(encoding="utf-8")
            json.loads(text)
        except (OSError, ValueError):
            continue
        found[index] = text
    return found


class _SeedCheck:
    """Warns once if the first two seeds of the first grid point give the same summary."""

    def __init__(self, plan: SweepPlan, summaries: dict[int, str], warn: Callable[[str], None] | None):
        self.summaries = summaries
        self.warn = warn
        first = [i for i, (point, _seed) in enumerate(plan.runs) if point == 0][:2]
        self.pair = first if len(first) == 2 and warn is not None else []
        self.seeds = [plan.runs[i][1] for i in self.pair]

    def after(self, index: int | None) -> None:
        """Called after run ``index`` finished (``None``: before the first new run)."""
        if not self.pair or (index is not None and index not in self.pair):
            return
        if not all(i in self.summaries for i in self.pair):
            return
        from hosim.checks import identical_seeds_warning

        first, second = (json.loads(self.summaries[i]) for i in self.pair)
        self.pair = []
        message = identical_seeds_warning(self.seeds, first, second)
        if message is not None and self.warn is not None:
            self.warn(message)
