"""The ``hosim`` command line.

Exit codes: 0 success, 2 invalid input (one line on stderr: ``hosim: error: ...``), 1 internal
error (one line: ``hosim: internal error: ...``; set ``HOSIM_DEBUG=1`` for the traceback),
130 interrupted. Heavy imports (pandas, rich, the native module) happen inside the commands so
that ``hosim --help`` stays fast.
"""

from __future__ import annotations

import gc
import importlib
import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from hosim import __version__
from hosim.cli_options import check_jobs_or_cluster, runner_options
from hosim.errors import ClusterError, Interrupted, InvariantError, ScenarioError

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

#: The arguments of the running command, recorded in the manifests of its output directories.
_INVOCATION: list[str] = []

# `hosim model NAME`: subcommand name -> module exposing a click command named `cli`.
MODEL_COMMANDS = {
    "pacifico": "hosim.models.pacifico",
    "cohen-levin": "hosim.models.cohen_levin",
    "hsdpa-stability": "hosim.models.hsdpa",
}


# --- entry point and error reporting ---------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script passes it to ``sys.exit``)."""
    _INVOCATION[:] = list(argv) if argv is not None else sys.argv[1:]
    try:
        return _main(argv)
    finally:
        if argv is None:
            # The process is about to exit: its last garbage collections would walk every
            # object of every module loaded (0.1-0.2 s once pandas is), to free memory that
            # the exit frees anyway. Files are closed by then; atexit handlers still run.
            gc.freeze()


def _main(argv: Sequence[str] | None) -> int:
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
    except Interrupted as exc:
        return _report("interrupted", str(exc), 130, exc)
    except ClusterError as exc:
        return _report("error", str(exc), 2, exc)
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
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    sys.stderr.write(f"hosim: {kind}: {one_line(str(message)) or type(exc).__name__}\n")
    sys.stderr.flush()
    return code


def one_line(message: str) -> str:
    """A message of several lines as one: lines joined by "; ", except after a line ending in
    ":", "," or "." (a list or a sentence, like click's "Choose from:\n\treno,\n\tsack"), joined by a space."""
    out = ""
    for line in (raw.strip() for raw in message.splitlines()):
        if line:
            out += line if not out else (" " if out.endswith((":", ",", ".")) else "; ") + line
    return out


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

    # Not a terminal (a pipe, a log file): $COLUMNS, else 80 columns; wider tables print as blocks.
    width = None if sys.stdout.isatty() else _int_env("COLUMNS", 80)
    return Console(highlight=False, soft_wrap=False, width=width)


def _int_env(name: str, default: int) -> int:
    try:
        return max(40, int(os.environ.get(name, "")))
    except ValueError:
        return default


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
    # overflow="fold": a cell too wide for the console wraps; it is never cut to "…".
    table = Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                  padding=(0, 1, 0, 0), show_edge=False)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i >= numeric_from else "left", overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # names from scenarios are text, not markup
    table.caption = " "  # a blank line after the table
    return table


def _print_table(console: Console, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                 numeric_from: int = 1) -> None:
    """Print a table at its natural width if it fits the console; otherwise one block per row
    (field, value), so that no cell is cut or folded."""
    table = _table(title, headers, rows, numeric_from)
    natural = console.measure(table, options=console.options.update_width(100_000)).maximum
    if natural <= console.width:
        console.print(table)
        return
    labels = [h.replace("\n", " ") for h in headers]
    for n, row in enumerate(rows, start=1):
        block = _table(f"{title} ({n} of {len(rows)})", ["field", "value"], list(zip(labels, row)), numeric_from=2)
        console.print(block)


# --- CSV ---------------------------------------------------------------------------------------


def _csv_text(records: Sequence[dict[str, Any]]) -> str:
    """Records as CSV with every field (union of keys, in first-seen order); raw values."""
    import csv
    import io

    columns: list[str] = []
    for record in records:
        columns += [k for k in record if k not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: _csv_cell(v) for k, v in record.items()})
    return buffer.getvalue()


def _csv_cell(value: Any) -> Any:
    import json

    return json.dumps(value) if isinstance(value, (list, dict)) else "" if value is None else value


def _summary_csv(summary: dict[str, Any]) -> str:
    """The flow, queue and handover lists of a run summary as CSV blocks, each after a
    ``# <table>`` line and separated by a blank line."""
    blocks = []
    for name in ("flows", "queues", "handovers"):
        records = summary.get(name) or []
        if records or name == "flows":
            blocks.append(f"# {name}\n" + _csv_text(records))
    return "\n".join(blocks)


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


class _Cli(click.Group):
    """The top-level group; `plot` (and the plotting code behind it) is imported only when it is
    asked for, so that `hosim run` does not pay for it at start-up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), "plot"])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "plot":
            from hosim.plot_cmd import plot_group

            return plot_group
        return super().get_command(ctx, cmd_name)


@click.group(cls=_Cli, context_settings=_CONTEXT, no_args_is_help=True)
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
@click.option("--unset", "unsets", multiple=True, metavar="KEY",
              help="Remove a key the scenario sets, before the --set values (so that a conflicting key can "
                   "replace it, e.g. --unset lte_x2.enb_queue_packets --set lte_x2.enb_queue_bytes=60000). "
                   "Repeatable.")
@click.option("--force", is_flag=True,
              help="Write into --out even if it is a non-empty directory that no earlier `hosim run` wrote.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the flow, queue and handover tables as CSV on stdout.")
@click.option("--pcap", default=None, metavar="LINK[,LINK...]",
              help="Capture packets of these links (or 'all') into --out DIR (docs/cli.md).")
@click.option("--pcap-format", type=click.Choice(["pcapng", "pcap"]), default=None,
              help="pcapng: one file, an interface per link (default); pcap: one file per link.")
def run_command(
    scenario: str, seed: int | None, sets: tuple[str, ...], as_json: bool, out: Path | None, no_traces: bool,
    unsets: tuple[str, ...], force: bool, as_csv: bool, pcap: str | None, pcap_format: str | None,
) -> None:
    """Run one scenario and print per-flow and per-queue results.

    SCENARIO is a TOML file or a preset name (see `hosim presets`). --out refuses a non-empty
    directory that an earlier `hosim run` did not write (see --force), and is checked to be
    writable before the run starts. Implausible values (a 20 s delay) and flows that deliver
    nothing are reported as warnings on stderr."""
    from hosim import api
    from hosim.checks import empty_flow_warnings

    if as_json and as_csv:
        _fail("--json and --csv: choose one")
    overrides = _parse_sets(sets)
    _warn_scenario(scenario, [(k, _toml_value(v)) for k, v in overrides], unsets)
    if (pcap or pcap_format) and out is None:
        _fail("--pcap needs --out DIR: the packet captures are written into DIR")
    from hosim.outdir import missing_dirs, remove_if_empty

    created = missing_dirs(out) if out is not None else []
    previous = _prepare_out(out, "run", force) if out is not None else None
    links = [name.strip() for name in pcap.split(",") if name.strip()] if pcap else None
    capture = api.Capture(out, links, pcap_format) if out is not None else None
    written: list[Path] = []
    try:
        if out is not None and not no_traces:
            # Traces stream to Parquet row groups while the run goes on: memory stays bounded.
            result, written = api.run_to_dir(scenario, out, seed=seed, overrides=overrides, unset=unsets,
                                             capture=capture)
        else:
            result = api.run_raw(scenario, seed=seed, overrides=overrides, traces=False, unset=unsets,
                                 capture=capture)
            written = result.write(out) if out is not None else []
    except BaseException:
        # An input error (or Ctrl-C) before anything was written: leave no empty --out behind.
        remove_if_empty(created)
        raise
    for warning in empty_flow_warnings(result.summary):
        _warn(warning)
    if out is not None:
        if "capture" in result.summary:
            # The core wrote the captures into `out` during the run.
            written += sorted(p for p in out.iterdir() if p.suffix in (".pcap", ".pcapng"))
        fields = {"seed": seed, "overrides": overrides, "unset": list(unsets),
                  "files": [p.name for p in written]}
        _remove_stale(out, previous, written)
        text, source = api.load_scenario(scenario)
        written.append(_write_manifest(out, "run", api.remove_keys(text, unsets, source), source, fields))
    if as_json:
        click.echo(result.summary_json())
        return
    if as_csv:
        click.echo(_summary_csv(result.summary), nl=False)
        return
    console = _console()
    _print_result(console, result)
    if written:
        console.print(f"wrote {len(written)} files to {out}: {', '.join(p.name for p in written)}", markup=False)


def _toml_value(raw: str) -> Any:
    from hosim.api import parse_toml_value

    return parse_toml_value(raw)


def _warn(message: str) -> None:
    sys.stderr.write(f"hosim: warning: {message}\n")
    sys.stderr.flush()


def _warn_scenario(scenario: str, overrides: Sequence[tuple[str, Any]], unsets: Sequence[str]) -> None:
    """Warn about implausible values in the scenario (file, preset or text) and the overrides;
    a scenario that cannot be read is left to the run to report."""
    from hosim.api import _toml_loads, load_scenario
    from hosim.checks import scenario_warnings

    loads = _toml_loads()
    try:
        document = loads(load_scenario(scenario)[0]) if loads is not None else None
    except ValueError:  # ScenarioError and TOML syntax errors: the run reports them
        document = None
    for key in unsets:
        if document is not None:
            *parents, leaf = key.split(".")
            table: Any = document
            for part in parents:
                table = table.get(part, {}) if isinstance(table, dict) else {}
            if isinstance(table, dict):
                table.pop(leaf, None)
    for warning in scenario_warnings(document, overrides):
        _warn(warning)


def _remove_stale(out: Path, previous: dict[str, Any] | None, written: Sequence[Path]) -> None:
    """Files an earlier `hosim run` wrote into ``out`` that this run did not write again."""
    keep = {p.name for p in written}
    for name in (previous or {}).get("files", []):
        if isinstance(name, str) and name not in keep and "/" not in name and name != "manifest.json":
            (out / name).unlink(missing_ok=True)


def _prepare_out(out: Path, command: str, force: bool) -> dict[str, Any] | None:
    """Check --out before anything runs (one-line error, exit 2); returns the manifest there."""
    from hosim.outdir import prepare_output

    return prepare_output(out, command, force)  # OutputError is a ValueError: exit 2, one line


def _write_manifest(out: Path, command: str, text: str, source: str, fields: dict[str, Any]) -> Path:
    import hashlib

    from hosim.outdir import write_manifest
    from hosim.runner import core_version

    manifest = {
        "command": command,
        "hosim": core_version(),
        "scenario": source,
        "scenario_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        **fields,
        "command_line": _command_line(),
    }
    return write_manifest(out, manifest)


def _command_line() -> list[str]:
    return ["hosim", *_INVOCATION]


def _recovery_label(flow: dict[str, Any]) -> str:
    """The recovery with its rate rule when it is not the classic one, e.g. "sack+prr-ssrb",
    and "+frto" when F-RTO is on."""
    label = str(flow.get("recovery"))
    rate = flow.get("recovery_rate")
    if rate not in (None, "classic"):
        label += f"+{rate}"
    if flow.get("frto"):
        label += "+frto"
    return label


def _print_result(console: Console, result: Result) -> None:
    from rich.markup import escape

    s = result.summary
    console.print(
        f"[bold]{escape(str(s.get('scenario')))}[/]  seed {s.get('seed')}  "
        f"simulated {fmt_num(s.get('sim_time_s'), 3)} s "
        f"in {fmt_num(s.get('wall_time_s'), 3)} s ({fmt_num(s.get('events'))} events)"
    )
    flows = [
        [str(f.get("name")), str(f.get("cc")), _recovery_label(f), str(f.get("loss_detection")),
         fmt_mbps(f.get("goodput_bps")),
         fmt_mb(f.get("bytes_delivered")), fmt_num(f.get("retransmits")), fmt_num(f.get("timeouts")),
         fmt_num(f.get("spurious_timeouts")), fmt_num(f.get("fast_recoveries")), fmt_ms(f.get("rtt_mean_s"))]
        for f in s.get("flows", [])
    ]
    _print_table(console, "Flows", ["flow", "cc", "recovery", "loss\ndetection", "goodput\n(Mbit/s)", "data\n(MB)",
                                    "retx", "RTOs", "spurious\nRTOs", "fast\nrec.", "RTT\n(ms)"], flows, numeric_from=4)
    queues = [
        [str(q.get("name")), fmt_num(q.get("enqueued")), fmt_num(q.get("dropped")), fmt_num(q.get("marked")),
         fmt_num(q.get("mean_len_pkts")), fmt_num(q.get("max_len_pkts"))]
        for q in s.get("queues", [])
    ]
    if queues:
        _print_table(console, "Queues", ["queue", "enqueued", "dropped", "marked", "mean len\n(pkts)",
                                         "max len\n(pkts)"], queues)
    handovers = s.get("handovers", [])
    if handovers:
        extra = sorted({k for h in handovers for k in h} - {"ue", "scheme", "start_s", "end_s"})
        rows = [
            [str(h.get("ue")), str(h.get("scheme")), fmt_num(h.get("start_s"), 3), fmt_num(h.get("end_s"), 3),
             *(fmt_num(h.get(k), 3) for k in extra)]
            for h in handovers
        ]
        _print_table(console, "Handovers", ["ue", "scheme", "start\n(s)", "end\n(s)", *extra], rows, numeric_from=2)
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
@click.option("--unset", "unsets", multiple=True, metavar="KEY",
              help="Remove a key the scenario sets, before the overrides (e.g. to replace it by a conflicting "
                   "key). Repeatable.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory of the campaign: manifest.json, runs/<key>.json per finished run, and the tables "
                   "(flows, queues, handovers, runs; parquet and csv). Running the same sweep again resumes it.")
@click.option("--force", is_flag=True,
              help="Write into --out even if it holds other files or a different sweep (whose runs are dropped).")
@click.option("--csv", "as_csv", is_flag=True, help="Print the mean ± std table as CSV on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar (it is also off when stdout is not a terminal).")
def sweep_command(scenario: str, grid: tuple[str, ...], seeds: int, seed_base: int, sets: tuple[str, ...],
                  unsets: tuple[str, ...], jobs: int | None, cluster: str | None, cache_dir: Path | None,
                  no_cache: bool, out: Path, force: bool, as_csv: bool, quiet: bool) -> None:
    """Run a grid of overrides times several seeds, in parallel, into a resumable directory.

    Every combination of the --grid values is run with seeds S..S+N-1 (traces off). Grid values
    are checked before any run starts. Each run is kept in --out as it finishes; Ctrl-C stops
    at once (exit 130) and the same command resumes. At the end each table of the run summary
    goes to <table>.parquet and <table>.csv: flows, queues, handovers (one row per element) and
    runs (one row per run), each starting with the grid keys and seed and ending with the
    scenario and the --set values; results.parquet/.csv repeat the flows. The mean ± standard
    deviation over seeds per grid point is printed. Runs found in the result cache are not run
    again. --cluster runs them on Dask workers instead of local processes (same tables)."""
    from hosim.api import parse_toml_value, toml_literal
    from hosim.campaign import local_executor, run_campaign
    from hosim.runner import ResultCache, available_cores, progress_bar
    from hosim.sweep import plan_sweep, summary_table

    check_jobs_or_cluster(cluster)
    values = _parse_grid(grid)
    fixed = {key: parse_toml_value(raw) for key, raw in _parse_sets(sets)}
    for key in fixed.keys() & values.keys():
        _fail(f"{key}: given both in --set and --grid")
    _warn_scenario(scenario, list(fixed.items()) + [(k, v) for k, vs in values.items() for v in vs], unsets)
    plan = plan_sweep(scenario, values, seeds, seed_base=seed_base, overrides=fixed, unset=unsets)
    cache = ResultCache.from_env(cache_dir, enabled=not no_cache)
    labels = {"scenario": plan.source,
              **{k: v if isinstance(v, (bool, int, float, str)) else toml_literal(v) for k, v in fixed.items()}}
    jobs = available_cores() if jobs is None else jobs
    # The local workers start (forked, while this process has one thread) before the progress bar's thread.
    executor = None if cluster else local_executor(jobs, len(plan.tasks)).start()
    with _interrupted_before_any_run(), executor or nullcontext(), progress_bar("sweep", not quiet) as progress:
        campaign = run_campaign(plan, out, seeds=seeds, seed_base=seed_base, unset=unsets, jobs=jobs, cluster=cluster,
                                cache=cache, force=force, progress=progress, command_line=_command_line(), warn=_warn,
                                label_columns=labels, executor=executor)
    result = campaign.result
    flows = result.data["flows"]
    delivered = flows.columns.get("bytes_delivered", [])
    empty = [i for i, value in enumerate(delivered) if value == 0]
    if empty:
        first = {name: cells[empty[0]] for name, cells in flows.columns.items()}
        _warn(f"{len(empty)} flow rows delivered no data (first: flow {first['flow']}, seed {first['seed']}"
              + "".join(f", {k}={first[k]}" for k in values) + ")")
    stats = summary_table(flows.columns, list(values))
    if as_csv:
        click.echo(stats.csv_text(), nl=False)
        return
    console = _console()
    _print_table(console, *_sweep_table(stats.records(), list(values)))
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


def _sweep_table(stats: list[dict[str, Any]], keys: list[str]) -> tuple[str, list[str], list[list[str]], int]:
    rows = [
        [*(str(row[k]) for k in keys), fmt_num(row["runs"]),
         fmt_mean_std(row["goodput_bps_mean"], row["goodput_bps_std"], fmt_mbps),
         fmt_mean_std(row["retransmits_mean"], row["retransmits_std"]),
         fmt_mean_std(row["timeouts_mean"], row["timeouts_std"])]
        for row in stats
    ]
    headers = [*keys, "runs", "goodput, all flows\n(Mbit/s)", "retransmits", "timeouts"]
    return "Mean ± std over seeds", headers, rows, len(keys)


@cli.command("demo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("hosim-demo"),
              show_default="./hosim-demo", help="Directory for the plots and summary.csv.")
@click.option("--duration", type=click.FloatRange(min=0, min_open=True), default=None,
              show_default="each scenario's duration_s", help="Simulated seconds per run.")
@click.option("--seed", type=click.IntRange(min=0), default=1, help="Seed shared by every run.")
@click.option("--csv", "as_csv", is_flag=True, help="Print summary.csv on stdout instead of the tables.")
def demo_command(out: Path, duration: float | None, seed: int, as_csv: bool) -> None:
    """Compare TCP variants on preset scenarios and plot them.

    Section "tcp-recovery": Reno, NewReno and SACK loss recovery on the dumbbell preset, same
    seed. Section "lte-x2": the LTE X2 handover with the standard, fast and predicted path
    switch, and prediction with RED/ECN (runs last at least 3 s, past the handover at 2.3 s).
    Prints a table per section and writes its cwnd and goodput plots and summary.csv."""
    from hosim.demo import run_demo

    console = _console()

    def report(section: Any, table: pd.DataFrame, files: list[Path]) -> None:
        if as_csv:
            return
        columns = [c for c in table.columns if c not in ("section", "variant")]
        rows = [[str(r["variant"]), *(fmt_by_name(c, r[c]) for c in columns)] for r in table.to_dict("records")]
        _print_table(console, section.title, ["variant", *(header_for(c) for c in columns)], rows)
        console.print(f"plots: {', '.join(str(f) for f in files)}\n", markup=False)

    run_demo(out, duration_s=duration, seed=seed, report=report)
    if as_csv:
        click.echo((out / "summary.csv").read_text(encoding="utf-8"), nl=False)
        return
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
    "vertical-handoff": "hosim.reproduce.vertical",
    "inter-rat": "hosim.reproduce.inter_rat",
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
