#!/usr/bin/env python3
"""ns-2.35 side of the HSDPA proxy reproduction (Ren, Huang, Liu, Lin, "Improving TCP Throughput
over HSDPA Networks", IEEE Trans. Wireless Commun. 2008): Fig. 3 and Table I in plain ns-2.

Benchmark only: needs ns-2.35 (`ns` on PATH; Debian: ``apt-get install ns2``). Never a hosim
dependency, never in CI or the test suite. docs/reproductions/hsdpa-proxy.md quotes its output
(committed as docs/reproductions/data/hsdpa-ns2.json).

The network of the paper's Fig. 2 and hosim's ``hsdpa`` preset, built of plain ns-2 objects:

  server ==wired 10 Mb/s, 20 ms== gw ==100 Mb/s, 2 ms== rnc --downlink, varying, 10 ms--> ue
                                                        rnc <--uplink 96 kb/s, 10 ms-- ue

Stand-ins (bench/ns2/papers/hsdpa.md says what each leaves out):
  * Node-B/RNC queue: the DropTail queue of the simplex link rnc->ue, ``queue-limit``
    buffer + 1 (``DropTail::enque`` drops when ``length() + 1 >= qlim_``: the limit counts the
    packet on the wire), so 20 packets wait, as hosim's ``buffer_packets = 20``. 1000-packet
    queues elsewhere, as hosim's template.
  * HSDPA's bandwidth: ``bandwidth_`` of the downlink's ``LinkDelay`` set by ``$ns at``. ns-2
    computes a packet's transmission time when it starts (``LinkDelay::recv``), so a change
    acts from the next packet: hosim's ``hsdpa.rate_change = "next_packet"``. Fig. 3: 384 kb/s
    for 10 s, then 38.4 kb/s for 10 s, high first (hosim's ``bandwidth = "square"``).
    Table I: a level uniform on [1, 2] Mb/s every T, drawn by ns-2's MRG32k3a ``RNG`` on
    substream ``seed`` (hosim draws its own levels: the two agree in distribution, not run by
    run).
  * TCP: ``Agent/TCP/Newreno`` and ``Agent/TCPSink`` with ns-2.35's defaults except what the
    paper or hosim's preset states: ``packetSize_`` 1460 (+ ``tcpip_base_hdr_size_`` 40 =
    the 1500-byte MTU), ``window_`` 4 MiB / 1460 (the preset's ``rwnd_bytes``) and
    ``rtxcur_init_`` 6 s (ns-2.29's value; the preset's ``initial_rto_s``).
  * The window adaptation proxy (``--proxy``): the split connection as two TCP connections,
    server -> gw (``Agent/TCP/Newreno`` -> ``Agent/TCPSink``) and gw -> ue (a second
    ``Agent/TCP/Newreno`` -> ``Agent/TCPSink``), and a Tcl procedure run every tau = 10 ms:
    it reads the downlink queue (``QueueMonitor pkts_``) and the current level, and one
    feedback delay (2 ms, hosim's ``ran_delay_s``) later computes eq. (18)
    w = b tau - q + q0 (packets, floored at 0). Quota reading (hosim's default ``window =
    "quota"``): the proxy's sender is given ``advanceby`` w packets (the fraction is carried,
    at most what the proxy has received in order from the server and not yet passed on), and
    its ``cwnd_`` is held at 10000 so no congestion control limits it (the paper disables it;
    ns-2 still resends on three duplicate ACKs and on its timer). Eq. (8): the server's
    ``window_`` is set to aw = w - q2 + q20 (floored at 1), q2 the packets waiting in the
    proxy. ``--proxy-window inflight``: instead the proxy sender's ``window_`` is set to w
    each step (at most w packets outstanding; hosim's ``window = "inflight"``).

Counters from ns-2's own variables (as bench/ns2/run_ns2.py): in-order bytes at the sink
(``bytes_``, whole packets with headers, less the 40-byte SYN), ``nrexmit_`` (timeouts, traced
for their times), ``ncwndcuts1_`` - ``nrexmit_`` (fast retransmits), ``nrexmitpack_``; the
Node-B queue from a ``QueueMonitor`` (drops ``pdrops_``, mean length from its integrator) and
its trace (drops per sequence number, to tell a spurious timeout: the segment the timer resends
was not dropped in its last transmission, so it was still queued or on its way).

Usage:
  python3 bench/ns2/papers/hsdpa.py                    # Fig. 3 and Table I (20 seeds), ~2 min
  python3 bench/ns2/papers/hsdpa.py --seeds 5 --only table1
  python3 bench/ns2/papers/hsdpa.py --print-tcl fig3   # the script of one run
  python3 bench/ns2/papers/hsdpa.py --publish docs/reproductions/data/hsdpa-ns2.json
Writes bench/results/ns2/papers/hsdpa-ns2[-VARIANT].json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.normpath(os.path.join(HERE, "..", "..", "results", "ns2", "papers"))

#: The paper's stated parameters and hosim's hsdpa preset for what it leaves open.
SETUP: dict[str, Any] = {
    "mss_bytes": 1460, "header_bytes": 40, "duration_s": 150.0,
    "wired_bps": 10e6, "wired_delay_s": 0.02, "ran_bps": 100e6, "ran_delay_s": 0.002,
    "radio_delay_s": 0.01, "uplink_bps": 96e3, "buffer_packets": 20, "other_queue_packets": 1000,
    "rwnd_bytes": 4194304, "initial_rto_s": 6.0,
    "high_bps": 384e3, "low_bps": 38.4e3, "square_period_s": 10.0, "min_bps": 1e6, "max_bps": 2e6,
    "tau_s": 0.01, "q0_pkts": 15, "q20_pkts": 50, "feedback_delay_s": 0.002,
}
PERIODS_S = (2.0, 0.2, 0.02)

#: Candidates for what the paper's Table I rests on, each run in ns-2 itself (``--variant``):
#: SETUP changes and Tcl lines after the defaults.
VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    # "a random variable, whose peak value is 2 Mbps": levels down to 0 b/s; ns-2 keeps a
    # packet's rate, so a packet started at a level near 0 holds the link for seconds.
    "levels-0-2": {"setup": {"min_bps": 0.0}},
    # ns-2's own receiver window (window_ 20 packets) instead of the preset's 4 MiB.
    "window-20": {"extra": ["Agent/TCP set window_ 20"]},
    # delayed ACKs (Agent/TCPSink/DelAck, interval_ 100 ms)
    "delack": {"sink": "Agent/TCPSink/DelAck"},
    # ns-2.35's initial RTO (3 s) and ns-2.29's 1 s minimum RTO era
    "minrto-1": {"extra": ["Agent/TCP set minrto_ 1.0"]},
    # RTT sampled on every ACK (timestamps), as hosim before rtt_sampling
    "timestamps": {"extra": ["Agent/TCP set timestamps_ true"]},
}


def run_tcl(run: dict[str, Any]) -> str:
    """The ns-2 script of one run: ``kind`` square|random, ``period_s``, ``seed``, ``proxy``,
    ``proxy_window`` quota|inflight, ``extra`` (Tcl lines after the defaults)."""
    s = {**SETUP, **run.get("setup", {})}
    pkt = s["mss_bytes"] + s["header_bytes"]
    oq = s["other_queue_packets"] + 1
    start_bps = s["high_bps"] if run["kind"] == "square" else s["min_bps"]
    L = [
        "set ns [new Simulator]",
        f"Agent/TCP set packetSize_ {s['mss_bytes']}",
        f"Agent/TCP set tcpip_base_hdr_size_ {s['header_bytes']}",
        f"Agent/TCPSink set packetSize_ {s['header_bytes']}",
        f"Agent/TCP set window_ {s['rwnd_bytes'] // s['mss_bytes']}",
        f"Agent/TCP set rtxcur_init_ {s['initial_rto_s']}",
        *run.get("extra", []),
        "set server [$ns node]", "set gw [$ns node]", "set rnc [$ns node]", "set ue [$ns node]",
        f"$ns duplex-link $server $gw {s['wired_bps']!r} {s['wired_delay_s']!r} DropTail",
        f"$ns queue-limit $server $gw {oq}", f"$ns queue-limit $gw $server {oq}",
        f"$ns duplex-link $gw $rnc {s['ran_bps']!r} {s['ran_delay_s']!r} DropTail",
        f"$ns queue-limit $gw $rnc {oq}", f"$ns queue-limit $rnc $gw {oq}",
        f"$ns simplex-link $rnc $ue {start_bps!r} {s['radio_delay_s']!r} DropTail",
        f"$ns queue-limit $rnc $ue {s['buffer_packets'] + 1}",
        f"$ns simplex-link $ue $rnc {s['uplink_bps']!r} {s['radio_delay_s']!r} DropTail",
        f"$ns queue-limit $ue $rnc {oq}",
        "set radio [[$ns link $rnc $ue] link]",
        "set qtr [open qtrace.tr w]",
        "$ns trace-queue $rnc $ue $qtr",
        "set qmon [$ns monitor-queue $rnc $ue [open /dev/null w] 1.0]",
        "set qint [$qmon get-pkts-integrator]",
        f"set bw {start_bps!r}",
        "set capbits 0.0",
        "set lastchange 0.0",
        # The downlink's level: ns-2 applies it from the next packet (LinkDelay::recv).
        "proc setbw {b} {",
        "  global ns radio bw capbits lastchange",
        "  set now [$ns now]",
        "  set capbits [expr {$capbits + $bw * ($now - $lastchange)}]",
        "  set lastchange $now",
        "  set bw $b",
        "  $radio set bandwidth_ $b",
        "}",
    ]
    dur = s["duration_s"]
    if run["kind"] == "square":
        p = s["square_period_s"]
        k = 1
        while k * p < dur:
            level = s["low_bps"] if k % 2 else s["high_bps"]
            L.append(f'$ns at {k * p!r} "setbw {level!r}"')
            k += 1
    else:
        L += [
            "set rng [new RNG]",
            f"for {{set k 0}} {{$k < {run['seed']}}} {{incr k}} {{ $rng next-substream }}",
            "proc nextlevel {} {",
            "  global ns rng",
            f"  setbw [$rng uniform {s['min_bps']!r} {s['max_bps']!r}]",
            f"  $ns at [expr {{[$ns now] + {run['period_s']!r}}}] nextlevel",
            "}",
            "$ns at 0.0 nextlevel",
        ]
    L += [
        f"set SinkClass {run.get('sink', 'Agent/TCPSink')}",
        "set tcp [new Agent/TCP/Newreno]",
        "$ns attach-agent $server $tcp",
        "set vtr [open vars.tr w]",
        "$tcp attach $vtr",
        "$tcp trace nrexmit_",
        "$tcp trace ack_",
        "set ftp [new Application/FTP]",
        "$ftp attach-agent $tcp",
        '$ns at 0.0 "$ftp start"',
    ]
    if not run.get("proxy"):
        L += ["set sink [new $SinkClass]", "$ns attach-agent $ue $sink", "$ns connect $tcp $sink",
              "set out $sink", "set outtcp $tcp"]
    else:
        L += _proxy_tcl(s, pkt, run.get("proxy_window", "quota"))
    L += [
        "proc finish {} {",
        "  global ns tcp outtcp out qmon qint capbits bw lastchange qtr vtr",
        "  set now [$ns now]",
        "  set cap [expr {$capbits + $bw * ($now - $lastchange)}]",
        "  set qsum [expr {[$qint set sum_] + [$qint set lasty_] * ($now - [$qint set lastx_])}]",
        '  puts "CAP $cap"',
        '  puts "OUT [$out set bytes_]"',
        '  puts "QUEUE [$qmon set pdrops_] [$qmon set parrivals_] $qsum"',
        "  foreach {name t} [list server $tcp ue $outtcp] {",
        '    puts "AGENT $name [$t set ndatapack_] [$t set nrexmitpack_] [$t set nrexmit_] [$t set ncwndcuts1_]"',
        "  }",
        "  flush $qtr",
        "  flush $vtr",
        "  exit 0",
        "}",
        f'$ns at {dur!r} "finish"',
        "$ns run",
    ]
    return "\n".join(L) + "\n"


def _proxy_tcl(s: dict[str, Any], pkt: int, window: str) -> list[str]:
    """The split connection and the proxy's control procedure (eqs. 18 and 8)."""
    L = [
        "set psink [new Agent/TCPSink]", "$ns attach-agent $gw $psink", "$ns connect $tcp $psink",
        "set ptcp [new Agent/TCP/Newreno]", "$ns attach-agent $gw $ptcp",
        "set sink [new $SinkClass]", "$ns attach-agent $ue $sink", "$ns connect $ptcp $sink",
        "set out $sink", "set outtcp $ptcp",
        # No congestion control on the proxy's sender: its cwnd_ is held high each step.
        "$ptcp set cwnd_ 10000", "$ptcp set ssthresh_ 10000", "$ptcp set windowInit_ 10000",
        f"$tcp set window_ {s['q0_pkts'] + s['q20_pkts']}",
        "set given 0", "set credit 0.0",
        # the proxy's SYN (seqno 0); data packets are advanced by the control procedure
        '$ns at 0.0 "$ptcp advanceby 1"',
    ]
    if window == "quota":
        L += ["$ptcp set window_ 100000"]
    else:
        # In-flight reading: data always available, window_ = w(n) outstanding packets.
        L += [f"$ptcp set window_ {s['q0_pkts']}"]
    L += [
        "proc sample {} {",
        "  global ns qmon bw",
        f'  $ns at [expr {{[$ns now] + {s["feedback_delay_s"]!r}}}] "control $bw [$qmon set pkts_]"',
        f"  $ns at [expr {{[$ns now] + {s['tau_s']!r}}}] sample",
        "}",
        "proc control {b q} {",
        "  global ns tcp ptcp psink given credit",
        f"  set w [expr {{$b * {s['tau_s']!r} / {pkt * 8}.0 - $q + {s['q0_pkts']}}}]",
        "  if {$w < 0} { set w 0.0 }",
        # in-order data packets received by the proxy (bytes_ counts the 40-byte SYN)
        f"  set recv [expr {{([$psink set bytes_] - {s['header_bytes']}) / {pkt}}}]",
        "  if {$recv < 0} { set recv 0 }",
    ]
    if window == "quota":
        L += [
            "  set credit [expr {$credit + $w}]",
            "  set n [expr {int($credit)}]",
            "  if {$n > $recv - $given} { set n [expr {$recv - $given}] }",
            "  if {$n > 0} { $ptcp advanceby $n; set given [expr {$given + $n}] }",
            "  set credit [expr {$credit - floor($credit)}]",
        ]
    else:
        L += [
            "  $ptcp set window_ $w",
            "  if {$recv > $given} { $ptcp advanceby [expr {$recv - $given}]; set given $recv }",
        ]
    L += [
        "  $ptcp set cwnd_ 10000",
        "  $ptcp set ssthresh_ 10000",
        "  set q2 [expr {$recv - ([$ptcp set t_seqno_] - 1)}]",
        "  if {$q2 < 0} { set q2 0 }",
        f"  set aw [expr {{$w - $q2 + {s['q20_pkts']}}}]",
        "  if {$aw < 1} { set aw 1 }",
        "  $tcp set window_ $aw",
        "}",
        f"$ns at {s['tau_s']!r} sample",
    ]
    return L


def _read_vars(path: str) -> dict[str, list[tuple[float, int]]]:
    """Traced variables of the server's agent: name -> [(time, value)]."""
    out: dict[str, list[tuple[float, int]]] = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7:
                out.setdefault(p[5], []).append((float(p[0]), int(float(p[6]))))
    return out


def _queue_events(path: str) -> list[tuple[str, float, int, int]]:
    """(event, time, flow id, seqno) of TCP data packets at the downlink queue."""
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 11 and p[4] == "tcp" and p[0] in "+d":
                out.append((p[0], float(p[1]), int(p[7]), int(p[10])))
    return out


def _timeouts(vars_: dict[str, list[tuple[float, int]]], events: list[tuple[str, float, int, int]],
              flow: int | None) -> list[dict[str, Any]]:
    """Each timeout of the server's agent with its time, the segment it resent (ns-2 seqno,
    SYN = 0) and whether that segment's last transmission before it had been dropped."""
    acks = vars_.get("ack_", [])
    out = []
    last = 0
    for t, n in vars_.get("nrexmit_", []):
        if n <= last:
            continue
        last = n
        ack = max((v for ta, v in acks if ta <= t), default=-1)
        seq = ack + 1
        history = [e for e, te, fid, sq in events if sq == seq and te <= t and (flow is None or fid == flow)]
        dropped = bool(history) and history[-1] == "d"
        out.append({"time_s": t, "seqno": seq, "spurious": not dropped})
    return out


def run_once(run: dict[str, Any]) -> dict[str, Any]:
    """One ns-2 run: its metrics (see the module docstring)."""
    s = {**SETUP, **run.get("setup", {})}
    pkt = s["mss_bytes"] + s["header_bytes"]
    with tempfile.TemporaryDirectory(prefix="hosim-ns2-hsdpa-") as work:
        with open(os.path.join(work, "run.tcl"), "w") as f:
            f.write(run_tcl(run))
        proc = subprocess.run(["ns", "run.tcl"], cwd=work, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"ns failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
        lines = {}
        agents = {}
        for line in proc.stdout.splitlines():
            p = line.split()
            if p and p[0] == "AGENT":
                agents[p[1]] = [int(x) for x in p[2:]]
            elif p:
                lines[p[0]] = p[1:]
        vars_ = _read_vars(os.path.join(work, "vars.tr"))
        events = _queue_events(os.path.join(work, "qtrace.tr"))
    dur = s["duration_s"]
    cap_pkts = float(lines["CAP"][0]) / (pkt * 8) / dur
    ue_bytes = int(lines["OUT"][0])
    thr = max(ue_bytes - s["header_bytes"], 0) / pkt / dur  # less the SYN
    drops, arrivals, qsum = int(lines["QUEUE"][0]), int(lines["QUEUE"][1]), float(lines["QUEUE"][2])
    sndpk, rexpk, nrexmit, cuts = agents["server"]
    flow = None
    timeouts = _timeouts(vars_, events, flow) if not run.get("proxy") else []
    m: dict[str, Any] = {
        "capacity_pkts_per_s": cap_pkts,
        "throughput_pkts_per_s": thr,
        "utilization": thr / cap_pkts,
        "nodeb_drops": drops,
        "nodeb_arrivals": arrivals,
        "nodeb_mean_queue_pkts": qsum / dur,
        "sender_timeouts": nrexmit,
        "sender_spurious_timeouts": sum(t["spurious"] for t in timeouts) if not run.get("proxy") else 0,
        "sender_fast_recoveries": cuts - nrexmit,
        "sender_retransmits": rexpk,
        "sender_segments_sent": sndpk - 1,
    }
    if run.get("proxy"):
        _, prex, pto, pcuts = agents["ue"]
        m.update({"proxy_timeouts": pto, "proxy_fast_retransmits": pcuts - pto, "proxy_retransmits": prex})
    else:
        m["timeouts"] = timeouts
        m["drop_times_s"] = [round(t, 6) for e, t, _f, _s in events if e == "d"]
    return m


def _mean_ci(values: list[float]) -> dict[str, float]:
    """Mean, sample sd and the half-width of a 95 % Student-t interval of the mean."""
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    t95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 19: 2.093, 29: 2.045}.get(n - 1, 1.96)
    return {"mean": mean, "sd": sd, "ci95": t95 * sd / math.sqrt(n) if n > 1 else 0.0, "n": n}


def _runs(only: str, seeds: int, variant: str = "plain") -> list[tuple[str, dict[str, Any]]]:
    runs: list[tuple[str, dict[str, Any]]] = []
    if only in ("all", "fig3"):
        runs.append(("fig3", {"kind": "square", "proxy": False}))
        runs.append(("fig3/proxy", {"kind": "square", "proxy": True}))
    if only in ("all", "table1"):
        for period in PERIODS_S:
            for proxy in (False, True):
                for seed in range(1, seeds + 1):
                    runs.append((f"table1/{period:g}/{'proxy' if proxy else 'tcp'}/{seed}",
                                 {"kind": "random", "period_s": period, "seed": seed, "proxy": proxy}))
    return [(name, {**VARIANTS[variant], **r}) for name, r in runs]


def summarize(results: dict[str, dict[str, Any]], seeds: int) -> dict[str, Any]:
    """Means and 95 % intervals of Table I's cells."""
    table = []
    keys = ("capacity_pkts_per_s", "throughput_pkts_per_s", "utilization", "nodeb_drops", "nodeb_mean_queue_pkts",
            "sender_timeouts", "sender_spurious_timeouts", "sender_fast_recoveries", "sender_retransmits")
    for period in PERIODS_S:
        row: dict[str, Any] = {"T_s": period}
        for mode in ("tcp", "proxy"):
            runs = [results.get(f"table1/{period:g}/{mode}/{seed}") for seed in range(1, seeds + 1)]
            runs = [r for r in runs if r]
            if not runs:
                continue
            for key in keys:
                row[f"{mode}_{key}"] = _mean_ci([float(r[key]) for r in runs])
        tcp = [results.get(f"table1/{period:g}/tcp/{seed}") for seed in range(1, seeds + 1)]
        prx = [results.get(f"table1/{period:g}/proxy/{seed}") for seed in range(1, seeds + 1)]
        pairs = [(p, t) for p, t in zip(prx, tcp) if p and t]
        if pairs:
            key = "throughput_pkts_per_s"
            row["proxy_gain"] = _mean_ci([p[key] / t[key] - 1 for p, t in pairs])
        table.append(row)
    return {"table1": table}


def publish(out: str) -> None:
    """The compact copy the reproduction page quotes: Fig. 3's runs, Table I and each variant's
    Table I (means and 95 % intervals), from the files this script wrote."""
    def load(name: str) -> dict[str, Any]:
        with open(os.path.join(RESULTS, name)) as f:
            return dict(json.load(f))

    plain = load("hsdpa-ns2.json")
    doc: dict[str, Any] = {
        "simulator": "ns-2.35 (Debian 2.35+dfsg), bench/ns2/papers/hsdpa.py",
        "setup": plain["setup"], "seeds": plain["seeds"],
        "fig3": plain["runs"]["fig3"], "fig3_proxy": plain["runs"]["fig3/proxy"],
        "table1": plain["table1"], "variants": {},
    }
    for name in sorted(VARIANTS):
        path = os.path.join(RESULTS, f"hsdpa-ns2-{name}.json")
        if name != "plain" and os.path.exists(path):
            v = load(os.path.basename(path))
            doc["variants"][name] = {"seeds": v["seeds"], "fig3": v["runs"].get("fig3"), "table1": v["table1"]}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20, help="Table I seeds per cell (substreams 1..N)")
    ap.add_argument("--only", choices=("all", "fig3", "table1"), default="all")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--variant", choices=sorted(VARIANTS), default="plain")
    ap.add_argument("--out", help="default: bench/results/ns2/papers/hsdpa-ns2[-VARIANT].json")
    ap.add_argument("--print-tcl", metavar="RUN", help="print the script of a run (fig3, fig3/proxy, "
                    "table1/0.2/tcp/1, ...) and exit")
    ap.add_argument("--publish", metavar="PATH", help="write the compact copy for docs/reproductions/data "
                    "from the results already written, and exit")
    args = ap.parse_args()
    if args.publish:
        publish(args.publish)
        return 0
    runs = dict(_runs("all", max(args.seeds, 1), args.variant))
    suffix = "" if args.variant == "plain" else f"-{args.variant}"
    args.out = args.out or os.path.join(RESULTS, f"hsdpa-ns2{suffix}.json")
    if args.print_tcl:
        if args.print_tcl not in runs:
            print(f"hsdpa.py: no run {args.print_tcl!r}", file=sys.stderr)
            return 2
        sys.stdout.write(run_tcl(runs[args.print_tcl]))
        return 0
    todo = _runs(args.only, args.seeds, args.variant)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        outs = list(pool.map(run_once, [r for _n, r in todo]))
    results = {name: m for (name, _r), m in zip(todo, outs)}
    doc = {"setup": SETUP, "variant": args.variant, "seeds": args.seeds, "runs": results,
           **summarize(results, args.seeds)}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
