#!/usr/bin/env python3
"""Linux side of the Linux referee: each case of cases.py with the kernel's TCP, repeated.

Benchmark only; must run as root; never part of the test suite.

Per run: two network namespaces, ``hosim-bench-s`` (every sender, one address per flow) and
``hosim-bench-d`` (every receiver), each with one TUN device ``hbtun0``; forwarder.py joins
the two devices and is the dumbbell's links (README.md). Addresses come only from
198.18.0.0/15 (senders 198.18.0.0/24, receivers 198.19.0.0/24); each namespace has only the
route to the other's /24 through its TUN device and no default route, so nothing can leave.
Every process runs under ``timeout``; the namespaces are deleted on exit, on error and on
SIGINT/SIGTERM, and stale ``hosim-bench-*`` namespaces from a killed run are deleted first.
No machine-wide sysctl is changed (TCP settings are per namespace and die with it; ``--sysctl``
sets one more in both namespaces for a controlled experiment).

Output: bench/results/linux/kernel-<cc>.json, one entry per case with every repeat's goodput,
nstat counters, forwarder drops and lateness, and the load average at the start of the run.

Usage:
  sudo python bench/linux/run_kernel.py                      # all cases, CUBIC, 5 repeats
  sudo python bench/linux/run_kernel.py --cases loss1 --cc reno --repeats 3
  sudo python bench/linux/run_kernel.py --cases rtt-unfair --repeats 3 \
      --sysctl net.ipv4.tcp_recovery=0 --out bench/results/linux/probe-....json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cases import select  # noqa: E402

RESULTS = os.path.normpath(os.path.join(HERE, "..", "results", "linux"))
PREFIX = "hosim-bench-"
NS_S, NS_D, DEV = PREFIX + "s", PREFIX + "d", "hbtun0"
PY = sys.executable
# nstat counters kept (TcpExt* from /proc/net/netstat, Tcp* from /proc/net/snmp)
COUNTERS = [
    "TcpRetransSegs",
    "TcpOutSegs",
    "TcpExtTCPSackRecovery",
    "TcpExtTCPTimeouts",
    "TcpExtTCPLossProbes",
    "TcpExtTCPLossProbeRecovery",
    "TcpExtTCPSpuriousRTOs",
    "TcpExtTCPLostRetransmit",
    "TcpExtTCPFullUndo",
    "TcpExtTCPPartialUndo",
    "TcpExtTCPDSACKUndo",
    "TcpExtTCPLossUndo",
    "TcpExtTCPSackRecoveryFail",
    "TcpExtTCPFastRetrans",
    "TcpExtTCPSlowStartRetrans",
    "TcpExtTCPDSACKRecv",
    "TcpExtTCPSACKReorder",
    "TcpExtTCPHystartTrainDetect",
    "TcpExtTCPHystartDelayDetect",
]


def sh(*cmd: str, timeout: float = 10.0, check: bool = True) -> str:
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, check=check).stdout


def cleanup() -> None:
    """Delete every namespace this script names (also those of a killed earlier run)."""
    for line in sh("ip", "netns", "list", check=False).splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(PREFIX):
            sh("ip", "netns", "del", name, check=False)


def flow_addr(i: int) -> str:
    return f"198.18.0.{10 + i}"


def host_value(key: str) -> str:
    """A sysctl's value in this process's (the machine's) namespace."""
    with open("/proc/sys/" + key.replace(".", "/")) as fh:
        return " ".join(fh.read().split())


def check_sysctls(sysctls: list[str]) -> str | None:
    """Why --sysctl may not be used, or None: only TCP settings, which are per namespace."""
    for kv in sysctls:
        key = kv.split("=", 1)[0]
        if "=" not in kv or not key.startswith("net.ipv4.tcp_"):
            return f"--sysctl {kv!r}: only net.ipv4.tcp_*=VALUE (per-namespace TCP settings)"
    return None


def setup(flows: int, sysctls: list[str]) -> None:
    for ns, addr, peer in ((NS_S, "198.18.0.1/24", "198.19.0.0/24"), (NS_D, "198.19.0.1/24", "198.18.0.0/24")):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "-n", ns, "tuntap", "add", "dev", DEV, "mode", "tun")
        sh("ip", "-n", ns, "addr", "add", addr, "dev", DEV)
        sh("ip", "-n", ns, "link", "set", DEV, "up", "mtu", "1500", "txqueuelen", "1000")
        sh("ip", "-n", ns, "route", "add", peer, "dev", DEV)
        # No metrics cached between connections (per-namespace setting).
        sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1")
        # A controlled experiment's per-namespace setting (--sysctl), in both namespaces; the
        # machine's own value must not move (checked, as a guard against a global key).
        for kv in sysctls:
            key = kv.split("=", 1)[0]
            before = host_value(key)
            sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", kv)
            if host_value(key) != before:
                sh("sysctl", "-q", "-w", f"{key}={before}")
                raise RuntimeError(f"{key} is not per namespace: restored the machine's value")
    for i in range(flows):
        sh("ip", "-n", NS_S, "addr", "add", flow_addr(i) + "/32", "dev", DEV)


# The 1-minute load average above which a run warns that the machine is not quiet (the
# reference runs of 2026-11-28 started at 0.0-0.5; one at 1.9, decaying after a build that
# had ended, which the warning flags as well).
QUIET_LOAD = 1.0


def run_once(
    c: dict,
    cc: str,
    rep: int,
    sysctls: list[str],
    rx_quickack: bool,
    trace_s: float = 0.0,
    pcap_dir: str | None = None,
    strip_psh: bool = False,
    access_fifo: bool = True,
) -> dict:
    flows = c["flows"]
    load = os.getloadavg()
    if load[0] > QUIET_LOAD:
        # The kernel's runs spread more and lose goodput on a busy machine (README.md, "A
        # quiet machine, serialized access links"): say so; the load is kept in the results.
        print(
            f"run_kernel.py: warning: load average {load[0]:.1f} > {QUIET_LOAD} before {c['name']} #{rep}: "
            "other work on the machine moves the kernel's results; stop it for reference runs",
            file=sys.stderr,
            flush=True,
        )
    bound = c["duration_s"] + 15.0
    fcfg = {
        "sender_ns": NS_S,
        "receiver_ns": NS_D,
        "dev": DEV,
        "bottleneck_bps": c["bottleneck_bps"],
        "bottleneck_delay_s": c["bottleneck_delay_s"],
        "access_bps": c["access_bps"],
        "queue": c["queue"],
        "loss": c["loss"],
        "mss": 1448,
        "access": {flow_addr(i): c["access_delays_s"][i] for i in range(flows)},
        "flow0_addr": flow_addr(0),
        "drop_segments": c["drop_segments"],
        "drop_retransmissions": c["drop_retransmissions"],
        "seed": 1000 + rep,
        "run_s": bound,
        "strip_psh": strip_psh,
        "access_fifo": access_fifo,
    }
    procs: list[subprocess.Popen] = []
    try:
        setup(flows, sysctls)
        tmo = ["timeout", "-s", "KILL", str(int(bound + 5))]
        fwd = subprocess.Popen(
            tmo + [PY, os.path.join(HERE, "forwarder.py"), json.dumps(fcfg)], stdout=subprocess.PIPE, text=True
        )
        procs.append(fwd)
        assert fwd.stdout is not None and fwd.stdout.readline().strip() == "ready"
        mode = "file" if c["app"] == "file" else "bulk"
        ep = os.path.join(HERE, "endpoint.py")
        rx = subprocess.Popen(
            tmo
            + ["ip", "netns", "exec", NS_D, PY, ep, "rx", "--flows", str(flows)]
            + ["--duration", str(c["duration_s"]), "--bound", str(bound), "--mode", mode]
            + (["--quickack"] if rx_quickack else []),
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(rx)
        assert rx.stdout is not None and rx.stdout.readline().strip() == "ready"
        if pcap_dir:
            # Every packet at the senders' TUN device, headers only: their data as the kernel
            # sent it, their ACKs as they arrived (timer_events.py reads it).
            cap = subprocess.Popen(
                tmo
                + ["ip", "netns", "exec", NS_S, "tcpdump", "-i", DEV, "-n", "-s", "120", "-U", "-w"]
                + [os.path.join(pcap_dir, f"{c['name']}-{cc}-{rep}.pcap")],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            procs.append(cap)
            assert cap.stderr is not None and "listening" in cap.stderr.readline()
        txcmd = tmo + ["ip", "netns", "exec", NS_S, PY, ep, "tx", "--cc", cc, "--duration", str(c["duration_s"])]
        txcmd += ["--src"] + [flow_addr(i) for i in range(flows)] + ["--trace-s", str(trace_s)]
        if mode == "file":
            txcmd += ["--file-bytes", str(int(c["file_bytes"]))]
        tx = subprocess.run(txcmd, capture_output=True, text=True, timeout=bound + 10)
        if tx.returncode != 0:
            raise RuntimeError(f"tx failed: {tx.stderr.strip()}")
        txr = json.loads(tx.stdout.strip().splitlines()[-1])
        rx_out, _ = rx.communicate(timeout=bound + 10)
        rxr = json.loads(rx_out.strip().splitlines()[-1])
        fwd.send_signal(signal.SIGTERM) if fwd.poll() is None else None
        try:
            fwd_out, _ = fwd.communicate(timeout=bound + 10)
        except subprocess.TimeoutExpired:
            fwd.kill()
            fwd_out = ""
        fwr = json.loads(fwd_out.strip().splitlines()[-1]) if fwd_out.strip() else {}
        for p in procs[2:]:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=10)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=10)
        cleanup()
    per_flow = []
    for f in rxr["flows"]:
        if mode == "file":
            ct = (f["last_ns"] - txr["start_ns"]) / 1e9 if f["last_ns"] else None
            gp = c["file_bytes"] * 8 / ct if ct and f["bytes"] >= c["file_bytes"] else f["bytes"] * 8 / c["duration_s"]
        else:
            ct, gp = None, f["bytes"] * 8 / c["duration_s"]
        per_flow.append({"peer": f["peer"], "bytes": f["bytes"], "goodput_bps": gp, "completion_time_s": ct})
    return {
        "repeat": rep,
        "loadavg": load,
        "goodput_bps": sum(f["goodput_bps"] for f in per_flow),
        "flows": per_flow,
        "nstat": {k: txr["nstat"].get(k, 0) for k in COUNTERS},
        # when each flow's connect() was called, from the first: the spacing of the SYNs
        "connect_us": [round(ns / 1e3, 1) for ns in txr.get("connect_ns", [])],
        # each flow's struct tcp_info counters at the end, in --src order
        "tcp_info": txr.get("flows", []),
        # with --trace-s: [time us, flow, cwnd, ssthresh, total_retrans] every 5 ms
        **({"trace": txr["trace"]} if "trace" in txr else {}),
        "forwarder": fwr,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", nargs="*", help="substrings of case names / family ids (default: all)")
    ap.add_argument("--cc", default="cubic", choices=["cubic", "reno", "bbr"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--sysctl",
        action="append",
        default=[],
        help="KEY=VALUE, a per-namespace sysctl set in both namespaces (a controlled experiment; repeatable)",
    )
    ap.add_argument("--duration", type=float, default=None, help="override the cases' duration_s, seconds")
    ap.add_argument("--trace-s", type=float, default=0.0, help="record each flow's tcp_info every 5 ms for this long")
    ap.add_argument("--pcap", metavar="DIR", help="tcpdump the senders' TUN device into DIR/<case>-<cc>-<repeat>.pcap")
    ap.add_argument(
        "--rx-quickack", action="store_true", help="receivers set TCP_QUICKACK after every read (no delayed ACKs)"
    )
    ap.add_argument(
        "--strip-psh",
        action="store_true",
        help="the forwarder clears PSH on the senders' segments (the receivers ACK per two segments)",
    )
    ap.add_argument(
        "--access-fifo",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the forwarder serializes each sender's packets on its access link one after another, as "
        "hosim's links do (default since 2026-11-28; --no-access-fifo: each packet only delayed by its own "
        "serialization, so a burst reaches the bottleneck in one block, the reference files before that date)",
    )
    args = ap.parse_args()
    bad = check_sysctls(args.sysctl)
    if bad:
        print(f"run_kernel.py: {bad}", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("run_kernel.py: needs root (network namespaces, TUN devices)", file=sys.stderr)
        return 2

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    if args.pcap:
        os.makedirs(args.pcap, exist_ok=True)
    cleanup()
    out = args.out or os.path.join(RESULTS, f"kernel-{args.cc}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    results = {}
    if os.path.exists(out):
        with open(out) as fh:
            results = json.load(fh).get("cases", {})
    try:
        for c in select(args.cases):
            if args.duration is not None:
                c = {**c, "duration_s": args.duration}
            runs = []
            for rep in range(args.repeats):
                r = run_once(
                    c, args.cc, rep, args.sysctl, args.rx_quickack, args.trace_s, args.pcap,
                    args.strip_psh, args.access_fifo,
                )
                runs.append(r)
                n = r["nstat"]
                lat = r["forwarder"].get("lateness_us", {})
                print(
                    f"{c['name']:<18} #{rep} goodput {r['goodput_bps'] / 1e6:7.3f} Mb/s retx {n['TcpRetransSegs']:5d} "
                    f"rec {n['TcpExtTCPSackRecovery']:4d} RTO {n['TcpExtTCPTimeouts']:3d} "
                    f"TLP {n['TcpExtTCPLossProbes']:3d} drops {r['forwarder'].get('queue_drops', '?')} "
                    f"lat p99 {lat.get('p99', 0):.0f} us max {lat.get('max', 0):.0f} us load {r['loadavg'][0]:.1f}",
                    flush=True,
                )
            results[c["name"]] = {
                "case": c,
                "cc": args.cc,
                "sysctl": args.sysctl,
                "rx_quickack": args.rx_quickack,
                "strip_psh": args.strip_psh,
                "access_fifo": args.access_fifo,
                "runs": runs,
            }
            with open(out, "w") as fh:
                json.dump({"kernel": os.uname().release, "cases": results}, fh, indent=1)
    finally:
        cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
