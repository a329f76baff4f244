#!/usr/bin/env python3
"""The kernel's CUBIC and BBR across each reproduction's "Today's TCP" experiments (issue 35 §5,
issue 37 §5), through `hosim emulate`, beside hosim's `linux` profile on the same variants.

Benchmark only; must run as root; never part of the test suite.

Per reproduction, its main variants (CASES below). For each variant:

- hosim's `linux` profile, simulated (`hosim.run`), seeds 1..R: the emulated flow's goodput,
  retransmissions, timeouts and fast recoveries from the summary;
- the kernel's CUBIC and BBR (`hosim.emulate`, seeds 1..R as the network's seeds): the scenario's
  first flow's hosts are network namespaces; its source runs `python -m hosim.netapps serve
  --cc CC` (the congestion control set per socket with TCP_CONGESTION: a new namespace allows
  only reno and bbr to unprivileged sockets, root may choose any built-in one), its destination
  `fetch`; every other flow stays simulated with the same overrides. Goodput is the sender's
  `bytes_acked` (`ss -ti` at the end) over the run from the client's start (0.2 s); the counters
  are the sender namespace's `nstat` (TcpRetransSegs, TcpExtTCPSackRecovery, TcpExtTCPTimeouts,
  TcpExtTCPLossProbes, TcpExtTCPSpuriousRTOs, undo counters). Each run keeps its lateness
  figures and whether its lateness warning fired (p99 above the bound).

Real time is the cost: durations shorter than a preset's own are in CASES (`shortened`).

Output: one file per reproduction, docs/reproductions/data/<name>-kernel.json (or --out-dir),
written after each variant, and a markdown table per reproduction on stdout.

Usage:
  sudo nice -n 5 /path/to/venv/bin/python bench/linux/todays_tcp.py            # everything
  sudo python bench/linux/todays_tcp.py --only lte-x2 --repeats 3 --time-bound 600
  python bench/linux/todays_tcp.py --hosim-only     # redo hosim's `linux` rows, keep the kernel runs
  python bench/linux/todays_tcp.py --merge-from DIR --stacks cubic   # take DIR's kernel cubic runs
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import tempfile
import time
from typing import Any

import click

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "docs", "reproductions", "data"))
CLIENT_DELAY_S = 0.2

#: nstat counters kept from the sender's namespace.
COUNTERS = (
    "TcpRetransSegs", "TcpOutSegs", "TcpExtTCPSackRecovery", "TcpExtTCPTimeouts", "TcpExtTCPLossProbes",
    "TcpExtTCPLossProbeRecovery", "TcpExtTCPSpuriousRTOs", "TcpExtTCPLostRetransmit", "TcpExtTCPFullUndo",
    "TcpExtTCPPartialUndo", "TcpExtTCPDSACKUndo", "TcpExtTCPLossUndo", "TcpExtTCPHystartTrainDetect",
    "TcpExtTCPHystartDelayDetect", "TcpExtTCPSACKReorder",
)

LINUX_SACK = {"tcp.profile": "linux", "tcp.recovery": "sack"}

#: Per reproduction: the scenario, overrides common to its variants, the variants, and what was
#: shortened against the documented experiment. `unset_tcp`: the preset's [tcp] table is
#: replaced by the profile (as `hosim reproduce vertical-handoff --profile linux` does).
#: The keys of a variant's entry in a data file that are not a stack's runs.
NOT_STACKS = ("linux", "overrides", "hosim_overrides", "stack_dates", "skipped")

CASES: dict[str, dict[str, Any]] = {
    "lte-x2": {
        "doc": "lte-intra-handover.md", "scenario": "lte-x2",
        "base": {**LINUX_SACK, "lte_x2.target_ues": 5},
        "variants": {f"{p}, 5 UEs": {"lte_x2.path_switch": p} for p in ("standard", "fast", "predicted")},
        "shortened": "none: the preset's 5 s (handover at 2.3 s); 5 target UEs only, 3 seeds (the sweep has 50)",
        # The preset's receiver window (Table II, 65535 bytes) holds hosim's reference flow
        # under `--profile linux` too (a key wins over a profile); the kernel's receiver
        # advertises at most as much (TCP_WINDOW_CLAMP), not its autotuned 1.4 MB.
        "window_clamp": 65535,
    },
    "drop-or-forward": {
        "doc": "drop-or-forward.md", "scenario": "fcp",
        # One mobile: the ten flows share the sender host, so `hosim emulate` makes all ten
        # kernel flows and only flow0 has an application; the other nine would stay silent
        # (docs/reproductions/drop-or-forward.md). Both stacks run flow0 alone.
        "base": {**LINUX_SACK, "duration_s": 20.0, "fcp.handover_interval_rtt": 10.0, "fcp.mobiles": 1},
        "variants": {f"{s}, Δ = 10 RTT": {"fcp.scheme": s} for s in ("drop", "forward")},
        "shortened": "20 s instead of 60 s (2 s warm-up); Δ = 10 RTT only (the largest drop/forward gap); "
                     "one mobile (flow0 alone; the other nine flows were silent in the kernel runs)",
        # hosim's flow starts when the kernel's does. The kernel's client starts at
        # CLIENT_DELAY_S (0.2 s), connects (one round trip, 80 ms) and sends its request (40 ms
        # to the server): its first data segment leaves at 0.35-0.36 s (duration - busy_s in
        # every run of 2026-11-28). hosim's first leaves one round trip after its flow starts,
        # so 0.28 s puts it at 0.36 s, in the same place among the handovers; from 0 s it
        # had 0.28 s more to send (bench/linux/README.md, "The start").
        "hosim_overrides": {"fcp.start_s": 0.28},
    },
    "hsdpa-proxy": {
        "doc": "hsdpa-proxy.md", "scenario": "hsdpa",
        "base": {**LINUX_SACK, "duration_s": 30.0, "hsdpa.bandwidth": "random"},
        "variants": {f"T = {t:g} s": {"hsdpa.period_s": t} for t in (2.0, 0.2)},
        "shortened": "30 s instead of 150 s; T = 2 s and 200 ms (not 20 ms); plain TCP (the proxy needs hosim's TCP)",
    },
    "inter-rat": {
        "doc": "inter-rat.md", "scenario": "inter-rat",
        "base": {"tcp.profile": "linux", "duration_s": 14.0, "inter_rat.ftp_start_s": 1.0,
                 "inter_rat.handover_at_s": 8.0},
        "variants": {
            "forwarding, 1->1, 10 ms, S1 = RF": {"inter_rat.scheme": "forwarding"},
            "bicasting, 1->1, 100 ms, S1 = RF": {"inter_rat.scheme": "bicasting", "inter_rat.internet_rtt_s": 0.1},
        },
        "shortened": "FTP from 1 s (not 60 s), handover at 8 s (not 90 s), 14 s; a bulk sender, not a 20 MB file",
    },
    "vertical-handoff": {
        "doc": "vertical-handoff.md", "scenario": "vertical", "unset_tcp": True,
        "base": {"tcp.profile": "linux", "duration_s": 32.0, "vertical.links": "p2p", "vertical.wifi_bps": 19e6,
                 "vertical.cellular_bps": 3e6},
        "variants": {f"{r} Mb/s source": {"vertical.app_rate_bps": r * 1e6} for r in (10, 20)},
        "shortened": "32 s (handoffs at 15 s and 30 s) instead of 100 s; the kernel's sender is bulk, "
                     "not rate-limited (the source rate applies to hosim's rows only)",
    },
    "todays-handovers": {
        "doc": "todays-handovers.md", "scenario": "cellular",
        "base": {"tcp.profile": "linux", "duration_s": 16.0},
        "variants": {s: {"cellular.scheme": s} for s in ("drop", "forward", "daps", "cho")},
        "shortened": "16 s instead of 25 s (UE 0's first handover); the kernel is UE 0's flow, "
                     "the other 9 UEs simulated",
    },
}


def scenario_text(case: dict[str, Any]) -> str:
    from hosim.scenario import load_scenario, remove_keys

    text, source = load_scenario(case["scenario"])
    return remove_keys(text, ["tcp"], source) if case.get("unset_tcp") else text


def ss_text(ss: str | list[str]) -> str:
    return ss if isinstance(ss, str) else "\n".join(ss)


def bytes_acked(ss: str) -> int:
    """The largest `bytes_acked` of the connections in `ss -tin` output (the data connection)."""
    return max((int(x) for x in re.findall(r"bytes_acked:(\d+)", ss)), default=0)


def hosim_run(text: str, seed: int, overrides: dict[str, Any]) -> dict[str, Any]:
    import hosim

    s = hosim.run(text, seed=seed, overrides=overrides, traces=False).summary
    f = s["flows"][0]
    return {
        "seed": seed, "flow": f["name"], "goodput_bps": f["goodput_bps"], "retransmits": f["retransmits"],
        "timeouts": f["timeouts"], "spurious_timeouts": f["spurious_timeouts"],
        "fast_recoveries": f["fast_recoveries"], "tlp_probes": f["tlp_probes"],
        "throughput_fraction": f.get("throughput_fraction"),
        "radio_utilization": s.get("radio_utilization"),
        "queue_drops": sum(q["dropped"] for q in s["queues"]),
    }


def kernel_run(text: str, seed: int, overrides: dict[str, Any], cc: str, duration_s: float,
               window_clamp: int | None = None) -> dict[str, Any]:
    import hosim

    py = sys.executable
    clamp = f" --window-clamp {window_clamp}" if window_clamp else ""
    with tempfile.TemporaryDirectory(prefix="hosim-todays-") as tmp:
        s = hosim.emulate(
            text, seed=seed, overrides=overrides,
            server=f"{py} -m hosim.netapps serve --cc {cc} --bytes 100000000000 --timeout {duration_s + 5}",
            client=f"{py} -m hosim.netapps fetch {{server}} --timeout {duration_s + 5}{clamp}",
            client_delay_s=CLIENT_DELAY_S, app_output_dir=tmp,
        )
    emu = s["emulation"]
    flow = emu["flows"][0]
    sender = next(h for h in emu["hosts"] if h["host"] == flow["src"])
    ss = ss_text(sender["ss"])
    acked = bytes_acked(ss)
    secs = emu["duration_s"] - CLIENT_DELAY_S
    f0 = s["flows"][0]
    avail = f0.get("available_bps")
    gp = acked * 8 / secs if secs > 0 else 0.0
    # tcpi_busy_time: how long the sender had data outstanding, from its first data segment.
    busy = re.search(r"busy:(\d+)ms", ss)
    return {
        "seed": seed, "cc": cc, "flow": flow["name"], "goodput_bps": gp, "bytes_acked": acked,
        "busy_s": int(busy.group(1)) / 1000 if busy else None, "window_clamp": window_clamp,
        "throughput_fraction": gp / avail if avail else None,
        "cc_seen": sorted(set(re.findall(r"\b(cubic|bbr|reno)\b", ss))),
        "ss_at_end": sender["ss_at_end"],
        "nstat": {k: sender["nstat"].get(k, 0) for k in COUNTERS},
        "radio_utilization": s.get("radio_utilization"),
        "queue_drops": sum(q["dropped"] for q in s["queues"]),
        "delivered_ip_bytes": flow["forward"]["delivered_bytes"],
        "lateness": emu["lateness"], "late": bool(emu["warning"]), "loadavg": emu["loadavg"],
        "loop_cpu_share": emu["loop_cpu_share"], "ended_by": emu["ended_by"], "duration_s": emu["duration_s"],
    }


def spread(xs: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(xs), "min": min(xs), "max": max(xs),
            "sd": statistics.stdev(xs) if len(xs) > 1 else 0.0}


def row(label: str, stack: str, runs: list[dict[str, Any]]) -> str:
    g = spread([r["goodput_bps"] / 1e6 for r in runs])
    if stack == "linux":
        retx = spread([r["retransmits"] for r in runs])["mean"]
        rto = spread([r["timeouts"] for r in runs])["mean"]
        rec = spread([r["fast_recoveries"] for r in runs])["mean"]
        late = "-"
    else:
        retx = spread([r["nstat"]["TcpRetransSegs"] for r in runs])["mean"]
        rto = spread([r["nstat"]["TcpExtTCPTimeouts"] for r in runs])["mean"]
        rec = spread([r["nstat"]["TcpExtTCPSackRecovery"] for r in runs])["mean"]
        late = " / ".join(f"{r['lateness']['p99_us']:.0f}{'!' if r['late'] else ''}" for r in runs)
    return (f"| {label} | {stack} | {g['mean']:.2f} ({g['min']:.2f}-{g['max']:.2f}) | {retx:.1f} | {rto:.1f} "
            f"| {rec:.1f} | {late} |")


def report_table(data: dict[str, Any]) -> str:
    """The markdown table of one reproduction's data file (the docs' kernel columns)."""
    head = ("| variant | stack | goodput (Mb/s): mean ± sd (min-max) | retransmissions | RTOs (spurious) "
            "| recoveries | TLPs | lateness p99 per run (µs; ! = warning) |")
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    for label, v in data["variants"].items():
        if "skipped" in v:
            lines.append(f"| {label} | not run ({v['skipped']}) | | | | | | |")
            continue
        for stack in ("linux", *sorted(k for k in v if k not in NOT_STACKS)):
            runs = v[stack]
            g = spread([r["goodput_bps"] / 1e6 for r in runs])
            gp = f"{g['mean']:.2f} ± {g['sd']:.2f} ({g['min']:.2f}-{g['max']:.2f})"
            if stack == "linux":
                cells = [spread([float(r[k]) for r in runs])["mean"]
                         for k in ("retransmits", "timeouts", "spurious_timeouts", "fast_recoveries")]
                # Runs recorded before hosim's summary counted tail loss probes show "-".
                tlp = (f"{spread([float(r['tlp_probes']) for r in runs])['mean']:.1f}"
                       if all("tlp_probes" in r for r in runs) else "-")
                lines.append(f"| {label} | hosim `linux` | {gp} | {cells[0]:.1f} | {cells[1]:.1f} ({cells[2]:.1f}) "
                             f"| {cells[3]:.1f} | {tlp} | - |")
                continue
            n = [r["nstat"] for r in runs]
            m = {k: spread([float(x[k]) for x in n])["mean"] for k in COUNTERS}
            late = ", ".join(f"{r['lateness']['p99_us']:.0f}{'!' if r['late'] else ''}" for r in runs)
            lines.append(f"| {label} | kernel {stack} | {gp} | {m['TcpRetransSegs']:.1f} "
                         f"| {m['TcpExtTCPTimeouts']:.1f} ({m['TcpExtTCPSpuriousRTOs']:.1f}) "
                         f"| {m['TcpExtTCPSackRecovery']:.1f} | {m['TcpExtTCPLossProbes']:.1f} | {late} |")
    return "\n".join(lines)


def rerun_hosim(name: str, path: str, n_seeds: int | None = None, sets: dict[str, Any] | None = None) -> None:
    """Redo hosim's `linux` rows of one data file with the current code (same overrides and seeds,
    plus `sets`), keep its kernel runs, note the date of the hosim re-run, and print the table."""
    with open(path) as fh:
        data = json.load(fh)
    text = scenario_text(CASES[name])
    extra = {**CASES[name].get("hosim_overrides", {}), **(sets or {})}
    for v in data["variants"].values():
        if "skipped" in v:
            continue
        seeds = list(range(1, n_seeds + 1)) if n_seeds else [r["seed"] for r in v["linux"]]
        v["linux"] = [hosim_run(text, s, {**v["overrides"], **extra}) for s in seeds]
        if extra:
            v["hosim_overrides"] = extra
    data["hosim_rerun"] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                           "command": "bench/linux/todays_tcp.py " + " ".join(sys.argv[1:])}
    with open(path, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    click.echo(f"\n### {name}: hosim rows re-run {data['hosim_rerun']['date']}; kernel runs of {data['date']}\n")
    click.echo(report_table(data))


def _old_data(out_dir: str, name: str) -> dict[str, Any]:
    path = os.path.join(out_dir, f"{name}-kernel.json")
    if not os.path.exists(path):
        return {}
    with open(path) as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def _keep_stacks(entry: dict[str, Any], old: dict[str, Any], label: str, ccs: list[str]) -> None:
    """Copies the kernel runs of the stacks not re-run from the earlier data file, when that
    variant ran with the same overrides, with the date they were measured."""
    prev = old.get("variants", {}).get(label, {})
    if prev.get("overrides") != entry["overrides"]:
        return
    for cc, runs in prev.items():
        if cc in NOT_STACKS or cc in ccs:
            continue
        entry[cc] = runs
        entry.setdefault("stack_dates", {})[cc] = prev.get("stack_dates", {}).get(cc, old.get("date"))


def merge_kernel_runs(name: str, path: str, src_path: str, ccs: list[str], note: str | None,
                      append: bool = False) -> None:
    """Replace the kernel runs of `ccs` in one data file by those of another run of this script
    (`src_path`, same variants and window clamp), keep every other stack's runs, and record the
    merged runs' date, load and command as `<cc>_rerun`; the hosim rows are left as they are
    unless the source has them on more seeds (same overrides), which it then supplies."""
    with open(path) as fh:
        data = json.load(fh)
    with open(src_path) as fh:
        src = json.load(fh)
    if src.get("kernel_window_clamp") != data.get("kernel_window_clamp"):
        click.echo(f"todays_tcp.py: {src_path}: kernel_window_clamp {src.get('kernel_window_clamp')} differs "
                   f"from {path}'s {data.get('kernel_window_clamp')}", err=True)
        sys.exit(2)
    for cc in ccs:
        loads = []
        for label, v in data["variants"].items():
            runs = src["variants"].get(label, {}).get(cc)
            if "skipped" in v or not runs:
                click.echo(f"todays_tcp.py: {src_path}: no kernel {cc} runs of variant {label!r}", err=True)
                sys.exit(2)
            v[cc] = [*v.get(cc, []), *runs] if append else runs
            loads += [r["loadavg"][0] for r in runs]
            # hosim's rows follow the kernel's seeds: when the source ran more seeds with the
            # same overrides, its `linux` rows replace the file's (re-run them with --hosim-only).
            src_v = src["variants"][label]
            if src_v.get("overrides") == v.get("overrides") and len(src_v.get("linux", [])) > len(v.get("linux", [])):
                v["linux"] = src_v["linux"]
        rerun = {"date": src["date"], "kernel": src["kernel"], "repeats": src["repeats"],
                 "command": src["command"], "loadavg_min": min(loads), "loadavg_max": max(loads),
                 "merged_by": "bench/linux/todays_tcp.py " + " ".join(sys.argv[1:])}
        if note:
            rerun["note"] = note
        if append:
            data.setdefault(f"{cc}_appended", []).append(rerun)
        else:
            data[f"{cc}_rerun"] = rerun
    with open(path, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    click.echo(f"\n### {name}: kernel {', '.join(ccs)} runs of {src['date']} merged\n")
    click.echo(report_table(data))


@click.command(help=__doc__)
@click.option("--only", multiple=True, type=click.Choice(sorted(CASES)), help="Reproductions to run (default: all).")
@click.option("--repeats", default=3, show_default=True, type=click.IntRange(1, 50), help="Seeds / kernel repeats.")
@click.option("--stacks", default="cubic,bbr", show_default=True, help="Kernel congestion controls.")
@click.option("--out-dir", default=DATA, show_default=True, type=click.Path(file_okay=False))
@click.option("--time-bound", default=3600.0, show_default=True, type=float,
              help="Stop starting new variants after this many seconds (the variant under way finishes).")
@click.option("--report", is_flag=True, help="Run nothing: print the tables of the data files in --out-dir.")
@click.option("--keep-other-stacks", is_flag=True,
              help="Keep the kernel runs of the stacks not in --stacks from the existing data file (same "
                   "overrides), with the date they were measured.")
@click.option("--hosim-only", is_flag=True,
              help="Re-run only hosim's `linux` rows of the data files in --out-dir (their seeds), keep the "
                   "kernel runs, and print the tables; no root needed.")
@click.option("--merge-from", type=click.Path(exists=True, file_okay=False),
              help="Run nothing: replace the kernel runs of --stacks in --out-dir's data files by those of "
                   "the data files in this directory (another run's --out-dir), keep the other stacks' runs.")
@click.option("--note", help="With --merge-from: why the runs were replaced (kept in the data file).")
@click.option("--append", is_flag=True,
              help="With --merge-from: add the source's kernel runs to the file's instead of replacing them "
                   "(another batch of the same case: the kernel's spread between batches shows).")
@click.option("--hosim-seeds", type=click.IntRange(1, 100),
              help="With --hosim-only: re-run hosim's rows on seeds 1..N instead of their own seeds.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="With --hosim-only: one more override on hosim's rows (a TOML value, else a string); repeatable. "
                   "Kept in the data file as `hosim_overrides`.")
def main(only: tuple[str, ...], repeats: int, stacks: str, out_dir: str, time_bound: float, report: bool,
         keep_other_stacks: bool, hosim_only: bool, merge_from: str | None, note: str | None, append: bool,
         hosim_seeds: int | None, sets: tuple[str, ...]) -> None:
    ccs = [c.strip() for c in stacks.split(",") if c.strip()]
    if merge_from:
        for name in only or tuple(CASES):
            path = os.path.join(out_dir, f"{name}-kernel.json")
            src_path = os.path.join(merge_from, f"{name}-kernel.json")
            for p in (path, src_path):
                if not os.path.exists(p):
                    click.echo(f"todays_tcp.py: {p}: no data file", err=True)
                    sys.exit(2)
            merge_kernel_runs(name, path, src_path, ccs, note, append)
        return
    extra_sets: dict[str, Any] = {}
    for kv in sets:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            click.echo(f"todays_tcp.py: --set: expected KEY=VALUE, got {kv!r}", err=True)
            sys.exit(2)
        from hosim.scenario import parse_toml_value  # noqa: PLC0415

        extra_sets[key] = parse_toml_value(value)  # as `hosim run --set`
    if hosim_only:
        for name in only or tuple(CASES):
            path = os.path.join(out_dir, f"{name}-kernel.json")
            if not os.path.exists(path):
                click.echo(f"todays_tcp.py: {path}: no data file to update", err=True)
                sys.exit(2)
            rerun_hosim(name, path, hosim_seeds, extra_sets)
        return
    if report:
        for name in only or tuple(CASES):
            path = os.path.join(out_dir, f"{name}-kernel.json")
            if os.path.exists(path):
                with open(path) as fh:
                    data = json.load(fh)
                click.echo(f"\n### {name}: {data['date']}, kernel {data['kernel']}, load at start "
                           f"{data['loadavg_at_start'][0]:.1f}")
                for cc in ccs:
                    if f"{cc}_rerun" in data:
                        r = data[f"{cc}_rerun"]
                        click.echo(f"kernel {cc} runs re-run {r['date']}, load {r['loadavg_min']:.1f}-"
                                   f"{r['loadavg_max']:.1f}: {r['command']}")
                    for r in data.get(f"{cc}_appended", []):
                        click.echo(f"kernel {cc} runs added {r['date']}, load {r['loadavg_min']:.1f}-"
                                   f"{r['loadavg_max']:.1f}: {r['command']}")
                if "hosim_rerun" in data:
                    click.echo(f"hosim rows re-run {data['hosim_rerun']['date']}")
                click.echo("")
                click.echo(report_table(data))
        return
    if os.geteuid() != 0:
        click.echo("todays_tcp.py: needs root (hosim emulate)", err=True)
        sys.exit(2)
    t0 = time.monotonic()
    os.makedirs(out_dir, exist_ok=True)
    for name in only or tuple(CASES):
        case = CASES[name]
        text = scenario_text(case)
        dur = float(case["base"].get("duration_s", 5.0))
        old = _old_data(out_dir, name) if keep_other_stacks else {}
        out: dict[str, Any] = {
            "reproduction": name, "scenario": case["scenario"], "base_overrides": case["base"],
            "preset_tcp_replaced": bool(case.get("unset_tcp")), "shortened": case["shortened"],
            "kernel_window_clamp": case.get("window_clamp"),
            "kernel": os.uname().release, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "loadavg_at_start": list(os.getloadavg()), "repeats": repeats,
            "command": "bench/linux/todays_tcp.py " + " ".join(sys.argv[1:]), "variants": {},
        }
        lines = ["| variant | stack | goodput Mb/s, mean (min-max) | retransmissions | RTOs | recoveries "
                 "| lateness p99 µs per run (! = warning) |", "|---|---|---|---|---|---|---|"]
        for label, ov in case["variants"].items():
            if time.monotonic() - t0 > time_bound:
                click.echo(f"{name}: time bound reached, {label} not run", err=True)
                out["variants"][label] = {"skipped": "time bound"}
                continue
            overrides = {**case["base"], **ov}
            extra = case.get("hosim_overrides", {})
            hosim_rows = [hosim_run(text, s, {**overrides, **extra}) for s in range(1, repeats + 1)]
            entry: dict[str, Any] = {"overrides": overrides, "linux": hosim_rows}
            if extra:
                entry["hosim_overrides"] = extra
            lines.append(row(label, "linux", entry["linux"]))
            for cc in ccs:
                runs = []
                for s in range(1, repeats + 1):
                    r = kernel_run(text, s, overrides, cc, dur, case.get("window_clamp"))
                    runs.append(r)
                    lat = r["lateness"]
                    click.echo(f"{name} | {label} | {cc} #{s}: {r['goodput_bps'] / 1e6:.2f} Mb/s, retx "
                               f"{r['nstat']['TcpRetransSegs']}, RTO {r['nstat']['TcpExtTCPTimeouts']}, lateness "
                               f"p99 {lat['p99_us']:.0f} max {lat['max_us']:.0f} us{' LATE' if r['late'] else ''}, "
                               f"load {r['loadavg'][0]:.1f} [{time.monotonic() - t0:.0f} s]", err=True)
                entry[cc] = runs
                entry.setdefault("stack_dates", {})[cc] = out["date"]
                lines.append(row(label, f"kernel {cc}", runs))
            _keep_stacks(entry, old, label, ccs)
            out["variants"][label] = entry
            path = os.path.join(out_dir, f"{name}-kernel.json")
            with open(path, "w") as fh:
                json.dump(out, fh, indent=1)
                fh.write("\n")
        click.echo(f"\n### {name} ({case['scenario']})\n")
        click.echo("\n".join(lines))


if __name__ == "__main__":
    main()
