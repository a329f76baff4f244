"""The ``hosim`` command line.

Exit codes: 0 success, 2 invalid input (one line on stderr: ``hosim: error: ...``), 1 internal
error (one line: ``hosim: internal error: ...``; set ``HOSIM_DEBUG=1`` for the traceback),
130 interrupted. Heavy imports (pandas, rich, the native module) happen inside the commands so
that ``hosim --help`` stays fast.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from hosim import __version__
from hosim.cli_options import runner_options
from hosim.errors import InvariantError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table

    from hosim.api import Result

__all__ = ["cli", "main"]

# click >= 8.2 raises this (a UsageError) for a group called without arguments; older click
# prints the help itself and exits 0.
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())
_CONTEXT = {"help_option_names": ["-h", "--help"], "show_default": True, "max_content_width": 100}

# `hosim model NAME`: subcommand name -> module exposing a click command named `cli`.
MODEL_COMMANDS = {
    "pacifico": "hosim.models.pacifico",
    "cohen-levin": "hosim.models.cohen_levin",
    "hsdpa-stability": "hosim.models.hsdpa",
}


# --- entry point and error reporting ---------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script passes it to ``sys.exit``)."""
    try:
        code = cli.main(args=list(argv) if argv is not None else None, prog_name="hosim", standalone_mode=False)
    except _NO_ARGS_IS_HELP as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else cli.get_help(click.Context(cli)))
        return 0
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        return _report("error", exc.format_message() + hint, 2, exc)
    except click.ClickException as exc:
        return _report("error", exc.format_message(), 2, exc)
    except click.Abort as exc:
        # The core's KeyboardInterrupt says when: "interrupted at t = ... s".
        return _report("error", str(exc.__cause__ or "") or "interrupted", 130, exc)
    except InvariantError as exc:
        return _report("internal error", f"simulator invariant violated (a bug in hosim): {exc}", 1, exc)
    except ValueError as exc:  # ScenarioError and invalid model parameters
        return _report("error", str(exc), 2, exc)
    except (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError) as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _report("error", f"{where}{exc.strerror or exc}", 2, exc)
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, exit 1
        return _report("internal error", f"{type(exc).__name__}: {exc}", 1, exc)
    return code if isinstance(code, int) else 0


def _report(kind: str, message: str, code: int, exc: BaseException) -> int:
    if _debug():
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    sys.stderr.write(f"hosim: {kind}: {'; '.join(lines) or type(exc).__name__}\n")
    sys.stderr.flush()
    return code


def _debug() -> bool:
    return os.environ.get("HOSIM_DEBUG", "") not in ("", "0")


def _silence_stdout() -> None:
    # The reader went away (`hosim presets | head -1`): drop whatever is still buffered.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _fail(message: str) -> NoReturn:
    raise click.UsageError(message)


# --- shared option parsing -------------------------------------------------------------------


def _parse_sets(items: Sequence[str]) -> list[tuple[str, str]]:
    """``--set a.b=value`` -> ``("a.b", "value")``, value kept raw (the core reads it as TOML)."""
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            _fail(f"--set {item!r}: expected KEY=VALUE with a dotted key, e.g. --set dumbbell.loss=0.01")
        pairs.append((key.strip(), value))
    return pairs


def _parse_grid(items: Sequence[str]) -> dict[str, list[Any]]:
    """``--grid a.b=1,2,3`` -> ``{"a.b": [1, 2, 3]}``, each value read as TOML (else a string)."""
    from hosim.api import parse_toml_value

    grid: dict[str, list[Any]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep or not key:
            _fail(f"--grid {item!r}: expected KEY=V1,V2,... e.g. --grid tcp.recovery=reno,sack")
        if key in grid:
            _fail(f"--grid {key}: given twice")
        parts = _split_top_level(values)
        if any(not p for p in parts):
            _fail(f"--grid {item!r}: empty value in the list")
        grid[key] = [parse_toml_value(p) for p in parts]
    return grid


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets, braces and quotes, so ``[1,2],[3,4]`` is two values."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _console() -> Console:
    from rich.console import Console

    # Not a terminal (a pipe, a log file): lay tables out at their natural width, not 80 columns.
    return Console(highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 200)


# --- number formatting for tables ------------------------------------------------------------


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_mbps(bps: Any) -> str:
    """bit/s -> Mbit/s with 3 decimals (cellular rates are often below 1 Mbit/s)."""
    return "-" if _missing(bps) else f"{bps / 1e6:,.3f}"


def fmt_mb(n_bytes: Any) -> str:
    return "-" if _missing(n_bytes) else f"{n_bytes / 1e6:,.3f}"


def fmt_ms(seconds: Any) -> str:
    return "-" if _missing(seconds) else f"{seconds * 1e3:,.1f}"


def fmt_num(value: Any, digits: int = 2) -> str:
    if _missing(value):
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def fmt_by_name(name: str, value: Any) -> str:
    """Format a value by the unit its column name ends with (see ``header_for``)."""
    if name.endswith("_bps"):
        return fmt_mbps(value)
    if name.endswith("_bytes"):
        return fmt_mb(value)
    if name.endswith("_s"):
        return fmt_ms(value) if _in_ms(name) else fmt_num(value, 3)
    return fmt_num(value)


def header_for(name: str) -> str:
    """Column header with the unit ``fmt_by_name`` shows: ``rtt_mean_s`` -> ``rtt mean (ms)``,
    ``goodput_bps`` -> ``goodput (Mbit/s)``, ``bytes_delivered`` style names unchanged."""
    for suffix, unit in (("_bps", "Mbit/s"), ("_bytes", "MB"), ("_s", "s")):
        if name.endswith(suffix):
            unit = "ms" if suffix == "_s" and _in_ms(name) else unit
            return f"{name[: -len(suffix)].replace('_', ' ')}\n({unit})"
    return name.replace("_", " ")


def _in_ms(name: str) -> bool:
    return "rtt" in name or "delay" in name


def fmt_mean_std(mean: Any, std: Any, fmt: Any = fmt_num) -> str:
    return fmt(mean) if _missing(std) else f"{fmt(mean)} ± {fmt(std)}"


def _table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int = 1) -> Table:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    # One space of right padding plus the box's blank separator: two spaces between columns.
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                  padding=(0, 1, 0, 0), show_edge=False)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i >= numeric_from else "left")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # names from scenarios are text, not markup
    table.caption = " "  # a blank line after the table
    return table


# --- commands --------------------------------------------------------------------------------


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    try:
        from hosim import _native

        core = _native.version()
    except ImportError:
        core = "not built"
    click.echo(f"hosim {__version__} (core {core})")
    ctx.exit()


@click.group(context_settings=_CONTEXT, no_args_is_help=True)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the versions of hosim and its simulator core, then exit.")
def cli() -> None:
    """hosim: packet-level simulator for TCP across mobility events.

    Exit codes: 0 success, 2 invalid input, 1 internal error. Set HOSIM_DEBUG=1 to get a
    traceback with an error.
    """


@cli.command("run")
@click.argument("scenario")
@click.option("--seed", type=click.IntRange(min=0), default=None, show_default="the scenario's seed, else 1",
              help="Seed of the run.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario value by dotted path, e.g. --set tcp.recovery=sack. "
                   "VALUE is read as TOML (a string if it is not). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print only the run summary, as one JSON line, on stdout.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write summary.json and every non-empty trace as <name>.parquet into this directory.")
@click.option("--no-traces", is_flag=True, help="With --out, write only summary.json (faster).")
def run_command(
    scenario: str, seed: int | None, sets: tuple[str, ...], as_json: bool, out: Path | None, no_traces: bool
) -> None:
    """Run one scenario and print per-flow and per-queue results.

    SCENARIO is a TOML file or a preset name (see `hosim presets`)."""
    from hosim.api import run_raw

    overrides = _parse_sets(sets)
    if out is not None and not no_traces:
        from hosim.api import run_to_dir

        # Traces stream to Parquet row groups while the run goes on: memory stays bounded.
        result, written = run_to_dir(scenario, out, seed=seed, overrides=overrides)
    else:
        result = run_raw(scenario, seed=seed, overrides=overrides, traces=False)
        written = result.write(out) if out is not None else []
    if as_json:
        click.echo(result.summary_json())
        return
    console = _console()
    _print_result(console, result)
    if written:
        console.print(f"wrote {len(written)} files to {out}: {', '.join(p.name for p in written)}", markup=False)


def _print_result(console: Console, result: Result) -> None:
    from rich.markup import escape

    s = result.summary
    console.print(
        f"[bold]{escape(str(s.get('scenario')))}[/]  seed {s.get('seed')}  "
        f"simulated {fmt_num(s.get('sim_time_s'), 3)} s "
        f"in {fmt_num(s.get('wall_time_s'), 3)} s ({fmt_num(s.get('events'))} events)"
    )
    flows = [
        [str(f.get("name")), str(f.get("cc")), str(f.get("recovery")), fmt_mbps(f.get("goodput_bps")),
         fmt_mb(f.get("bytes_delivered")), fmt_num(f.get("retransmits")), fmt_num(f.get("timeouts")),
         fmt_num(f.get("spurious_timeouts")), fmt_num(f.get("fast_recoveries")), fmt_ms(f.get("rtt_mean_s"))]
        for f in s.get("flows", [])
    ]
    console.print(_table("Flows", ["flow", "cc", "recovery", "goodput\n(Mbit/s)", "data\n(MB)", "retx", "RTOs",
                                   "spurious\nRTOs", "fast\nrec.", "RTT\n(ms)"], flows, numeric_from=3))
    queues = [
        [str(q.get("name")), fmt_num(q.get("enqueued")), fmt_num(q.get("dropped")), fmt_num(q.get("marked")),
         fmt_num(q.get("mean_len_pkts")), fmt_num(q.get("max_len_pkts"))]
        for q in s.get("queues", [])
    ]
    if queues:
        console.print(_table("Queues", ["queue", "enqueued", "dropped", "marked", "mean len\n(pkts)",
                                        "max len\n(pkts)"], queues))
    handovers = s.get("handovers", [])
    if handovers:
        extra = sorted({k for h in handovers for k in h} - {"ue", "scheme", "start_s", "end_s"})
        rows = [
            [str(h.get("ue")), str(h.get("scheme")), fmt_num(h.get("start_s"), 3), fmt_num(h.get("end_s"), 3),
             *(fmt_num(h.get(k), 3) for k in extra)]
            for h in handovers
        ]
        console.print(_table("Handovers", ["ue", "scheme", "start\n(s)", "end\n(s)", *extra], rows, numeric_from=2))
    invariants = s.get("invariants") or {}
    if invariants:
        problems = [str(v) for v in invariants.get("violations", [])]
        problems += [k for k, v in invariants.items() if v is False and k != "ok"]
        ok = invariants.get("ok", not problems)
        verdict = "ok" if ok and not problems else "VIOLATED " + "; ".join(problems)
        console.print(f"invariants: {verdict}", markup=False)


@cli.command("presets")
@click.option("--show", metavar="NAME", default=None, help="Print the TOML of preset NAME instead of the list.")
def presets_command(show: str | None) -> None:
    """List the presets, or print one with --show."""
    from hosim.api import presets

    entries = presets()
    if show is not None:
        for preset in entries:
            if preset.name == show:
                click.echo(preset.toml.rstrip("\n"))
                return
        raise ScenarioError(f"preset {show}: unknown preset (presets: {', '.join(p.name for p in entries)})")
    width = max((len(p.name) for p in entries), default=0)
    for preset in entries:
        click.echo(f"{preset.name:<{width}}  {preset.description}")


@cli.command("sweep")
@click.argument("scenario")
@click.option("--grid", multiple=True, metavar="KEY=V1,V2,...",
              help="Values of one dotted key to sweep, e.g. --grid dumbbell.loss=0,0.01,0.02. Repeatable: "
                   "the cartesian product of all grids is run.")
@click.option("--seeds", type=click.IntRange(min=1), required=True, help="Runs per grid point (seeds S..S+N-1).")
@click.option("--seed-base", type=click.IntRange(min=0), default=1, help="First seed S.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Fixed override applied to every run. Repeatable.")
@runner_options(default_jobs=None)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory for the tables (flows, queues, handovers, runs; parquet and csv).")
@click.option("--quiet", is_flag=True, help="No progress bar (it is also off when stdout is not a terminal).")
def sweep_command(scenario: str, grid: tuple[str, ...], seeds: int, seed_base: int, sets: tuple[str, ...],
                  jobs: int | None, cache_dir: Path | None, no_cache: bool, out: Path, quiet: bool) -> None:
    """Run a grid of overrides times several seeds, in parallel.

    Every combination of the --grid values is run with seeds S..S+N-1 (traces off). Each table
    of the run summary goes to <table>.parquet and <table>.csv: flows, queues, handovers (one
    row per element) and runs (one row per run), each starting with the grid keys and seed;
    results.parquet/.csv repeat the flows. The mean ± standard deviation over seeds per grid
    point is printed. Runs found in the result cache are not run again."""
    from hosim.api import parse_toml_value
    from hosim.runner import ResultCache, progress_bar
    from hosim.sweep import run_sweep, summarize, write_tables

    values = _parse_grid(grid)
    fixed = {key: parse_toml_value(raw) for key, raw in _parse_sets(sets)}
    for key in fixed.keys() & values.keys():
        _fail(f"{key}: given both in --set and --grid")
    cache = ResultCache.from_env(cache_dir, enabled=not no_cache)
    with progress_bar("sweep", not quiet) as progress:
        result = run_sweep(scenario, values, seeds, jobs=jobs, progress=progress, seed_base=seed_base,
                           overrides=fixed, cache=cache)
    written = write_tables(result, out)
    console = _console()
    console.print(_sweep_table(summarize(result.flows, list(values)), list(values)))
    console.print(f"{len(result.runs)} runs, {len(result.flows)} flow rows; wrote "
                  f"{', '.join(p.name for p in written)} to {out}", markup=False)


def _sweep_table(stats: pd.DataFrame, keys: list[str]) -> Table:
    rows = [
        [*(str(row[k]) for k in keys), fmt_num(row["runs"]),
         fmt_mean_std(row["goodput_bps_mean"], row["goodput_bps_std"], fmt_mbps),
         fmt_mean_std(row["retransmits_mean"], row["retransmits_std"]),
         fmt_mean_std(row["timeouts_mean"], row["timeouts_std"])]
        for row in stats.to_dict("records")
    ]
    headers = [*keys, "runs", "goodput, all flows\n(Mbit/s)", "retransmits", "timeouts"]
    return _table("Mean ± std over seeds", headers, rows, numeric_from=len(keys))


@cli.command("demo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("hosim-demo"),
              show_default="./hosim-demo", help="Directory for the plots and summary.csv.")
@click.option("--duration", type=click.FloatRange(min=0, min_open=True), default=None,
              show_default="each scenario's duration_s", help="Simulated seconds per run.")
@click.option("--seed", type=click.IntRange(min=0), default=1, help="Seed shared by every run.")
def demo_command(out: Path, duration: float | None, seed: int) -> None:
    """Compare TCP variants on preset scenarios and plot them.

    Section "tcp-recovery": Reno, NewReno and SACK loss recovery on the dumbbell preset, same
    seed. Section "lte-x2": the LTE X2 handover with the standard, fast and predicted path
    switch, and prediction with RED/ECN (runs last at least 3 s, past the handover at 2.3 s).
    Prints a table per section and writes its cwnd and goodput plots and summary.csv."""
    from hosim.demo import run_demo

    console = _console()

    def report(section: Any, table: pd.DataFrame, files: list[Path]) -> None:
        columns = [c for c in table.columns if c not in ("section", "variant")]
        rows = [[str(r["variant"]), *(fmt_by_name(c, r[c]) for c in columns)] for r in table.to_dict("records")]
        console.print(_table(section.title, ["variant", *(header_for(c) for c in columns)], rows))
        console.print(f"plots: {', '.join(str(f) for f in files)}\n", markup=False)

    run_demo(out, duration_s=duration, seed=seed, report=report)
    console.print(f"summary: {out / 'summary.csv'}", markup=False)


class _ModelGroup(click.Group):
    """Subcommands live in hosim.models.*; they are imported only when listed or invoked."""

    commands_by_name = MODEL_COMMANDS

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands_by_name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = self.commands_by_name.get(cmd_name)
        if module_name is None:
            return None
        command = importlib.import_module(module_name).cli
        if not isinstance(command, click.Command):
            raise TypeError(f"{module_name}.cli is not a click command")
        return command


@cli.group("model", cls=_ModelGroup, no_args_is_help=True)
def model_group() -> None:
    """Analytical models from the papers hosim reproduces."""


#: `hosim reproduce PAPER`: paper name -> module exposing a click command named `cli`.
REPRODUCTIONS = {
    "drop-or-forward": "hosim.reproduce.fcp",
    "lte-x2": "hosim.reproduce.lte_x2",
    "hsdpa": "hosim.reproduce.hsdpa",
}


class _ReproduceGroup(_ModelGroup):
    """One subcommand per paper, from hosim.reproduce.*; an unknown paper lists the known ones."""

    commands_by_name = REPRODUCTIONS

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(REPRODUCTIONS)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in REPRODUCTIONS:
            _fail(f"unknown paper {name!r} (papers: {', '.join(sorted(REPRODUCTIONS))})")
        return super().resolve_command(ctx, args)


@cli.group("reproduce", cls=_ReproduceGroup, no_args_is_help=True)
def reproduce_group() -> None:
    """Re-run a paper's experiments and write the figures and data behind
    docs/reproductions/. Every run goes through the result cache, so an interrupted
    reproduction resumes where it stopped; see 'hosim reproduce PAPER --help'."""


if __name__ == "__main__":
    sys.exit(main())
