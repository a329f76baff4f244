"""``hosim sweep SCENARIO``: a grid of overrides times several seeds, in parallel, into a
resumable campaign directory, and the mean of each grid point over its seeds."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hosim.cli.common import fail, parse_grid, parse_sets, scenario_warnings
from hosim.cli.format import fmt_mbps, fmt_mean_std, fmt_num, new_console, print_table, warn
from hosim.cli.invocation import command_line
from hosim.cli.options import check_jobs_or_cluster, runner_options
from hosim.errors import Interrupted

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["print_summary", "sweep_command"]


@click.command("sweep")
@click.argument("scenario")
@click.option("--grid", multiple=True, metavar="KEY=V1,V2,...",
              help="Values of one dotted key to sweep, e.g. --grid dumbbell.loss=0,0.01,0.02. Repeatable: "
                   "the cartesian product of all grids is run.")
@click.option("--seeds", type=click.IntRange(min=1), required=True, help="Runs per grid point (seeds S..S+N-1).")
@click.option("--seed-base", type=click.IntRange(min=0), default=1, help="First seed S.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Fixed override applied to every run. Repeatable.")
@runner_options(default_jobs=None)
@click.option("--unset", "unsets", multiple=True, metavar="KEY",
              help="Remove a key the scenario sets, before the overrides (e.g. to replace it by a conflicting "
                   "key). Repeatable.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory of the campaign: manifest.json, runs/<key>.json per finished run, and the tables "
                   "(flows, queues, handovers, runs; parquet and csv). Running the same sweep again resumes it.")
@click.option("--force", is_flag=True,
              help="Write into --out even if it holds other files or a different sweep (whose runs are dropped).")
@click.option("--flow", default=None, metavar="NAME",
              help="Summarize this flow only (e.g. lte-x2's ref), instead of the sum over every flow of a run.")
@click.option("--csv", "as_csv", is_flag=True,
              help="Print the table of means (with standard deviations and 95 % intervals) as CSV on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar (it is also off when stdout is not a terminal).")
def sweep_command(scenario: str, grid: tuple[str, ...], seeds: int, seed_base: int, sets: tuple[str, ...],
                  unsets: tuple[str, ...], jobs: int | None, cluster: str | None, cache_dir: Path | None,
                  no_cache: bool, out: Path, force: bool, flow: str | None, as_csv: bool, quiet: bool) -> None:
    """Run a grid of overrides times several seeds, in parallel, into a resumable directory.

    Every combination of the --grid values is run with seeds S..S+N-1 (traces off). Grid values
    are checked before any run starts. Each run is kept in --out as it finishes; Ctrl-C stops
    at once (exit 130) and the same command resumes. At the end each table of the run summary
    goes to <table>.parquet and <table>.csv: flows, queues, handovers (one row per element) and
    runs (one row per run), each starting with the grid keys and seed and ending with the
    scenario and the --set values; results.parquet/.csv repeat the flows. Printed per grid point:
    the mean over seeds with its 95 % confidence interval (Student t) of goodput, retransmissions,
    timeouts and spurious timeouts, summed over a run's flows (or of --flow NAME), and, where the
    handovers have an outcome, the share of each outcome with its 95 % Wilson interval (also:
    hosim summarize DIR). Runs found in the result cache are not run again. --cluster runs them
    on Dask workers instead of local processes (same tables)."""
    from hosim.campaign import local_executor, run_campaign, validate_plan
    from hosim.runner import ResultCache, available_cores, progress_bar
    from hosim.scenario import parse_toml_value, toml_literal
    from hosim.sweeps import plan_sweep

    check_jobs_or_cluster(cluster)
    values = parse_grid(grid)
    fixed = {key: parse_toml_value(raw) for key, raw in parse_sets(sets)}
    for key in fixed.keys() & values.keys():
        fail(f"{key}: given both in --set and --grid")
    warnings = scenario_warnings(scenario, list(fixed.items()) + [(k, v) for k, vs in values.items() for v in vs],
                                 unsets)
    plan = plan_sweep(scenario, values, seeds, seed_base=seed_base, overrides=fixed, unset=unsets)
    if warnings:
        with _interrupted_before_any_run():
            validate_plan(plan)  # a rejected value gets its error line only, no warning before it
    for warning in warnings:
        warn(warning)
    cache = ResultCache.from_env(cache_dir, enabled=not no_cache)
    labels = {"scenario": plan.source,
              **{k: v if isinstance(v, (bool, int, float, str)) else toml_literal(v) for k, v in fixed.items()}}
    jobs = available_cores() if jobs is None else jobs
    # The local workers start (forked, while this process has one thread) before the progress bar's thread.
    executor = None if cluster else local_executor(jobs, len(plan.tasks)).start()
    with _interrupted_before_any_run(), executor or nullcontext(), progress_bar("sweep", not quiet) as progress:
        campaign = run_campaign(plan, out, seeds=seeds, seed_base=seed_base, unset=unsets, jobs=jobs, cluster=cluster,
                                cache=cache, force=force, progress=progress, command_line=command_line(), warn=warn,
                                label_columns=labels, executor=executor)
    result = campaign.result
    flows = result.data["flows"]
    delivered = flows.columns.get("bytes_delivered", [])
    empty = [i for i, value in enumerate(delivered) if value == 0]
    if empty:
        first = {name: cells[empty[0]] for name, cells in flows.columns.items()}
        warn(f"{len(empty)} flow rows delivered no data (first: flow {first['flow']}, seed {first['seed']}"
              + "".join(f", {k}={first[k]}" for k in values) + ")")
    console = print_summary(flows.columns, result.data["handovers"].columns, list(values), flow, as_csv)
    if console is None:
        return
    console.print(f"{len(result.data['runs'])} runs ({campaign.resumed} resumed from {out}, {campaign.ran} run now), "
                  f"{len(flows)} flow rows; wrote runs/, manifest.json and the tables "
                  f"({', '.join(sorted({p.stem for p in campaign.written}))}; .parquet and .csv) to {out}",
                  markup=False)


@contextmanager
def _interrupted_before_any_run() -> Iterator[None]:
    """Ctrl-C before the campaign started running (while the grid is validated): one line, 130.
    Once runs have started, ``run_campaign`` reports what it kept."""
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted("before any run started; nothing was kept") from None


def print_summary(flows: Mapping[str, Sequence[Any]], handovers: Mapping[str, Sequence[Any]], keys: list[str],
                  flow: str | None, as_csv: bool) -> Console | None:
    """The statistics of a sweep's tables (``hosim sweep`` and ``hosim summarize``): the means
    with their 95 % intervals, then the handover outcomes. ``as_csv``: the means as CSV on
    stdout (and ``None``); else the console they were printed on."""
    from hosim.sweeps import outcome_table, summary_table

    stats = summary_table(flows, keys, flow)
    if as_csv:
        click.echo(stats.csv_text(), nl=False)
        return None
    console = new_console()
    print_table(console, *_sweep_table(stats.records(), keys, flow))
    outcomes = outcome_table(handovers, keys)
    if outcomes is not None and outcomes.rows:
        rows = [[*(str(row[k]) for k in keys), str(row["outcome"]), f"{row['handovers']} of {row['of']}",
                 _share(row["share"], row["share_low"], row["share_high"])] for row in outcomes.records()]
        print_table(console, "Handover outcomes: share with its 95 % Wilson interval",
                    [*keys, "outcome", "handovers", "share (%)"], rows, len(keys) + 1)
    return console


def _share(share: float, low: float, high: float) -> str:
    return f"{share * 100:.1f} [{low * 100:.1f}, {high * 100:.1f}]"


def _sweep_table(stats: list[dict[str, Any]], keys: list[str],
                 flow: str | None) -> tuple[str, list[str], list[list[str]], int]:
    rows = [
        [*(str(row[k]) for k in keys), fmt_num(row["runs"]),
         fmt_mean_std(row["goodput_bps_mean"], row["goodput_bps_ci95"], fmt_mbps),
         fmt_mean_std(row["retransmits_mean"], row["retransmits_ci95"]),
         fmt_mean_std(row["timeouts_mean"], row["timeouts_ci95"]),
         fmt_mean_std(row["spurious_timeouts_mean"], row["spurious_timeouts_ci95"])]
        for row in stats
    ]
    which = f"flow {flow}" if flow is not None else "all flows"
    headers = [*keys, "runs", f"goodput, {which}\n(Mbit/s)", "retransmits", "timeouts", "spurious\ntimeouts"]
    return f"Mean ± 95 % confidence interval over seeds (Student t), {which}", headers, rows, len(keys)
