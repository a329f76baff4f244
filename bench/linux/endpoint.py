#!/usr/bin/env python3
"""Kernel TCP endpoints for run_kernel.py: ``rx`` (in the receivers' namespace) and ``tx`` (in
the senders' namespace). Benchmark only.

rx  accepts ``--flows`` connections on 198.19.0.1:5001 and counts the bytes each delivers to
    the application: bulk, those received within ``--duration`` of the senders' start; file,
    the time (CLOCK_MONOTONIC, the same clock in every namespace) at which the last byte
    arrived. Prints one JSON line. ``--quickack`` sets TCP_QUICKACK after every read.
tx  opens one connection per ``--src`` address with congestion control ``--cc``
    (setsockopt TCP_CONGESTION), sends for ``--duration`` seconds (bulk) or ``--file-bytes``
    (file), then prints one JSON line with its start time, each connect()'s offset from it
    (the SYNs' spacing), the namespace's ``nstat`` counters and each flow's own counters
    (``TCP_INFO``: retransmissions, reordering seen, cwnd, ssthresh).
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import subprocess
import sys
import time

PORT = 5001
RX_ADDR = "198.19.0.1"
CHUNK = bytes(65536)


def rx(args: argparse.Namespace) -> int:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((RX_ADDR, PORT))
    srv.listen(args.flows + 4)
    srv.settimeout(args.bound)
    sel = selectors.DefaultSelector()
    conns = []
    print("ready", flush=True)
    for _ in range(args.flows):
        c, peer = srv.accept()
        c.setblocking(False)
        rec = {"peer": peer[0], "bytes": 0, "accept_ns": time.monotonic_ns(), "last_ns": None, "eof": False}
        conns.append(rec)
        sel.register(c, selectors.EVENT_READ, rec)
    start = min(r["accept_ns"] for r in conns)
    end = time.monotonic_ns() + int(args.bound * 1e9)
    stop_count = start + int(args.duration * 1e9)
    open_conns = len(conns)
    while open_conns and time.monotonic_ns() < end:
        if args.mode == "bulk" and time.monotonic_ns() >= stop_count:
            break
        for key, _ in sel.select(timeout=0.05):
            rec = key.data
            try:
                data = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            now = time.monotonic_ns()
            if not data:
                rec["eof"] = True
                sel.unregister(key.fileobj)
                open_conns -= 1
                continue
            if args.quickack:
                # not sticky: Linux leaves quickack mode on its own, so set it after every read
                key.fileobj.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            if args.mode == "file" or now < stop_count:
                rec["bytes"] += len(data)
                rec["last_ns"] = now
    print(json.dumps({"flows": conns}), flush=True)
    return 0


def nstat() -> dict[str, int]:
    out = subprocess.run(["nstat", "-asz"], capture_output=True, text=True, timeout=10, check=True).stdout
    counters = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith("#"):
            counters[parts[0]] = int(parts[1])
    return counters


def tx(args: argparse.Namespace) -> int:
    sel = selectors.DefaultSelector()
    socks = []
    connect_ns = []
    start_ns = time.monotonic_ns()
    for src in args.src:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, args.cc.encode())
        s.bind((src, 0))
        s.setblocking(False)
        connect_ns.append(time.monotonic_ns() - start_ns)
        s.connect_ex((RX_ADDR, PORT))
        socks.append(s)
        sel.register(s, selectors.EVENT_WRITE, {"left": args.file_bytes})
    end = start_ns + int(args.duration * 1e9)
    active = len(socks)
    # --trace-s: every flow's tcp_info every 5 ms for the first seconds (cwnd, ssthresh,
    # retransmissions over time), to compare with hosim's traces
    trace: list[list[int]] = []
    trace_end = start_ns + int(args.trace_s * 1e9)
    next_sample = start_ns
    while active and time.monotonic_ns() < end:
        now = time.monotonic_ns()
        if now < trace_end and now >= next_sample:
            next_sample = now + 5_000_000
            for i, s in enumerate(socks):
                ti = _tcp_info(s)
                trace.append(
                    [(now - start_ns) // 1000, i, ti["snd_cwnd"], ti["snd_ssthresh"], ti["total_retrans"]]
                    + [ti.get("snd_wnd", 0), ti.get("rwnd_limited_us", 0)]
                )
        for key, _ in sel.select(timeout=0.005 if now < trace_end else 0.05):
            st = key.data
            n = len(CHUNK) if st["left"] is None else min(len(CHUNK), st["left"])
            try:
                sent = key.fileobj.send(CHUNK[:n])
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                sel.unregister(key.fileobj)
                active -= 1
                continue
            if st["left"] is not None:
                st["left"] -= sent
                if st["left"] == 0:
                    key.fileobj.shutdown(socket.SHUT_WR)
                    sel.unregister(key.fileobj)
                    active -= 1
    if args.file_bytes is not None:
        # wait until the data is acknowledged (bounded by --duration)
        while time.monotonic_ns() < end and any(_unacked(s) for s in socks):
            time.sleep(0.01)
    counters = nstat()
    flows = [_tcp_info(s) for s in socks]
    out = {"start_ns": start_ns, "connect_ns": connect_ns, "nstat": counters, "flows": flows}
    if trace:
        out["trace"] = trace
    print(json.dumps(out), flush=True)
    for s in socks:
        s.close()
    return 0


# struct tcp_info (include/uapi/linux/tcp.h): byte offset of each u32 kept per flow
_TCP_INFO_U32 = {
    "snd_ssthresh": 76,
    "snd_cwnd": 80,
    "reordering": 88,
    "total_retrans": 100,
    "min_rtt_us": 148,
    "dsack_dups": 216,
    "reord_seen": 220,
    "snd_wnd": 228,
}
# the u64 fields kept per flow: time (µs) the flow had data to send, and of it the time the
# receive window or the send buffer held it back (tcp_chrono_*)
_TCP_INFO_U64 = {
    "busy_time_us": 168,
    "rwnd_limited_us": 176,
    "sndbuf_limited_us": 184,
}


def _tcp_info(s: socket.socket) -> dict[str, int]:
    """A flow's own counters at the end (struct tcp_info): the per-flow side of nstat."""
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    out = {"local": s.getsockname()[0]}
    out.update({k: int.from_bytes(info[o : o + 4], "little") for k, o in _TCP_INFO_U32.items() if o + 4 <= len(info)})
    out.update({k: int.from_bytes(info[o : o + 8], "little") for k, o in _TCP_INFO_U64.items() if o + 8 <= len(info)})
    return out


def _unacked(s: socket.socket) -> bool:
    """tcpi_unacked (struct tcp_info, offset 24) is not zero."""
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return int.from_bytes(info[24:28], "little") != 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rx")
    r.add_argument("--flows", type=int, required=True)
    r.add_argument("--duration", type=float, required=True)
    r.add_argument("--bound", type=float, required=True, help="hard limit of the whole run, s")
    r.add_argument("--mode", choices=["bulk", "file"], default="bulk")
    r.add_argument("--quickack", action="store_true", help="TCP_QUICKACK after every read: no delayed ACKs")
    t = sub.add_parser("tx")
    t.add_argument("--src", nargs="+", required=True)
    t.add_argument("--cc", default="cubic")
    t.add_argument("--duration", type=float, required=True)
    t.add_argument("--file-bytes", type=int, default=None)
    t.add_argument("--trace-s", type=float, default=0.0, help="sample tcp_info every 5 ms for this long")
    args = ap.parse_args()
    return rx(args) if args.cmd == "rx" else tx(args)


if __name__ == "__main__":
    sys.exit(main())
