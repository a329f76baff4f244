"""Parameter sweeps: every point of a grid of overrides, times a range of seeds.

>>> from hosim.sweep import run_sweep, summarize
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
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hosim.errors import ScenarioError
from hosim.runner import Progress, ResultCache, Task, available_cores, make_executor, run_tasks

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "RUN_COLUMNS",
    "SUMMARY_METRICS",
    "TABLES",
    "SweepPlan",
    "SweepResult",
    "available_cores",
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
SUMMARY_METRICS = ("goodput_bps", "retransmits", "timeouts")
#: The summary's lists, each a table of the sweep: summary key -> the column naming the element.
TABLES = {"flows": "flow", "queues": "queue", "handovers": "handover"}
_RESERVED_COLUMNS = ("seed", "flow", "queue", "handover", *RUN_COLUMNS)


@dataclass(frozen=True)
class SweepResult:
    """The tables of a sweep; ``grid_keys`` are their first columns, then ``seed``."""

    grid_keys: list[str]
    flows: pd.DataFrame
    queues: pd.DataFrame
    handovers: pd.DataFrame
    runs: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"flows": self.flows, "queues": self.queues, "handovers": self.handovers, "runs": self.runs}


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
        result = SweepResult(
            grid_keys=list(keys),
            flows=_flows_frame(keys, labels, summaries),
            queues=_list_frame("queues", keys, labels, summaries),
            handovers=_list_frame("handovers", keys, labels, summaries),
            runs=_runs_frame(keys, labels, summaries),
        )
        for frame in result.tables().values():
            frame.attrs["grid_keys"] = list(keys)
        return result


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
    from hosim.api import load_scenario, override_pairs, remove_keys, toml_literal

    keys, values = _check_grid(grid)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be a positive integer, got {seeds!r}")
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


def _flows_frame(keys: list[str], labels: list[dict[str, Any]], summaries: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per flow: the task columns, ``flow``, the flow's fields, then ``RUN_COLUMNS``."""
    frame = _list_frame("flows", keys, labels, summaries)
    run_of_row = frame.pop("_run").tolist()
    for column in RUN_COLUMNS:
        frame[column] = [summaries[i].get(column) for i in run_of_row]
    return frame


def _list_frame(
    name: str, keys: list[str], labels: list[dict[str, Any]], summaries: list[dict[str, Any]]
) -> pd.DataFrame:
    """One row per element of ``summary[name]``: the task columns (grid keys, ``seed``), the
    element's name (``flow``, ``queue``; for handovers its position in the run), its fields."""
    import pandas as pd

    label = TABLES[name]
    rows = []
    for run, (task_columns, summary) in enumerate(zip(labels, summaries)):
        for position, element in enumerate(summary.get(name) or []):
            row: dict[str, Any] = dict(task_columns)
            if name == "handovers":
                row[label] = position
                row.update({k: _cell(v) for k, v in element.items()})
            else:
                row[label] = element.get("name")
                row.update({k: _cell(v) for k, v in element.items() if k != "name"})
            row["_run"] = run
            rows.append(row)
    columns = [*keys, "seed", label]
    frame = pd.DataFrame(rows, columns=None if rows else [*columns, "_run"])
    tail = [c for c in frame.columns if c not in columns and c != "_run"]
    frame = _integer_columns(_one_type_per_column(frame[[*columns, *tail, "_run"]]), rows)
    if name != "flows":
        frame = frame.drop(columns="_run")
    return frame


def _runs_frame(keys: list[str], labels: list[dict[str, Any]], summaries: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per run: the task columns, then every field of the summary except its
    ``TABLES`` lists, nested objects flattened to dotted names (``fcp.forward_delay_s``)."""
    import pandas as pd

    rows = []
    for task_columns, summary in zip(labels, summaries):
        row: dict[str, Any] = dict(task_columns)
        row.update(_flatten({k: v for k, v in summary.items() if k not in TABLES and k != "seed"}))
        rows.append(row)
    return _integer_columns(_one_type_per_column(pd.DataFrame(rows, columns=None if rows else [*keys, "seed"])), rows)


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in mapping.items():
        if isinstance(value, Mapping) and value:
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = _cell(value)
    return out


def _one_type_per_column(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns mixing text and numbers (a field that is a name in one run and a number in
    another) become JSON text, so that every table can be written as parquet."""
    for column in frame.columns:
        if frame[column].dtype != object:
            continue
        kinds = {type(v) for v in frame[column] if v is not None and not _is_nan(v)}
        if len(kinds) > 1 and not kinds <= {int, float}:
            frame[column] = [v if isinstance(v, str) or v is None else json.dumps(v) for v in frame[column]]
    return frame


def _integer_columns(frame: pd.DataFrame, rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Float columns whose values were all integers where present (a count missing from some
    rows) become pandas' nullable ``Int64``, so that CSV and parquet keep them integers."""
    for column in frame.columns:
        if frame[column].dtype.kind != "f":
            continue
        present = [row[column] for row in rows if row.get(column) is not None]
        if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
            frame[column] = frame[column].astype("Int64")
    return frame


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and value != value


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
    """Write the flow table as ``results.parquet`` and ``results.csv`` into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [_write_frame(frame, out / "results.parquet"), _write_frame(frame, out / "results.csv")]


def write_tables(result: SweepResult, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write every table of ``result`` as ``<table>.parquet`` and ``<table>.csv`` (flows,
    queues, handovers, runs), and the flow table again as ``results.parquet`` / ``results.csv``,
    into ``out_dir`` (created if needed), each file atomically. Empty tables are written too,
    with their task columns."""
    out = Path(out_dir)
    paths = write_results(result.flows, out)
    for name, frame in result.tables().items():
        paths += [_write_frame(frame, out / f"{name}.parquet"), _write_frame(frame, out / f"{name}.csv")]
    return paths


def _write_frame(frame: pd.DataFrame, path: Path) -> Path:
    from hosim.outdir import atomic_write

    if path.suffix == ".parquet":
        return atomic_write(path, lambda tmp: frame.to_parquet(tmp, index=False))
    return atomic_write(path, lambda tmp: frame.to_csv(tmp, index=False))
