"""``hosim run SCENARIO``: one run, its tables or JSON or CSV, and its files with ``--out``;
``hosim presets``: the scenarios shipped with hosim."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from hosim.cli.common import fail, parse_sets, scenario_warnings, write_manifest
from hosim.cli.format import fmt_mb, fmt_mbps, fmt_ms, fmt_num, new_console, print_table, summary_csv, warn
from hosim.errors import ScenarioError

if TYPE_CHECKING:
    from rich.console import Console

    from hosim.api import Result
    from hosim.outdir import DirectoryLock

__all__ = ["presets_command", "print_result", "run_command"]

T = TypeVar("T")
#: Set when `hosim run` left a run behind in a worker thread on Ctrl-C (``_interruptible``).
ABANDONED = threading.Event()
#: Set once a run's worker thread was started (``_interruptible``): the console script then ends
#: the process with ``os._exit`` (hosim.cli.main), whatever the exit code. A worker thread that
#: is still ending (freeing its malloc arena) while ``exit`` runs the libraries' destructors
#: aborted the process twice in bench/fuzz_outdir.py, once after a run that ended normally
#: ("malloc_consolidate(): invalid chunk size"; the core dumps: the main thread in ``exit`` ->
#: ``_dl_fini``, the worker in ``tcache_thread_shutdown``).
WORKER_STARTED = threading.Event()


@click.command("run")
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
              help="Capture packets of these links into --out DIR: link names, 'all' (every link: a "
                   "packet once per hop) or 'flows' (each flow once, at its receiver); docs/cli.md.")
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
    from hosim.checks import result_warnings

    if as_json and as_csv:
        fail("--json and --csv: choose one")
    overrides = parse_sets(sets)
    if (pcap or pcap_format) and out is None:
        fail("--pcap needs --out DIR: the packet captures are written into DIR")
    warnings = scenario_warnings(scenario, [(k, _toml_value(v)) for k, v in overrides], unsets)
    if warnings:
        _validate(scenario, seed, overrides, unsets)  # a rejected value: its error line only
    for warning in warnings:
        warn(warning)
    from hosim.outdir import DirectoryLock, missing_dirs, remove_if_empty

    created = missing_dirs(out) if out is not None else []
    lock = DirectoryLock(out, "hosim run") if out is not None else None
    try:
        result, written = _run_into(scenario, seed, overrides, unsets, out, force, no_traces, pcap, pcap_format,
                                    lock)
    except BaseException:
        # Failed or interrupted: DIR is as it was before (a new DIR is removed again).
        if lock is not None:
            lock.release()
        remove_if_empty(created)
        raise
    if lock is not None:
        lock.release()
    for warning in result_warnings(result.summary):
        warn(warning)
    if as_json:
        click.echo(result.summary_json())
        return
    if as_csv:
        click.echo(summary_csv(result.summary), nl=False)
        return
    console = new_console()
    print_result(console, result)
    if written:
        console.print(f"wrote {len(written)} files to {out}: {', '.join(p.name for p in written)}", markup=False)


def _run_into(scenario: str, seed: int | None, overrides: Sequence[tuple[str, str]], unsets: Sequence[str],
              out: Path | None, force: bool, no_traces: bool, pcap: str | None, pcap_format: str | None,
              lock: DirectoryLock | None) -> tuple[Result, list[Path]]:
    """The run, and with ``out`` its files and manifest, written while ``lock`` is held (taken
    here, before ``out`` is checked: a second `hosim run` into the same directory is refused
    at once, one line, exit 2). Returns the result and the files written."""
    from hosim import api
    from hosim.cli.invocation import command_line
    from hosim.outdir import OutputError, prepare_output

    previous = None
    if out is not None and lock is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            pass  # a file: prepare_output says so
        except OSError as exc:
            raise OutputError(f"--out {out}: cannot write there: {exc.strerror or exc}") from None
        if out.is_dir():
            lock.acquire()
        # OutputError is a ValueError: exit 2, one line, before anything runs.
        previous = prepare_output(out, "run", force)
        # What a killed (SIGKILL) run left half-written: with the lock, no one else writes here.
        api.remove_staging(out, pid=-1)
        if previous is not None and not force:
            _check_same_scenario(out, previous, api.load_scenario(scenario)[1])
    links = [name.strip() for name in pcap.split(",") if name.strip()] if pcap else None
    capture: api.Capture | None = None
    # For the manifest, read here: the worker writes it (the click context is this thread's).
    text, source = api.load_scenario(scenario) if out is not None else ("", "")
    line = command_line()

    def with_manifest(result: api.Result, written: list[Path]) -> tuple[api.Result, list[Path]]:
        """The manifest, written in the worker right after the run's files are in place (as
        their renames are): Ctrl-C in the main thread cannot come between them, so DIR is
        never the new files beside the old manifest (bench/fuzz_outdir.py found that)."""
        if out is None:
            return result, written
        # The capture files this run wrote (the core names them in the summary); never those
        # an earlier run left in DIR.
        names = {p.name for p in written}
        for name in (result.summary.get("capture") or {}).get("files", []):
            if isinstance(name, str) and name not in names:
                written.append(out / name)
        fields = {"seed": seed, "overrides": overrides, "unset": list(unsets), "files": [p.name for p in written]}
        _remove_stale(out, previous, written)
        written.append(write_manifest(out, "run", api.remove_keys(text, unsets, source), source, fields, line))
        return result, written

    committing = threading.Event()
    started = api.cancel_count()

    def commit() -> None:
        """The run is over: from here its files are written, and Ctrl-C waits for them; unless
        Ctrl-C came first (the run may have started after the cancel and finished): then the
        main thread may be gone, and nothing is written (bench/fuzz_outdir.py found an empty
        DIR made so)."""
        with api.staging_lock:  # either committing (and waited for) or abandoned, never both
            if committing.is_set():
                # Called again, after the capture was moved into place (`--no-traces`: once
                # by the run before its capture is moved, once before the tables): a Ctrl-C
                # since must not stop the rest, or DIR would hold the new capture beside no
                # manifest (bench/fuzz_outdir.py).
                return
            if api.cancel_count() != started:
                raise KeyboardInterrupt("interrupted")
            committing.set()

    if out is not None:
        capture = api.Capture(out, links, pcap_format, before_commit=commit)

    if out is not None and not no_traces:
        # Traces stream to Parquet row groups while the run goes on: memory stays bounded.
        def stream() -> tuple[api.Result, list[Path]]:
            if api.cancel_count() != started:  # before run_to_dir makes DIR again
                raise KeyboardInterrupt("interrupted")
            return with_manifest(*api.run_to_dir(scenario, out, seed=seed, overrides=overrides, unset=unsets,
                                                 capture=capture, committing=commit))

        return _interruptible(stream, out, committing)

    def run_and_write() -> tuple[api.Result, list[Path]]:
        # In the worker, like run_to_dir's renames: Ctrl-C (main thread) cannot split them.
        if api.cancel_count() != started:  # before a capture makes DIR again
            raise KeyboardInterrupt("interrupted")
        result = api.run_raw(scenario, seed=seed, overrides=overrides, traces=False, unset=unsets, capture=capture)
        commit()
        return with_manifest(result, result.write(out) if out is not None else [])

    return _interruptible(run_and_write, out, committing)


def _interruptible(run: Callable[[], T], out: Path | None, committing: threading.Event | None = None) -> T:
    """``run()`` in a worker thread while this (the main) thread waits for it, so that Ctrl-C
    is answered at once even while the core builds a large scenario or parses a long trace,
    where it does not look for signals. On Ctrl-C the run is cancelled (``cancel_runs``): a run
    in its event loop stops within its next check and reports the simulated time; one still
    being built is left behind (a daemon thread, parked by the core at interpreter exit) and
    its staging files in ``out`` are removed here. A run that is over and putting its files and
    manifest in place (``committing`` set) is waited for: left behind, it would leave DIR half
    new (bench/fuzz_outdir.py found that under load)."""
    from hosim.api import cancel_runs

    box: dict[str, Any] = {}
    # An Event, not Thread.join: a join that Ctrl-C interrupts can take the thread for finished
    # (CPython 3.11).
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = run()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=target, name="hosim-run", daemon=True)
    try:
        # Inside the guard: Ctrl-C while `start` waits for the thread to run must cancel it
        # too, or the run goes on and writes its files as the process ends
        # (bench/fuzz_outdir.py: a summary.json left without a manifest).
        WORKER_STARTED.set()
        worker.start()
        while not done.wait(0.1):
            pass
    except KeyboardInterrupt:
        # Cancelled again and again for a second: also a run that was about to start (the
        # worker still in Python, loading the scenario) when Ctrl-C came.
        deadline = time.monotonic() + 1.0
        while not done.is_set() and time.monotonic() < deadline:
            cancel_runs()
            done.wait(0.05)
        if not done.is_set():
            from hosim.api import abandon_staging, staging_lock

            with staging_lock:
                commits = committing is not None and committing.is_set()
                if not commits and out is not None:
                    abandon_staging(out)  # and the worker stages nothing there from now on
            if commits:
                done.wait()  # file writes and renames: bounded, and a full disk fails them at once
        if not done.is_set():
            # The process must now end without finalizing the interpreter, which would stop
            # the worker with pthread_exit wherever it is, maybe inside Rust frames (an abort):
            # hosim.cli.main ends it with os._exit once its line is printed.
            ABANDONED.set()
            raise KeyboardInterrupt("interrupted while the scenario was being built") from None
    if "error" in box:
        raise box["error"]
    return cast(T, box["value"])


def _validate(scenario: str, seed: int | None, overrides: Sequence[tuple[str, str]], unsets: Sequence[str]) -> None:
    """Build the scenario with its overrides and run it for a moment: a ``ScenarioError`` (one
    line, exit 2) if the core rejects it."""
    from hosim.campaign import validate_task
    from hosim.runner import Task
    from hosim.scenario import load_scenario, remove_keys

    text, source = load_scenario(scenario)
    validate_task(Task(remove_keys(text, unsets, source), seed, tuple(overrides), source))


def _check_same_scenario(out: Path, previous: dict[str, Any], source: str) -> None:
    """Refuse (one line, exit 2) to replace an earlier ``hosim run`` of another scenario."""
    from hosim.outdir import OutputError

    earlier = previous.get("scenario")
    if isinstance(earlier, str) and earlier != source:
        raise OutputError(
            f"--out {out}: holds an earlier `hosim run` of {earlier}, not of {source}; choose a new "
            "directory, or pass --force to replace it"
        )


def _toml_value(raw: str) -> Any:
    from hosim.scenario import parse_toml_value

    return parse_toml_value(raw)


def _remove_stale(out: Path, previous: dict[str, Any] | None, written: Sequence[Path]) -> None:
    """Files an earlier `hosim run` wrote into ``out`` that this run did not write again."""
    keep = {p.name for p in written}
    for name in (previous or {}).get("files", []):
        if isinstance(name, str) and name not in keep and "/" not in name and name != "manifest.json":
            (out / name).unlink(missing_ok=True)


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


def print_result(console: Console, result: Result) -> None:
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
    print_table(console, "Flows", ["flow", "cc", "recovery", "loss\ndetection", "goodput\n(Mbit/s)", "data\n(MB)",
                                    "retx", "RTOs", "spurious\nRTOs", "fast\nrec.", "RTT\n(ms)"], flows, numeric_from=4)
    queues = [
        [str(q.get("name")), fmt_num(q.get("enqueued")), fmt_num(q.get("dropped")), fmt_num(q.get("marked")),
         fmt_num(q.get("mean_len_pkts")), fmt_num(q.get("max_len_pkts"))]
        for q in s.get("queues", [])
    ]
    if queues:
        print_table(console, "Queues", ["queue", "enqueued", "dropped", "marked", "mean len\n(pkts)",
                                         "max len\n(pkts)"], queues)
    handovers = s.get("handovers", [])
    if handovers:
        extra = sorted({k for h in handovers for k in h} - {"ue", "scheme", "start_s", "end_s"})
        rows = [
            [str(h.get("ue")), str(h.get("scheme")), fmt_num(h.get("start_s"), 3), fmt_num(h.get("end_s"), 3),
             *(fmt_num(h.get(k), 3) for k in extra)]
            for h in handovers
        ]
        print_table(console, "Handovers", ["ue", "scheme", "start\n(s)", "end\n(s)", *extra], rows, numeric_from=2)
    invariants = s.get("invariants") or {}
    if invariants:
        problems = [str(v) for v in invariants.get("violations", [])]
        problems += [k for k, v in invariants.items() if v is False and k != "ok"]
        ok = invariants.get("ok", not problems)
        verdict = "ok" if ok and not problems else "VIOLATED " + "; ".join(problems)
        console.print(f"invariants: {verdict}", markup=False)


@click.command("presets")
@click.option("--show", metavar="NAME", default=None, help="Print the TOML of preset NAME instead of the list.")
def presets_command(show: str | None) -> None:
    """List the presets, or print one with --show."""
    from hosim.scenario import presets

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
