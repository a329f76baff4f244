#!/usr/bin/env python3
"""ns-2.35 side of the ns-2 comparison: run the families of bench/ns3/families.py, write JSON.

Benchmark only: needs ns-2.35 (`ns` on PATH; Debian: ``apt-get install ns2``). Never a hosim
dependency, never in CI or the test suite.

One spec, three generators: the workloads are bench/ns3/families.py (the same cases hosim and
ns-3 run); ``case_tcl`` writes each as an ns-2 Tcl script, bench/ns3/run_hosim.py's
``case_toml`` writes it for hosim (run by bench/ns2/run_hosim.py with ``profile = "ns2"``).

Topology per case (families.py): s_i --access--> left ==bottleneck==> right --access--> d_i,
``duplex-link``s with DropTail queues, static routing; one one-way TCP agent per s_i, a sink
per d_i, an FTP source on each agent.

ns-2 does some things its own way; each is set so both simulators run the same workload:
  * ``packetSize_`` is the payload (1448 B); ns-2 adds ``tcpip_base_hdr_size_`` to it, set
    to 42 so a data packet is 1490 B on the wire, as in hosim (42 B of headers) and ns-3
    (40 B TCP/IP + 2 B PPP). ACKs: ``Agent/TCPSink packetSize_`` 42.
  * DropTail ``limit_`` counts the packet in service (``DropTail::enque`` drops when
    ``length() + 1 >= qlim_``, and the packet on the wire has left the queue): limit_ =
    queue + 1 gives ``queue`` waiting packets plus one in transmission, as hosim's
    ``queue_packets``.
  * ``rtxcur_init_`` (initial RTO) is 3 s in ns-2, ``minrto_`` 0.2 s, ``tcpTick_`` 10 ms,
    ``windowInit_`` 2, ``window_`` 20 packets, ``TCPSink/DelAck interval_`` 100 ms: all set
    to the values of families.TCP_COMMON (1 s, 1 s, 1 ms, 10, 4 MiB / 1448 B, 200 ms).
  * One-way TCP sends sequence number 0 as a 42-byte SYN (``syn_`` true) with cwnd 1, then
    opens to ``windowInit_`` (``delay_growth_``); ns-2 data segment n+1 is hosim segment
    index n (byte offset n * 1448).
  * Random loss: an ``ErrorModel`` (unit pkt, ``rate_`` = loss) inserted *after* the
    bottleneck queue in the data direction (``link-lossmodel``), with its own ``RNG`` moved
    to substream ``seed`` (``next-substream``): ns-2's small seeds give correlated streams,
    substreams of one MRG32k3a stream are independent. SYN included, ACKs never.
  * Scripted drops (``drop_segments``: the first transmission of segment k,
    ``drop_retransmissions``: its first retransmission): an ``ErrorModel/List`` after the
    bottleneck queue drops the n-th packet that leaves the queue. The positions are found
    by re-running: run with the drops known so far, read the queue trace, add the position
    of the earliest target not yet dropped; repeat (``probe_droplist``). ns-2 has no
    sequence-number dropper; this keeps ns-2 itself unmodified.

Counters, per flow, from ns-2's own variables (bench/ns2/README.md has the mapping to hosim):
  goodput          bulk: in-order payload bytes at the sink: (``bytes_`` - 42 for the SYN)
                   / 1490 * 1448, * 8 / duration_s (``bytes_`` counts whole packets with
                   headers); file: file bytes * 8 / the time the last missing data packet
                   reached d_0 (trace of the right->d_0 link); the sender's ``done`` time
                   is kept as sender_completion_time_s
  segments_sent    ``ndatapack_`` less the SYN
  retransmits      ``nrexmitpack_`` (``TcpAgent::output`` with seqno <= ``maxseq_``)
  timeouts         ``nrexmit_`` (``TcpAgent::timeout`` with data outstanding, not after ECN)
  fast_recoveries  ``ncwndcuts1_`` - ``nrexmit_``: ``slowdown`` calls with data outstanding
                   are the fast-retransmit entries (``dupack_action``) and the timeouts

Usage:
  python bench/ns2/run_ns2.py                      # all cases -> bench/results/ns2/ns2.json
  python bench/ns2/run_ns2.py --cases probes       # a subset (substring of name/family)
  python bench/ns2/run_ns2.py --seeds 20           # random-loss cases over seeds 1..20
  python bench/ns2/run_ns2.py --print-tcl one-loss-sack
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ns3"))
from families import MSS, TCP_COMMON, select  # noqa: E402

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "ns2"))
HDR = 42  # TCP/IP headers + 2 B PPP, as hosim's tcp.header_bytes in this comparison
PKT = MSS + HDR


def agent_classes(c: dict) -> tuple[str, str]:
    """(sender, sink) ns-2 classes of a case."""
    if c["sack"]:
        return "Agent/TCP/Sack1", "Agent/TCPSink/Sack1/DelAck" if c["delayed_ack"] else "Agent/TCPSink/Sack1"
    return "Agent/TCP/Newreno", "Agent/TCPSink/DelAck" if c["delayed_ack"] else "Agent/TCPSink"


def case_tcl(c: dict, seed: int, droplist: list[int] | None = None, trace_dir: str | None = None) -> str:
    """The ns-2 script of one case. ``droplist``: packet positions (0 = the SYN) after the
    bottleneck queue to drop; ``trace_dir``: write bneck.tr and rx0.tr there."""
    snd, snk = agent_classes(c)
    window = TCP_COMMON["buffer_bytes"] // MSS
    L = [
        "set ns [new Simulator]",
        # TCP_COMMON on the ns-2 side (see the module docstring)
        f"Agent/TCP set packetSize_ {MSS}",
        f"Agent/TCP set tcpip_base_hdr_size_ {HDR}",
        f"Agent/TCPSink set packetSize_ {HDR}",
        f"Agent/TCP set window_ {window}",
        f"Agent/TCP set windowInit_ {TCP_COMMON['initial_window_segments']}",
        f"Agent/TCP set minrto_ {TCP_COMMON['min_rto_s']}",
        f"Agent/TCP set rtxcur_init_ {TCP_COMMON['initial_rto_s']}",
        f"Agent/TCP set maxrto_ {TCP_COMMON['max_rto_s']}",
        f"Agent/TCP set tcpTick_ {TCP_COMMON['clock_granularity_s']}",
        f"Agent/TCP set numdupacks_ {TCP_COMMON['dupack_threshold']}",
        f"Agent/TCP set singledup_ {1 if TCP_COMMON['limited_transmit'] else 0}",
        f"Agent/TCPSink/DelAck set interval_ {TCP_COMMON['delayed_ack_timeout_s']}",
        f"Agent/TCPSink/Sack1/DelAck set interval_ {TCP_COMMON['delayed_ack_timeout_s']}",
        "set left [$ns node]",
        "set right [$ns node]",
    ]
    n = c["flows"]
    for i in range(n):
        L += [f"set s({i}) [$ns node]", f"set d({i}) [$ns node]"]
    bq = c["queue"] + 1
    L += [
        f"$ns duplex-link $left $right {c['bottleneck_bps']!r} {c['bottleneck_delay_s']!r} DropTail",
        f"$ns queue-limit $left $right {bq}",
        f"$ns queue-limit $right $left {bq}",
    ]
    aq = c["access_queue"] + 1
    for i in range(n):
        d = c["access_delays_s"][i]
        for a, b in ((f"$s({i})", "$left"), ("$right", f"$d({i})")):
            L += [
                f"$ns duplex-link {a} {b} {c['access_bps']!r} {d!r} DropTail",
                f"$ns queue-limit {a} {b} {aq}",
                f"$ns queue-limit {b} {a} {aq}",
            ]
    if trace_dir:
        L += [
            f'set tbn [open "{trace_dir}/bneck.tr" w]',
            "$ns trace-queue $left $right $tbn",
            f'set trx [open "{trace_dir}/rx0.tr" w]',
            "$ns trace-queue $right $d(0) $trx",
        ]
    if c["loss"]:
        L += [
            "set rng [new RNG]",
            f"for {{set k 0}} {{$k < {seed}}} {{incr k}} {{ $rng next-substream }}",
            "set rv [new RandomVariable/Uniform]",
            "$rv use-rng $rng",
            "set em [new ErrorModel]",
            "$em unit pkt",
            f"$em set rate_ {c['loss']!r}",
            "$em ranvar $rv",
            "$ns link-lossmodel $em $left $right",
        ]
    if droplist:
        L += [
            "set el [new ErrorModel/List]",
            f"$el droplist {{{' '.join(str(x) for x in droplist)}}}",
            "$ns link-lossmodel $el $left $right",
        ]
    L.append("Agent/TCP instproc done {} { global ns done_at; set done_at([$self set fid_]) [$ns now] }")
    for i in range(n):
        L += [
            f"set tcp({i}) [new {snd}]",
            f"$tcp({i}) set fid_ {i}",
            f"set sink({i}) [new {snk}]",
            f"$ns attach-agent $s({i}) $tcp({i})",
            f"$ns attach-agent $d({i}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
        ]
        start = c["starts"][i] if c.get("starts") else i * c["stagger_s"]
        if c["app"] == "file":
            pkts = -(-int(c["file_bytes"]) // MSS)
            L.append(f'$ns at {start!r} "$tcp({i}) advanceby {pkts}"')
        else:
            L += [f"set ftp({i}) [new Application/FTP]", f"$ftp({i}) attach-agent $tcp({i})"]
            L.append(f'$ns at {start!r} "$ftp({i}) start"')
    L += [
        "proc finish {} {",
        "  global ns tcp sink done_at",
        f"  for {{set i 0}} {{$i < {n}}} {{incr i}} {{",
        "    set t $tcp($i)",
        "    if {[info exists done_at($i)]} { set da $done_at($i) } else { set da -1 }",
        '    puts "FLOW $i [$sink($i) set bytes_] [$t set ndatapack_] [$t set nrexmitpack_] '
        '[$t set nrexmit_] [$t set ncwndcuts1_] [$t set ncwndcuts_] [$t set cwnd_] [$t set ssthresh_] $da"',
        "  }",
    ]
    if trace_dir:
        L.append("  global tbn trx; close $tbn; close $trx")
    L += ["  exit 0", "}", f'$ns at {c["duration_s"]!r} "finish"', "$ns run"]
    return "\n".join(L) + "\n"


def run_tcl(tcl: str, workdir: str) -> tuple[list[dict], float]:
    path = os.path.join(workdir, "case.tcl")
    with open(path, "w") as fh:
        fh.write(tcl)
    t0 = time.perf_counter()
    p = subprocess.run(["ns", path], capture_output=True, text=True, cwd=workdir)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"ns failed: {p.stderr.strip()[-500:]}")
    flows = []
    for line in p.stdout.splitlines():
        if not line.startswith("FLOW "):
            continue
        _, i, rbytes, ndata, nrexpk, nrex, cuts1, cuts, cwnd, ssth, done = line.split()
        rbytes = int(float(rbytes))
        # bytes_ counts whole packets: the 42-byte SYN and 1490-byte data packets.
        data_pkts = (rbytes - HDR) / PKT if rbytes >= HDR else 0
        flows.append(
            {
                "name": f"flow{i}",
                "bytes_delivered": int(round(data_pkts)) * MSS,
                "sink_bytes": rbytes,
                "segments_sent": int(ndata) - 1,
                "retransmits": int(nrexpk),
                "timeouts": int(nrex),
                "fast_recoveries": int(cuts1) - int(nrex),
                "ncwndcuts1": int(cuts1),
                "ncwndcuts": int(cuts),
                "cwnd_final_pkts": float(cwnd),
                "ssthresh_final_pkts": float(ssth),
                "sender_completion_time_s": float(done) if float(done) >= 0 else None,
            }
        )
    return flows, wall


def read_trace(path: str) -> list[tuple[str, float, int, int]]:
    """(event, time, fid, seqno) of every tcp packet in an ns-2 queue trace."""
    out = []
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if len(f) >= 12 and f[4] == "tcp":
                out.append((f[0], float(f[1]), int(f[7]), int(f[10])))
    return out


def departures(trace: list) -> list[tuple[float, int, int]]:
    """(time, fid, seqno) of the packets leaving the bottleneck queue, in order: the packets
    an error model after the queue sees."""
    return [(t, fid, s) for ev, t, fid, s in trace if ev == "-"]


def probe_droplist(c: dict, workdir: str) -> list[int]:
    """Positions (among the packets leaving the bottleneck queue) of the case's scripted
    drops, found by re-running with the drops known so far."""
    targets = [(k + 1, 1) for k in c["drop_segments"]] + [(k + 1, 2) for k in c["drop_retransmissions"]]
    known: list[int] = []
    while True:
        run_tcl(case_tcl(c, c["seed"], known, workdir), workdir)
        dep = departures(read_trace(os.path.join(workdir, "bneck.tr")))
        copies: dict[int, int] = {}
        found = None
        for pos, (_, fid, seq) in enumerate(dep):
            if fid != 0:
                continue
            copies[seq] = copies.get(seq, 0) + 1
            if pos not in known and (seq, copies[seq]) in targets:
                found = pos
                break
        if found is None:
            return known
        known = sorted(known + [found])
        if len(known) > len(targets):
            raise RuntimeError("probe drop search did not converge")


def run_case(c: dict, seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ns2cmp-") as wd:
        droplist = probe_droplist(c, wd) if (c["drop_segments"] or c["drop_retransmissions"]) else None
        is_file = c["app"] == "file"
        flows, wall = run_tcl(case_tcl(c, seed, droplist, wd if is_file else None), wd)
        retx_log = []
        if is_file:
            rx = read_trace(os.path.join(wd, "rx0.tr"))
            first_rx: dict[int, float] = {}
            for ev, t, fid, s in rx:
                if ev == "r" and fid == 0 and s not in first_rx:
                    first_rx[s] = t
            npk = -(-int(c["file_bytes"]) // MSS)
            have = all(s in first_rx for s in range(1, npk + 1))
            f0 = flows[0]
            f0["completion_time_s"] = max(first_rx[s] for s in range(1, npk + 1)) if have else None
            f0["bytes_delivered"] = int(c["file_bytes"]) if have else f0["bytes_delivered"]
            # retransmitted segments that got through, in order (hosim segment index), with
            # the time their transmission starts on the receiver's access link: a segment
            # seen before or below the highest seen (as run_hosim.pcap_retransmissions)
            seen: set[int] = set()
            for t, fid, s in departures(rx):
                if fid != 0 or s == 0:
                    continue
                if s in seen or (seen and s < max(seen)):
                    retx_log.append([round(t, 6), s - 1])
                seen.add(s)
    for f in flows:
        if is_file:
            ct = f.get("completion_time_s")
            f["goodput_bps"] = c["file_bytes"] * 8 / ct if ct else f["bytes_delivered"] * 8 / c["duration_s"]
        else:
            f["completion_time_s"] = None
            f["goodput_bps"] = f["bytes_delivered"] * 8 / c["duration_s"]
    return {
        "case": c["name"],
        "family": c["family"],
        "seed": seed,
        "flows": flows,
        "aggregate_goodput_bps": sum(f["goodput_bps"] for f in flows),
        "retransmits": sum(f["retransmits"] for f in flows),
        "fast_recoveries": sum(f["fast_recoveries"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "droplist": droplist,
        "retransmissions_sent": retx_log,
        "run_wall_s": wall,
    }


def seeds_of(c: dict, n: int) -> list[int]:
    """Random-loss cases run over seeds 1..n; the others are deterministic: one run."""
    return list(range(1, n + 1)) if c["loss"] else [c["seed"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", help="substrings of case names / family ids (default: all)")
    ap.add_argument("--seeds", type=int, default=20, help="seeds of the random-loss cases (default 20)")
    ap.add_argument("--out", default=os.path.join(RESULTS, "ns2.json"))
    ap.add_argument("--print-tcl", metavar="CASE", help="print the Tcl of one case and exit")
    args = ap.parse_args()
    if args.print_tcl:
        print(case_tcl(select([args.print_tcl])[0], 1), end="")
        return 0
    results = {}
    if os.path.exists(args.out) and args.cases:
        with open(args.out) as fh:
            results = json.load(fh).get("cases", {})
    for c in select(args.cases):
        runs = [run_case(c, s) for s in seeds_of(c, args.seeds)]
        results[c["name"]] = {"runs": runs}
        r = runs[0]
        print(
            f"{c['name']:<22} {len(runs):2d} run(s)  goodput {r['aggregate_goodput_bps'] / 1e6:8.3f} Mb/s  "
            f"retx {r['retransmits']:6d}  FR {r['fast_recoveries']:5d}  RTO {r['timeouts']:4d}  "
            f"({sum(x['run_wall_s'] for x in runs):.2f} s)",
            flush=True,
        )
    ver = subprocess.run(["ns", "-version"], capture_output=True, text=True).stdout.strip()
    doc = {
        "simulator": "ns-2",
        "ns_version": ver,
        "command": "python " + " ".join(sys.argv),
        "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cases": results,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
