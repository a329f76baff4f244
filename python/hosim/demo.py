"""``hosim demo``: a guided tour made of sections, each comparing a few variants of a scenario.

A section runs every variant with the same seed, tabulates per-variant metrics, and plots the
congestion window and goodput of every flow (one panel per variant). New comparisons (handover
schemes, ...) are added by appending a ``DemoSection`` to ``SECTIONS``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from hosim.api import Result

__all__ = ["SECTIONS", "DemoSection", "Variant", "flow_metrics", "handover_metrics", "run_demo"]


@dataclass(frozen=True)
class Variant:
    """One run of a section: a label, a scenario (path or preset) and overrides on top of it."""

    label: str
    scenario: str
    overrides: Mapping[str, Any] = field(default_factory=dict)


def flow_metrics(result: Result) -> dict[str, Any]:
    """A run's totals over its flows: goodput, retransmits, timeouts, fast recoveries, mean RTT."""
    flows = result.summary.get("flows", [])
    rtts = [
        f["rtt_mean_s"] for f in flows
        if isinstance(f.get("rtt_mean_s"), (int, float)) and math.isfinite(f["rtt_mean_s"])
    ]
    return {
        "goodput_bps": sum(f.get("goodput_bps", 0.0) for f in flows),
        "retransmits": sum(f.get("retransmits", 0) for f in flows),
        "timeouts": sum(f.get("timeouts", 0) for f in flows),
        "fast_recoveries": sum(f.get("fast_recoveries", 0) for f in flows),
        "rtt_mean_s": sum(rtts) / len(rtts) if rtts else float("nan"),
    }


@dataclass(frozen=True)
class DemoSection:
    """A comparison: every variant is run with the same seed.

    Plots go to ``<out>/<file_prefix>cwnd.png`` and ``<out>/<file_prefix>goodput.png``.
    """

    name: str
    title: str
    variants: Sequence[Variant]
    file_prefix: str = ""
    metrics: Callable[[Result], dict[str, Any]] = flow_metrics
    #: A shorter ``duration_s`` asked of the demo is raised to this (e.g. to reach a handover).
    min_duration_s: float = 0.0


def handover_metrics(result: Result) -> dict[str, Any]:
    """The first handover's outcome and forwarding, and the reference flow's totals."""
    h = (result.summary.get("handovers") or [{}])[0]
    ref: dict[str, Any] = next((f for f in result.summary.get("flows", []) if f.get("name") == "ref"), {})
    return {
        "outcome": h.get("outcome"),
        "forwarded_packets": h.get("forwarded_packets"),
        "delivered_bytes_window": h.get("delivered_bytes_window"),
        "goodput_bps": ref.get("goodput_bps", float("nan")),
        "timeouts": ref.get("timeouts", 0),
        "fast_recoveries": ref.get("fast_recoveries", 0),
    }


SECTIONS: list[DemoSection] = [
    DemoSection(
        name="tcp-recovery",
        title="Loss recovery on a dumbbell: Reno, NewReno and SACK",
        variants=[Variant(v, "dumbbell", {"tcp.recovery": v}) for v in ("reno", "newreno", "sack")],
    ),
    DemoSection(
        name="lte-x2",
        title="LTE X2 handover (Pacifico et al.): standard, fast and predicted path switch, and RED with ECN",
        variants=[
            Variant("standard", "lte-x2", {"lte_x2.path_switch": "standard"}),
            Variant("fast", "lte-x2", {"lte_x2.path_switch": "fast"}),
            Variant("predicted", "lte-x2", {"lte_x2.path_switch": "predicted"}),
            Variant("predicted+RED/ECN", "lte-x2",
                    {"lte_x2.path_switch": "predicted", "lte_x2.router_queue": "red", "lte_x2.ecn": True}),
        ],
        file_prefix="lte-x2-",
        metrics=handover_metrics,
        min_duration_s=3.0,
    ),
]


def _python(value: Any) -> Any:
    """numpy scalars -> Python scalars; NaN (a metric a section does not have) -> None."""
    value = value.item() if hasattr(value, "item") else value
    return None if isinstance(value, float) and math.isnan(value) else value


def run_demo(
    out_dir: str | os.PathLike[str],
    duration_s: float | None = None,
    seed: int = 1,
    sections: Sequence[DemoSection] = SECTIONS,
    report: Callable[[DemoSection, pd.DataFrame, list[Path]], None] | None = None,
) -> pd.DataFrame:
    """Run ``sections``, write their plots and ``summary.csv`` into ``out_dir``.

    duration_s: simulated time of every run (default: each scenario's own ``duration_s``).
    report: called after each section with the section, its table and the files written.
    Returns the table of all sections: ``section``, ``variant``, then the section's metrics.
    """
    import pandas as pd

    from hosim.api import run
    from hosim.plots import plot_cwnd, plot_goodput

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = []
    for section in sections:
        results = {}
        for variant in section.variants:
            overrides = dict(variant.overrides)
            if duration_s is not None:
                overrides["duration_s"] = max(float(duration_s), section.min_duration_s)
            results[variant.label] = run(variant.scenario, seed=seed, overrides=overrides, traces=True)
        table = pd.DataFrame(
            [{"section": section.name, "variant": label, **section.metrics(r)} for label, r in results.items()]
        )
        files = [out / f"{section.file_prefix}cwnd.png", out / f"{section.file_prefix}goodput.png"]
        plot_cwnd(results, files[0])
        plot_goodput(results, files[1])
        tables.append(table)
        if report is not None:
            report(section, table, files)
    from hosim.outdir import atomic_write_text
    from hosim.table import Table, rows_to_columns

    # A count that one section lacks stays an integer column (nullable), not floats.
    records = [{k: _python(v) for k, v in r.items()} for table in tables for r in table.to_dict("records")]
    summary = Table(rows_to_columns(records))
    atomic_write_text(out / "summary.csv", summary.csv_text())
    return summary.to_frame()
