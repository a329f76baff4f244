"""Figures of trace tables: one panel per variant (a run), one line per flow.

A flow keeps its colour in every panel and figure (colours are given by flow name, in the order
the names first appear). Handovers are marked (solid line at the start, dotted at the end), and
when a run has handovers a second panel beside it zooms on the first handover, with its own y
scale, so that a dip of a few milliseconds is visible next to a long run.

Figures are built with matplotlib's object API on the Agg canvas, never through pyplot, so
using this module does not change the backend of a notebook or a GUI session. Each function
returns the ``Figure`` and, given ``path``, also saves it there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from hosim.api import Result

__all__ = ["handover_window", "plot_cwnd", "plot_goodput", "plot_trace", "series_colours"]

_PANEL_HEIGHT_IN = 2.2
_WIDTH_IN = 9.0
_MAX_LEGEND_FLOWS = 12


def plot_cwnd(results: Mapping[str, Result], path: str | os.PathLike[str] | None = None) -> Figure:
    """Congestion window (kB) of every flow against time, one panel per entry of ``results``."""
    return plot_trace(results, "cwnd", "cwnd_bytes", ylabel="cwnd (kB)", scale=1e-3, title="Congestion window",
                      path=path)


def plot_goodput(results: Mapping[str, Result], path: str | os.PathLike[str] | None = None) -> Figure:
    """Goodput (Mbit/s) of every flow per averaging interval, one panel per entry of ``results``."""
    return plot_trace(results, "goodput", "goodput_bps", ylabel="goodput (Mbit/s)", scale=1e-6, title="Goodput",
                      path=path)


def plot_trace(
    results: Mapping[str, Result],
    table: str,
    column: str,
    *,
    ylabel: str,
    scale: float = 1.0,
    title: str = "",
    key: str = "flow",
    path: str | os.PathLike[str] | None = None,
) -> Figure:
    """Plot ``column`` of trace ``table`` (times ``scale``) against ``time_s`` as steps,
    one line per value of ``key``, one panel per labelled result, panels sharing the time axis;
    runs with handovers get a zoomed panel on the first one (see the module doc)."""
    if not results:
        raise ValueError("nothing to plot: no results given")
    colours = series_colours(results, table, key)
    windows = {label: handover_window(result) for label, result in results.items()}
    zoom = any(w is not None for w in windows.values())
    figure = Figure(figsize=(_WIDTH_IN * (1.4 if zoom else 1.0), 0.8 + _PANEL_HEIGHT_IN * len(results)),
                    layout="constrained")
    FigureCanvasAgg(figure)
    grid = figure.subplots(len(results), 2 if zoom else 1, squeeze=False, sharex="col",
                           gridspec_kw={"width_ratios": [2.5, 1]} if zoom else None)
    for row, (label, result) in enumerate(results.items()):
        frame = result.traces.get(table)
        panels: list[tuple[Any, tuple[float, float] | None]] = [(grid[row, 0], None)]
        if zoom:
            panels.append((grid[row, 1], windows[label]))
        for ax, window in panels:
            ax.set_title(label if window is None else f"{label}: first handover", loc="left", fontsize="medium")
            ax.grid(True, alpha=0.3)
            if zoom and window is None and ax is not grid[row, 0]:
                ax.set_axis_off()
                continue
            if frame is None or frame.empty:
                ax.text(0.5, 0.5, f"no {table} trace recorded", transform=ax.transAxes, ha="center", va="center")
                continue
            _draw(ax, frame, column, scale, key, colours, window)
            _mark_handovers(ax, result)
        grid[row, 0].set_ylabel(ylabel)
        names = list(dict.fromkeys(frame[key])) if frame is not None and not frame.empty else []
        if 1 < len(names) <= _MAX_LEGEND_FLOWS:
            grid[row, 0].legend(loc="upper right", fontsize="small", ncols=min(len(names), 4))
    for ax in grid[-1, :]:
        ax.set_xlabel("time (s)")
    if title:
        figure.suptitle(title + ("  (solid line: handover start, dotted: end)" if zoom else ""))
    if path is not None:
        figure.savefig(path, dpi=120)
    return figure


def series_colours(results: Mapping[str, Result], table: str, key: str = "flow") -> dict[str, str]:
    """Flow (or queue) name -> colour, the same in every panel: names in first-seen order."""
    names: dict[str, None] = {}
    for result in results.values():
        frame = result.traces.get(table)
        if frame is not None and not frame.empty:
            names.update(dict.fromkeys(str(n) for n in frame[key]))
    cycle = [f"C{i}" for i in range(10)]
    return {name: cycle[i % len(cycle)] for i, name in enumerate(names)}


def handover_window(result: Result, before_s: float = 0.2, after_s: float = 0.5) -> tuple[float, float] | None:
    """Time span around the run's first handover, or ``None`` when it has none."""
    handovers = result.summary.get("handovers") or []
    if not handovers or handovers[0].get("start_s") is None:
        return None
    start = float(handovers[0]["start_s"])
    end = handovers[0].get("end_s")
    end = start if end is None else float(end)
    return start - before_s, end + after_s


def _draw(ax: Any, frame: Any, column: str, scale: float, key: str, colours: Mapping[str, str],
          window: tuple[float, float] | None) -> None:
    rows_in = frame
    if window is not None:
        rows_in = frame[(frame["time_s"] >= window[0]) & (frame["time_s"] <= window[1])]
        ax.set_xlim(*window)
    for name, rows in rows_in.groupby(key, sort=False):
        ax.plot(rows["time_s"], rows[column] * scale, drawstyle="steps-post", linewidth=1.0, label=str(name),
                color=colours.get(str(name)))


def _mark_handovers(ax: Any, result: Result) -> None:
    for handover in result.summary.get("handovers") or []:
        if handover.get("start_s") is not None:
            ax.axvline(handover["start_s"], color="black", linewidth=0.8, alpha=0.7)
        if handover.get("end_s") is not None:
            ax.axvline(handover["end_s"], color="black", linewidth=0.8, alpha=0.7, linestyle=":")
