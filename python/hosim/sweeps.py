"""Parameter sweeps: every point of a grid of overrides, times a range of seeds.

>>> from hosim.sweeps import run_sweep, summarize
>>> result = run_sweep("dumbbell", {"tcp.recovery": ["reno", "sack"], "dumbbell.loss": [0.0, 0.01]}, seeds=5)
>>> summarize(result.flows)
>>> result.queues, result.handovers, result.runs

The runs go through ``hosim.runner`` (executor and result cache). Every table of the run
summary is kept: ``flows`` (one row per grid point, seed and flow), ``queues`` (per queue),
``handovers`` (per handover) and ``runs`` (one row per run: its scalar fields, nested objects
flattened to dotted columns). Each table starts with the grid keys and ``seed``. The tables are
the same, row for row, whatever the executor: runs are deterministic and rows are sorted by grid
point (in the order the grid lists its values), then seed, then position in the summary. Only
``wall_time_s`` differs between repeated sweeps.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hosim.errors import ScenarioError
from hosim.runner import Progress, ResultCache, Task, available_cores, make_executor, run_tasks
from hosim.stats import ci95_half_width, wilson95
from hosim.table import Table, rows_to_columns

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RUN_COLUMNS",
    "SUMMARY_METRICS",
    "TABLES",
    "SweepPlan",
    "SweepResult",
    "available_cores",
    "outcome_table",
    "plan_sweep",
    "run_sweep",
    "summarize",
    "sweep",
    "write_results",
    "write_tables",
]

#: Run-level summary fields copied onto every flow row of that run.
RUN_COLUMNS = ("sim_time_s", "events", "wall_time_s")
#: Flow fields that ``summarize`` adds up over a run's flows and then averages over seeds.
SUMMARY_METRICS = ("goodput_bps", "retransmits", "timeouts", "spurious_timeouts")
#: The summary's lists, each a table of the sweep: summary key -> the column naming the element.
TABLES = {"flows": "flow", "queues": "queue", "handovers": "handover"}
#: The tables of a sweep, in the order they are written.
TABLE_NAMES = ("flows", "queues", "handovers", "runs")
#: Most runs in one sweep: its plan (a task per run) is built in memory before anything runs.
MAX_RUNS = 1_000_000
_SEED_MAX = 2**64 - 1
_RESERVED_COLUMNS = ("seed", "flow", "queue", "handover", *RUN_COLUMNS)


class SweepResult:
    """The tables of a sweep; ``grid_keys`` are their first columns, then ``seed``.

    ``data`` holds them as pandas-free ``hosim.table.Table`` columns (what ``write_tables``
    and ``hosim sweep`` use); ``flows``, ``queues``, ``handovers``, ``runs`` and ``tables()``
    give them as pandas DataFrames, built on first use."""

    def __init__(self, grid_keys: Sequence[str], data: Mapping[str, Table]):
        if set(data) != set(TABLE_NAMES):
            raise ValueError(f"a sweep result has the tables {TABLE_NAMES}, got {sorted(data)}")
        self.grid_keys = list(grid_keys)
        self.data = {name: data[name] for name in TABLE_NAMES}
        self._frames: dict[str, pd.DataFrame] = {}

    def frame(self, name: str) -> pd.DataFrame:
        """Table ``name`` as a DataFrame (built once, then the same object)."""
        if name not in self._frames:
            self._frames[name] = self.data[name].to_frame()
        return self._frames[name]

    @property
    def flows(self) -> pd.DataFrame:
        return self.frame("flows")

    @property
    def queues(self) -> pd.DataFrame:
        return self.frame("queues")

    @property
    def handovers(self) -> pd.DataFrame:
        return self.frame("handovers")

    @property
    def runs(self) -> pd.DataFrame:
        return self.frame("runs")

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: self.frame(name) for name in TABLE_NAMES}

    def labelled(self, columns: Mapping[str, Any]) -> SweepResult:
        """These tables with a constant column per ``columns`` item appended (a name that is
        already a column is left out)."""
        if not columns:
            return self
        return SweepResult(self.grid_keys, {name: table.with_columns(columns) for name, table in self.data.items()})


@dataclass(frozen=True)
class SweepPlan:
    """The runs of a sweep before any of them runs: task ``i`` is grid point ``runs[i][0]``
    (an index into ``points``) with seed ``runs[i][1]``."""

    text: str
    source: str
    keys: list[str]
    points: list[tuple[Any, ...]]
    runs: list[tuple[int, int]]
    fixed: list[tuple[str, str]]
    tasks: list[Task]

    def describe(self, task: Task) -> str:
        """``seed 2, dumbbell.loss=0.01``: names a run in error messages."""
        grid_pairs = task.overrides[len(self.fixed):]
        return ", ".join([f"seed {task.seed}", *(f"{k}={v}" for k, v in grid_pairs)])

    def result(self, summaries: Sequence[dict[str, Any]]) -> SweepResult:
        """The tables of the sweep from the summaries of ``tasks``, in task order."""
        keys = self.keys
        cells = _grid_columns(keys, self.points)
        labels = [{**{key: cells[key][point] for key in keys}, "seed": seed} for point, seed in self.runs]
        summaries = list(summaries)
        attrs = {"grid_keys": list(keys)}
        tables = {name: _element_table(name, keys, labels, summaries, attrs) for name in TABLES}
        return SweepResult(keys, {**tables, "runs": _runs_table(keys, labels, summaries, attrs)})


def plan_sweep(
    scenario: str | os.PathLike[str],
    grid: Mapping[str, Sequence[Any]],
    seeds: int,
    *,
    seed_base: int = 1,
    overrides: Mapping[str, Any] | None = None,
    unset: Sequence[str] = (),
) -> SweepPlan:
    """The tasks of ``run_sweep`` (same arguments), without running anything."""
    from hosim.scenario import load_scenario, override_pairs, remove_keys, toml_literal

    keys, values = _check_grid(grid)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
    if isinstance(seed_base, bool) or not isinstance(seed_base, int) or seed_base < 0:
        raise ValueError(f"seed_base (--seed-base) must be an integer >= 0, got {seed_base!r}")
    if seed_base + seeds - 1 > _SEED_MAX:
        raise ValueError(f"--seed-base {seed_base} with --seeds {seeds}: the last seed, {seed_base + seeds - 1}, "
                         f"is above 2^64-1; the seeds of a sweep are --seed-base .. --seed-base + --seeds - 1")
    # Counted before anything is allocated: a grid of 10^9 runs or --seeds 10^18 is refused
    # here, in one line, not by a MemoryError.
    count = seeds * math.prod(len(v) for v in values)
    if count > MAX_RUNS:
        raise ValueError(f"--seeds {seeds} x {math.prod(len(v) for v in values)} grid points (--grid) = {count} runs: "
                         f"at most {MAX_RUNS:,} runs in one sweep; split it into several")
    text, source = load_scenario(scenario)
    text = remove_keys(text, unset, source) if unset else text
    fixed = override_pairs(overrides)
    points = list(itertools.product(*values))
    runs = list(itertools.product(range(len(points)), range(seed_base, seed_base + seeds)))
    tasks = [
        Task(text, seed, tuple(fixed + [(k, toml_literal(v)) for k, v in zip(keys, points[point])]), source)
        for point, seed in runs
    ]
    return SweepPlan(text, source, keys, points, runs, fixed, tasks)


def run_sweep(
    scenario: str | os.PathLike[str],
    grid: Mapping[str, Sequence[Any]],
    seeds: int,
    jobs: int | None = None,
    progress: Progress | None = None,
    *,
    seed_base: int = 1,
    overrides: Mapping[str, Any] | None = None,
    cache: ResultCache | None = None,
    unset: Sequence[str] = (),
) -> SweepResult:
    """Run ``scenario`` at every point of ``grid`` with seeds ``seed_base .. seed_base+seeds-1``.

    grid: ``{"dotted.key": [value, ...]}``; the cartesian product of the value lists is run.
        An empty grid runs the scenario as is, once per seed.
    jobs: worker processes (default: every available core); 1 runs in this process.
    progress: ``progress(done, total)`` after every run (see ``hosim.runner.progress_bar``).
    overrides: fixed ``{"dotted.key": value}`` applied to every run before the grid values.
    cache: where finished runs are kept and looked up (default: none).
    unset: dotted keys removed from the scenario before the overrides are applied.

    Traces are not recorded. The first invalid run raises ``ScenarioError``. ``hosim sweep``
    adds an output directory that keeps every run as it finishes (``hosim.campaign``).
    """
    jobs = available_cores() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
    plan = plan_sweep(scenario, grid, seeds, seed_base=seed_base, overrides=overrides, unset=unset)
    with make_executor(min(jobs, len(plan.tasks))) as executor:
        summaries = run_tasks(plan.tasks, executor, cache, progress, plan.describe)
    return plan.result(summaries)


def sweep(
    scenario: str | os.PathLike[str],
    grid: Mapping[str, Sequence[Any]],
    seeds: int,
    jobs: int | None = None,
    progress: bool = False,
    *,
    seed_base: int = 1,
    overrides: Mapping[str, Any] | None = None,
    cache: ResultCache | None = None,
) -> pd.DataFrame:
    """``run_sweep(...).flows``: one row per (grid point, seed, flow) with the grid keys,
    ``seed``, ``flow`` (the flow's name), the flow's other summary fields, and the run's
    ``sim_time_s``, ``events`` and ``wall_time_s``. ``progress`` shows a progress bar."""
    from hosim.runner import progress_bar

    with progress_bar("sweep", progress) as bar:
        result = run_sweep(scenario, grid, seeds, jobs, bar, seed_base=seed_base, overrides=overrides, cache=cache)
    return result.flows


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


# --- tables ----------------------------------------------------------------------------------


def _element_table(
    name: str, keys: list[str], labels: list[dict[str, Any]], summaries: list[dict[str, Any]], attrs: dict[str, Any]
) -> Table:
    """One row per element of ``summary[name]``: the task columns (grid keys, ``seed``), the
    element's name (``flow``, ``queue``; for handovers its position in the run), its fields;
    the flow table ends with the run's ``RUN_COLUMNS``."""
    label = TABLES[name]
    rows, run_of_row = [], []
    for run, (task_columns, summary) in enumerate(zip(labels, summaries)):
        for position, element in enumerate(summary.get(name) or []):
            row: dict[str, Any] = dict(task_columns)
            if name == "handovers":
                row[label] = position
                row.update({k: _cell(v) for k, v in element.items()})
            else:
                row[label] = element.get("name")
                row.update({k: _cell(v) for k, v in element.items() if k != "name"})
            rows.append(row)
            run_of_row.append(run)
    columns = rows_to_columns(rows, [*keys, "seed", label])
    if name == "flows":
        for column in RUN_COLUMNS:
            columns[column] = [summaries[i].get(column) for i in run_of_row]
    return Table(columns, attrs)


def _runs_table(
    keys: list[str], labels: list[dict[str, Any]], summaries: list[dict[str, Any]], attrs: dict[str, Any]
) -> Table:
    """One row per run: the task columns, then every field of the summary except its
    ``TABLES`` lists, nested objects flattened to dotted names (``fcp.forward_delay_s``)."""
    rows = []
    for task_columns, summary in zip(labels, summaries):
        row: dict[str, Any] = dict(task_columns)
        row.update(_flatten({k: v for k, v in summary.items() if k not in TABLES and k != "seed"}))
        rows.append(row)
    return Table(rows_to_columns(rows, [*keys, "seed"]), attrs)


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if isinstance(value, Mapping) and value:
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = _cell(value)
    return out


def _grid_columns(keys: list[str], points: list[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """Grid values as table cells: scalars as they are, a column of mixed or compound values
    as TOML text so it stays one type (parquet needs that)."""
    from hosim.scenario import toml_literal

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


def summarize(frame: pd.DataFrame, grid_keys: Sequence[str] | None = None, flow: str | None = None) -> pd.DataFrame:
    """Per grid point: the number of runs, and the mean over seeds of each ``SUMMARY_METRICS``
    field summed over the run's flows (so ``goodput_bps`` is the aggregate goodput of a run),
    with its sample standard deviation (``_std``) and the half-width of its 95 % confidence
    interval (``_ci95``, Student's t with runs - 1 degrees of freedom). ``flow``: that flow
    only, instead of the sum over all flows. ``grid_keys`` defaults to the keys ``sweep``
    recorded."""
    keys = list(frame.attrs.get("grid_keys", []) if grid_keys is None else grid_keys)
    wanted = [*keys, "seed", "flow", *SUMMARY_METRICS]
    columns = {c: frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in wanted if c in frame.columns}
    return summary_table(columns, keys, flow).to_frame()


def summary_table(flows: Mapping[str, Sequence[Any]], grid_keys: Sequence[str], flow: str | None = None) -> Table:
    """``summarize`` without pandas, on the flow table's columns: grid points in the order they
    first appear; a missing metric counts as 0 in its run's sum; the standard deviation and the
    interval of a single run are NaN (as pandas gives). ``flow``: only the rows of that flow
    (``ScenarioError`` naming the flows if there is none)."""
    keys = list(grid_keys)
    rows = len(flows["seed"]) if "seed" in flows else 0
    if flow is not None:
        names = list(dict.fromkeys(flows.get("flow", [])))
        if flow not in names:
            raise ScenarioError(f"--flow {flow}: no flow of that name (flows: {', '.join(map(str, names))})")
    per_run: dict[tuple[Any, ...], dict[Any, list[float]]] = {}
    for i in range(rows):
        if flow is not None and flows["flow"][i] != flow:
            continue
        point = tuple(_group_key(flows[k][i]) for k in keys)
        sums = per_run.setdefault(point, {}).setdefault(flows["seed"][i], [0.0] * len(SUMMARY_METRICS))
        for m, metric in enumerate(SUMMARY_METRICS):
            value = flows[metric][i] if metric in flows else None
            if value is not None and value == value:  # missing or NaN: skipped, as pandas' sum does
                sums[m] += value
    stats: list[dict[str, Any]] = []
    for point, runs in per_run.items():
        row: dict[str, Any] = dict(zip(keys, point))
        row["runs"] = len(runs)
        for m, metric in enumerate(SUMMARY_METRICS):
            values = [sums[m] for sums in runs.values()]
            mean = math.fsum(values) / len(values)
            row[f"{metric}_mean"] = mean
            squares = math.fsum((v - mean) ** 2 for v in values)
            row[f"{metric}_std"] = math.sqrt(squares / (len(values) - 1)) if len(values) > 1 else math.nan
            row[f"{metric}_ci95"] = ci95_half_width(values) if len(values) > 1 else math.nan
        stats.append(row)
    columns = [*keys, "runs", *(f"{m}_{s}" for m in SUMMARY_METRICS for s in ("mean", "std", "ci95"))]
    return Table(rows_to_columns(stats, columns))


def outcome_table(handovers: Mapping[str, Sequence[Any]], grid_keys: Sequence[str]) -> Table | None:
    """Per grid point and handover outcome (the handovers table's ``outcome`` column, e.g.
    lte-x2's halving / timeout / none): how many handovers ended so, their share of the point's
    handovers and its 95 % Wilson interval (``share_low``, ``share_high``). ``None`` when the
    handovers have no outcome."""
    if "outcome" not in handovers:
        return None
    keys = list(grid_keys)
    counts: dict[tuple[Any, ...], dict[Any, int]] = {}
    for i in range(len(handovers["outcome"])):
        point = tuple(_group_key(handovers[k][i]) for k in keys)
        per_point = counts.setdefault(point, {})
        outcome = handovers["outcome"][i]
        per_point[outcome] = per_point.get(outcome, 0) + 1
    outcomes = list(dict.fromkeys(o for per_point in counts.values() for o in per_point))
    rows: list[dict[str, Any]] = []
    for point, per_point in counts.items():
        total = sum(per_point.values())
        for outcome in outcomes:
            k = per_point.get(outcome, 0)
            low, high = wilson95(k, total)
            rows.append({**dict(zip(keys, point)), "outcome": outcome, "handovers": k, "of": total,
                         "share": k / total, "share_low": low, "share_high": high})
    columns = [*keys, "outcome", "handovers", "of", "share", "share_low", "share_high"]
    return Table(rows_to_columns(rows, columns))


def _group_key(value: Any) -> Any:
    """NaN keys form one group (pandas' ``dropna=False``)."""
    return None if isinstance(value, float) and value != value else value


def write_results(frame: pd.DataFrame, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write the flow table as ``results.parquet`` and ``results.csv`` into ``out_dir``."""
    from hosim.outdir import atomic_write

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [atomic_write(out / "results.parquet", lambda tmp: frame.to_parquet(tmp, index=False)),
            atomic_write(out / "results.csv", lambda tmp: frame.to_csv(tmp, index=False))]


def write_tables(result: SweepResult, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write every table of ``result`` as ``<table>.parquet`` and ``<table>.csv`` (flows,
    queues, handovers, runs), and the flow table again as ``results.parquet`` / ``results.csv``,
    into ``out_dir`` (created if needed), each file atomically. Empty tables are written too,
    with their task columns. pandas is not imported (``hosim.table``)."""
    from hosim.outdir import atomic_write, atomic_write_text

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, table in [("results", result.data["flows"]), *result.data.items()]:
        paths.append(atomic_write(out / f"{name}.parquet", table.write_parquet))
        paths.append(atomic_write_text(out / f"{name}.csv", table.csv_text()))
    return paths
