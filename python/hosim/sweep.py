"""Parameter sweeps: every point of a grid of overrides, times a range of seeds, run in parallel.

>>> from hosim.sweep import sweep, summarize
>>> table = sweep("dumbbell", {"tcp.recovery": ["reno", "sack"], "dumbbell.loss": [0.0, 0.01]}, seeds=5)
>>> summarize(table)

The result has one row per (grid point, seed, flow) and is the same, row for row, whatever
the number of worker processes: runs are deterministic and rows are sorted by grid point
(in the order the grid lists its values), then seed, then the flow's position in the summary.
Only ``wall_time_s`` differs between repeated sweeps.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from hosim.errors import InvariantError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["RUN_COLUMNS", "SUMMARY_METRICS", "available_cores", "summarize", "sweep", "write_results"]

#: Run-level summary fields copied onto every row of that run.
RUN_COLUMNS = ("sim_time_s", "events", "wall_time_s")
#: Flow fields that ``summarize`` adds up over a run's flows and then averages over seeds.
SUMMARY_METRICS = ("goodput_bps", "retransmits", "timeouts")
_RESERVED_COLUMNS = ("seed", "flow", *RUN_COLUMNS)


class _Task(NamedTuple):
    index: int
    point: int
    seed: int
    overrides: list[tuple[str, str]]  # the fixed overrides, then this point's grid values
    grid_values: int  # how many of `overrides` (at the end) come from the grid


class _Failure(NamedTuple):
    kind: str  # "scenario" or "invariant"
    message: str


def available_cores() -> int:
    """CPU cores this process may run on (the default number of sweep jobs)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def sweep(
    scenario: str | os.PathLike[str],
    grid: Mapping[str, Sequence[Any]],
    seeds: int,
    jobs: int | None = None,
    progress: bool = False,
    *,
    seed_base: int = 1,
    overrides: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Run ``scenario`` at every point of ``grid`` with seeds ``seed_base .. seed_base+seeds-1``.

    grid: ``{"dotted.key": [value, ...]}``; the cartesian product of the value lists is run.
        An empty grid runs the scenario as is, once per seed.
    jobs: worker processes (default: every available core); 1 runs in this process.
    progress: show a progress bar on stdout.
    overrides: fixed ``{"dotted.key": value}`` applied to every run before the grid values.

    Returns one row per (grid point, seed, flow): the grid keys, ``seed``, ``flow`` (the flow's
    name), the flow's other summary fields, and the run's ``sim_time_s``, ``events`` and
    ``wall_time_s``. Traces are not recorded. The first invalid run raises ``ScenarioError``.
    """
    from hosim.api import load_scenario, override_pairs, toml_literal

    keys, values = _check_grid(grid)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
    jobs = available_cores() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")

    text, source = load_scenario(scenario)
    fixed = override_pairs(overrides)
    points = list(itertools.product(*values))
    tasks = [
        _Task(index, point_index, seed, fixed + [(k, toml_literal(v)) for k, v in zip(keys, points[point_index])], len(keys))
        for index, (point_index, seed) in enumerate(
            itertools.product(range(len(points)), range(seed_base, seed_base + seeds))
        )
    ]
    summaries = _run_all(text, source, tasks, min(jobs, len(tasks)), progress)
    frame = _rows_frame(keys, points, tasks, summaries)
    frame.attrs["grid_keys"] = list(keys)
    return frame


def _check_grid(grid: Mapping[str, Sequence[Any]]) -> tuple[list[str], list[list[Any]]]:
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid must be a mapping of dotted key to a list of values, not {type(grid).__name__}")
    keys, values = [], []
    for key, options in grid.items():
        if not isinstance(key, str) or not key:
            raise ScenarioError(f"grid key {key!r}: must be a non-empty dotted path such as 'dumbbell.loss'")
        if key in _RESERVED_COLUMNS:
            raise ScenarioError(f"grid key {key!r}: clashes with the result column of the same name")
        if isinstance(options, (str, bytes)) or not isinstance(options, Sequence):
            options = [options]
        if len(options) == 0:
            raise ScenarioError(f"grid key {key}: no values")
        keys.append(key)
        values.append(list(options))
    return keys, values


# --- running ---------------------------------------------------------------------------------


def _run_one(text: str, source: str, seed: int, overrides: list[tuple[str, str]]) -> str | _Failure:
    """Worker body. Native exceptions come back as values: they may not pickle across processes."""
    from hosim.api import native

    try:
        summary_json, _ = native().run(text, source, seed, overrides, False)
    except ScenarioError as exc:
        return _Failure("scenario", str(exc))
    except InvariantError as exc:
        return _Failure("invariant", str(exc))
    return summary_json


def _run_all(text: str, source: str, tasks: list[_Task], jobs: int, progress: bool) -> list[dict[str, Any]]:
    results: dict[int, str | _Failure] = {}
    with _progress_bar(len(tasks), progress) as advance:
        if jobs == 1:
            for task in tasks:
                results[task.index] = outcome = _run_one(text, source, task.seed, task.overrides)
                advance()
                if isinstance(outcome, _Failure):
                    break
        else:
            _run_pool(text, source, tasks, jobs, results, advance)
    failures = sorted((index, outcome) for index, outcome in results.items() if isinstance(outcome, _Failure))
    if failures:
        _raise_failure(failures[0][1], tasks[failures[0][0]])
    return [json.loads(results[task.index]) for task in tasks]  # type: ignore[arg-type]


def _run_pool(
    text: str, source: str, tasks: list[_Task], jobs: int, results: dict[int, str | _Failure], advance: Any
) -> None:
    with ProcessPoolExecutor(max_workers=jobs, mp_context=_mp_context()) as pool:
        pending: dict[Future[str | _Failure], int] = {
            pool.submit(_run_one, text, source, task.seed, task.overrides): task.index for task in tasks
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    results[pending.pop(future)] = outcome = future.result()
                    advance()
                    if isinstance(outcome, _Failure):
                        # Stop early. Workers take tasks in order, so every task before this one
                        # has started and will finish: the error reported (the lowest failing
                        # index) is the same whatever the number of jobs.
                        for other in pending:
                            other.cancel()
                        pending = {f: i for f, i in pending.items() if not f.cancelled()}
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _mp_context() -> multiprocessing.context.BaseContext:
    # A fresh interpreter per worker (forkserver, else spawn): forking a process that holds
    # threads (the progress bar's refresh thread) is not safe.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _raise_failure(failure: _Failure, task: _Task) -> None:
    grid_pairs = task.overrides[len(task.overrides) - task.grid_values :]
    where = ", ".join(f"{k}={v}" for k, v in grid_pairs)
    context = f" (seed {task.seed}{', ' + where if where else ''})"
    if failure.kind == "scenario":
        raise ScenarioError(failure.message + context)
    raise InvariantError(failure.message + context)


class _NoProgress:
    def __enter__(self) -> Any:
        return lambda: None

    def __exit__(self, *exc: object) -> None:
        return None


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoProgress()
    from contextlib import contextmanager

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    @contextmanager
    def bar() -> Iterator[Any]:
        columns = (TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, transient=True) as progress_bar:
            task_id = progress_bar.add_task("runs", total=total)
            yield lambda: progress_bar.advance(task_id)

    return bar()


# --- tables ----------------------------------------------------------------------------------


def _rows_frame(
    keys: list[str], points: list[tuple[Any, ...]], tasks: list[_Task], summaries: list[dict[str, Any]]
) -> pd.DataFrame:
    import pandas as pd

    point_columns = _grid_columns(keys, points)
    rows = []
    for task, summary in zip(tasks, summaries):
        for flow in summary.get("flows", []):
            row: dict[str, Any] = {key: point_columns[key][task.point] for key in keys}
            row["seed"] = task.seed
            row["flow"] = flow.get("name")
            row.update({k: _cell(v) for k, v in flow.items() if k != "name"})
            row.update({k: summary.get(k) for k in RUN_COLUMNS})
            rows.append(row)
    columns = [*keys, "seed", "flow"]
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=[*columns, *RUN_COLUMNS])
    tail = [c for c in frame.columns if c not in columns and c not in RUN_COLUMNS]
    return frame[[*columns, *tail, *RUN_COLUMNS]]


def _grid_columns(keys: list[str], points: list[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """Grid values as table cells: scalars as they are, a column of mixed or compound values
    as TOML text so it stays one type (parquet needs that)."""
    from hosim.api import toml_literal

    columns = {}
    for position, key in enumerate(keys):
        cells = [_plain(point[position]) for point in points]
        kinds = {type(c) for c in cells}
        if len(kinds) == 1 and kinds <= {bool, int, float, str}:
            columns[key] = cells
        elif kinds <= {int, float}:
            columns[key] = [float(c) for c in cells]
        else:
            columns[key] = [toml_literal(c) for c in cells]
    return columns


def _plain(value: Any) -> Any:
    """numpy scalars -> the Python scalar of the same value."""
    return value.item() if hasattr(value, "item") and not hasattr(value, "__len__") else value


def _cell(value: Any) -> Any:
    return json.dumps(value) if isinstance(value, (list, dict)) else value


def summarize(frame: pd.DataFrame, grid_keys: Sequence[str] | None = None) -> pd.DataFrame:
    """Per grid point: the number of runs and the mean and sample standard deviation over seeds
    of each ``SUMMARY_METRICS`` field summed over the run's flows (so ``goodput_bps`` is the
    aggregate goodput of a run). ``grid_keys`` defaults to the keys ``sweep`` recorded."""
    import pandas as pd

    keys = list(frame.attrs.get("grid_keys", []) if grid_keys is None else grid_keys)
    per_run = frame.groupby([*keys, "seed"], sort=False, dropna=False)[list(SUMMARY_METRICS)].sum().reset_index()
    groups = per_run.groupby(keys, sort=False, dropna=False) if keys else per_run.groupby(lambda _: 0)
    stats = {"runs": groups["seed"].count()}
    for metric in SUMMARY_METRICS:
        stats[f"{metric}_mean"] = groups[metric].mean()
        stats[f"{metric}_std"] = groups[metric].std(ddof=1)
    table = pd.DataFrame(stats)
    return table.reset_index() if keys else table.reset_index(drop=True)


def write_results(frame: pd.DataFrame, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write ``results.parquet`` and ``results.csv`` into ``out_dir`` (created if needed)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.parquet", out / "results.csv"]
    frame.to_parquet(paths[0], index=False)
    frame.to_csv(paths[1], index=False)
    return paths

