"""Run a scenario from Python and get its summary and traces back as pandas objects.

>>> import hosim
>>> result = hosim.run("dumbbell", seed=7, overrides={"dumbbell.loss": 0.01, "duration_s": 10})
>>> result.flows[["flow", "goodput_bps", "retransmits"]]
>>> result.cwnd.head()

The simulation itself runs in the Rust core (``hosim._native``); this module runs it on the
scenario text that ``hosim.scenario`` finds (with the overrides as TOML literals) and wraps
what the core returns.
It imports only the standard library and the native module: pandas is imported when a
DataFrame is first asked for (``result.traces``, ``result.flows``, ...), so a run with
``traces=False`` whose summary is all that is used never loads it.
"""

from __future__ import annotations

import contextlib
import json
import operator
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hosim.errors import InvariantError, ScenarioError
from hosim.scenario import (
    Preset,
    ScenarioLike,
    load_scenario,
    native,
    override_pairs,
    parse_toml_value,
    presets,
    remove_keys,
    toml_literal,
)

if TYPE_CHECKING:
    import pandas as pd

    from hosim.runner import ResultCache
    from hosim.sweeps import SweepResult

__all__ = [
    "TRACE_COLUMNS",
    "InvariantError",
    "cancel_runs",
    "Preset",
    "Result",
    "ScenarioError",
    "load_scenario",
    "native",
    "override_pairs",
    "parse_toml_value",
    "presets",
    "remove_keys",
    "run",
    "run_raw",
    "sweep",
    "run_text",
    "run_to_dir",
    "trace_frame",
    "toml_literal",
]

#: Columns of every trace table the core records, in order. ``time_s`` is simulated time in
#: seconds; for ``goodput`` it is the start of each fixed averaging interval.
TRACE_COLUMNS: dict[str, tuple[str, ...]] = {
    "cwnd": ("time_s", "flow", "cwnd_bytes", "effective_window_bytes"),
    "ssthresh": ("time_s", "flow", "ssthresh_bytes"),
    "rtt": ("time_s", "flow", "rtt_s"),
    "rto": ("time_s", "flow", "rto_s"),
    "inflight": ("time_s", "flow", "inflight_bytes"),
    "queue": ("time_s", "queue", "len_pkts"),
    "rate": ("time_s", "queue", "rate_bps"),
    "goodput": ("time_s", "flow", "goodput_bps"),
}

_SEED_LIMIT = 2**64


# --- running ---------------------------------------------------------------------------------


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    traces: bool = True,
    capture: Capture | None = None,
    unset: Sequence[str] = (),
) -> Result:
    """Run one scenario and return its summary and traces.

    scenario: a TOML file path, a preset name (see ``hosim.presets()``), or TOML text.
    seed: the run's seed (default: the scenario's ``seed``, else 1); the same scenario and
        seed give the same result on every machine.
    overrides: ``{"dotted.key": value}`` applied on top of the scenario, like ``--set``.
    traces: record the trace tables (cwnd, rtt, ...); turn off for speed when only the
        summary is needed.
    capture: write a packet capture (``Capture(dir, links, format)``, see docs/cli.md).
    unset: dotted keys removed from the scenario before the overrides, like ``--unset`` (so
        that an override can use a key that conflicts with one the preset sets).

    Raises ``ScenarioError`` for invalid input and ``InvariantError`` if the simulator
    detects a bug in itself. Likely slips (a 20 s delay, a 50 bit/s link, a flow that delivered
    nothing, a flow held back by the receive window most of its time) are
    ``hosim.HosimWarning``s, issued through ``warnings`` as ``hosim run`` prints them.
    """
    from hosim.checks import result_warnings, text_warnings, warn

    pairs = override_pairs(overrides)
    unset = _check_unset(unset)
    text, source = load_scenario(scenario)
    text = remove_keys(text, unset, source) if unset else text
    result = run_text(text, source, seed=seed, overrides=pairs, traces=traces, capture=capture)
    # After the run: a value the core rejects raises its error, with no warning before it.
    warn(text_warnings(text, list((overrides or {}).items())))
    warn(result_warnings(result.summary))
    return result


def cancel_runs() -> None:
    """Stop every ``hosim.run`` going on in this process, in any thread, within a fraction of a
    second (the core checks every 64k events): each raises
    ``KeyboardInterrupt("interrupted at t = ... s")`` in its own thread. Python delivers Ctrl-C
    to the main thread only, so a run in a worker thread does not see it; call this from the
    main thread's ``except KeyboardInterrupt`` (docs/cli.md, "Runs in threads"). Runs started
    afterwards are not affected. A ``run_to_dir`` going on writes no more trace rows."""
    global _cancels
    _cancels += 1
    native().cancel_runs()


#: How many times ``cancel_runs`` was called: a ``run_to_dir`` whose trace sink sees it move
#: writes nothing more (a run left behind on Ctrl-C must not create a file after its staging
#: files were removed; bench/fuzz_outdir.py found a `.cwnd.parquet.partial` left so).
_cancels = 0


def cancel_count() -> int:
    """How many times ``cancel_runs`` was called in this process (``hosim run`` compares it to
    know whether a run it started was cancelled since)."""
    return _cancels


def sweep(
    scenario: ScenarioLike,
    grid: Mapping[str, Sequence[Any]],
    seeds: int = 1,
    *,
    seed_base: int = 1,
    overrides: Mapping[str, Any] | None = None,
    unset: Sequence[str] = (),
    jobs: int | None = None,
    cache: ResultCache | None = None,
    progress: bool = False,
) -> SweepResult:
    """Run ``scenario`` at every point of ``grid`` with seeds ``seed_base .. seed_base+seeds-1``,
    as ``hosim sweep`` does, and return every table of the runs (``hosim.sweeps.SweepResult``:
    ``.flows``, ``.queues``, ``.handovers``, ``.runs`` as DataFrames; ``hosim.sweeps.summarize``
    gives the per-point statistics).

    grid: ``{"dotted.key": [value, ...]}``; the cartesian product of the lists is run (an empty
        grid runs the scenario as it is, once per seed).
    overrides, unset: applied to every run, as in ``run``.
    jobs: worker processes (default: every core; 1 runs in this process). Called from a script,
        the workers are forked, so the script needs no ``if __name__ == "__main__":`` guard while
        it has a single thread.
    cache: a ``hosim.runner.ResultCache`` to keep and reuse runs (default: none).
    progress: show a progress bar.

    Traces are not recorded. Raises ``ScenarioError`` for the first invalid run. The warnings of
    ``hosim sweep`` (implausible values, flows that delivered nothing, two seeds that give the
    same runs) are ``hosim.HosimWarning``s.
    """
    from hosim.checks import identical_seeds_warning, input_warnings, warn
    from hosim.runner import progress_bar
    from hosim.sweeps import run_sweep

    unset = _check_unset(unset)
    with progress_bar("sweep", progress) as bar:
        result = run_sweep(scenario, grid, seeds, jobs, bar, seed_base=seed_base, overrides=overrides, cache=cache,
                           unset=unset)
    values = [(k, v) for k, vs in grid.items() for v in (vs if isinstance(vs, (list, tuple)) else [vs])]
    messages = input_warnings(scenario, [*(overrides or {}).items(), *values], unset)
    flows = result.data["flows"].columns
    empty = sum(1 for value in flows.get("bytes_delivered", []) if value == 0)
    if empty:
        messages.append(f"{empty} flow rows delivered no data: check the start times, the link rates and the duration")
    seed_pair = result.data["runs"].columns.get("seed", [])[:2]
    if seeds >= 2 and len(seed_pair) == 2:
        # The first grid point's first two runs (rows are sorted by grid point, then seed).
        first, second = (_run_rows(result, position) for position in (0, 1))
        message = identical_seeds_warning(seed_pair, first, second)
        messages += [message] if message else []
    warn(messages)
    return result


def _run_rows(result: SweepResult, position: int) -> dict[str, Any]:
    """Everything the tables hold of the sweep's run at ``position`` (in run order), without its
    seed and wall time: its row of ``runs`` and its rows of the other tables."""
    runs = result.data["runs"].columns
    point = tuple(runs[k][position] for k in result.grid_keys)
    seed = runs["seed"][position]
    rows: dict[str, Any] = {"runs": {k: cells[position] for k, cells in runs.items()}}
    for name in ("flows", "queues", "handovers"):
        columns = result.data[name].columns
        count = len(columns.get("seed", []))
        rows[name] = [
            {k: cells[i] for k, cells in columns.items() if k not in ("seed", "wall_time_s")}
            for i in range(count)
            if columns["seed"][i] == seed and tuple(columns[k][i] for k in result.grid_keys) == point
        ]
    rows["runs"] = {k: v for k, v in rows["runs"].items() if k not in ("seed", "wall_time_s")}
    return rows


def _check_unset(unset: Sequence[str]) -> list[str]:
    if isinstance(unset, str):
        return [unset]
    if not all(isinstance(key, str) and key for key in unset):
        raise ScenarioError(f"unset: expected dotted keys such as 'lte_x2.enb_queue_packets', got {unset!r}")
    return list(unset)


def run_raw(
    scenario: ScenarioLike,
    seed: int | None = None,
    overrides: Sequence[tuple[str, str]] = (),
    traces: bool = True,
    unset: Sequence[str] = (),
    capture: Capture | None = None,
) -> Result:
    """Like ``run`` but with overrides already as ``(dotted key, raw TOML value)`` pairs,
    exactly as ``--set key=value`` gives them; a value that is not TOML is taken as a string.
    ``unset``: dotted keys removed from the scenario first (``--unset``, see ``remove_keys``)."""
    text, source = load_scenario(scenario)
    text = remove_keys(text, unset, source) if unset else text
    return run_text(text, source, seed=seed, overrides=overrides, traces=traces, capture=capture)


@dataclass(frozen=True)
class Capture:
    """Packet capture of a run (docs/cli.md, "Packet capture"): written into ``dir``; ``links``
    (names or ``"all"``) and ``format`` (``"pcapng"`` or ``"pcap"``) override the scenario's
    ``[capture]`` section."""

    dir: str | os.PathLike[str]
    links: Sequence[str] | None = None
    format: str | None = None
    #: Called once the run is over, before its capture files are moved into ``dir``; an
    #: exception raised there leaves them out (``hosim run``: a run cancelled meanwhile).
    before_commit: Callable[[], object] | None = None


def run_text(
    text: str,
    source: str,
    seed: int | None = None,
    overrides: Sequence[tuple[str, str]] = (),
    traces: bool = True,
    capture: Capture | None = None,
) -> Result:
    """Run scenario TOML ``text``; ``source`` names it in error messages."""
    seed = _check_seed(seed, source)
    # The summary comes as a dict, the one json.loads would make of its JSON text.
    if capture is None:
        summary, trace_columns = native().run(text, source, seed, list(overrides), bool(traces), summary_dict=True)
        return Result.from_columns(summary, trace_columns)
    links = None if capture.links is None else list(capture.links)
    with _StagedCapture(capture.dir) as staged:
        summary, trace_columns = native().run(
            text,
            source,
            seed,
            list(overrides),
            bool(traces),
            os.fspath(staged.dir),
            links,
            capture.format,
            summary_dict=True,
        )
        if capture.before_commit is not None:
            capture.before_commit()
        staged.commit()
    return Result.from_columns(summary, trace_columns)


_STAGING_PREFIX = ".capture-"


#: Taken to create a staging file or directory in an output directory, to abandon one, and
#: (``hosim run``) to start committing a run's files: so a run left behind on Ctrl-C never
#: stages a file after its directory was cleaned (``abandon_staging``), and a run is either
#: committing, and waited for, or abandoned (bench/fuzz_outdir.py found a `.capture-*`
#: directory that a worker still importing pyarrow made after the main thread had cleaned up).
staging_lock = threading.Lock()
_abandoned: set[str] = set()


def abandon_staging(out_dir: str | os.PathLike[str]) -> None:
    """Remove this process's staging files in ``out_dir`` (``remove_staging``) and refuse any
    staging there from now on (``KeyboardInterrupt``): its run was left behind. Call it with
    ``staging_lock`` held."""
    _abandoned.add(os.path.abspath(out_dir))
    remove_staging(out_dir)


def _check_not_abandoned(out_dir: str | os.PathLike[str]) -> None:
    """With ``staging_lock`` held, before a staging file is made in ``out_dir``."""
    if os.path.abspath(out_dir) in _abandoned:
        raise KeyboardInterrupt("interrupted")


def remove_staging(out_dir: str | os.PathLike[str], pid: int | None = None) -> None:
    """Remove what a run left half-written in ``out_dir``: its capture staging directory and
    the streamed traces' ``.partial`` files. ``pid``: of the run of that process (default:
    this one; ``hosim run`` calls it when it leaves a run behind on Ctrl-C); ``-1``: of every
    process, for a writer that holds the directory's lock and so knows that no other run is
    writing there (what a killed run left)."""
    import re
    import shutil

    out = Path(out_dir)
    which = r"\d+" if pid == -1 else str(os.getpid() if pid is None else pid)
    for staging in out.glob(f"{_STAGING_PREFIX}*-*"):
        if staging.is_dir() and re.fullmatch(rf"{re.escape(_STAGING_PREFIX)}{which}-\w{{8}}", staging.name):
            shutil.rmtree(staging, ignore_errors=True)
    for name in TRACE_COLUMNS:
        (out / f".{name}.parquet.partial").unlink(missing_ok=True)
    (out / ".summary.json.partial").unlink(missing_ok=True)


class _StagedCapture:
    """The packet capture of a run, written by the core into a hidden directory beside its
    destination (``<dir>/.capture-XXXX``) and moved into ``dir`` only when the run succeeded
    (``commit``, one ``os.replace`` per file). A run that fails or is interrupted, or a full
    disk, leaves the capture files of an earlier run in ``dir`` as they were (docs/cli.md,
    "Output directories"); the hidden directory is removed in every case."""

    def __init__(self, directory: str | os.PathLike[str]):
        self.final = Path(directory)
        self.dir = self.final

    def __enter__(self) -> _StagedCapture:
        import tempfile

        with staging_lock:  # a run left behind makes no directory either (DIR was removed)
            _check_not_abandoned(self.final)
            self.final.mkdir(parents=True, exist_ok=True)
            self.dir = Path(tempfile.mkdtemp(prefix=f"{_STAGING_PREFIX}{os.getpid()}-", dir=self.final))
        return self

    def commit(self) -> list[Path]:
        """Move every capture file into place; returns the final paths."""
        moved = []
        for path in sorted(self.dir.iterdir()):
            os.replace(path, self.final / path.name)
            moved.append(self.final / path.name)
        return moved

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is None:
            # The core's I/O error names no file: name the capture's directory.
            raise OSError(f"{self.final}: {exc}") from None


def run_to_dir(
    scenario: ScenarioLike,
    out_dir: str | os.PathLike[str],
    seed: int | None = None,
    overrides: Sequence[tuple[str, str]] = (),
    unset: Sequence[str] = (),
    capture: Capture | None = None,
    committing: Callable[[], object] | None = None,
) -> tuple[Result, list[Path]]:
    """Run ``scenario`` and stream its traces into ``out_dir`` (created if needed) while it
    runs: every trace goes to ``<name>.parquet``, one row group per chunk of about 64k rows
    (pyarrow's ``ParquetWriter``), so memory stays bounded however long the simulated time.
    Each file is written under a temporary name and renamed when complete, so a killed run
    leaves no truncated Parquet behind; ``summary.json`` is written (atomically) at the end.
    ``unset`` and ``capture`` as in ``run_raw``; ``committing`` is called once the run is over,
    before its files are completed and renamed (``hosim run`` then waits for them on Ctrl-C; an
    exception raised there leaves them unwritten).
    Returns the result (summary only: its trace tables are empty) and the written paths."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from hosim.outdir import atomic_write_text

    text, source = load_scenario(scenario)
    text = remove_keys(text, unset, source) if unset else text
    seed = _check_seed(seed, source)
    out = Path(out_dir)
    writers: dict[str, Any] = {}
    cancels = _cancels
    with staging_lock:
        # A run that `hosim run` left behind on Ctrl-C must not make DIR again after the main
        # thread removed it (bench/fuzz_outdir.py: exit 130 and an empty new DIR, at load 35).
        _check_not_abandoned(out)
        out.mkdir(parents=True, exist_ok=True)

    def sink(name: str, columns: Mapping[str, Sequence[Any]]) -> None:
        if _cancels != cancels:
            raise KeyboardInterrupt("interrupted")
        table = pa.table(dict(columns))
        try:
            writer = writers.get(name)
            if writer is None:
                with staging_lock:
                    _check_not_abandoned(out)
                    writer = writers[name] = pq.ParquetWriter(out / f".{name}.parquet.partial", table.schema)
            writer.write_table(table.cast(writer.schema))
        except OSError as exc:  # a full disk: name the file (pyarrow's message does not)
            raise _named_os_error(exc, out / f"{name}.parquet") from None

    cap_links, cap_format = (None, None)
    staged = _StagedCapture(capture.dir) if capture is not None else None
    if capture is not None:
        cap_links = None if capture.links is None else list(capture.links)
        cap_format = capture.format
    with staged or contextlib.nullcontext():
        try:
            summary, _ = native().run(
                text,
                source,
                seed,
                list(overrides),
                True,
                None if staged is None else os.fspath(staged.dir),
                cap_links,
                cap_format,
                trace_sink=sink,
                summary_dict=True,
            )
            if committing is not None:
                committing()
            for name, writer in writers.items():
                try:
                    writer.close()
                except OSError as exc:
                    raise _named_os_error(exc, out / f"{name}.parquet") from None
            summary_path = out / "summary.json"
            summary_tmp = atomic_write_text(out / ".summary.json.partial", json.dumps(summary, indent=2) + "\n")
        except BaseException:
            for writer in writers.values():
                with contextlib.suppress(OSError):
                    writer.close()
            for name in TRACE_COLUMNS:  # also one whose writer failed as it was made
                (out / f".{name}.parquet.partial").unlink(missing_ok=True)
            (out / ".summary.json.partial").unlink(missing_ok=True)
            raise
        # Every file is complete on disk: only renames are left, which a full disk cannot stop.
        for name in writers:
            os.replace(out / f".{name}.parquet.partial", out / f"{name}.parquet")
        captures = staged.commit() if staged is not None else []
        os.replace(summary_tmp, summary_path)
    written = [summary_path] + [out / f"{name}.parquet" for name in sorted(writers)] + captures
    return Result(summary, {}), written


def _named_os_error(exc: OSError, path: Path) -> OSError:
    """``exc`` (an I/O error of pyarrow, which names no file) naming ``path``."""
    return OSError(exc.errno, exc.strerror or str(exc), os.fspath(path))


def _check_seed(seed: Any, source: str) -> int | None:
    if seed is None:
        return None
    try:
        value = operator.index(seed)
    except TypeError:
        raise ScenarioError(f"{source}: seed must be an integer, got {seed!r}") from None
    if isinstance(seed, bool) or not 0 <= value < _SEED_LIMIT:
        raise ScenarioError(f"{source}: seed must be an integer in 0..2^64-1, got {seed!r}")
    return value


def trace_frame(name: str, columns: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
    """One trace table as a DataFrame, with the documented columns first (even when empty)."""
    import pandas as pd

    frame = pd.DataFrame({key: list(values) for key, values in columns.items()})
    expected = TRACE_COLUMNS.get(name, ())
    for column in expected:
        if column not in frame.columns:
            if len(frame):
                raise RuntimeError(f"trace {name!r} from the core lacks column {column!r}")
            frame[column] = pd.Series(dtype=object if column in ("flow", "queue") else "float64")
    order = list(expected) + [c for c in frame.columns if c not in expected]
    return frame[order]


class Result:
    """The outcome of one run.

    ``summary`` is the run summary (the same dict ``hosim run --json`` prints); ``traces``
    maps a table name to a DataFrame. Every table in ``TRACE_COLUMNS`` is present (empty when
    traces were off) and is also an attribute: ``result.cwnd``, ``result.rtt``, ...
    """

    def __init__(self, summary: dict[str, Any], traces: Mapping[str, pd.DataFrame] | None = None):
        self.summary = summary
        self._frames: dict[str, pd.DataFrame] | None = None if traces is None else dict(traces)
        self._columns: Mapping[str, Mapping[str, Sequence[Any]]] = {}

    @classmethod
    def from_columns(cls, summary: dict[str, Any], columns: Mapping[str, Mapping[str, Sequence[Any]]]) -> Result:
        """A result whose traces are the core's ``{table: {column: values}}``, turned into
        DataFrames (importing pandas) only when ``traces`` is first used."""
        result = cls(summary)
        result._columns = columns
        return result

    @property
    def traces(self) -> dict[str, pd.DataFrame]:
        """Trace table name -> DataFrame; every table of ``TRACE_COLUMNS`` is present."""
        if self._frames is None:
            self._frames = {name: trace_frame(name, cols) for name, cols in self._columns.items()}
            self._columns = {}
        for name in TRACE_COLUMNS:
            if name not in self._frames:
                self._frames[name] = trace_frame(name, {})
        return self._frames

    def recorded(self) -> list[str]:
        """Names of the trace tables that hold rows, without building any DataFrame."""
        if self._frames is not None:
            return [name for name, frame in self._frames.items() if len(frame)]
        return [name for name, cols in self._columns.items() if any(len(v) for v in cols.values())]

    def __repr__(self) -> str:
        return (
            f"<hosim.Result scenario={self.summary.get('scenario')!r} seed={self.summary.get('seed')} "
            f"flows={len(self.summary.get('flows', []))} traces={self.recorded()}>"
        )

    def __getattr__(self, name: str) -> pd.DataFrame:
        # __dict__ lookups: no recursion before __init__ has run (copy, unpickling).
        known = self.__dict__.get("_frames") or self.__dict__.get("_columns") or {}
        if not name.startswith("_") and (name in TRACE_COLUMNS or name in known):
            return self.traces[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # Summary lists as DataFrames, one row per element.
    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow: flow (its name, the summary's ``name``: the column the traces and
        a sweep's tables use), cc, recovery, bytes_delivered, goodput_bps, retransmits, ..."""
        return _named_rows(self.summary.get("flows", []), "flow")

    @property
    def queues(self) -> pd.DataFrame:
        """One row per queue: queue (its name, the summary's ``name``), enqueued, dropped,
        marked, mean_len_pkts, max_len_pkts."""
        return _named_rows(self.summary.get("queues", []), "queue")

    @property
    def handovers(self) -> pd.DataFrame:
        """One row per handover: ue, start_s, end_s, scheme and mechanism-specific fields."""
        import pandas as pd

        return pd.DataFrame(self.summary.get("handovers", []))

    # The documented trace tables, spelled out for editors and type checkers.
    @property
    def cwnd(self) -> pd.DataFrame:
        """time_s, flow, cwnd_bytes, effective_window_bytes (min(cwnd, rwnd): what limits
        sending)"""
        return self.traces["cwnd"]

    @property
    def ssthresh(self) -> pd.DataFrame:
        """time_s, flow, ssthresh_bytes"""
        return self.traces["ssthresh"]

    @property
    def rtt(self) -> pd.DataFrame:
        """time_s, flow, rtt_s"""
        return self.traces["rtt"]

    @property
    def rto(self) -> pd.DataFrame:
        """time_s, flow, rto_s"""
        return self.traces["rto"]

    @property
    def inflight(self) -> pd.DataFrame:
        """time_s, flow, inflight_bytes"""
        return self.traces["inflight"]

    @property
    def queue(self) -> pd.DataFrame:
        """time_s, queue, len_pkts"""
        return self.traces["queue"]

    @property
    def goodput(self) -> pd.DataFrame:
        """time_s (start of each interval), flow, goodput_bps"""
        return self.traces["goodput"]

    def summary_json(self) -> str:
        """The summary as one line of JSON."""
        return json.dumps(self.summary)

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write ``summary.json`` and every non-empty trace as ``<name>.parquet`` into
        ``out_dir`` (created if needed), each file atomically. Returns the written paths."""
        from hosim.outdir import atomic_write, atomic_write_text

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        summary_path = out / "summary.json"
        atomic_write_text(summary_path, json.dumps(self.summary, indent=2) + "\n")
        written = [summary_path]
        for name in self.recorded():
            written.append(atomic_write(out / f"{name}.parquet", _parquet_writer(self.traces[name])))
        return written


def _named_rows(records: Sequence[Mapping[str, Any]], column: str) -> pd.DataFrame:
    """The summary's records as rows, their ``name`` as ``column``, the name every other table
    gives it (the traces' ``flow`` and ``queue``, and a sweep's tables)."""
    import pandas as pd

    return pd.DataFrame([{(column if k == "name" else k): v for k, v in r.items()} for r in records])


def _parquet_writer(frame: pd.DataFrame) -> Any:
    def write(path: Path) -> None:
        frame.to_parquet(path, index=False)

    return write
