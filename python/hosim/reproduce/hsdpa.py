"""Reproduce Ren, Huang, Liu, Lin, "Improving TCP Throughput over HSDPA Networks" (IEEE TWC 2008).

Runs the ``hsdpa`` preset for Fig. 3 (TCP NewReno over a 384/38.4 kb/s square wave), Fig. 7
(TCP and the window adaptation proxy over the random bandwidth, T = 200 ms) and Table I
(T = 2 s, 200 ms, 20 ms), plus the sensitivity runs behind docs/reproductions/hsdpa-proxy.md.
Writes figures (matplotlib, Agg canvas) and ``hsdpa-results.json`` to the output directory::

    hosim reproduce hsdpa --out DIR --jobs 4    # default DIR: a new ./hosim-reproduce-hsdpa-<n>/
    hosim reproduce hsdpa --check               # quick: Fig. 3, Fig. 7 and Table I vs the committed numbers
    python -m hosim.reproduce.hsdpa ...         # the same

Every number comes from the simulator; this module only chooses parameters and plots. The
runs go through ``hosim.runner`` (parallel with ``--jobs``, kept in the result cache); only the
traced runs of Fig. 3 and Fig. 7 call ``hosim.api.run`` directly.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import hosim.api as api
from hosim.cli.options import runner_from_options, runner_options
from hosim.reproduce.claims import HOLDS, Cell, Claim, Tolerance, fact, report_lines
from hosim.reproduce.common import (
    COMMITTED,
    Comparison,
    change_options,
    committed_file,
    finish,
    output_options,
    prepare,
    preset_task,
    progress_on_stderr,
    refuse_changes_with_check,
    run_preset,
    save_figure,
    write_json,
    write_report,
)
from hosim.runner import Runner

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "PAPER", "check_committed", "degradation", "fig3", "fig7", "main", "run_reproduction", "sensitivity", "table1",
]

#: The paper's numbers. Fig. 3: 190.4 of 222.7 kb/s. Table I: upper bound, throughput
#: (packets/s) and link utilization (%) of TCP and the proxy for each period T.
PAPER: dict[str, Any] = {
    "fig3": {"capacity_kbps": 222.7, "throughput_kbps": 190.4, "utilization": 190.4 / 222.7},
    "table1": {
        2.0: {"bound": 119.2, "tcp": 69.5, "proxy": 118.8, "tcp_util": 58.26, "proxy_util": 99.70},
        0.2: {"bound": 124.0, "tcp": 60.0, "proxy": 115.1, "tcp_util": 48.32, "proxy_util": 92.82},
        0.02: {"bound": 123.82, "tcp": 18.6, "proxy": 115.5, "tcp_util": 15.04, "proxy_util": 93.29},
    },
}

PERIODS_S = (2.0, 0.2, 0.02)
RANDOM = {"hsdpa.bandwidth": "random"}


def _table1_row(data: Mapping[str, Any], period_s: float) -> Mapping[str, Any] | None:
    return next((r for r in data["table1"] if r["T_s"] == period_s), None)


def _table1_cells(field: str, paper: Callable[[Mapping[str, float]], float], scale: float = 1.0,
                  ) -> Callable[[Mapping[str, Any]], list[Cell]]:
    """Table I's cells of one column, one per T: the paper's number beside hosim's mean."""
    def cells(data: Mapping[str, Any]) -> list[Cell]:
        out = []
        for period_s, p in PAPER["table1"].items():
            row = _table1_row(data, period_s)
            out.append(Cell(f"T = {period_s:g} s", paper(p), None if row is None else scale * row[field]))
        return out
    return cells


def _proxy_above_90(data: Mapping[str, Any]) -> list[Cell]:
    return [fact(f"T = {t:g} s: proxy utilization >= 90 %", None if (r := _table1_row(data, t)) is None
                 else r["proxy_utilization"] >= 0.9) for t in PAPER["table1"]]


def _fig3_throughput(data: Mapping[str, Any]) -> list[Cell]:
    f3 = data["fig3"]
    return [Cell("capacity (kb/s)", PAPER["fig3"]["capacity_kbps"], f3["capacity_kbps"]),
            Cell("NewReno throughput (kb/s)", PAPER["fig3"]["throughput_kbps"], f3["throughput_kbps"])]


#: Fig. 3's square wave (the preset): 10 s at 384 kb/s from t = 0, then 10 s at 38.4 kb/s, ...
FIG3_LEVEL_S = 10.0


def low_phase_timeouts(times_s: Sequence[float], level_s: float = FIG3_LEVEL_S) -> list[float]:
    """The timeouts that fall in a 38.4 kb/s phase of Fig. 3's square wave (odd levels), the
    ones the paper's mechanism makes; a timeout in slow start or at 384 kb/s is another one."""
    return [t for t in times_s if int(t // level_s) % 2 == 1]


def _fig3_spurious(data: Mapping[str, Any]) -> list[Cell]:
    low = low_phase_timeouts(data["fig3"]["sender_timeout_times_s"])
    return [fact("timeouts in the 38.4 kb/s phases", len(low) > 0)]


def _fig3_spurious_count(data: Mapping[str, Any]) -> list[Cell]:
    low = low_phase_timeouts(data["fig3"]["sender_timeout_times_s"])
    return [Cell("timeouts in the 38.4 kb/s phases", 2, len(low))]


#: The paper's claims and the rules of their verdicts (hosim.reproduce.claims), shown in
#: docs/reproductions/hsdpa-proxy.md and in every report.md, from hsdpa-results.json. Rates
#: agree within 5 %, utilizations within 5 percentage points, the proxy's gain within 20 % of
#: the paper's, counts within one.
CLAIMS = [
    Claim("Fig. 3: NewReno reaches 190.4 of the 222.7 kb/s capacity under the square wave", "kb/s",
          "fig-3-newreno-under-the-square-wave", _fig3_throughput, Tolerance(rel=0.05)),
    Claim("Fig. 3: the drops to 38.4 kb/s cause spurious timeouts", HOLDS, "fig-3-newreno-under-the-square-wave",
          _fig3_spurious, Tolerance()),
    Claim("Fig. 3: two spurious timeouts (t = 50 and 90 s)", "", "fig-3-newreno-under-the-square-wave",
          _fig3_spurious_count, Tolerance(abs=1)),
    Claim("Table I: the proxy keeps the link at least 90 % utilized for every T", HOLDS, "table-i", _proxy_above_90,
          Tolerance()),
    Claim("Table I: NewReno's utilization falls as T shrinks, 58.26 / 48.32 / 15.04 %", "%", "table-i",
          _table1_cells("tcp_utilization", lambda p: p["tcp_util"], 100.0), Tolerance(abs=5)),
    Claim("The proxy improves TCP throughput by about 100 %: 71 / 92 / 521 % (Table I, Abstract)", "%", "summary",
          _table1_cells("proxy_gain", lambda p: 100 * (p["proxy"] / p["tcp"] - 1), 100.0), Tolerance(rel=0.2)),
]


def _run(overrides: Mapping[str, Any], seed: int = 1, traces: bool = False) -> api.Result:
    result: api.Result = run_preset("hsdpa", seed, overrides, traces=traces)
    return result


def _summaries(runner: Runner | None, runs: Sequence[tuple[Mapping[str, Any], int]]) -> list[dict[str, Any]]:
    """Summaries of the preset's ``(overrides, seed)`` runs, in order, as one batch."""
    tasks = [preset_task("hsdpa", seed, o) for o, seed in runs]
    return (Runner() if runner is None else runner).summaries(tasks)


def _flow(summary: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    return next(f for f in summary["flows"] if f["name"] == name)


def _metrics(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The radio metrics of one run (packets are 1500 bytes on the wire)."""
    server = summary["flows"][0]
    return {
        "capacity_pkts_per_s": summary["radio_capacity_pkts_per_s"],
        "capacity_bps": summary["radio_capacity_bps"],
        "throughput_pkts_per_s": summary["ue_goodput_pkts_per_s"],
        "radio_throughput_pkts_per_s": summary["radio_throughput_pkts_per_s"],
        "utilization": summary["radio_goodput_utilization"],
        "radio_utilization": summary["radio_utilization"],
        "nodeb_drops": summary["nodeb_drops"],
        "nodeb_mean_queue_pkts": summary["nodeb_mean_queue_pkts"],
        "sender_timeouts": server["timeouts"],
        "sender_spurious_timeouts": server["spurious_timeouts"],
        "sender_fast_recoveries": server["fast_recoveries"],
    }


# --- experiments -----------------------------------------------------------------------------


def timeout_times(result: api.Result, flow: str = "tcp") -> list[float]:
    """When the sender's retransmission timer expired: where its RTO trace doubles (RFC 6298
    (5.5)) while its window is one segment (the timeout's loss window)."""
    rto = result.traces["rto"]
    rto = rto[rto["flow"] == flow]
    cwnd = result.traces["cwnd"]
    cwnd = cwnd[cwnd["flow"] == flow]
    mss = 1460  # the preset's tcp.mss_bytes
    times, values = list(cwnd["time_s"]), list(cwnd["cwnd_bytes"])
    out, previous, j = [], None, 0
    for t, v in zip(rto["time_s"], rto["rto_s"]):
        while j + 1 < len(times) and times[j + 1] <= t + 1e-9:
            j += 1
        if previous is not None and abs(v - 2 * previous) < 1e-9 * v and times[j] <= t + 1e-9 and values[j] <= mss:
            out.append(round(float(t), 6))
        previous = v
    return out


def fig3(seed: int = 1) -> tuple[api.Result, dict[str, Any]]:
    """Fig. 3: NewReno over the 384/38.4 kb/s square wave (10 s per level), 20-packet queue."""
    result = _run({}, seed=seed, traces=True)
    m = _metrics(result.summary)
    m["throughput_kbps"] = result.summary["ue_goodput_pkts_per_s"] * 1500 * 8 / 1e3
    m["capacity_kbps"] = result.summary["radio_capacity_bps"] / 1e3
    m["sender_timeout_times_s"] = timeout_times(result)
    return result, m


def fig7(seed: int = 1, period_s: float = 0.2) -> dict[str, api.Result]:
    """Fig. 7: the random bandwidth with period T, plain TCP and the proxy."""
    base = {**RANDOM, "hsdpa.period_s": period_s}
    return {
        "tcp": _run({**base, "hsdpa.proxy": False}, seed=seed, traces=True),
        "proxy": _run({**base, "hsdpa.proxy": True}, seed=seed, traces=True),
    }


_MODES = (("tcp", False), ("proxy", True))
_TABLE1_METRICS = ("capacity_pkts_per_s", "throughput_pkts_per_s", "utilization", "radio_utilization", "nodeb_drops",
                   "nodeb_mean_queue_pkts", "sender_timeouts", "sender_spurious_timeouts")


def table1(
    seeds: Sequence[int] = (1, 2, 3, 4, 5), extra: Mapping[str, Any] | None = None, runner: Runner | None = None
) -> list[dict[str, Any]]:
    """Table I: for each T, TCP and proxy utilization, mean and spread over ``seeds``."""
    return _table1_rows(seeds, _summaries(runner, _table1_runs(seeds, extra)))


def _table1_runs(seeds: Sequence[int], extra: Mapping[str, Any] | None) -> list[tuple[dict[str, Any], int]]:
    return [
        ({**RANDOM, "hsdpa.period_s": period, "hsdpa.proxy": proxy, **(extra or {})}, seed)
        for period in PERIODS_S for _mode, proxy in _MODES for seed in seeds
    ]


def ci95(values: Sequence[float]) -> float:
    """Half-width of the 95 % Student-t interval of the mean of ``values`` (0 for one value)."""
    n = len(values)
    if n < 2:
        return 0.0
    return float(_T975[min(n - 1, len(_T975)) - 1] * statistics.stdev(values) / n ** 0.5)


#: The 0.975 quantile of Student's t with 1..30 degrees of freedom (beyond: 30's, within 2 %).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def _table1_rows(seeds: Sequence[int], summaries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    batches = iter(summaries)
    for period in PERIODS_S:
        row: dict[str, Any] = {"T_s": period}
        throughput = {}
        for mode, _proxy in _MODES:
            runs = [_metrics(next(batches)) for _seed in seeds]
            for key in _TABLE1_METRICS:
                values = [r[key] for r in runs]
                row[f"{mode}_{key}"] = statistics.fmean(values)
                row[f"{mode}_{key}_sd"] = statistics.pstdev(values) if len(values) > 1 else 0.0
                row[f"{mode}_{key}_ci95"] = ci95(values)
            throughput[mode] = [r["throughput_pkts_per_s"] for r in runs]
        # The abstract's headline: the proxy's throughput gain over TCP, seed by seed.
        gains = [p / t - 1 for p, t in zip(throughput["proxy"], throughput["tcp"])]
        row["proxy_gain"] = statistics.fmean(gains)
        row["proxy_gain_ci95"] = ci95(gains)
        rows.append(row)
    return rows


#: Variations of what the paper leaves unstated, each a set of overrides.
SENSITIVITY: dict[str, dict[str, Any]] = {
    "preset (uniform 1-2 Mb/s, rate change reschedules the packet in service; ns-2 TCP)": {},
    "levels uniform on [0, 2] Mb/s (mean 1 Mb/s)": {"hsdpa.min_bps": 0.0},
    "two levels {1, 2} Mb/s": {"hsdpa.levels_bps": [1e6, 2e6]},
    "ns-2 link: a packet keeps the rate it started with": {"hsdpa.rate_change": "next_packet"},
    "ns-2 link, levels uniform on [0, 2] Mb/s": {"hsdpa.rate_change": "next_packet", "hsdpa.min_bps": 0.0},
    "min RTO 1 s (RFC 6298)": {"tcp.min_rto_s": 1.0},
    "receiver window 20 packets (ns-2 window_ default)": {"tcp.rwnd_bytes": 20 * 1460},
    "delayed ACKs": {"tcp.delayed_ack": True},
    "Node-B buffer 50 packets": {"hsdpa.buffer_packets": 50},
    "proxy window caps packets in flight": {"hsdpa.window": "inflight"},
}


def sensitivity(seeds: Sequence[int] = (1, 2, 3), runner: Runner | None = None) -> dict[str, list[dict[str, Any]]]:
    """Table I under each variation of the unstated choices."""
    runs = [run for extra in SENSITIVITY.values() for run in _table1_runs(seeds, extra)]
    summaries = _summaries(runner, runs)
    per_label = len(runs) // len(SENSITIVITY)
    return {
        label: _table1_rows(seeds, summaries[i * per_label:(i + 1) * per_label])
        for i, label in enumerate(SENSITIVITY)
    }


def fig3_variants(seed: int = 1, runner: Runner | None = None) -> dict[str, dict[str, Any]]:
    """Fig. 3 utilization and spurious timeouts under the unstated TCP and link choices."""
    variants: dict[str, dict[str, Any]] = {
        "hosim default": {},
        "ns-2 link (rate change from the next packet)": {"hsdpa.rate_change": "next_packet"},
        "min RTO 1 s": {"tcp.min_rto_s": 1.0},
        "delayed ACKs": {"tcp.delayed_ack": True},
        "receiver window 20 packets": {"tcp.rwnd_bytes": 20 * 1460},
        "SACK": {"tcp.recovery": "sack"},
        "proxy": {"hsdpa.proxy": True},
    }
    out = {}
    for label, s in zip(variants, _summaries(runner, [(extra, seed) for extra in variants.values()])):
        m = _metrics(s)
        m["throughput_kbps"] = s["ue_goodput_pkts_per_s"] * 1500 * 8 / 1e3
        out[label] = m
    return out


#: Imperfect feedback (eqs. 3-4 and the signalling path), T = 200 ms.
DEGRADATION: dict[str, dict[str, Any]] = {
    "clean feedback": {},
    "noise gamma 12.5 pkt/s, eta 1 pkt": {
        "hsdpa.feedback_bw_noise_pkts_per_s": 12.5, "hsdpa.feedback_queue_noise_pkts": 1},
    "noise gamma 25 pkt/s, eta 2 pkt": {"hsdpa.feedback_bw_noise_pkts_per_s": 25, "hsdpa.feedback_queue_noise_pkts": 2},
    "noise gamma 50 pkt/s, eta 5 pkt": {"hsdpa.feedback_bw_noise_pkts_per_s": 50, "hsdpa.feedback_queue_noise_pkts": 5},
    "20% of reports lost": {"hsdpa.feedback_loss": 0.2},
    "50% of reports lost": {"hsdpa.feedback_loss": 0.5},
    "80% of reports lost": {"hsdpa.feedback_loss": 0.8},
    "all reports lost (fallback to TCP)": {"hsdpa.feedback_loss": 1.0},
    "feedback delay 10 ms": {"hsdpa.feedback_delay_s": 0.01},
    "feedback delay 50 ms": {"hsdpa.feedback_delay_s": 0.05},
    "proxy 50 ms from the Node-B": {"hsdpa.ran_delay_s": 0.05},
    "compensated: noise gamma 50 pkt/s, eta 5 pkt": {
        "hsdpa.compensate_in_flight": True, "hsdpa.feedback_bw_noise_pkts_per_s": 50,
        "hsdpa.feedback_queue_noise_pkts": 5},
    "compensated: 80% of reports lost": {"hsdpa.compensate_in_flight": True, "hsdpa.feedback_loss": 0.8},
    "compensated: feedback delay 50 ms": {"hsdpa.compensate_in_flight": True, "hsdpa.feedback_delay_s": 0.05},
    "compensated: proxy 50 ms from the Node-B": {"hsdpa.compensate_in_flight": True, "hsdpa.ran_delay_s": 0.05},
}


def degradation(
    seeds: Sequence[int] = (1, 2, 3), period_s: float = 0.2, runner: Runner | None = None
) -> dict[str, dict[str, Any]]:
    """Proxy utilization, Node-B drops and queue under imperfect feedback."""
    out = {}
    base = {**RANDOM, "hsdpa.period_s": period_s, "hsdpa.proxy": True}
    summaries = _summaries(runner, [({**base, **extra}, seed) for extra in DEGRADATION.values() for seed in seeds])
    for i, label in enumerate(DEGRADATION):
        runs = summaries[i * len(seeds):(i + 1) * len(seeds)]
        out[label] = {
            "utilization": statistics.fmean(r["radio_goodput_utilization"] for r in runs),
            "nodeb_drops": statistics.fmean(r["nodeb_drops"] for r in runs),
            "nodeb_mean_queue_pkts": statistics.fmean(r["nodeb_mean_queue_pkts"] for r in runs),
            "fallback_steps": statistics.fmean(r["proxy"]["fallback_steps"] for r in runs),
            "proxy_timeouts": statistics.fmean(_flow(r, "proxy-ue")["timeouts"] for r in runs),
        }
    return out


# --- figures ---------------------------------------------------------------------------------


def _figure(rows: int) -> tuple[Figure, Any]:
    figure = Figure(figsize=(9.0, 0.8 + 1.9 * rows), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.subplots(rows, 1, sharex=True, squeeze=False)[:, 0]


def _steps(ax: Any, frame: pd.DataFrame, column: str, scale: float = 1.0, key: str | None = None,
           value: str | None = None, **kw: Any) -> None:
    if key is not None:
        frame = frame[frame[key] == value]
    ax.step(frame["time_s"], frame[column] * scale, where="post", linewidth=0.8, **kw)
    ax.grid(True, alpha=0.3)


def _rate_until(frame: pd.DataFrame, end_s: float) -> pd.DataFrame:
    """The rate trace with a final point at ``end_s`` so the last level is drawn."""
    import pandas as pd

    last = frame.iloc[[-1]].copy()
    last["time_s"] = end_s
    return pd.concat([frame, last], ignore_index=True)


def plot_fig3(result: api.Result, path: Path) -> None:
    end = result.summary["sim_time_s"]
    figure, (a, b, c) = _figure(3)
    _steps(a, _rate_until(result.traces["rate"], end), "rate_bps", 1e-3)
    a.set_ylabel("bandwidth (kb/s)")
    a.set_title("(a) downlink bandwidth", loc="left", fontsize="medium")
    _steps(b, result.traces["cwnd"], "cwnd_bytes", 1 / 1460, key="flow", value="tcp")
    b.set_ylabel("cwnd (packets)")
    b.set_title("(b) NewReno congestion window", loc="left", fontsize="medium")
    _steps(c, result.traces["queue"], "len_pkts", key="queue", value="downlink")
    c.set_ylabel("queue (packets)")
    c.set_title("(c) RNC/Node-B queue (20-packet buffer)", loc="left", fontsize="medium")
    c.set_xlabel("time (s)")
    save_figure(figure, path, dpi=110)


def plot_fig7(results: Mapping[str, api.Result], path: Path, window_s: float = 20.0) -> None:
    tcp, proxy = results["tcp"], results["proxy"]
    figure, axes = _figure(5)

    def clip(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[frame["time_s"] <= window_s]

    _steps(axes[0], clip(_rate_until(proxy.traces["rate"], window_s)), "rate_bps", 1e-6)
    axes[0].set_ylabel("Mb/s")
    axes[0].set_title("(a) downlink bandwidth (random, T = 200 ms)", loc="left", fontsize="medium")
    _steps(axes[1], clip(proxy.traces["cwnd"]), "cwnd_bytes", 1 / 1460, key="flow", value="proxy-ue")
    axes[1].set_ylabel("packets")
    axes[1].set_title("(b) proxy sending window w(n), eq. (18)", loc="left", fontsize="medium")
    _steps(axes[2], clip(tcp.traces["cwnd"]), "cwnd_bytes", 1 / 1460, key="flow", value="tcp")
    axes[2].set_ylabel("packets")
    axes[2].set_title("(c) TCP NewReno congestion window", loc="left", fontsize="medium")
    _steps(axes[3], clip(proxy.traces["queue"]), "len_pkts", key="queue", value="downlink")
    axes[3].set_ylabel("packets")
    axes[3].set_title("(d) Node-B queue with the proxy (q0 = 15)", loc="left", fontsize="medium")
    _steps(axes[4], clip(tcp.traces["queue"]), "len_pkts", key="queue", value="downlink")
    axes[4].set_ylabel("packets")
    axes[4].set_title("(e) Node-B queue with TCP NewReno", loc="left", fontsize="medium")
    axes[4].set_xlabel("time (s)")
    save_figure(figure, path, dpi=110)


def plot_table1(rows: Sequence[Mapping[str, Any]], sens: Mapping[str, Sequence[Mapping[str, Any]]], path: Path) -> None:
    figure = Figure(figsize=(11.0, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    xs = list(range(len(PERIODS_S)))
    ax.plot(xs, [PAPER["table1"][t]["tcp_util"] for t in PERIODS_S], "k--o", label="paper: TCP")
    ax.plot(xs, [PAPER["table1"][t]["proxy_util"] for t in PERIODS_S], "k-s", label="paper: proxy")
    ax.plot(xs, [100 * r["tcp_utilization"] for r in rows], "C0--o", label="hosim: TCP")
    ax.plot(xs, [100 * r["proxy_utilization"] for r in rows], "C0-s", label="hosim: proxy")
    ns2 = ns2_numbers()
    if ns2:
        ax.plot(xs, [100 * r["tcp_utilization"]["mean"] for r in ns2["table1"]], "C3:o", label="ns-2.35: TCP")
        ax.plot(xs, [100 * r["proxy_utilization"]["mean"] for r in ns2["table1"]], "C3:s", label="ns-2.35: proxy")
    ns2_variants = ("ns-2 link: a packet keeps the rate it started with", "ns-2 link, levels uniform on [0, 2] Mb/s")
    for i, key in enumerate(ns2_variants):
        if key in sens:
            ax.plot(xs, [100 * r["tcp_utilization"] for r in sens[key]], f"C{i + 1}--o", label=f"hosim TCP, {key}")
            ax.plot(xs, [100 * r["proxy_utilization"] for r in sens[key]], f"C{i + 1}-s", label=f"hosim proxy, {key}")
    ax.set_xticks(xs, [f"T = {t:g} s" for t in PERIODS_S])
    ax.set_ylabel("radio link utilization (%)")
    ax.set_ylim(0, 105)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("Table I: utilization of TCP NewReno and of the proxy", loc="left", fontsize="medium")
    save_figure(figure, path, dpi=110)


# --- entry point -----------------------------------------------------------------------------


def run_reproduction(out: Path, seeds: int = 20, runner: Runner | None = None) -> dict[str, Any]:
    """Every experiment: figures and ``hsdpa-results.json`` into ``out``; returns the numbers."""
    out.mkdir(parents=True, exist_ok=True)
    seed_list = tuple(range(1, seeds + 1))

    f3, f3m = fig3()
    plot_fig3(f3, out / "hsdpa-fig3.png")
    f7 = fig7()
    plot_fig7(f7, out / "hsdpa-fig7.png")
    rows = table1(seed_list, runner=runner)
    sens = sensitivity(seed_list[:3], runner=runner)
    plot_table1(rows, sens, out / "hsdpa-table1.png")
    results = {
        "paper": {"fig3": PAPER["fig3"], "table1": {str(k): v for k, v in PAPER["table1"].items()}},
        "fig3": f3m,
        "fig3_variants": fig3_variants(runner=runner),
        "fig7": {k: _metrics(r.summary) | {"proxy": r.summary["proxy"]} for k, r in f7.items()},
        "table1": rows,
        "sensitivity": sens,
        "degradation": degradation(seed_list[:3], runner=runner),
        "seeds": list(seed_list),
    }
    write_json(out / "hsdpa-results.json", results, indent=1, sort_keys=True)
    return results


#: ns-2.35 runs of the same setup (bench/ns2/papers/hsdpa.py), committed beside the figures.
NS2_FILE = "data/hsdpa-ns2.json"


def ns2_numbers() -> dict[str, Any] | None:
    """The committed ns-2.35 numbers, or None where the package was built without them."""
    path = COMMITTED / NS2_FILE
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None


def _ns2_cell(cell: Mapping[str, Any] | None, key: str) -> str:
    """An ns-2.35 Table I cell in per cent: mean ± 95 % interval."""
    return f"{100 * cell[key]['mean']:.1f} ± {100 * cell[key]['ci95']:.1f}" if cell else "–"


def table1_markdown(rows: Sequence[Mapping[str, Any]], ns2: Mapping[str, Any] | None = None) -> str:
    """Table I: the paper's utilization and the proxy's gain beside hosim's and ns-2.35's
    (mean ± 95 % interval over seeds)."""
    lines = ["| T (s) | TCP util. %: paper | hosim | ns-2.35 | proxy util. %: paper | hosim | ns-2.35 "
             "| proxy gain %: paper | hosim | ns-2.35 |", "|---|---|---|---|---|---|---|---|---|---|"]
    for i, row in enumerate(rows):
        paper = PAPER["table1"][row["T_s"]]
        gain = 100 * (paper["proxy"] / paper["tcp"] - 1)
        n = ns2["table1"][i] if ns2 else None
        lines.append(
            f"| {row['T_s']:g} | {paper['tcp_util']} | {100 * row['tcp_utilization']:.1f} "
            f"± {100 * row['tcp_utilization_ci95']:.1f} | {_ns2_cell(n, 'tcp_utilization')} | {paper['proxy_util']} "
            f"| {100 * row['proxy_utilization']:.1f} ± {100 * row['proxy_utilization_ci95']:.1f} "
            f"| {_ns2_cell(n, 'proxy_utilization')} | {gain:.0f} | {100 * row['proxy_gain']:.1f} "
            f"± {100 * row['proxy_gain_ci95']:.1f} | {_ns2_cell(n, 'proxy_gain')} |"
        )
    return "\n".join(lines)


def write_hsdpa_report(out: Path, results: Mapping[str, Any]) -> Path:
    """``report.md``: Fig. 3's throughput and Table I beside the paper's numbers, and the figures."""
    f3, paper3, ns2 = results["fig3"], PAPER["fig3"], ns2_numbers()
    n3 = ns2["fig3"] if ns2 else None
    n3_times = ", ".join(f"{t['time_s']:.1f}" for t in n3["timeouts"]) if n3 else "–"
    fig3 = (f"| quantity | paper | hosim | ns-2.35 |\n|---|---|---|---|\n"
            f"| capacity (kb/s) | {paper3['capacity_kbps']} | {f3['capacity_kbps']:.1f} "
            f"| {n3['capacity_pkts_per_s'] * 12 if n3 else float('nan'):.1f} |\n"
            f"| TCP throughput (kb/s) | {paper3['throughput_kbps']} | {f3['throughput_kbps']:.1f} "
            f"| {n3['throughput_pkts_per_s'] * 12 if n3 else float('nan'):.1f} |\n"
            f"| utilization | {paper3['utilization']:.3f} | {f3['utilization']:.3f} "
            f"| {n3['utilization'] if n3 else float('nan'):.3f} |\n"
            f"| timeouts (s) | 2 (50, 90) | {len(f3['sender_timeout_times_s'])} "
            f"({', '.join(f'{t:.1f}' for t in f3['sender_timeout_times_s'])}) "
            f"| {n3['sender_timeouts'] if n3 else '–'} ({n3_times}) |")
    sections = [
        ("Fig. 3: NewReno over the 384 / 38.4 kb/s square wave", fig3, [out / "hsdpa-fig3.png"]),
        ("Fig. 7: TCP and the window adaptation proxy, random bandwidth, T = 200 ms", "", [out / "hsdpa-fig7.png"]),
        ("Table I: link utilization and the proxy's gain", table1_markdown(results["table1"], ns2),
         [out / "hsdpa-table1.png"]),
    ]
    intro = (f"Ren, Huang, Liu, Lin, \"Improving TCP Throughput over HSDPA Networks\" (IEEE TWC 2008), reproduced "
             f"with the hsdpa preset; Table I over seeds {results['seeds']}. Every hosim number is in "
             "hsdpa-results.json; the ns-2.35 column is the committed run of the same setup "
             "(bench/ns2/papers/hsdpa.py, 20 seeds).")
    return write_report(out, "Reproduction: TCP over HSDPA and the window adaptation proxy", intro, sections,
                        seeds=f"seed 1 for Fig. 3 and Fig. 7, {results['seeds']} for Table I",
                        claims=report_lines(CLAIMS, results, "hsdpa-proxy.md"))


def check_committed(against: Path | None = None, runner: Runner | None = None) -> Comparison:
    """Quick version (seconds): Fig. 3, Fig. 7 and Table I with the committed seeds, against
    the committed ``figures/hsdpa-results.json``."""
    path, committed = committed_file(against, "figures/hsdpa-results.json")
    comparison = Comparison(str(path))
    _, f3 = fig3()
    comparison.compare_fields("fig3", committed["fig3"], f3)
    for mode, result in fig7().items():
        comparison.compare_fields(f"fig7[{mode}]", committed["fig7"][mode], _metrics(result.summary),
                                  ["throughput_pkts_per_s", "utilization", "nodeb_drops", "sender_timeouts"])
    rows = table1(tuple(committed["seeds"]), runner=runner)
    for old, row in zip(committed["table1"], rows):
        comparison.compare_fields(f"table1[T={row['T_s']:g}]", old, row,
                                  [k for k in row if k.endswith(("throughput_pkts_per_s", "utilization"))])
    return comparison


@click.command("hsdpa", short_help="Ren et al., TCP over HSDPA: Fig. 3, Fig. 7 and Table I.")
@change_options
@click.option("--seeds", type=click.IntRange(min=1), default=20, show_default=True, help="Seeds per Table I cell.")
@output_options("hsdpa")
@runner_options(default_jobs=1)
@click.pass_context
def cli(ctx: click.Context, out: Path | None, force: bool, check: bool, against: Path | None, seeds: int, jobs: int,
        cluster: str | None, cache_dir: Path | None, no_cache: bool) -> None:
    """Reproduce Ren, Huang, Liu, Lin, "Improving TCP Throughput over HSDPA Networks":
    Fig. 3, Fig. 7, Table I and the sensitivity runs, with the hsdpa preset. Writes the figures,
    hsdpa-results.json and report.md into --out; --check compares a quick re-run with the
    committed numbers instead."""
    from hosim.cli.invocation import command_line

    if check:
        refuse_changes_with_check()
        with runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
            ctx.exit(check_committed(against, runner=runner).report())
    target = prepare("hsdpa", out, force)
    with progress_on_stderr("hsdpa") as progress, runner_from_options(jobs, cache_dir, no_cache, cluster) as runner:
        runner.progress = progress
        results = run_reproduction(target, seeds, runner=runner)
    report = write_hsdpa_report(target, results)
    finish("hsdpa", target, seeds, command_line())
    click.echo(f"wrote {report}, {target / 'hsdpa-results.json'} and the figures hsdpa-fig3.png, hsdpa-fig7.png, "
               "hsdpa-table1.png")


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hosim.reproduce.hsdpa [OPTIONS]`: the same as `hosim reproduce hsdpa`."""
    from hosim.cli import main as hosim_main

    return hosim_main(["reproduce", "hsdpa", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
