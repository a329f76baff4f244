"""`hosim plot`: figures from a run directory written by ``hosim run --out DIR``.

- ``hosim plot seq RUN_DIR --flow NAME``: a tcptrace-style time-sequence plot read from the
  packet capture (``hosim run --pcap LINKS``): the flow's data segments as vertical bars at
  their send time on the sender's first captured link (retransmissions in red), the ACK line
  and the receive-window line (ACK + advertised window) from its ACKs where they come closest
  to the sender (the last link the flow's first ACK crosses), SACK blocks as short bars, and
  the handovers of ``summary.json``.
- ``hosim plot cwnd|queue|rate|goodput RUN_DIR``: the Parquet traces against time, one line
  per flow or link. ``cwnd`` draws the effective window, min(cwnd, rwnd), with the raw cwnd
  dashed.

Each ``*_data`` function returns the DataFrames a figure is drawn from, and each ``*_figure``
the matplotlib ``Figure`` (Agg canvas, no pyplot); the tests check the data, not pixels.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["plot_group", "seq_data", "seq_figure", "trace_data", "trace_figure"]

#: trace name -> (Parquet file stem, value column, key column, y label, scale)
TRACES: dict[str, tuple[str, str, str, str, float]] = {
    "cwnd": ("cwnd", "cwnd_bytes", "flow", "cwnd (kB)", 1e-3),
    "queue": ("queue", "len_pkts", "queue", "queue (packets)", 1.0),
    "rate": ("rate", "rate_bps", "queue", "link rate (Mbit/s)", 1e-6),
    "goodput": ("goodput", "goodput_bps", "flow", "goodput (Mbit/s)", 1e-6),
}


#: The cwnd trace's second column: min(cwnd, the peer's receive window).
EFFECTIVE = "effective_window_bytes"


def _summary(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "summary.json"
    if not path.exists():
        raise FileNotFoundError(f"{run_dir}: no summary.json (not a 'hosim run --out' directory)")
    summary: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return summary


def _window(frame: pd.DataFrame, start: float | None, end: float | None) -> pd.DataFrame:
    if start is not None:
        frame = frame[frame["time_s"] >= start]
    if end is not None:
        frame = frame[frame["time_s"] <= end]
    return frame


def seq_data(run_dir: str | Path, flow: str, start: float | None = None, end: float | None = None) -> dict[str, Any]:
    """The series of a time-sequence plot: ``data`` (time_s, seq, end, retx), ``acks``
    (time_s, ack, window_end), ``sacks`` (time_s, start, end), ``handovers`` (start_s, end_s)
    and the links they were read on. Sequence numbers are the flow's byte offsets."""
    import pandas as pd

    from hosim.capture import tcp_segments

    run = Path(run_dir)
    summary = _summary(run)
    names = [f["name"] for f in summary["flows"]]
    if flow not in names:
        raise click.BadParameter(f"no flow {flow!r} in {run} (flows: {', '.join(names)})", param_hint="--flow")
    segs = tcp_segments(run, names.index(flow))
    data = segs[(segs["dir"] == "data") & ~segs["syn"] & (segs["len"] > 0)]
    acks = segs[(segs["dir"] == "ack") & ~segs["syn"]]
    if data.empty or acks.empty:
        raise click.UsageError(f"{run}: the capture has no data or no ACKs of flow {flow!r}; capture the "
                               "sender's links (hosim run --pcap LINKS or --pcap all)")
    # The sender's first link sees the first segment first; the first ACK comes closest to the
    # sender on the last link it crosses (the same packet keeps its IPv4 id on every link).
    data_link = data.loc[data["time_s"].idxmin(), "link"]
    first_ack = acks.loc[acks["time_s"].idxmin()]
    same = acks[(acks["ip_id"] == first_ack["ip_id"]) & (acks["ack"] == first_ack["ack"])]
    ack_link = same.loc[same["time_s"].idxmax(), "link"]
    data = data[data["link"] == data_link].sort_values("time_s", kind="stable")
    acks = acks[acks["link"] == ack_link].sort_values("time_s", kind="stable")
    seg_end = data["seq"] + data["len"]
    highest_before = seg_end.cummax().shift(fill_value=0)
    data = data.assign(end=seg_end, retx=seg_end <= highest_before)
    acks = acks.assign(window_end=acks["ack"] + acks["window"])
    sack_rows = [(t, s, e) for t, blocks in zip(acks["time_s"], acks["sack"]) for s, e in blocks]
    sacks = pd.DataFrame(sack_rows, columns=["time_s", "start", "end"])
    handovers = pd.DataFrame([(h["start_s"], h["end_s"]) for h in summary.get("handovers", [])],
                             columns=["start_s", "end_s"])
    return {
        "data": _window(data[["time_s", "seq", "end", "retx"]], start, end).reset_index(drop=True),
        "acks": _window(acks[["time_s", "ack", "window_end"]], start, end).reset_index(drop=True),
        "sacks": _window(sacks, start, end).reset_index(drop=True),
        "handovers": handovers,
        "data_link": data_link,
        "ack_link": ack_link,
        "window": (start, end),
    }


def _save(figure: Figure, path: Path) -> None:
    """``figure`` as ``path`` (format from its extension, else PNG), written atomically: a
    directory that cannot be written is one line, exit 2, naming the file."""
    from hosim.outdir import atomic_write

    fmt = path.suffix.lstrip(".").lower() or "png"
    atomic_write(path, lambda tmp: figure.savefig(tmp, dpi=120, format=fmt))


def _new_figure(height_in: float = 4.0) -> tuple[Figure, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9.0, height_in), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.subplots()


def seq_figure(series: dict[str, Any], title: str = "") -> Figure:
    """Draws ``seq_data``'s series, tcptrace style (sequence offsets in kB)."""
    figure, ax = _new_figure()
    kb = 1e-3
    data, acks, sacks = series["data"], series["acks"], series["sacks"]
    for retx, color, label in ((False, "black", "data"), (True, "red", "retransmission")):
        part = data[data["retx"] == retx]
        if not part.empty:
            ax.vlines(part["time_s"], part["seq"] * kb, part["end"] * kb, colors=color, linewidth=1.2, label=label)
    retx = data[data["retx"]]
    # A segment is a short bar at this scale: a retransmission also gets a marker ("R" in tcptrace).
    ax.scatter(retx["time_s"], retx["end"] * kb, marker="x", color="red", s=36, zorder=3)
    ax.step(acks["time_s"], acks["ack"] * kb, where="post", color="tab:green", linewidth=1.0, label="ACK")
    ax.step(acks["time_s"], acks["window_end"] * kb, where="post", color="tab:olive", linewidth=0.8,
            label="receive window")
    if not sacks.empty:
        ax.vlines(sacks["time_s"], sacks["start"] * kb, sacks["end"] * kb, colors="tab:purple", linewidth=2.0,
                  label="SACK")
    for i, (h0, h1) in enumerate(zip(series["handovers"]["start_s"], series["handovers"]["end_s"])):
        ax.axvspan(h0, h1, color="tab:blue", alpha=0.12, label="handover" if i == 0 else None)
        ax.axvline(h0, color="tab:blue", linewidth=0.8, linestyle="--")
    t0, t1 = series.get("window", (None, None))
    if not data.empty:
        t0 = data["time_s"].min() if t0 is None else t0
        t1 = max(data["time_s"].max(), acks["time_s"].max() if len(acks) else 0) if t1 is None else t1
    if t0 is not None and t1 is not None:
        ax.set_xlim(t0, t1)
    ax.set_xlabel(f"time (s); data on {series['data_link']}, ACKs on {series['ack_link']}")
    ax.set_ylabel("sequence offset (kB)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    if title:
        ax.set_title(title)
    return figure


def trace_data(run_dir: str | Path, kind: str, start: float | None = None, end: float | None = None) -> pd.DataFrame:
    """Trace ``kind`` (cwnd, queue, rate, goodput) of ``run_dir`` as written by ``hosim run --out``."""
    import pandas as pd

    stem = TRACES[kind][0]
    path = Path(run_dir) / f"{stem}.parquet"
    if not path.exists():
        _summary(Path(run_dir))
        raise FileNotFoundError(f"{path}: no {kind} trace (run without --no-traces; empty traces are not written)")
    return _window(pd.read_parquet(path), start, end).reset_index(drop=True)


def trace_figure(frame: pd.DataFrame, kind: str, title: str = "") -> Figure:
    """One step line per flow or link of a ``trace_data`` frame."""
    _, column, key, ylabel, scale = TRACES[kind]
    figure, ax = _new_figure(3.2)
    groups = list(frame.groupby(key, sort=False))
    # The cwnd plot draws what limits sending, the effective window min(cwnd, rwnd), and the raw
    # cwnd dashed in the same colour (a cwnd far above rwnd is no sign of a fast flow). A run
    # directory written before the column existed has the raw cwnd only.
    effective = kind == "cwnd" and EFFECTIVE in frame.columns
    for name, rows in groups:
        line, = ax.plot(rows["time_s"], rows[EFFECTIVE if effective else column] * scale, drawstyle="steps-post",
                        linewidth=1.0, label=str(name))
        if effective:
            ax.plot(rows["time_s"], rows[column] * scale, drawstyle="steps-post", linewidth=0.8, linestyle="--",
                    color=line.get_color(), label=f"{name}: cwnd" if len(groups) == 1 else None)
    if effective:
        ylabel = "min(cwnd, rwnd) (kB); cwnd dashed"
    if 1 < len(groups) <= 12 or (effective and len(groups) == 1):
        ax.legend(loc="upper right", fontsize="small", ncols=min(len(groups), 4))
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    return figure


_OUTPUT = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                       help="Image file to write (default: RUN_DIR/<plot>.png); the suffix picks the format.")
_FROM = click.option("--from", "start", type=float, default=None, help="Start of the time axis (s).")
_TO = click.option("--to", "end", type=float, default=None, help="End of the time axis (s).")
_RUN_DIR = click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))


@click.group("plot", no_args_is_help=True)
def plot_group() -> None:
    """Figures from a run directory (hosim run --out DIR): a time-sequence plot from the packet
    capture, or a trace against time."""


@plot_group.command("seq")
@_RUN_DIR
@click.option("--flow", required=True, help="Flow name (see summary.json).")
@_FROM
@_TO
@_OUTPUT
def seq_command(run_dir: Path, flow: str, start: float | None, end: float | None, output: Path | None) -> None:
    """Time-sequence plot (tcptrace style) of one flow, from the run's packet capture
    (hosim run --pcap LINKS --out RUN_DIR)."""
    series = seq_data(run_dir, flow, start, end)
    path = output or run_dir / f"seq-{flow}.png"
    _save(seq_figure(series, title=f"{_summary(run_dir).get('scenario', '')}: flow {flow}"), path)
    click.echo(f"wrote {path}: {len(series['data'])} segments ({int(series['data']['retx'].sum())} "
               f"retransmitted), {len(series['acks'])} ACKs")


def _trace_command(kind: str) -> click.Command:
    @_RUN_DIR
    @_FROM
    @_TO
    @_OUTPUT
    def command(run_dir: Path, start: float | None, end: float | None, output: Path | None) -> None:
        frame = trace_data(run_dir, kind, start, end)
        path = output or run_dir / f"{kind}.png"
        _save(trace_figure(frame, kind, title=f"{_summary(run_dir).get('scenario', '')}: {kind}"), path)
        click.echo(f"wrote {path}: {len(frame)} points")

    command.__doc__ = f"{TRACES[kind][3]} against time, from RUN_DIR/{TRACES[kind][0]}.parquet."
    return click.command(kind)(command)


for _kind in TRACES:
    plot_group.add_command(_trace_command(_kind))
