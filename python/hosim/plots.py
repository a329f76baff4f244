"""Figures of trace tables: one panel per variant (a run), one line per flow.

Figures are built with matplotlib's object API on the Agg canvas, never through pyplot, so
using this module does not change the backend of a notebook or a GUI session. Each function
returns the ``Figure`` and, given ``path``, also saves it there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from hosim.api import Result

__all__ = ["plot_cwnd", "plot_goodput", "plot_trace"]

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
    one line per value of ``key``, one panel per labelled result, panels sharing the time axis."""
    if not results:
        raise ValueError("nothing to plot: no results given")
    figure = Figure(figsize=(_WIDTH_IN, 0.8 + _PANEL_HEIGHT_IN * len(results)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(results), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (label, result) in zip(axes, results.items()):
        frame = result.traces.get(table)
        ax.set_title(label, loc="left", fontsize="medium")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        if frame is None or frame.empty:
            ax.text(0.5, 0.5, f"no {table} trace recorded", transform=ax.transAxes, ha="center", va="center")
            continue
        groups = list(frame.groupby(key, sort=False))
        for name, rows in groups:
            ax.plot(rows["time_s"], rows[column] * scale, drawstyle="steps-post", linewidth=1.0, label=str(name))
        if 1 < len(groups) <= _MAX_LEGEND_FLOWS:
            ax.legend(loc="upper right", fontsize="small", ncols=min(len(groups), 4))
    axes[-1].set_xlabel("time (s)")
    if title:
        figure.suptitle(title)
    if path is not None:
        figure.savefig(path, dpi=120)
    return figure
